/** Pieces shared by the HTTP client transports: errors, headers, small response helpers. */
import { type Clock, systemClock } from '../../../engine/clock.js';
import { LocalError } from '../../../jsonrpc/errors.js';
import type { Cancel, ExchangeResponse } from './exchange.js';

/** Extra request headers: fixed, or computed before every request (e.g. a fresh access token). */
export type HeadersOption = Record<string, string> | (() => Record<string, string> | Promise<Record<string, string>>);

/** How long an error message quotes a response body. */
const BODY_QUOTE = 500;

/**
 * The server answered with an HTTP error status. `status`, `body` and `headers` are kept so
 * callers can tell protocol eras and transports apart (400/404/405 to the first POST means
 * "not a Streamable HTTP endpoint").
 */
export class HttpStatusError extends Error {
  readonly status: number;
  /** The response body as text ('' when there was none or it could not be read). */
  readonly body: string;
  readonly headers: Headers;
  /** The HTTP method of the failed request. */
  readonly method: string;
  readonly url: string;

  constructor(method: string, url: string, status: number, statusText: string, body: string, headers: Headers, message?: string) {
    let said = readableBody(body);
    // "HTTP 503 Service Unavailable from ...: Service Unavailable: why" says it once.
    if (statusText && said.startsWith(`${statusText}: `)) said = said.slice(statusText.length + 2);
    const quoted = said.length > BODY_QUOTE ? `${said.slice(0, BODY_QUOTE)}…` : said;
    super(message ?? `HTTP ${status}${statusText ? ` ${statusText}` : ''} from ${method} ${url}${quoted ? `: ${quoted}` : ''}`);
    this.name = 'HttpStatusError';
    this.status = status;
    this.body = body;
    this.headers = headers;
    this.method = method;
    this.url = url;
  }

  /** The body parsed as JSON, or undefined when it is not JSON. */
  get json(): unknown {
    try {
      return JSON.parse(this.body);
    } catch {
      return undefined;
    }
  }
}

/**
 * A request carrying a session id was answered 404: the server ended that session. The session
 * id has been forgotten; the client must start over with a fresh `initialize`.
 */
export class SessionExpiredError extends HttpStatusError {
  readonly sessionId: string;
  constructor(method: string, url: string, sessionId: string, body: string, headers: Headers, message?: string) {
    super(
      method,
      url,
      404,
      'Not Found',
      body,
      headers,
      message ??
        `MCP session ${JSON.stringify(sessionId)} has expired or was terminated by the server (HTTP 404 from ${method} ${url}); re-initialize to start a new session`,
    );
    this.name = 'SessionExpiredError';
    this.sessionId = sessionId;
  }
}

/** The error for a send or resume attempted after the server ended the session (it answered 404 earlier). */
export function expiredSessionError(method: string, url: string, sid: string): SessionExpiredError {
  return new SessionExpiredError(
    method,
    url,
    sid,
    '',
    new Headers(),
    `MCP session ${JSON.stringify(sid)} has expired or was terminated by the server (it answered 404 earlier); ${method} ${url} not sent: re-initialize to start a new session`,
  );
}

export async function resolveHeaders(option: HeadersOption | undefined): Promise<Record<string, string>> {
  if (!option) return {};
  return typeof option === 'function' ? await option() : option;
}

/**
 * The headers of one request: the user's first, the transport's own winning on conflicts (they
 * are the protocol). Names are lower-cased and values trimmed, as `Headers` does; a user header
 * repeated in another case is joined with ", ", as `Headers.append` does.
 */
export function mergeHeaders(user: Record<string, string> | undefined, own: Record<string, string>): Record<string, string> {
  // The common case: no headers option. `own` is made per request by the caller.
  if (user === undefined) return own;
  const out: Record<string, string> = {};
  // A Headers object or a list of pairs, where a record is typed: what `new Headers()` took.
  if (user instanceof Headers || Array.isArray(user)) user = Object.fromEntries(new Headers(user) as unknown as Iterable<[string, string]>);
  for (const k in user) {
    const name = k.toLowerCase();
    const v = String(user[k]).replace(EDGE_WHITESPACE, '');
    out[name] = out[name] === undefined ? v : `${out[name]}, ${v}`;
  }
  return Object.assign(out, own);
}

