import type { JsonRpcErrorObject } from './messages.js';

/** Error codes from JSON-RPC 2.0 and every MCP revision (spec checklist §2.3). */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** Legacy era (≤ 2025-11-25) resource-not-found. */
  ResourceNotFound: -32002,
  /** 2025-11-25 only. */
  UrlElicitationRequired: -32042,
  /** 2026-07-28. */
  HeaderMismatch: -32020,
  MissingRequiredClientCapability: -32021,
  UnsupportedProtocolVersion: -32022,
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/**
 * An error that travels over the wire as a JSON-RPC error object. Throw it from a handler to
 * answer with exactly this code/message/data; any other exception becomes -32603.
 */
export class McpError extends Error {
  readonly code: number;
  readonly data?: unknown;
  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = 'McpError';
    this.code = code;
    if (data !== undefined) this.data = data;
  }
  toJSON(): JsonRpcErrorObject {
    return this.data === undefined ? { code: this.code, message: this.message } : { code: this.code, message: this.message, data: this.data };
  }
  static fromObject(e: JsonRpcErrorObject): McpError {
    return new McpError(e.code, e.message, e.data);
  }
}

/**
 * A failure that happened on this side (timeout, closed connection, aborted by the caller, the
 * server not reachable: `network`). Kept distinct from McpError so a local problem never looks
 * like an answer from the peer.
 */
export class LocalError extends Error {
  readonly kind: 'timeout' | 'closed' | 'aborted' | 'protocol' | 'capability' | 'network';
  constructor(kind: LocalError['kind'], message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'LocalError';
    this.kind = kind;
  }
}

export function toErrorObject(err: unknown): JsonRpcErrorObject {
  if (err instanceof McpError) return err.toJSON();
  const message = err instanceof Error ? err.message : String(err);
  return { code: ErrorCode.InternalError, message: message || 'Internal error' };
}
