import { LocalError, McpError } from '../jsonrpc/errors.js';

/** An error of a server (or of the client on its behalf) as the page shows it. */
export function errorOf(err: unknown): { code?: number; message: string; data?: unknown } {
  if (err instanceof McpError) return { code: err.code, message: err.message, ...(err.data !== undefined ? { data: err.data } : {}) };
  if (err instanceof LocalError) return { message: err.message };
  return { message: err instanceof Error ? err.message : String(err) };
}
