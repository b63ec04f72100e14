// The shape of the studio's API routes, shared by the core routes (api.ts) and the extension
// panels' routes (api-ext.ts), and the few helpers the latter borrow from the former.
import type { McpClient } from '../client/client.js';
import type { Tool } from '../protocol/types.js';
import { StudioRequestError } from './confirm.js';

export interface RouteContext {
  body: Record<string, unknown>;
  params: string[];
  query: URLSearchParams;
  /** Aborted when the page goes away before the answer. */
  signal: AbortSignal;
  /** The studio's own origin as this request reached it (`http://host:port`). */
  origin?: string;
}

export type Route = { method: 'GET' | 'POST'; path: RegExp; run(c: RouteContext): Promise<unknown> };

/** A route of the API: `path` is a regular expression source, matched whole. */
export const route = (method: Route['method'], path: string, run: Route['run']): Route => ({ method, path: new RegExp(`^${path}$`), run });

/** The prefix of a server's routes; its name is the first captured part. */
export const S = '/api/servers/([^/]+)';

/** What the extension routes borrow from the core API. */
export interface ApiHelpers {
  /** The connected client of the route's server (404 unknown, 409 not connected). */
  connected(c: RouteContext): McpClient;
  /** Runs a request to a server; its error (an answer to show) becomes `{ error }`. */
  answer(run: () => Promise<unknown>): Promise<unknown>;
  /** A tool of a server as last listed by the page. */
  tool(server: string, name: string): Tool | undefined;
}

export const badRequest = (message: string) => new StudioRequestError(400, message);

export function text(v: unknown, what: string): string {
  if (typeof v !== 'string' || v === '') throw badRequest(`${what} must be a non-empty string`);
  return v;
}

export function object(v: unknown, what: string): Record<string, unknown> {
  if (v === undefined) return {};
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw badRequest(`${what} must be a JSON object`);
  return v as Record<string, unknown>;
}
