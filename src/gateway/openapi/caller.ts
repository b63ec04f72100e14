// One call of one operation: the request built from the arguments, credentials added, sent with
// a timeout (and the MCP request's cancellation), the answer read up to a size cap and turned
// into a tool result. Nothing here throws at a caller: every failure is an `isError` result the
// model can read.
import type { Clock } from '../../engine/clock.js';
import type { AuthInfo } from '../../engine/transport.js';
import type { CallToolResult } from '../../protocol/params.js';
import type { AuthApplier } from './auth.js';
import { networkReason } from './load.js';
import type { OpenApiOperation } from './operations.js';
import { fetchFollowing, RedirectRefused, type CrossOriginRedirects } from './redirects.js';
import { buildRequest, InvalidArguments } from './request.js';
import { readCapped, toToolResult } from './response.js';

export interface CallerOptions {
  fetch: typeof fetch;
  clock: Clock;
  auth: AuthApplier[];
  timeoutMs: number;
  maxResponseBytes: number;
  /** Redirects followed per call (same origin; see crossOriginRedirects). */
  maxRedirects: number;
  /** A redirect to another origin: refused, or followed with no credentials. */
  crossOriginRedirects: CrossOriginRedirects;
  /** The base URL of each operation (resolved at setup). */
  baseUrl: (op: OpenApiOperation) => string;
}

export interface CallContext {
  signal?: AbortSignal;
  authInfo?: AuthInfo;
}

export class OperationCaller {
  constructor(private readonly options: CallerOptions) {}

  async call(op: OpenApiOperation, args: Record<string, unknown>, ctx: CallContext = {}): Promise<CallToolResult> {
    let built: ReturnType<typeof buildRequest>;
    try {
      built = buildRequest(op, this.options.baseUrl(op), args);
    } catch (err) {
      // Nothing is sent: the model reads why and can call again with other arguments.
      if (err instanceof InvalidArguments) return failure(`Invalid arguments for ${op.name}: ${err.message}; nothing was sent`).result;
      throw err;
    }
    const what = `${built.method} ${built.url}`;
    const first = await this.send(built, what, ctx);
    // A cached token the API no longer takes (revoked, clock skew): one retry with a fresh one.
    if (first.status === 401 && this.options.auth.some((a) => a.invalidate?.() === true)) return (await this.send(built, what, ctx)).result;
    return first.result;
  }

  private async send(built: ReturnType<typeof buildRequest>, what: string, ctx: CallContext): Promise<{ status: number; result: CallToolResult }> {
    const { clock, timeoutMs, maxResponseBytes } = this.options;
    const headers: Record<string, string> = { accept: 'application/json, */*;q=0.8', ...built.headers };
    // Kept apart from the other headers: they go to the API's origin and nowhere else.
    const credentials: Record<string, string> = {};
    const timeout = new AbortController();
    const signals = ctx.signal ? [ctx.signal, timeout.signal] : [timeout.signal];
    const signal = AbortSignal.any(signals);
    const timer = clock.setTimeout(() => timeout.abort(), timeoutMs);
    try {
      try {
        for (const a of this.options.auth) await a.apply(credentials, ctx.authInfo, signal);
      } catch (err) {
        return failure(`${what} not sent: ${(err as Error).message}`);
      }
      let res: Response;
      try {
        res = await fetchFollowing(
          { url: built.url, method: built.method, headers, credentials, body: built.body },
          { fetch: this.options.fetch, signal, maxRedirects: this.options.maxRedirects, crossOrigin: this.options.crossOriginRedirects },
        );
      } catch (err) {
        if (err instanceof RedirectRefused) return failure(`${what} failed: ${err.message}`);
        if (timeout.signal.aborted) return failure(`${what} timed out: no answer within ${timeoutMs} ms`);
        if (ctx.signal?.aborted) return failure(`${what} cancelled`);
        return failure(`${what} failed: could not reach the API (${networkReason(err)})`);
      }
      let body: Awaited<ReturnType<typeof readCapped>>;
      try {
        body = await readCapped(res, maxResponseBytes);
      } catch (err) {
        if (timeout.signal.aborted) return failure(`${what} timed out while reading the answer (${timeoutMs} ms)`);
        return failure(`${what}: the answer broke off (${networkReason(err)})`);
      }
      return { status: res.status, result: toToolResult(res, body, what, maxResponseBytes) };
    } finally {
      clock.clearTimeout(timer);
    }
  }
}

function failure(text: string): { status: number; result: CallToolResult } {
  return { status: 0, result: { isError: true, content: [{ type: 'text', text }] } };
}
