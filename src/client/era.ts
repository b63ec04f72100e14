import { ErrorCode, LocalError, McpError } from '../jsonrpc/errors.js';
import type { JsonObject } from '../jsonrpc/messages.js';
import { type Clock, systemClock } from '../engine/clock.js';
import type { Peer } from '../engine/peer.js';
import { HttpStatusError } from '../transports/http/client/http-common.js';
import type { ProbeAnswer } from '../transports/http/client/modern-post.js';
import { StreamableHttpClientTransport } from '../transports/http/client/streamable.js';
import type { ServerExitError } from '../transports/stdio/exit.js';
import type { Transport } from '../engine/transport.js';

/** The two protocol eras: `initialize` + session, or stateless 2026-07-28 requests. */
export type Era = 'modern' | 'handshake';

/** How a client picks its era: probe the server (`auto`), or pin one. */
export type EraOption = 'auto' | Era;

/**
 * The era a client uses when its options name none. One constant, because `connect()` and
 * `connectHttp()` decide whether to consult the era cache by it and must agree with the client.
 */
export const DEFAULT_ERA: EraOption = 'auto';

/** The era `options` ask for, the default filled in. */
export function eraOf(options: { era?: EraOption }): EraOption {
  return options.era ?? DEFAULT_ERA;
}

/** What era detection concluded. `discovered` is the probe's DiscoverResult, when it got one. */
export type Verdict =
  | { era: 'modern'; discovered?: JsonObject; supported?: unknown }
  | {
      era: 'handshake';
      /**
       * Only when the stdio probe gave up waiting: the probe's answer if it still comes. The
       * handshake then starts, and whichever answer arrives first decides (see McpClient.connect).
       */
      late?: Promise<Verdict | undefined>;
    };

export type ModernVerdict = Extract<Verdict, { era: 'modern' }>;

/** Errors only a 2026-07-28 server sends: seeing one means "modern, do not fall back". */
const MODERN_CODES: ReadonlySet<number> = new Set([ErrorCode.HeaderMismatch, ErrorCode.MissingRequiredClientCapability, ErrorCode.UnsupportedProtocolVersion]);

/** Statuses after which an HTTP body is inspected for a modern error (SEP-2575, §3.3). */
const INSPECTED: ReadonlySet<number> = new Set([400, 404, 405]);

/**
 * The server closed the connection while answering the era probe, and the way it went says it
 * reacted to the probe: some legacy servers exit on any request before `initialize`. The era
 * cache then says 'handshake' for that server, and `connect()` starts it again at once; a caller
 * of `McpClient.connect()` with its own transport gets this error, and its next connection
 * initializes directly.
 */
export class ProbeClosedError extends LocalError {
  constructor(cause: unknown) {
    const why = cause instanceof Error ? cause.message : String(cause);
    super(
      'closed',
      `The server closed the connection on the server/discover era probe (${why}); it is probably a handshake-era server that exits on unknown requests. Connecting to it again (with a new transport) initializes without the probe; or pin era: 'handshake'`,
      { cause },
    );
    this.name = 'ProbeClosedError';
  }
}

/**
 * The server process exited before answering `method` (`initialize` or `server/discover`), for
 * a reason of its own: most often it could not start (a missing setting, a bad path), which its
 * stderr, quoted in the message when the transport saw it, usually says. Not retried.
 */
export class ServerExitedError extends LocalError {
  readonly exitCode: number | null;
  readonly signal: string | null;
  /** The tail of its stderr ('' when it wrote none, or when stderr was inherited). */
  readonly stderr: string;
  readonly method: string;

  constructor(exit: ServerExitError, method: string) {
    let text = `The MCP server exited with ${exit.how} before answering ${method}`;
    if (exit.stderr) text += `; its stderr: ${exit.stderr}`;
    else if (exit.stderrSeen) text += ' (it wrote nothing on stderr)';
    // The one case where the era is worth a thought: it may have died of the probe silently.
    if (method === 'server/discover' && !exit.stderr) text += ". If it is a handshake-era server that exits on requests it does not know, pin era: 'handshake'";
    super('closed', text, { cause: exit });
    this.name = 'ServerExitedError';
    this.exitCode = exit.exitCode;
    this.signal = exit.signal;
    this.stderr = exit.stderr;
    this.method = method;
  }
}

