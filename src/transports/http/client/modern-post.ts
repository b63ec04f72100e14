import { IdTable } from '../../../engine/id-table.js';
import type { JsonObject, JsonRpcErrorObject, JsonRpcMessage, JsonRpcNotification, JsonRpcRequest, RequestId } from '../../../jsonrpc/messages.js';
import { encodeWithEnvelope } from '../../../protocol/envelope-text.js';
import { encodeHeaderValue, nameParamOf } from '../../../protocol/headers.js';
import { META } from '../../../protocol/modern.js';
import { Cancel, type ExchangeResponse, type HttpExchange } from './exchange.js';
import { bodyText, buildHeaders, HttpStatusError, isAbort, mediaType, mergeHeaders, networkError, type HeadersOption } from './http-common.js';

/** What the 2026-07-28 POST path borrows from the transport that owns it. */
export interface ModernPostHost {
  readonly url: URL;
  readonly exchange: HttpExchange;
  readonly userHeaders: HeadersOption | undefined;
  /** Aborted when the transport closes: every request in flight ends with it. */
  readonly closed: Cancel;
  /** Hands one JSON-RPC frame (text) up to the engine. */
  deliver(text: string): void;
  /** Tells the engine a request can no longer be answered. */
  lose(id: RequestId, error: Error): void;
  report(error: Error): void;
}

const ACCEPT_BOTH = 'application/json, text/event-stream';

/** What an era probe got back, raw, for the client to judge (see {@link ModernPoster.probe}). */
export interface ProbeAnswer {
  /** The HTTP status; 0 when nothing came back in time. */
  status: number;
  /** The JSON-RPC response found in the body (a JSON-RPC error body with a null id counts). */
  response?: { result?: JsonObject; error?: JsonRpcErrorObject };
  /** The failure as an error to throw, for a non-2xx status. */
  error?: HttpStatusError;
}

/**
 * The 2026-07-28 shape of Streamable HTTP, client side: every request is its own POST with the
 * routing headers mirrored from the body; no session, no GET stream, no resumption. Closing a
 * request's response stream is how it is cancelled, so each request has its own AbortController
 * and `notifications/cancelled` for it becomes an abort instead of a POST.
 */
export class ModernPoster {
  private readonly inflight = new IdTable<Cancel>();

  constructor(private readonly host: ModernPostHost) {
    // Closing the transport aborts every request in flight through its own Cancel: one
    // listener here rather than an AbortSignal.any per request (costly on Node).
    host.closed.addEventListener('abort', () => {
      for (const [, ctl] of this.inflight.entries()) ctl.abort(host.closed.reason);
    });
  }

  /** Aborts a request's POST (its cancellation). False when it is not one of ours in flight. */
  cancel(id: RequestId | undefined, reason: string): boolean {
    if (id === undefined) return false;
    const ctl = this.inflight.get(id);
    if (!ctl) return false;
    this.inflight.delete(id);
    ctl.abort(new Error(reason));
    return true;
  }

  /**
   * POSTs one 2026-07-28 message. Resolves once the answer is under way: a JSON body has been
   * delivered, or an SSE stream is being read (its messages are delivered as they come).
   */
  async post(message: JsonRpcMessage, extra: Record<string, string> | undefined): Promise<void> {
    if (!('method' in message)) throw new Error('2026-07-28 clients never send responses');
    const id = 'id' in message ? message.id : undefined;
    const url = this.host.url.href;
    const closed = this.host.closed;
    // A request has its own controller (cancelling it aborts its POST), which closing the
    // transport aborts too (see the constructor); a notification only ends with the transport.
    let ctl: Cancel | undefined;
    if (id !== undefined) {
      if (closed.aborted) throw new Error('Cannot send: StreamableHttpClientTransport was closed', { cause: closed.reason });
      ctl = new Cancel();
      this.inflight.set(id, ctl);
    }
    const signal = ctl ?? closed;
    const done = () => {
      if (id !== undefined && this.inflight.get(id) === ctl) this.inflight.delete(id);
    };
    let res: ExchangeResponse;
    try {
      const own = routingHeaders(message);
      own['content-type'] = 'application/json';
      own.accept = ACCEPT_BOTH;
      // Per-message headers (Mcp-Param-* mirrors, lower-case) under the transport's own, which win.
      const all = extra ? Object.assign({}, extra, own) : own;
      const user = this.host.userHeaders;
      const headers = typeof user === 'function' ? mergeHeaders(await user(), all) : mergeHeaders(user, all);
      res = await this.host.exchange('POST', this.host.url, headers, encodeWithEnvelope(message), signal);
    } catch (err) {
      done();
      // Cancelled by the caller: the engine has already settled the request.
      if (ctl?.aborted && !closed.aborted) return;
      if (isAbort(err, closed)) throw new Error('Cannot send: StreamableHttpClientTransport was closed', { cause: err });
      throw networkError('POST', url, err);
    }
    if (!res.ok) {
      done();
      const body = await bodyText(res);
      // A JSON-RPC error naming this request is its answer (-32602 at 400, -32601 at 404...):
      // the caller gets the McpError, as on any other transport.
      if (id !== undefined && answers(body, id)) return this.host.deliver(body);
      throw new HttpStatusError('POST', url, res.status, res.statusText, body, res.headers);
    }
    const type = mediaType(res);
    if (id === undefined || res.status === 202 || !res.hasBody) {
      done();
      res.discard();
      if (id !== undefined)
        throw new HttpStatusError(
          'POST',
          url,
          res.status,
          res.statusText,
          '',
          res.headers,
          `POST ${url} answered ${res.status} without a body: request ${JSON.stringify(id)} gets no response`,
        );
      return;
    }
    if (type === 'application/json') {
      // All of it is usually here already: delivered without a promise of its own.
      const now = res.textNow?.();
      if (now !== undefined) {
        done();
        return ctl!.aborted ? undefined : this.host.deliver(now);
      }
      const text = await bodyText(res).finally(done);
      if (ctl!.aborted) return;
      return this.host.deliver(text);
    }
    if (type === 'text/event-stream') {
      void this.follow(res, id, ctl!).finally(done);
      return;
    }
    done();
    res.discard();
    throw new HttpStatusError(
      'POST',
      url,
      res.status,
      res.statusText,
      '',
      res.headers,
      `POST ${url} answered with unexpected content type ${JSON.stringify(type)} (expected application/json or text/event-stream)`,
    );
  }

