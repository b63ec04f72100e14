import { encodeMessage } from '../../../jsonrpc/codec.js';
import type { JsonRpcMessage, JsonRpcRequest, RequestId } from '../../../jsonrpc/messages.js';
import type { SendOptions, Transport } from '../../../engine/transport.js';
import { Cancel, type ExchangeResponse, type HttpExchange } from './exchange.js';
import { pickExchange } from './pick-exchange.js';
import { bodyText, mergeHeaders, HttpStatusError, isAbort, mediaType, networkError, pause } from './http-common.js';
import { credentialDigest, isIdentifiedError, SessionExpiredError, expiredSessionError } from './http-common.js';
import { ModernPoster, type ProbeAnswer } from './modern-post.js';
import type { Cursor, GetOutcome, StreamableHttpClientTransportOptions } from './streamable-options.js';

export type { ReconnectOptions, StreamableHttpClientTransportOptions } from './streamable-options.js';

const ACCEPT_BOTH = 'application/json, text/event-stream';

/**
 * Client side of the Streamable HTTP transport (protocol 2025-03-26 to 2025-11-25): each
 * message is POSTed; answers come back as JSON or as an SSE stream, which is resumed with
 * GET + Last-Event-ID when it drops; a standalone GET stream carries server-initiated messages.
 *
 * Messages sent with `{ era: 'modern' }` (the caller knows a 2026-07-28 message; this transport
 * does not look inside it) take the stateless path instead ({@link ModernPoster}): routing
 * headers, no session, no resumption, and cancellation by aborting the request's POST.
 *
 * A request whose answer can no longer arrive (its stream dropped and cannot be resumed) is
 * reported through `onrequestlost`, so the caller fails at once instead of at its timeout.
 * Once the server has answered 404 for the session, every send except `initialize` fails
 * with {@link SessionExpiredError} without reaching the network, until a new initialize.
 */
export class StreamableHttpClientTransport implements Transport {
  get kind(): 'http' {
    return 'http';
  }
  onmessage?: Transport['onmessage'];
  onclose?: Transport['onclose'];
  onerror?: Transport['onerror'];
  onrequestlost?: Transport['onrequestlost'];

  readonly url: URL;
  private readonly options: StreamableHttpClientTransportOptions;
  private readonly exchange: HttpExchange;
  private readonly abort = new Cancel();
  private _sessionId: string | undefined;
  private _protocolVersion: string | undefined;
  /** The session the server ended (404), until the next initialize starts a new one. */
  private expiredSession: string | undefined;
  /** Ids of initialize requests in flight: their result carries the negotiated version. */
  private readonly initIds = new Set<RequestId>();
  /** Requests sent and not yet answered (on whichever stream) nor cancelled. */
  private readonly awaiting = new Set<RequestId>();
  private started = false;
  private closed = false;
  private closing: Promise<void> | undefined;
  private getStreamRunning = false;
  private readonly modern: ModernPoster;

  constructor(options: StreamableHttpClientTransportOptions) {
    this.options = options;
    this.url = new URL(options.url);
    this.exchange = pickExchange(this.url, options.fetch);
    this.modern = new ModernPoster({
      url: this.url,
      exchange: this.exchange,
      userHeaders: options.headers,
      closed: this.abort,
      // 2026-07-28 requests never enter the session bookkeeping deliver() keeps.
      deliver: (text) => this.emit(text),
      lose: (id, error) => this.lose([id], error, true),
      report: (error) => this.report(error),
    });
  }

  /** A digest of the credential headers sent (undefined: none), to file private cache entries. */
  credentialKey(): Promise<string | undefined> {
    return credentialDigest(this.options.headers);
  }

  /**
   * POSTs a 2026-07-28 request outside the engine and returns the raw answer undelivered: era
   * detection needs the HTTP status and body, which the engine never sees.
   */
  probe(message: JsonRpcRequest, timeoutMs: number): Promise<ProbeAnswer> {
    if (this.closed) return Promise.reject(new Error('Cannot send: StreamableHttpClientTransport is closed'));
    return this.modern.probe(message, timeoutMs);
  }

