// Which client a backend's question belongs to. A backend shared by many clients asks for
// elicitation or sampling in the middle of some client's call; the answer must come from that
// client and no other (the bug that made other bridges roll back their shared mode).
//
// A 2026-07-28 backend asks inside the call's own result (input_required), and the client layer
// hands the question to us with the call's AbortSignal: the signal names the call exactly. A
// handshake-era backend sends a separate request that names no call (stdio has no way to say it):
// it is routed to the one client with calls in flight on that backend, and refused when several
// have, rather than risk showing one user's question to another. `mcpkit bridge --http` (one
// stdio child shared by its HTTP clients) follows the same rule with this same router.
import { ErrorCode, McpError } from '../jsonrpc/errors.js';
import type { RequestContext } from '../server/context.js';

/** What a refusal says, for the component using the router (the gateway's words by default). */
export interface RouterWords {
  /** No call is in progress on `server` to ask for. */
  idle(server: string, question: string | undefined): string;
  /** `clients` clients have calls in progress on `server`, and the question names none of them. */
  ambiguous(server: string, clients: number, question: string | undefined): string;
}

const GATEWAY_WORDS: RouterWords = {
  idle: (server) => `The gateway has no call in progress on "${server}" to ask the user for`,
  ambiguous: (server, clients) =>
    `Server "${server}" asked for input without saying for which call, and ${clients} clients have calls in progress on it; ` +
    'give it "session": "per-client" in the gateway config, or use a 2026-07-28 server',
};

interface Flight {
  readonly server: string;
  readonly ctx: RequestContext;
  readonly owner: string;
}

export class InputRouter {
  private readonly bySignal = new WeakMap<AbortSignal, Flight>();
  private readonly flights = new Set<Flight>();

  constructor(private readonly words: RouterWords = GATEWAY_WORDS) {}

  /**
   * A call is forwarded to `server` for the client `owner` (a session, or a caller). The signal
   * returned goes with the forwarded call; `end` must be called when it settles.
   */
  begin(server: string, ctx: RequestContext, owner: string): { signal: AbortSignal; end: () => void } {
    const controller = new AbortController();
    const flight: Flight = { server, ctx, owner };
    const onAbort = () => controller.abort(ctx.signal.reason);
    if (ctx.signal.aborted) onAbort();
    else ctx.signal.addEventListener('abort', onAbort, { once: true });
    this.bySignal.set(controller.signal, flight);
    this.flights.add(flight);
    return {
      signal: controller.signal,
      end: () => {
        ctx.signal.removeEventListener('abort', onAbort);
        this.flights.delete(flight);
      },
    };
  }

  /**
   * The call a message that names none (a log line) belongs to: the latest call on `server` when
   * all its calls in flight are one client's; undefined when none are, or several clients' are.
   */
  sole(server: string): RequestContext | undefined {
    const candidates = [...this.flights].filter((f) => f.server === server);
    return new Set(candidates.map((f) => f.owner)).size === 1 ? candidates[candidates.length - 1].ctx : undefined;
  }

  /**
   * The request context of the call a backend's question belongs to. Throws when it cannot be
   * told. `question` names the question for the refusal (e.g. "an elicitation request").
   */
  route(server: string, signal: AbortSignal | undefined, question?: string): RequestContext {
    const found = this.find(server, signal, question);
    if (found === undefined) throw new McpError(ErrorCode.InvalidRequest, this.words.idle(server, question));
    return found;
  }

  /** As {@link route}, but undefined when no call at all is in progress on `server`. */
  find(server: string, signal: AbortSignal | undefined, question?: string): RequestContext | undefined {
    const exact = signal && this.bySignal.get(signal);
    if (exact) return exact.ctx;
    const candidates = [...this.flights].filter((f) => f.server === server);
    const owners = new Set(candidates.map((f) => f.owner));
    if (owners.size === 1) return candidates[candidates.length - 1].ctx;
    if (owners.size === 0) return undefined;
    throw new McpError(ErrorCode.InvalidRequest, this.words.ambiguous(server, owners.size, question));
  }
}
