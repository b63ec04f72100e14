// A Server Card (SEP-2127) is what a server says about itself before anyone connects; the live
// connection (`server/discover` in 2026-07-28, `initialize` in the handshake era) is what it
// does. The card is advice: these helpers fetch one and list where it and the connection differ.
import type { JsonObject } from '../jsonrpc/messages.js';
import type { RequestOptions } from '../engine/peer.js';
import type { Implementation, ServerCapabilities, Tool } from '../protocol/types.js';
import { isHandshakeVersion } from '../protocol/versions.js';
import type { ServerCard } from '../server/card.js';

/** A card as fetched: the v1 fields, and whatever an older draft or another server adds. */
export type FetchedServerCard = ServerCard & {
  /** SEP-1649-era cards listed capabilities; v1 leaves them to the connection. */
  capabilities?: ServerCapabilities;
  /** SEP-1649-era cards listed tools (or `"dynamic"`); v1 leaves them to `tools/list`. */
  tools?: Array<string | { name: string }> | 'dynamic';
};

/** One point where the card and the connection disagree. */
export interface CardDifference {
  field: 'name' | 'version' | 'title' | 'description' | 'websiteUrl' | 'remote' | 'protocolVersions' | 'capabilities' | 'tools';
  /** What the card says (for lists: what only the card has). */
  card: unknown;
  /** What the connection says (for lists: what only the server has). */
  server: unknown;
  message: string;
}

export interface ServerCardCheck {
  /** No difference found. */
  matches: boolean;
  differences: CardDifference[];
  /** What was compared against: `server/discover` (2026-07-28) or the `initialize` result. */
  source: 'server/discover' | 'initialize';
}

/** What the check needs of a client (an `McpClient`). */
export interface CardCheckClient {
  readonly era: 'modern' | 'handshake' | undefined;
  readonly protocolVersion: string | undefined;
  readonly serverInfo: Implementation | undefined;
  readonly serverCapabilities: ServerCapabilities | undefined;
  request(method: string, params?: JsonObject, options?: RequestOptions): Promise<JsonObject>;
  listAllTools(options?: RequestOptions): Promise<Tool[]>;
}

export interface CheckServerCardOptions extends RequestOptions {
  /** The endpoint the client is connected to: the card must list it among its `remotes`. */
  url?: string | URL;
}

/**
 * Compares `card` with what the connected server reports: name, version, title, description
 * and website (those both state), the protocol versions of the card's remote for this endpoint
 * against `server/discover`'s `supportedVersions` (2026-07-28; the handshake era knows only the
 * negotiated revision, which the card must list), and, when the card carries them (older
 * drafts), capabilities and tool names against the connection and `tools/list`.
 */