  /** The session the server assigned at initialize (undefined before, or after it expired). */
  get sessionId(): string | undefined {
    return this._sessionId;
  }

  /** The protocol version negotiated by the initialize exchange that passed through. */
  get protocolVersion(): string | undefined {
    return this._protocolVersion;
  }

  /** Sets the version sent in MCP-Protocol-Version (normally learned from initialize). */
  setProtocolVersion(version: string): void {
    this._protocolVersion = version;
  }

  async start(): Promise<void> {
    if (this.started) throw new Error('StreamableHttpClientTransport already started');
    if (this.closed) throw new Error('StreamableHttpClientTransport is closed');
    this.started = true;
  }

  send(message: JsonRpcMessage | JsonRpcMessage[], options?: SendOptions): Promise<void> {
    // A 2026-07-28 request: its POST's own promise, not an async frame's (a promise and two hops).
    const modern = !this.closed && options?.era === 'modern' && !Array.isArray(message) && 'id' in message && 'method' in message;
    return modern ? this.modern.post(message as JsonRpcRequest, options.headers) : this.sendAny(message, options);
  }

  private async sendAny(message: JsonRpcMessage | JsonRpcMessage[], options?: SendOptions): Promise<void> {
    if (this.closed) throw new Error('Cannot send: StreamableHttpClientTransport is closed');
    if (!Array.isArray(message)) {
      const modern = options?.era === 'modern';
      // 2026-07-28: cancelling = closing that request's stream, never a POST (a modern
      // cancellation for a request no longer in flight has nothing left to do).
      if (
        'method' in message &&
        message.method === 'notifications/cancelled' &&
        (this.modern.cancel(message.params?.requestId as RequestId | undefined, String(message.params?.reason ?? 'cancelled')) || modern)
      )
        return;
      if (modern) return this.modern.post(message, options?.headers);
    }
    const list = Array.isArray(message) ? message : [message];
    const requestIds = new Set<RequestId>();
    let isInit = false;
    let isInitialized = false;
    for (const m of list) {
      if (!('method' in m)) continue;
      if ('id' in m) {
        requestIds.add(m.id);
        if (m.method === 'initialize') {
          isInit = true;
          this.initIds.add(m.id);
        }
      } else if (m.method === 'notifications/initialized') isInitialized = true;
      else if (m.method === 'notifications/cancelled') this.awaiting.delete(m.params?.requestId as RequestId);
    }
    // A new initialize starts over: no session, no version until the server answers.
    if (isInit) {
      this._sessionId = undefined;
      this._protocolVersion = undefined;
      this.expiredSession = undefined;
    } else if (this._sessionId === undefined && this.expiredSession !== undefined) {
      // Sent without a session id it would only be refused (400): say what is really wrong.
      for (const id of requestIds) this.initIds.delete(id);
      throw expiredSessionError('POST', this.url.href, this.expiredSession!);
    }
    for (const id of requestIds) this.awaiting.add(id);
    try {
      await this.post(message, requestIds, isInit);
    } catch (err) {
      // Nothing more will come for these requests. An HTTP error body that was a JSON-RPC
      // error has answered its request already (deliver() took it off `awaiting`).
      const lost = [...requestIds].filter((id) => this.awaiting.has(id));
      for (const id of requestIds) {
        this.initIds.delete(id);
        this.awaiting.delete(id);
      }
      // The rejection of send() is what an engine sees first (and the exact error, with the
      // HTTP status, is what its caller should get). onrequestlost only backs it up for a caller
      // that did not tie send() to the request; initialize is never reported: connectHttp must
      // see the status to fall back.
      if (!isInit && err instanceof HttpStatusError && lost.length > 0) {
        setTimeout(() => this.lose(lost, err, true), 0);
      }
      throw err;
    }
    if (isInitialized && this.options.openGetStream !== false) this.openGetStream();
  }