/** The process exit behind a closed-connection error, when a stdio transport reported one. */
export function exitBehind(err: unknown): ServerExitError | undefined {
  // By name, not instanceof: the class lives with the stdio transport, which a browser bundle of
  // the client must not pull in.
  for (let e = err, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    if (e.name === 'ServerExitError' && 'stderrSeen' in e) return e as ServerExitError;
  }
  return undefined;
}

/**
 * A connection lost to the server's exit while connecting, as the error that says so; left as
 * it is when the server evidently exited on a server/discover (an era mistake, worth a retry).
 */
export function startFailure(err: unknown, method: string): unknown {
  const exit = err instanceof LocalError && err.kind === 'closed' ? exitBehind(err) : undefined;
  if (!exit || (method === 'server/discover' && exitedOnProbe(exit))) return err;
  return new ServerExitedError(exit, method);
}

/**
 * Whether a server that exited during the probe did so because of it. A server dying at start
 * (the common case) exits whatever it is sent, usually with an error code and a reason on
 * stderr, and must not be started twice; one that exits on the probe has read it: its stderr
 * names the method, or it ended cleanly, as a server does on a request it will not serve.
 */
function exitedOnProbe(exit: ServerExitError): boolean {
  return exit.stderr.includes('server/discover') || (exit.exitCode === 0 && exit.signal === null);
}

export function isDiscoverResult(r: unknown): r is JsonObject {
  if (!r || typeof r !== 'object') return false;
  const o = r as Record<string, unknown>;
  return !!o.capabilities && typeof o.capabilities === 'object' && Array.isArray(o.supportedVersions);
}

function modernError(code: number, data: unknown): Verdict | undefined {
  if (!MODERN_CODES.has(code)) return undefined;
  const supported = code === ErrorCode.UnsupportedProtocolVersion ? (data as { supported?: unknown } | undefined)?.supported : undefined;
  return { era: 'modern', supported };
}

/**
 * Judges an HTTP probe the way §3.3 describes: a DiscoverResult, or a recognised modern error
 * in the body of a 400/404/405 (-32601 counts only with 404 and a JSON-RPC body), means modern;
 * anything else is a legacy server. An authentication failure is no era signal: it is thrown.
 */
export function judgeHttpProbe(a: ProbeAnswer): Verdict {
  if ((a.status === 401 || a.status === 403) && a.error) throw a.error;
  const r = a.response;
  if (a.status >= 200 && a.status < 300) {
    if (r?.result && isDiscoverResult(r.result)) return { era: 'modern', discovered: r.result };
    return (r?.error && modernError(r.error.code, r.error.data)) || { era: 'handshake' };
  }
  if (INSPECTED.has(a.status) && r?.error) {
    const modern = modernError(r.error.code, r.error.data);
    if (modern) return modern;
    if (r.error.code === ErrorCode.MethodNotFound && a.status === 404) return { era: 'modern' };
  }
  return { era: 'handshake' };
}

/**
 * The stdio (or any message transport) probe of §3.1: `server/discover` first. A result or a
 * recognised modern error means modern; any other error, or silence for `timeoutMs`, means a
 * legacy server (never tied to one error code: legacy servers answer -32601, -32602 or nothing).
 * The probe is not cancelled on timeout: a legacy server must see nothing but `initialize` next.
 */