/** HTTP whitespace at either end of a header value (fetch's header value normalization). */
const EDGE_WHITESPACE = /^[\t\n\r ]+|[\t\n\r ]+$/g;

/** {@link mergeHeaders} with the user's headers option resolved (a function is called). */
export async function buildHeaders(option: HeadersOption | undefined, own: Record<string, string>): Promise<Record<string, string>> {
  return mergeHeaders(typeof option === 'function' ? await option() : option, own);
}

/** The media type of a response, lower-cased, without parameters. */
export function mediaType(res: ExchangeResponse): string {
  const type = res.header('content-type') ?? '';
  // What servers send nearly always, parameters and all, needs no parsing.
  if (type === 'application/json' || type === 'text/event-stream') return type;
  return type.split(';')[0].trim().toLowerCase();
}

export async function bodyText(res: ExchangeResponse): Promise<string> {
  try {
    return await res.text();
  } catch {
    return '';
  }
}

/**
 * What a person should read of an error body: the message of a JSON-RPC error (an MCP server's
 * 503 while it cannot serve), the reason of a probe's answer; any other body as it came.
 */
function readableBody(body: string): string {
  const text = body.trim();
  if (!text.startsWith('{')) return text;
  try {
    const v = JSON.parse(text) as { jsonrpc?: unknown; error?: { message?: unknown }; status?: unknown; reason?: unknown };
    if (v.jsonrpc === '2.0' && typeof v.error?.message === 'string' && v.error.message !== '') return v.error.message;
    if (typeof v.status === 'string' && typeof v.reason === 'string' && v.reason !== '') return v.reason;
  } catch {
    // Not JSON after all: quoted as it is.
  }
  return text;
}

export function isAbort(err: unknown, signal: { readonly aborted: boolean }): boolean {
  return signal.aborted || (err instanceof Error && err.name === 'AbortError');
}

/**
 * A fetch failure (DNS, refused connection, reset...) with the request named in the message: a
 * LocalError of kind `network` (no answer came from the server).
 */
export function networkError(method: string, url: string, err: unknown): LocalError {
  const why = err instanceof Error ? (err.cause instanceof Error ? `${err.message}: ${err.cause.message}` : err.message) : String(err);
  return new LocalError('network', `${method} ${url} failed: ${why}`, { cause: err });
}

/** Whether a body is a JSON-RPC error naming a request (so it answers that request). */
export function isIdentifiedError(body: string): boolean {
  try {
    const v = JSON.parse(body) as { jsonrpc?: unknown; id?: unknown; error?: unknown };
    return !!v && typeof v === 'object' && v.jsonrpc === '2.0' && v.id !== null && v.id !== undefined && typeof v.error === 'object';
  } catch {
    return false;
  }
}

/**
 * A digest of the credential headers (Authorization, X-API-Key) a request would carry, or
 * undefined without any: lets a client keep private cache entries apart per credential without
 * holding the secret itself.
 */
export async function credentialDigest(option: HeadersOption | undefined): Promise<string | undefined> {
  const headers = new Headers(await resolveHeaders(option));
  const auth = headers.get('authorization');
  const key = headers.get('x-api-key');
  if (auth === null && key === null) return undefined;
  // Web Crypto, so the fetch-based client stays usable outside Node.
  const digest = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(`${auth ?? ''}\n${key ?? ''}`));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Waits `ms` on `clock` (a reconnection delay), or until `signal` aborts; never rejects. */
export function pause(ms: number, signal: AbortSignal | Cancel, clock: Clock = systemClock): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clock.clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = clock.setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
