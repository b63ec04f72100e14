// What both providers do over HTTP: POST a JSON body, retry once on 429/5xx (honouring
// Retry-After, waiting on an injectable clock), turn every failure into a ModelError a person can
// act on, and read the answer as SSE events with an idle timeout. Only `fetch`: no model SDK.
import { type Clock, systemClock } from '../../engine/clock.js';
import { readSseStream, type SseEvent } from '../../transports/http/sse.js';
import { ModelError } from '../model.js';

/** Options both providers take for their HTTP side. */
export interface ProviderHttpOptions {
  /** Extra request headers (an organisation id, a proxy's auth...). */
  headers?: Record<string, string>;
  /** The fetch to use (default: the global one). */
  fetch?: typeof fetch;
  /**
   * How long the endpoint may stay silent (ms): before the response headers, and between two
   * pieces of the stream. Default 300 000: a local model loading its weights is slow to start.
   */
  timeoutMs?: number;
  /** Retries of a 429 or 5xx answer (default 1). */
  retries?: number;
  /** Longest wait before a retry, whatever Retry-After says (ms, default 60 000). */
  maxRetryDelayMs?: number;
  /** Time for timeouts and retry waits (tests pass a ManualClock). */
  clock?: Clock;
}

/** What a provider tells `postJson` about itself, for error messages. */
export interface PostContext {
  url: string;
  /** `OpenAI-compatible endpoint`, `Anthropic API`: how messages name the other side. */
  label: string;
  /** Explains a 4xx in the provider's terms (a refused tool schema); undefined for the generic message. */
  explain?: (status: number, detail: string, body: unknown) => string | undefined;
}

/** One in-flight request: its combined abort signal and the idle timer the stream reader resets. */
export class Exchange {
  readonly controller = new AbortController();
  private timer: unknown;
  private timedOut = false;

  constructor(
    private readonly ctx: PostContext,
    private readonly options: ProviderHttpOptions,
    private readonly userSignal: AbortSignal | undefined,
  ) {
    if (userSignal?.aborted) this.controller.abort(userSignal.reason);
    else userSignal?.addEventListener('abort', this.onUserAbort, { once: true });
    this.touch();
  }

  private readonly onUserAbort = () => this.controller.abort(this.userSignal?.reason);

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Something arrived: the idle timeout starts over. */
  touch(): void {
    const clock = this.options.clock ?? systemClock;
    if (this.timer !== undefined) clock.clearTimeout(this.timer);
    const ms = this.options.timeoutMs ?? 300_000;
    this.timer = clock.setTimeout(() => {
      this.timedOut = true;
      this.controller.abort(new ModelError(`${this.ctx.label} at ${this.ctx.url} sent nothing for ${ms} ms`));
    }, ms);
    (this.timer as { unref?(): void }).unref?.();
  }

  close(): void {
    if (this.timer !== undefined) (this.options.clock ?? systemClock).clearTimeout(this.timer);
    this.timer = undefined;
    this.userSignal?.removeEventListener('abort', this.onUserAbort);
  }

  /**
   * The error to throw for `err` (a fetch or read failure): the caller's abort reason when the
   * caller aborted, the timeout's ModelError, or "cannot reach" for a network failure.
   */
  failure(err: unknown, while_: string): unknown {
    if (this.userSignal?.aborted) return this.userSignal.reason ?? err;
    if (this.timedOut) return this.controller.signal.reason;
    if (err instanceof ModelError) return err;
    const cause = (err as { cause?: { code?: string; message?: string } } | undefined)?.cause;
    const why = cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err));
    const prefix = while_ === 'connect' ? `cannot reach ${this.ctx.url}` : `the connection to ${this.ctx.url} failed while ${while_}`;
    return new ModelError(`${prefix}: ${why}`, { cause: err });
  }
}

/**
 * POSTs `body` as JSON and returns the OK response (its body unread), retrying 429/5xx answers.
 * Throws ModelError for everything else.
 */
export async function postJson(
  ctx: PostContext,
  options: ProviderHttpOptions,
  exchange: Exchange,
  headers: Record<string, string>,
  body: unknown,
): Promise<Response> {
  const doFetch = options.fetch ?? globalThis.fetch;
  const retries = options.retries ?? 1;
  for (let attempt = 0; ; attempt++) {
    let response: Response;
    try {
      response = await doFetch(ctx.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream, application/json', ...headers, ...options.headers },
        body: JSON.stringify(body),
        signal: exchange.signal,
      });
    } catch (err) {
      throw exchange.failure(err, 'connect');
    }
    exchange.touch();
    if (response.ok) return response;
    const text = await response.text().catch(() => '');
    if ((response.status === 429 || response.status >= 500) && attempt < retries) {
      const delay = Math.min(retryDelay(response.headers, options.clock ?? systemClock), options.maxRetryDelayMs ?? 60_000);
      await wait(delay, options.clock ?? systemClock, exchange.signal).catch((err) => {
        throw exchange.failure(err, 'waiting to retry');
      });
      exchange.touch();
      continue;
    }
    throw httpError(ctx, response, text);
  }
}

