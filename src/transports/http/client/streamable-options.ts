import type { RequestId } from '../../../jsonrpc/messages.js';
import type { Clock } from '../../../engine/clock.js';
import type { HeadersOption } from './http-common.js';
import type { ExchangeResponse } from './exchange.js';

// The Streamable HTTP client transport's options, and the bookkeeping of the SSE streams it follows.

export interface ReconnectOptions {
  /** First reconnection delay when the server sent no `retry` (ms). Default 1000. */
  initialDelayMs?: number;
  /** Upper bound of the backoff (ms); a server's `retry` is always honoured. Default 30 000. */
  maxDelayMs?: number;
  /** Reconnection attempts in a row without receiving anything before giving up. Default 2. */
  maxRetries?: number;
}

export interface StreamableHttpClientTransportOptions {
  /** The MCP endpoint. */
  url: string | URL;
  /** Extra headers for every request (authorization...); a function is called per request. */
  headers?: HeadersOption;
  /**
   * The fetch to send every request with. Default: on Node, node:http with a keep-alive agent
   * (several times cheaper per request than Node's fetch); elsewhere the global fetch.
   */
  fetch?: typeof fetch;
  reconnect?: ReconnectOptions;
  /** Where the reconnection delays are timed (default the system clock; tests pass a ManualClock). */
  clock?: Clock;
  /** Open the standalone GET stream for server-initiated messages after initialization. Default true. */
  openGetStream?: boolean;
  /** How long close() waits for the DELETE that ends the session (ms). Default 3000. */
  closeTimeoutMs?: number;
}

/** Where an SSE stream is in the server's event sequence, and what it still owes us. */
export interface Cursor {
  lastEventId?: string;
  retry?: number;
  /** Ids of the requests whose POST opened this stream (absent for the standalone stream). */
  requests?: Set<RequestId>;
  /** The session the stream belongs to: its event ids mean nothing to another session. */
  sessionId?: string;
}

export type GetOutcome = { res: ExchangeResponse } | { fatal: Error | null } | { transient: Error };