  /** POSTs one message (or batch) and handles the answer: nothing, a JSON body, or an SSE stream. */
  private async post(message: JsonRpcMessage | JsonRpcMessage[], requestIds: Set<RequestId>, isInit: boolean): Promise<void> {
    const sentSession = this._sessionId;
    const url = this.url.href;
    let res: ExchangeResponse;
    try {
      let headers = this.headers({ 'content-type': 'application/json', accept: ACCEPT_BOTH });
      if (headers instanceof Promise) headers = await headers;
      res = await this.exchange('POST', this.url, headers, encodeMessage(message), this.abort);
    } catch (err) {
      if (isAbort(err, this.abort)) throw new Error('Cannot send: StreamableHttpClientTransport was closed', { cause: err });
      throw networkError('POST', url, err);
    }
    if (!res.ok) throw await this.httpError('POST', res, sentSession, !isInit);
    if (isInit) {
      const sid = res.header('mcp-session-id');
      if (sid) this._sessionId = sid;
    }

    const type = mediaType(res);
    if (res.status === 202 || !res.hasBody) {
      res.discard();
    } else if (type === 'text/event-stream') {
      // The answers arrive while send() has long returned; a drop is resumed with GET.
      void this.followStream(res, { requests: requestIds }, 'request');
    } else if (type === 'application/json') {
      const text = await bodyText(res);
      // Only requests are answered; a body for notifications/responses is not a message.
      if (requestIds.size > 0 && text.trim() !== '') {
        // The body answers the requests it was POSTed with: only an initialize result must be
        // read here (for its version), the engine parses the rest.
        if (isInit) this.deliver(text);
        else {
          for (const id of requestIds) this.awaiting.delete(id);
          this.emit(text);
        }
      }
    } else {
      res.discard();
      if (requestIds.size > 0) {
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
    }
  }

  /** Aborts every request and stream, ends the session with DELETE, then fires onclose once. */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    this.closed = true;
    this.abort.abort(new Error('transport closed'));
    const sid = this._sessionId;
    if (sid !== undefined) {
      try {
        const signal = AbortSignal.timeout(this.options.closeTimeoutMs ?? 3000);
        const res = await this.exchange('DELETE', this.url, await this.headers({}), undefined, signal);
        // 405: the server does not let clients end sessions. Nothing to do either way.
        res.discard();
      } catch {
        // The server is gone or slow: the session will expire on its side.
      }
    }
    this.initIds.clear();
    this.awaiting.clear();
    this.onclose?.();
  }

  /** Tells the engine these requests will never be answered (those still awaited, once each). */
  private lose(ids: Iterable<RequestId>, error: Error, force = false): void {
    if (this.closed) return;
    for (const id of ids) {
      this.initIds.delete(id);
      const awaited = this.awaiting.delete(id);
      if (!awaited && !force) continue;
      try {
        this.onrequestlost?.(id, error);
      } catch (err) {
        this.report(err instanceof Error ? err : new Error(String(err)));
      }
    }
  }

  // ------------------------------------------------------------------ internals

  /** A request's headers: a promise only when the headers option is a function to call. */
  private headers(own: Record<string, string>): Record<string, string> | Promise<Record<string, string>> {
    if (this._sessionId !== undefined) own['mcp-session-id'] = this._sessionId;
    if (this._protocolVersion !== undefined) own['mcp-protocol-version'] = this._protocolVersion;
    const user = this.options.headers;
    return typeof user === 'function' ? Promise.resolve(user()).then((u) => mergeHeaders(u, own)) : mergeHeaders(user, own);
  }

  private report(err: Error): void {
    if (this.closed) return;
    try {
      this.onerror?.(err);
    } catch {
      // A throwing error handler must not break the stream loops.
    }
  }

