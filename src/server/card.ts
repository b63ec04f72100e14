/**
 * MCP Server Cards (SEP-2127, the experimental `experimental-ext-server-card` extension): a static
 * document that says who a remote server is and how to reach it, read before connecting. Built
 * from the server definition, so it cannot drift from what `server/discover` answers.
 */
import type { JsonObject } from '../jsonrpc/messages.js';
import type { Icon } from '../protocol/types.js';
import type { ServerPort } from './server.js';

export const SERVER_CARD_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json';
export const SERVER_CARD_MEDIA_TYPE = 'application/mcp-server-card+json';
/** The card's (and the MCP Registry's) name rule: reverse-DNS namespace, one slash, server name. */
export const REVERSE_DNS_NAME = /^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/;

export interface CardInput {
  description?: string;
  isRequired?: boolean;
  isSecret?: boolean;
  format?: 'string' | 'number' | 'boolean' | 'filepath';
  default?: string;
  placeholder?: string;
  value?: string;
  choices?: string[];
}

export interface CardHeader extends CardInput {
  name: string;
  variables?: Record<string, CardInput>;
}

export interface CardRemote {
  type: 'streamable-http' | 'sse';
  url: string;
  headers?: CardHeader[];
  variables?: Record<string, CardInput>;
  supportedProtocolVersions?: string[];
}

export interface CardRepository {
  url: string;
  source: string;
  subfolder?: string;
  id?: string;
}

export interface ServerCard {
  $schema: string;
  name: string;
  version: string;
  description: string;
  title?: string;
  websiteUrl?: string;
  repository?: CardRepository;
  icons?: Icon[];
  remotes?: CardRemote[];
  _meta?: JsonObject;
}

/** What the server definition does not say, or what a card should say differently. */
export interface ServerCardOptions {
  /**
   * The card's name, reverse-DNS (`io.github.you/weather`, `com.example/weather`). Default: the
   * server's own name when it has that form. Use the name the server is published under in the
   * MCP Registry.
   */
  name?: string;
  /** Default: the server's `description` (1 to 100 characters). */
  description?: string;
  repository?: CardRepository;
  /** Headers a client must or may send (an API key...), put on every remote of the card. */
  headers?: CardHeader[];
  /** The card's `_meta` (vendor data, reverse-DNS keys). */
  _meta?: JsonObject;
}

function fail(message: string): never {
  throw new TypeError(`server card: ${message}`);
}

/** The name and description a card (or a server.json) needs, checked against the schema's rules. */
export function cardIdentity(server: ServerPort, options: Pick<ServerCardOptions, 'name' | 'description'> = {}): { name: string; description: string } {
  const info = server.info;
  const name = options.name ?? info.name;
  if (!REVERSE_DNS_NAME.test(name) || name.length > 200) {
    fail(
      options.name === undefined
        ? `the server's name "${info.name}" is not reverse-DNS; give the card a name such as "io.github.you/${info.name.replace(/[^a-zA-Z0-9._-]/g, '-')}"`
        : `the name "${name}" is not reverse-DNS (namespace/name, e.g. "io.github.you/weather")`,
    );
  }
  const description = options.description ?? info.description;
  if (description === undefined || description.length === 0)
    fail('a card needs a description: set "description" on the server (or on the card), at most 100 characters');
  if (description.length > 100) fail(`the description has ${description.length} characters; a card allows 100 (give the card a shorter one)`);
  return { name, description };
}

/**
 * The protocol versions an HTTP endpoint of `server` speaks: the 2026-07-28 era's (what
 * `server/discover` lists as `supportedVersions`) first, then the handshake revisions. The legacy
 * HTTP+SSE transport has only the handshake era.
 */
export function endpointVersions(server: ServerPort, type: CardRemote['type']): string[] {
  const modern = type === 'streamable-http' && server.modern ? server.modern.versions : [];
  return [...modern, ...server.versions];
}

/** The Server Card of `server`, with the given remotes (none for a server not served over HTTP). */
export function buildServerCard(server: ServerPort, options: ServerCardOptions = {}, remotes: readonly CardRemote[] = []): ServerCard {
  const { name, description } = cardIdentity(server, options);
  const info = server.info;
  const card: ServerCard = { $schema: SERVER_CARD_SCHEMA, name, version: info.version, description };
  if (info.title !== undefined) card.title = info.title;
  if (info.websiteUrl !== undefined) card.websiteUrl = info.websiteUrl;
  if (options.repository !== undefined) card.repository = options.repository;
  if (info.icons !== undefined && info.icons.length > 0) card.icons = info.icons;
  if (remotes.length > 0) card.remotes = remotes.map((r) => (options.headers && !r.headers ? { ...r, headers: options.headers } : r));
  if (options._meta !== undefined) card._meta = options._meta;
  return card;
}