  /**
   * Sends one request outside the engine and returns whatever came back, delivering nothing:
   * era detection needs the HTTP status and body, which the engine never sees. Network
   * failures throw; no answer within `timeoutMs` is status 0.
   */
  async probe(message: JsonRpcRequest, timeoutMs: number): Promise<ProbeAnswer> {
    const url = this.host.url.href;
    // A timer that keeps the process alive (AbortSignal.timeout's does not): a script waiting on
    // connect() must get its timeout error, not exit silently.
    const timer = new AbortController();
    const handle = setTimeout(() => timer.abort(new Error('probe timed out')), timeoutMs);
    const timeout = timer.signal;
    const signal = AbortSignal.any([timeout, this.host.closed.signal]);
    try {
      return await this.probeWith(message, url, timeout, signal);
    } finally {
      clearTimeout(handle);
    }
  }

  private async probeWith(message: JsonRpcRequest, url: string, timeout: AbortSignal, signal: AbortSignal): Promise<ProbeAnswer> {
    let res: ExchangeResponse;
    try {
      const own = routingHeaders(message);
      own['content-type'] = 'application/json';
      own.accept = ACCEPT_BOTH;
      const headers = await buildHeaders(this.host.userHeaders, own);
      res = await this.host.exchange('POST', this.host.url, headers, encodeWithEnvelope(message), signal);
    } catch (err) {
      if (this.host.closed.aborted) throw new Error('Cannot send: StreamableHttpClientTransport was closed', { cause: err });
      if (timeout.aborted) return { status: 0 };
      throw networkError('POST', url, err);
    }
    if (!res.ok) {
      const body = await bodyText(res);
      return {
        status: res.status,
        response: responseIn(body, undefined),
        error: new HttpStatusError('POST', url, res.status, res.statusText, body, res.headers),
      };
    }
    const type = mediaType(res);
    if (type === 'application/json') return { status: res.status, response: responseIn(await bodyText(res), message.id) };
    if (type === 'text/event-stream' && res.hasBody) {
      try {
        for await (const ev of res.events()) {
          const response = ev.event === 'message' ? responseIn(ev.data, message.id) : undefined;
          if (response) return { status: res.status, response };
        }
      } catch {
        // A broken stream is just "no answer".
      }
      return { status: timeout.aborted ? 0 : res.status };
    }
    res.discard();
    return { status: res.status };
  }

  /** Reads a request's SSE answer until its response; a stream that ends first loses it. */
  private async follow(res: ExchangeResponse, id: RequestId, ctl: Cancel): Promise<void> {
    let why = '';
    try {
      for await (const ev of res.events()) {
        if (ev.event !== 'message' || ev.data === '') continue;
        this.host.deliver(ev.data);
        if (answers(ev.data, id)) return;
      }
    } catch (err) {
      why = err instanceof Error ? ` (${err.message})` : '';
    }
    if (ctl.aborted || this.host.closed.aborted) return;
    // No resumption in this era: the caller has to send the request again, with a new id.
    this.host.lose(
      id,
      new Error(
        `The SSE stream answering request ${JSON.stringify(id)} ended before its response arrived${why}; 2026-07-28 streams cannot be resumed, send the request again`,
      ),
    );
  }
}

/** `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name`, mirrored from the body (SEP-2243). */
function routingHeaders(m: JsonRpcRequest | JsonRpcNotification): Record<string, string> {
  const out: Record<string, string> = {
    'mcp-protocol-version': String((m.params!._meta as Record<string, unknown>)[META.protocolVersion]),
    'mcp-method': m.method,
  };
  const key = nameParamOf(m.method);
  const value = key ? m.params?.[key] : undefined;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') out['mcp-name'] = encodeHeaderValue(value);
  return out;
}

/** Whether a frame is the response (result or error) to request `id`. */
function answers(text: string, id: RequestId): boolean {
  try {
    const v = JSON.parse(text) as { id?: unknown; method?: unknown; result?: unknown; error?: unknown };
    return !!v && typeof v === 'object' && v.method === undefined && v.id === id && (v.result !== undefined || v.error !== undefined);
  } catch {
    return false;
  }
}

/**
 * The JSON-RPC response in a body: the one for `id`, or (id undefined) any JSON-RPC 2.0
 * response, including an error with a null id, which is how servers refuse before reading ids.
 */
function responseIn(text: string, id: RequestId | undefined): ProbeAnswer['response'] {
  try {
    const v = JSON.parse(text) as { jsonrpc?: unknown; id?: unknown; method?: unknown; result?: unknown; error?: unknown };
    if (!v || typeof v !== 'object' || v.jsonrpc !== '2.0' || v.method !== undefined) return undefined;
    if (id !== undefined && v.id !== id) return undefined;
    if (v.error && typeof v.error === 'object' && typeof (v.error as { code?: unknown }).code === 'number') return { error: v.error as JsonRpcErrorObject };
    if (v.result && typeof v.result === 'object') return { result: v.result as JsonObject };
    return undefined;
  } catch {
    return undefined;
  }
}