  /** Hands a frame up, after noting what the transport itself needs from it. */
  private deliver(text: string): void {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      // The engine reports the parse error.
    }
    for (const m of Array.isArray(value) ? value : [value]) {
      if (!m || typeof m !== 'object' || 'method' in m) continue;
      const { id, result } = m as { id?: RequestId | null; result?: { protocolVersion?: unknown } };
      if (id === undefined || id === null) continue;
      this.awaiting.delete(id);
      if (this.initIds.delete(id) && typeof result?.protocolVersion === 'string') this._protocolVersion = result.protocolVersion;
    }
    this.emit(text);
  }

  /** Hands a frame up as it is. */
  private emit(text: string): void {
    try {
      this.onmessage?.(text);
    } catch (err) {
      this.report(err instanceof Error ? err : new Error(String(err)));
    }
  }

  /** The error for an HTTP error status; a 404 on a session means the session is gone. */
  private async httpError(method: string, res: ExchangeResponse, sentSession: string | undefined, deliverErrors: boolean): Promise<HttpStatusError> {
    const body = await bodyText(res);
    const url = this.url.href;
    if (res.status === 404 && sentSession !== undefined) {
      if (this._sessionId === sentSession) {
        this._sessionId = undefined;
        this._protocolVersion = undefined;
        this.expiredSession = sentSession;
      }
      const err = new SessionExpiredError(method, url, sentSession, body, res.headers);
      this.report(err);
      return err;
    }
    // A JSON-RPC error naming one of our requests answers it (never for initialize: the
    // caller must see the HTTP status to pick a transport).
    if (deliverErrors && isIdentifiedError(body)) this.deliver(body);
    return new HttpStatusError(method, url, res.status, res.statusText, body, res.headers);
  }

  private openGetStream(): void {
    if (this.getStreamRunning || this.closed) return;
    this.getStreamRunning = true;
    void this.followStream(undefined, {}, 'standalone').finally(() => {
      this.getStreamRunning = false;
    });
  }

  /** GET the endpoint for a stream (resuming after `lastEventId` when given). */
  private async get(lastEventId: string | undefined): Promise<GetOutcome> {
    if (this._sessionId === undefined && this.expiredSession !== undefined) return { fatal: expiredSessionError('GET', this.url.href, this.expiredSession!) };
    const sentSession = this._sessionId;
    const url = this.url.href;
    let res: ExchangeResponse;
    try {
      const own: Record<string, string> = { accept: 'text/event-stream' };
      if (lastEventId !== undefined) own['last-event-id'] = lastEventId;
      res = await this.exchange('GET', this.url, await this.headers(own), undefined, this.abort);
    } catch (err) {
      if (isAbort(err, this.abort)) return { fatal: null };
      return { transient: networkError('GET', url, err) };
    }
    if (res.status === 405) {
      res.discard();
      return { fatal: null };
    }
    if (!res.ok) {
      const err = await this.httpError('GET', res, sentSession, false);
      return err instanceof SessionExpiredError || (res.status < 500 && res.status !== 409 && res.status !== 429) ? { fatal: err } : { transient: err };
    }
    if (mediaType(res) !== 'text/event-stream' || !res.hasBody) {
      res.discard();
      return { fatal: new Error(`GET ${url} answered with content type ${JSON.stringify(mediaType(res))} instead of text/event-stream`) };
    }
    return { res };
  }

  /** Reads events from one response; returns whether anything arrived, and why it ended. */
  private async pump(res: ExchangeResponse, cursor: Cursor): Promise<{ progressed: boolean; error?: unknown }> {
    let progressed = false;
    try {
      for await (const ev of res.events()) {
        if (this.closed) break;
        progressed = true;
        if (ev.id !== undefined) cursor.lastEventId = ev.id;
        if (ev.retry !== undefined) cursor.retry = ev.retry;
        if (ev.event === 'message' && ev.data !== '') this.deliver(ev.data);
      }
      return { progressed };
    } catch (error) {
      return { progressed, error };
    }
  }

  private delay(attempt: number, retry: number | undefined): number {
    const r = this.options.reconnect ?? {};
    const base = retry ?? r.initialDelayMs ?? 1000;
    const cap = Math.max(r.maxDelayMs ?? 30_000, retry ?? 0);
    return Math.min(base * 2 ** attempt, cap);
  }

  private sleep(ms: number): Promise<void> {
    return pause(ms, this.abort, this.options.clock);
  }

  /**
   * Follows one logical stream across reconnections: a POST's answer stream until every
   * response it owes has arrived, or the standalone stream until the transport closes. When a
   * request stream cannot go on, the requests it still owes are reported lost.
   */
  private async followStream(first: ExchangeResponse | undefined, cursor: Cursor, kind: 'request' | 'standalone'): Promise<void> {
    const maxRetries = this.options.reconnect?.maxRetries ?? 2;
    const owed = () => [...(cursor.requests ?? [])].filter((id) => this.awaiting.has(id));
    const named = () =>
      owed()
        .map((id) => JSON.stringify(id))
        .join(', ');
    /** Explains why the stream cannot go on; a request stream's requests are lost with it. */
    const giveUp = (error: Error): void => {
      if (this.closed) return;
      this.report(error);
      if (kind === 'request') this.lose(owed(), error);
    };
    cursor.sessionId = this._sessionId;
    let res = first;
    let attempt = 0;
    let lastError: unknown;
    let immediate = first === undefined;
    for (;;) {
      if (res) {
        const r = await this.pump(res, cursor);
        if (r.progressed) attempt = 0;
        lastError = r.error;
        res = undefined;
      }
      if (this.closed) return;
      if (kind === 'request' && owed().length === 0) return;
      const why = lastError instanceof Error ? ` (${lastError.message})` : '';
      if (kind === 'request' && cursor.lastEventId === undefined) {
        return giveUp(
          new Error(`The SSE stream answering request ${named()} ended before the response arrived${why}, and cannot be resumed: the server sent no event ids`),
        );
      }
      if (!immediate) {
        if (attempt >= maxRetries) {
          return giveUp(
            new Error(
              kind === 'request'
                ? `Gave up resuming the SSE stream answering request ${named()} after ${maxRetries} attempts${why}`
                : `Gave up reconnecting the standalone SSE stream after ${maxRetries} attempts${why}`,
            ),
          );
        }
        await this.sleep(this.delay(attempt++, cursor.retry));
        // Closed, or answered elsewhere / cancelled meanwhile.
        if (this.closed || (kind === 'request' && owed().length === 0)) return;
      }
      immediate = false;
      if (this._sessionId !== cursor.sessionId) {
        // The session ended (or was replaced by a re-initialization): this stream's event ids
        // belong to the old one. The standalone stream starts afresh in the new session.
        if (kind === 'request') {
          const cause =
            this._sessionId === undefined && this.expiredSession !== undefined ? expiredSessionError('GET', this.url.href, this.expiredSession!) : undefined;
          return giveUp(
            new Error(`Cannot resume the SSE stream answering request ${named()}: its session ${JSON.stringify(cursor.sessionId)} has ended`, { cause }),
          );
        }
        if (this._sessionId === undefined) return;
        cursor.sessionId = this._sessionId;
        cursor.lastEventId = undefined;
        attempt = 0;
      }
      const got = await this.get(cursor.lastEventId);
      if ('res' in got) res = got.res;
      else if ('transient' in got) lastError = got.transient;
      else {
        if (got.fatal instanceof SessionExpiredError) {
          // httpError() has reported the expiry itself; the requests are still lost.
          if (kind === 'request' && !this.closed) {
            this.lose(owed(), new Error(`Cannot resume the SSE stream answering request ${named()}: ${got.fatal.message}`, { cause: got.fatal }));
          }
        } else if (got.fatal) {
          giveUp(
            new Error(
              kind === 'request'
                ? `Cannot resume the SSE stream answering request ${named()}: ${got.fatal.message}`
                : `The standalone SSE stream failed: ${got.fatal.message}`,
              { cause: got.fatal },
            ),
          );
        } else if (kind === 'request') {
          // 405 on the standalone stream just means the server offers none.
          giveUp(new Error(`Cannot resume the SSE stream answering request ${named()}: the server does not allow GET (405)`));
        }
        return;
      }
    }
  }
}
