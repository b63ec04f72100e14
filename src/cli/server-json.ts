// server.json for the MCP Registry (schema 2025-12-11), built from the same server definition as
// the Server Card: the registry's name rules are the card's, plus packages[] for local installs.
import { cardIdentity, type CardRepository } from '../server/card.js';
import type { Server } from '../server/server.js';

export const SERVER_JSON_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json';

export interface ServerJsonOptions {
  name?: string;
  description?: string;
  repository?: CardRepository;
  /** An npm package that runs the server over stdio (`npx PACKAGE`). */
  npmPackage?: string;
  /** Its version; default the server's version. */
  packageVersion?: string;
  /** The public URL of the server's Streamable HTTP endpoint. */
  url?: string;
}

/** A server.json document; `mcpName` is what the npm package.json must carry to prove ownership. */
export function buildServerJson(server: Server, o: ServerJsonOptions): Record<string, unknown> {
  const { name, description } = cardIdentity(server, o);
  const info = server.info;
  const doc: Record<string, unknown> = { $schema: SERVER_JSON_SCHEMA, name, description, version: info.version };
  // The registry allows 100 characters; a longer title is left out rather than cut.
  if (info.title !== undefined && info.title.length <= 100) doc.title = info.title;
  if (info.websiteUrl !== undefined) doc.websiteUrl = info.websiteUrl;
  if (o.repository !== undefined) doc.repository = o.repository;
  if (info.icons !== undefined && info.icons.length > 0) doc.icons = info.icons;
  if (o.npmPackage !== undefined)
    doc.packages = [{ registryType: 'npm', identifier: o.npmPackage, version: o.packageVersion ?? info.version, transport: { type: 'stdio' } }];
  if (o.url !== undefined) doc.remotes = [{ type: 'streamable-http', url: o.url }];
  return doc;
}