export async function checkServerCard(client: CardCheckClient, card: FetchedServerCard, options: CheckServerCardOptions = {}): Promise<ServerCardCheck> {
  const { url, ...requestOptions } = options;
  const differences: CardDifference[] = [];
  const differ = (field: CardDifference['field'], cardValue: unknown, serverValue: unknown, message: string) =>
    differences.push({ field, card: cardValue, server: serverValue, message });

  let info = client.serverInfo;
  let capabilities = client.serverCapabilities;
  let supported: string[] | undefined;
  const modern = client.era === 'modern';
  if (modern) {
    // Asked again rather than remembered: the card is compared with what the server says now.
    const discover = await client.request('server/discover', {}, requestOptions);
    info = (discover.serverInfo as unknown as Implementation | undefined) ?? info;
    capabilities = (discover.capabilities as ServerCapabilities | undefined) ?? capabilities;
    if (Array.isArray(discover.supportedVersions)) supported = discover.supportedVersions.filter((v): v is string => typeof v === 'string');
  }
  const source = modern ? 'server/discover' : 'initialize';

  for (const field of ['name', 'version', 'title', 'description', 'websiteUrl'] as const) {
    const c = card[field];
    const s = (info as unknown as Record<string, unknown> | undefined)?.[field];
    // name and version are required on both sides; the others are compared where both state them.
    const required = field === 'name' || field === 'version';
    if (c === s || (!required && (c === undefined || s === undefined))) continue;
    differ(field, c, s, `The card's ${field} is ${show(c)}, ${source} says ${show(s)}`);
  }

  const remotes = Array.isArray(card.remotes) ? card.remotes : [];
  const want = url === undefined ? undefined : sameUrl(String(url));
  const remote = want ? remotes.find((r) => sameUrl(r.url) === want) : (remotes.find((r) => r.type === 'streamable-http') ?? remotes[0]);
  if (want && !remote)
    differ(
      'remote',
      remotes.map((r) => r.url),
      String(url),
      `The card lists no remote at ${String(url)} (it lists ${remotes.map((r) => r.url).join(', ') || 'none'})`,
    );
  const listed = remote?.supportedProtocolVersions;
  if (listed) {
    if (supported) {
      const missing = supported.filter((v) => !listed.includes(v));
      // The card lists handshake revisions too, which server/discover does not: only its 2026+ ones must be there.
      const extra = listed.filter((v) => !isHandshakeVersion(v) && !supported.includes(v));
      if (missing.length > 0 || extra.length > 0)
        differ(
          'protocolVersions',
          extra,
          missing,
          [
            missing.length > 0 ? `server/discover supports ${missing.join(', ')}, which the card does not list` : '',
            extra.length > 0 ? `the card lists ${extra.join(', ')}, which server/discover does not support` : '',
          ]
            .filter(Boolean)
            .join('; '),
        );
    } else if (client.protocolVersion !== undefined && !listed.includes(client.protocolVersion)) {
      differ('protocolVersions', listed, client.protocolVersion, `The connection negotiated ${client.protocolVersion}, which the card does not list`);
    }
  }

  if (card.capabilities && typeof card.capabilities === 'object') {
    const have = capabilityKeys(capabilities ?? {});
    const said = capabilityKeys(card.capabilities);
    const onlyCard = said.filter((k) => !have.includes(k));
    const onlyServer = have.filter((k) => !said.includes(k));
    if (onlyCard.length > 0 || onlyServer.length > 0)
      differ(
        'capabilities',
        onlyCard,
        onlyServer,
        `Capabilities differ: only in the card [${onlyCard.join(', ')}], only in ${source} [${onlyServer.join(', ')}]`,
      );
  }

  if (Array.isArray(card.tools)) {
    const said = card.tools.map((t) => (typeof t === 'string' ? t : t?.name)).filter((n): n is string => typeof n === 'string');
    const have = capabilities?.tools ? (await client.listAllTools(requestOptions)).map((t) => t.name) : [];
    const onlyCard = said.filter((n) => !have.includes(n));
    const onlyServer = have.filter((n) => !said.includes(n));
    if (onlyCard.length > 0 || onlyServer.length > 0)
      differ('tools', onlyCard, onlyServer, `Tools differ: only in the card [${onlyCard.join(', ')}], only in tools/list [${onlyServer.join(', ')}]`);
  }

  return { matches: differences.length === 0, differences, source };
}

export interface FetchServerCardOptions {
  fetch?: typeof fetch;
  signal?: AbortSignal;
}

/**
 * Fetches the Server Card of the MCP endpoint `mcpUrl`: `<mcp-url>/server-card` (the current
 * draft's location), then `/.well-known/mcp/server-card.json` (earlier drafts). Throws when
 * neither serves a card (a document with a string `name` and `version`).
 */
export async function fetchServerCard(mcpUrl: string | URL, options: FetchServerCardOptions = {}): Promise<FetchedServerCard> {
  const doFetch = options.fetch ?? fetch;
  const base = new URL(String(mcpUrl));
  const endpoint = new URL(base.href);
  endpoint.pathname = `${endpoint.pathname.replace(/\/+$/, '')}/server-card`;
  endpoint.search = '';
  const tried: string[] = [];
  for (const at of [endpoint, new URL('/.well-known/mcp/server-card.json', base)]) {
    const res = await doFetch(at, { headers: { accept: 'application/mcp-server-card+json, application/json' }, signal: options.signal });
    if (!res.ok) {
      await res.body?.cancel();
      tried.push(`${at.href}: HTTP ${res.status}`);
      continue;
    }
    let body: unknown;
    try {
      body = await res.json();
    } catch {
      tried.push(`${at.href}: not JSON`);
      continue;
    }
    const card = body as Partial<FetchedServerCard> | null;
    if (card && typeof card === 'object' && typeof card.name === 'string' && typeof card.version === 'string') return card as FetchedServerCard;
    tried.push(`${at.href}: not a server card (no "name" and "version")`);
  }
  throw new Error(`No Server Card for ${base.href} (${tried.join('; ')})`);
}

function capabilityKeys(caps: ServerCapabilities): string[] {
  const keys = Object.keys(caps).filter((k) => k !== 'extensions' && k !== 'experimental');
  for (const id of Object.keys(caps.extensions ?? {})) keys.push(`extensions.${id}`);
  return keys.sort();
}

/** URLs compared as URLs: `http://h:80/mcp/` and `http://h/mcp` are one endpoint. */
function sameUrl(u: string): string {
  try {
    const x = new URL(u);
    return `${x.protocol}//${x.host}${x.pathname.replace(/\/+$/, '')}${x.search}`;
  } catch {
    return u;
  }
}

function show(v: unknown): string {
  return v === undefined ? 'nothing' : JSON.stringify(v);
}
