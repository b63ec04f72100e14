/**
 * The one seam between the HTTP client transports and the HTTP stack under them: send a request
 * (method, URL, headers, body, abort signal), get the status, the headers and either the whole body as text
 * (JSON) or its SSE events. Two implementations: `fetch` (every runtime, and whenever the caller
 * passes their own `fetch`), and node:http with a keep-alive agent on Node, where `fetch` costs
 * several times what the call behind it costs (./node-exchange.ts). Both behave the same for the
 * transports: the same redirects, the same errors ("fetch failed" with the cause), the same abort.
 */
import { LightSignal as Cancel } from '../../../engine/light-signal.js';
import { readSseStream, type SseEvent } from '../sse.js';

/** What aborts a request, and the reading of its body. */
export type AbortInput = AbortSignal | Cancel | undefined;

/**
 * What the transports abort their requests with: the surface of an AbortSignal without an
 * EventTarget (see engine/light-signal.ts); the real AbortSignal that fetch needs is made from
 * it when asked for (`signal`), once.
 */
export { Cancel };

/** The answer, once its head has arrived. Its body must be read, or discarded. */
export interface ExchangeResponse {
  readonly status: number;
  readonly statusText: string;
  /** 2xx. */
  readonly ok: boolean;
  /** False for statuses that never have a body (204, 304...): fetch's `res.body === null`. */
  readonly hasBody: boolean;
  /** One header (lower-case name), or null. */
  header(name: string): string | null;
  /** Every header, as the `Headers` an HttpStatusError carries. */
  readonly headers: Headers;
  /** The whole body as text (UTF-8). Rejects when the body cannot be read to its end. */
  text(): Promise<string>;
  /**
   * The whole body as text when all of it has already arrived (the usual small JSON answer, in
   * the packet that carried the head), else undefined: a caller reads it with no promise at all.
   */
  textNow?(): string | undefined;
  /**
   * The body read as an SSE stream. Ends quietly when the request's signal aborts; a broken
   * connection is thrown from the iterator. Leaving the loop early drops the stream.
   */
  events(): AsyncGenerator<SseEvent, void, undefined>;
  /** Drops a body that will not be read. */
  discard(): void;
}

/**
 * Sends one request (header names lower-case) and resolves once the answer's head has arrived.
 * Positional arguments rather than a request object: nothing per request that V8 could pretenure
 * (see Pending in engine/pending.ts) and that would then keep the signal and everything behind it
 * alive through scavenges.
 */
export type HttpExchange = (
  method: 'GET' | 'POST' | 'DELETE',
  url: URL,
  headers: Record<string, string>,
  body: string | undefined,
  signal: AbortInput,
) => Promise<ExchangeResponse>;

/** The exchange over a `fetch` function. */
export function fetchExchange(f: typeof fetch): HttpExchange {
  return async (method, url, headers, body, abort) => {
    const signal = abort instanceof Cancel ? abort.signal : abort;
    const init: RequestInit = { method, headers: new Headers(headers), signal };
    if (body !== undefined) init.body = body;
    const res = await f(url, init);
    return {
      status: res.status,
      statusText: res.statusText,
      ok: res.ok,
      hasBody: res.body !== null,
      headers: res.headers,
      header: (name) => res.headers.get(name),
      text: () => res.text(),
      events: () => readSseStream(res.body!, { signal }),
      discard: () => void res.body?.cancel().catch(() => {}),
    };
  };
}
