import { encodeMessage } from '../../../jsonrpc/codec.js';
import type { JsonRpcMessage } from '../../../jsonrpc/messages.js';
import type { SendOptions, Transport } from '../../../engine/transport.js';
import { Cancel, type ExchangeResponse, type HttpExchange } from './exchange.js';
import { pickExchange } from './pick-exchange.js';
import { bodyText, buildHeaders, HttpStatusError, isAbort, mediaType, networkError, type HeadersOption } from './http-common.js';

export interface SseClientTransportOptions {
  /** The SSE endpoint (GET). */
  url: string | URL;
  /** Extra headers for every request; a function is called per request. */
  headers?: HeadersOption;
  /** The fetch to use. Default: node:http on Node, the global fetch elsewhere (as for Streamable HTTP). */
  fetch?: typeof fetch;
  /** How long start() waits for the server's `endpoint` event (ms). Default 10 000. */
  endpointTimeoutMs?: number;
}

/**
 * Client side of the deprecated HTTP+SSE transport (protocol 2024-11-05): a long-lived GET
 * stream carries the server's messages, after an `endpoint` event naming where to POST ours.
 */
export class SseClientTransport implements Transport {
  get kind(): 'http' {
    return 'http';
  }
  onmessage?: Transport['onmessage'];
  onclose?: Transport['onclose'];
  onerror?: Transport['onerror'];

  readonly url: URL;
  private readonly options: SseClientTransportOptions;
  private readonly exchange: HttpExchange;
  private readonly abort = new Cancel();
  private _endpoint: URL | undefined;
  private state: 'new' | 'starting' | 'open' | 'closed' = 'new';
  private closeFired = false;

  constructor(options: SseClientTransportOptions) {
    this.options = options;
    this.url = new URL(options.url);
    this.exchange = pickExchange(this.url, options.fetch);
  }

  /** Where messages are POSTed, once the server announced it. */
  get endpoint(): URL | undefined {
    return this._endpoint;
  }

  async start(): Promise<void> {
    if (this.state !== 'new') throw new Error('SseClientTransport already started');
    this.state = 'starting';
    const url = this.url.href;
    let res: ExchangeResponse;
    try {
      const headers = await buildHeaders(this.options.headers, { accept: 'text/event-stream' });
      res = await this.exchange('GET', this.url, headers, undefined, this.abort);
    } catch (err) {
      this.state = 'closed';
      if (isAbort(err, this.abort)) throw new Error('SseClientTransport was closed while connecting', { cause: err });
      throw networkError('GET', url, err);
    }
    if (!res.ok) {
      this.state = 'closed';
      throw new HttpStatusError('GET', url, res.status, res.statusText, await bodyText(res), res.headers);
    }
    if (mediaType(res) !== 'text/event-stream' || !res.hasBody) {
      this.state = 'closed';
      res.discard();
      throw new Error(`GET ${url} answered with content type ${JSON.stringify(mediaType(res))} instead of text/event-stream`);
    }
    const body = res;
    await new Promise<void>((resolve, reject) => {
      const timeoutMs = this.options.endpointTimeoutMs ?? 10_000;
      const timer = setTimeout(() => fail(new Error(`GET ${url}: no "endpoint" event within ${timeoutMs} ms`)), timeoutMs);
      let settled = false;
      const fail = (err: Error) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.state = 'closed';
        this.abort.abort(err);
        reject(err);
      };
      const ready = () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve();
      };
      void this.read(body, ready, fail);
    });
  }

  private async read(body: ExchangeResponse, ready: () => void, fail: (err: Error) => void): Promise<void> {
    let error: unknown;
    try {
      for await (const ev of body.events()) {
        if (this.abort.aborted) break;
        if (ev.event === 'endpoint') {
          if (this._endpoint) continue;
          const endpoint = this.resolveEndpoint(ev.data);
          if (endpoint instanceof Error) return fail(endpoint);
          this._endpoint = endpoint;
          this.state = 'open';
          ready();
        } else if (ev.event === 'message' && ev.data !== '') {
          try {
            this.onmessage?.(ev.data);
          } catch (err) {
            this.report(err);
          }
        }
      }
    } catch (err) {
      error = err;
    }
    if (!this._endpoint) {
      // Ended, or close() was called, while start() still waits: settle it now.
      const why = this.abort.aborted ? ': the transport was closed' : error instanceof Error ? `: ${error.message}` : '';
      return fail(new Error(`GET ${this.url.href}: the SSE stream ended before the "endpoint" event${why}`));
    }
    if (this.state === 'closed') return;
    this.state = 'closed';
    const why = error instanceof Error ? error.message : 'the server ended it';
    this.finish(new Error(`The SSE stream from ${this.url.href} ended: ${why}`, { cause: error }));
  }

  /** The endpoint is relative to the SSE URL and must stay on its origin. */
  private resolveEndpoint(data: string): URL | Error {
    let endpoint: URL;
    try {
      endpoint = new URL(data.trim(), this.url);
    } catch {
      return new Error(`The server's "endpoint" event is not a valid URL: ${JSON.stringify(data)}`);
    }
    if (endpoint.origin !== this.url.origin) {
      return new Error(`The server's "endpoint" event names another origin (${endpoint.origin}, expected ${this.url.origin}); refusing to POST there`);
    }
    return endpoint;
  }

  async send(message: JsonRpcMessage | JsonRpcMessage[], _options?: SendOptions): Promise<void> {
    const endpoint = this._endpoint;
    if (this.state !== 'open' || !endpoint) throw new Error('Cannot send: SseClientTransport is not connected');
    let res: ExchangeResponse;
    try {
      const headers = await buildHeaders(this.options.headers, { 'content-type': 'application/json' });
      res = await this.exchange('POST', endpoint, headers, encodeMessage(message), this.abort);
    } catch (err) {
      if (isAbort(err, this.abort)) throw new Error('Cannot send: SseClientTransport was closed', { cause: err });
      throw networkError('POST', endpoint.href, err);
    }
    if (!res.ok) throw new HttpStatusError('POST', endpoint.href, res.status, res.statusText, await bodyText(res), res.headers);
    res.discard();
  }

  async close(): Promise<void> {
    if (this.state === 'closed' && this.closeFired) return;
    this.state = 'closed';
    this.abort.abort(new Error('transport closed'));
    this.finish(undefined);
  }

  private finish(reason: Error | undefined): void {
    if (this.closeFired) return;
    this.closeFired = true;
    try {
      this.onclose?.(reason);
    } catch (err) {
      this.report(err);
    }
  }

  private report(err: unknown): void {
    try {
      this.onerror?.(err instanceof Error ? err : new Error(String(err)));
    } catch {
      // Nowhere left to report to.
    }
  }
}