/** The ModelError for a non-OK answer: status, and the endpoint's own message when it sent JSON. */
export function httpError(ctx: PostContext, response: Response, text: string): ModelError {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const detail = (errorMessage(parsed) ?? text).trim().slice(0, 2000);
  const status = response.status;
  const explained = status >= 400 && status < 500 ? ctx.explain?.(status, detail, parsed) : undefined;
  let message: string;
  if (explained !== undefined) message = explained;
  else if (status === 401 || status === 403) message = `${ctx.label} at ${ctx.url} refused the credentials (${status})${detail ? `: ${detail}` : ''}`;
  else if (status === 429) message = `${ctx.label} at ${ctx.url} is rate limiting (429), still after a retry${detail ? `: ${detail}` : ''}`;
  else message = `${ctx.label} at ${ctx.url} answered ${status}${response.statusText ? ` ${response.statusText}` : ''}${detail ? `: ${detail}` : ''}`;
  return new ModelError(message, { status, detail: detail || undefined });
}

/**
 * The human message in an error body, in the shapes endpoints use: OpenAI `{error:{message}}`,
 * Anthropic `{type:"error",error:{message}}`, Ollama `{error:"..."}`, Gemini's `[{error:{...}}]`,
 * FastAPI-style `{detail}` and `{message}`.
 */
export function errorMessage(body: unknown): string | undefined {
  if (Array.isArray(body)) return errorMessage(body[0]);
  if (typeof body !== 'object' || body === null) return undefined;
  const b = body as Record<string, unknown>;
  if (typeof b.error === 'string') return b.error;
  if (typeof b.error === 'object' && b.error !== null) {
    const m = (b.error as Record<string, unknown>).message;
    if (typeof m === 'string') return m;
  }
  if (typeof b.message === 'string') return b.message;
  if (typeof b.detail === 'string') return b.detail;
  return undefined;
}

/** Milliseconds to wait before retrying: `retry-after-ms` (OpenAI), `Retry-After` seconds or HTTP date, else 1 s. */
export function retryDelay(headers: Headers, clock: Clock): number {
  const ms = Number(headers.get('retry-after-ms'));
  if (headers.get('retry-after-ms') !== null && Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers.get('retry-after');
  if (value !== null) {
    const seconds = Number(value);
    if (value.trim() !== '' && Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
    const date = Date.parse(value);
    if (!Number.isNaN(date)) return Math.max(0, date - clock.now());
  }
  return 1000;
}

function wait(ms: number, clock: Clock, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clock.clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = clock.setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Whether a response carries an event stream (else it is one JSON document: an endpoint that ignored `stream`). */
export function isEventStream(response: Response): boolean {
  return (response.headers.get('content-type') ?? '').toLowerCase().includes('text/event-stream');
}

/** The events of a streamed answer; each resets the idle timeout. Read failures become ModelErrors. */
export async function* events(response: Response, exchange: Exchange): AsyncGenerator<SseEvent> {
  if (response.body === null) return;
  try {
    for await (const event of readSseStream(response.body, { signal: exchange.signal })) {
      exchange.touch();
      yield event;
    }
  } catch (err) {
    throw exchange.failure(err, 'streaming the answer');
  }
  // readSseStream ends quietly on abort: the caller must still see it.
  if (exchange.signal.aborted) throw exchange.failure(exchange.signal.reason, 'streaming the answer');
}

/** Parses one event's JSON data, or throws the "malformed stream" ModelError. */
export function parseEventData(ctx: PostContext, data: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    throw new ModelError(`malformed stream from ${ctx.label} at ${ctx.url}: an event is not JSON: ${data.slice(0, 200)}`, { detail: data.slice(0, 2000) });
  }
}

/** Reads a non-streamed JSON answer, or throws the "malformed" ModelError. */
export async function readJson(ctx: PostContext, response: Response, exchange: Exchange): Promise<unknown> {
  let text: string;
  try {
    text = await response.text();
  } catch (err) {
    throw exchange.failure(err, 'reading the answer');
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new ModelError(`malformed answer from ${ctx.label} at ${ctx.url}: not JSON: ${text.slice(0, 200)}`, { detail: text.slice(0, 2000) });
  }
}