export async function probeOverPeer(peer: Peer, params: JsonObject, timeoutMs: number, clock: Clock = systemClock): Promise<Verdict> {
  const answer = peer.request('server/discover', params, { timeoutMs: 0 });
  answer.catch(() => {});
  let timer: unknown;
  const timeout = new Promise<'timeout'>((resolve) => (timer = clock.setTimeout(() => resolve('timeout'), timeoutMs)));
  try {
    const r = await Promise.race([answer, timeout]);
    if (r === 'timeout') {
      // Silence is not yet a verdict: a server slow to start (a loaded machine, a cold npx) answers
      // later, in order. The caller sends initialize now and takes whichever answer comes first.
      const late = answer.then(
        (x): Verdict | undefined => (isDiscoverResult(x) ? { era: 'modern', discovered: x } : undefined),
        (err): Verdict | undefined => (err instanceof McpError ? modernError(err.code, err.data) : undefined),
      );
      return { era: 'handshake', late };
    }
    return isDiscoverResult(r) ? { era: 'modern', discovered: r } : { era: 'handshake' };
  } catch (err) {
    if (err instanceof McpError) return modernError(err.code, err.data) ?? { era: 'handshake' };
    if (err instanceof HttpStatusError) return judgeHttpProbe({ status: err.status, error: err });
    if (err instanceof LocalError && err.kind === 'closed') {
      const exit = exitBehind(err);
      if (exit && !exitedOnProbe(exit)) throw new ServerExitedError(exit, 'server/discover');
      throw new ProbeClosedError(err);
    }
    throw err;
  } finally {
    clock.clearTimeout(timer);
  }
}

/** The 'auto' era probe of a new connection, over HTTP or any message transport. */
export async function probeEra(
  peer: Peer,
  transport: Transport,
  params: JsonObject,
  key: string | undefined,
  o: { probeTimeoutMs?: number; requestTimeoutMs?: number; clock?: Clock },
): Promise<Verdict> {
  try {
    return transport instanceof StreamableHttpClientTransport
      ? judgeHttpProbe(await probeHttp(transport, params, o.requestTimeoutMs))
      : await probeOverPeer(peer, params, o.probeTimeoutMs ?? 3000, o.clock ?? systemClock);
  } catch (err) {
    // The probe killed a legacy server: the next connection to it (connect() makes one at
    // once; a caller with its own transport makes it) must initialize without probing.
    if (err instanceof ProbeClosedError) eraCache.set(key, 'handshake');
    throw err;
  }
}

// ------------------------------------------------------------------ era cache

/**
 * Detected eras, per server: a stdio command line, or an HTTP origin + path. In-process only;
 * an entry is dropped when connecting with it fails, so the next connection probes again.
 */
const eras = new Map<string, Era | 'sse'>();

export const eraCache = {
  get: (key: string | undefined) => (key === undefined ? undefined : eras.get(key)),
  set: (key: string | undefined, era: Era | 'sse') => void (key !== undefined && eras.set(key, era)),
  delete: (key: string | undefined) => void (key !== undefined && eras.delete(key)),
  clear: () => eras.clear(),
};

/** The cache key of an HTTP endpoint: origin and path (query and fragment left out). */
export function httpEraKey(url: string | URL): string {
  const u = new URL(url);
  return `http ${u.origin}${u.pathname}`;
}

/** The cache key of the server behind a transport, for the transports that can name it. */
export function eraKeyOf(transport: Transport): string | undefined {
  if (transport instanceof StreamableHttpClientTransport) return httpEraKey(transport.url);
  // Duck-typed (StdioClientTransport has it) so that the client does not pull in child_process.
  const t = (transport as { spawnTarget?: { command: string; args: readonly string[]; cwd?: string } }).spawnTarget;
  return t && typeof t.command === 'string' ? `stdio ${JSON.stringify([t.command, ...t.args, t.cwd ?? ''])}` : undefined;
}

/**
 * The HTTP era probe. A legacy HTTP server answers `server/discover` with a status, never with
 * silence, so a slow answer (a cold start) is waited for under the request timeout, and no answer
 * at all is a timeout, not a verdict: taking it for a legacy server would drive a 2026-07-28
 * server with `initialize`.
 */
export async function probeHttp(transport: StreamableHttpClientTransport, params: JsonObject, requestTimeoutMs = 60_000): Promise<ProbeAnswer> {
  // 0 turns request timeouts off, as for any request.
  const ms = requestTimeoutMs > 0 ? requestTimeoutMs : 2 ** 31 - 1;
  const answer = await transport.probe({ jsonrpc: '2.0', id: 'era-probe', method: 'server/discover', params }, ms);
  if (answer.status === 0) throw new LocalError('timeout', `The server did not answer server/discover (the era probe) within ${ms} ms`);
  return answer;
}
