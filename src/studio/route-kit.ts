// What the API's routes are made of (the routes of api.ts and of the panels added beside it):
// a method and a path pattern, a function of the request's context, and the checks of its body.
import { StudioRequestError } from './confirm.js';

export interface RouteContext {
  body: Record<string, unknown>;
  params: string[];
  query: URLSearchParams;
  /** Aborted when the page goes away before the answer. */
  signal: AbortSignal;
}

export type Route = { method: 'GET' | 'POST'; path: RegExp; run(c: RouteContext): Promise<unknown> };

/** A route; `path` is a regular expression source matched whole, its groups the params. */
export function route(method: Route['method'], path: string, run: Route['run']): Route {
  return { method, path: new RegExp(`^${path}$`), run };
}

export const SERVER_PATH = '/api/servers/([^/]+)';

export const bad = (message: string) => new StudioRequestError(400, message);

export function text(v: unknown, what: string): string {
  if (typeof v !== 'string' || v === '') throw bad(`${what} must be a non-empty string`);
  return v;
}

export function object(v: unknown, what: string): Record<string, unknown> {
  if (v === undefined) return {};
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw bad(`${what} must be a JSON object`);
  return v as Record<string, unknown>;
}

export function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
