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
import { LightSignal } from '../engine/light-signal.js';
import type { RequestContext } from '../server/context.js';
import { whenCancelled } from '../server/request-facts.js';

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

/** A call in flight, as its forwarder holds it. */
export interface FlightHandle {
  /** Goes with the forwarded call: aborted when the client cancels, or the call must stop. */
  readonly signal: AbortSignal;
  /**
   * What was relayed on the call's stream (progress, log lines) that must be sent before its
   * result: a promise to wait for, or undefined when nothing is (the usual case, no await).
   */
  relayed(): Promise<void> | undefined;
  /** The call settled. */
  end(): void;
}

/**
 * A flight's signal, which names its flight: the router finds a call from the signal a backend's
 * question or progress comes with by reading it, not through a table. (A WeakMap from signal to
 * flight, one entry per call in a map that lives as long as the gateway, made the scavenger keep
 * and promote every call it had seen until the next full collection: 5.8 KB per call, a tenth of
 * the gateway's CPU in scavenges; docs/performance.md.)
 */
class FlightSignal extends LightSignal {
  constructor(readonly flight: Flight) {
    super();
  }
}

/**
 * One forwarded call: its own signal, its client's request, its owner. A class that is also the
 * abort listener on the client's signal (handleEvent) and the handle the forwarder holds: no
 * closure nor handle object per call. Its signal is a LightSignal, not an AbortController's
 * (microseconds per call on Node, with the listener the client's engine adds to it): the pool,
 * the client and the engine use only its light surface, and a question's handler is given the
 * real AbortSignal made from it (client/inputs.ts), which `find` knows as this call's too.
 */
class Flight implements FlightHandle {
  readonly controller: FlightSignal = new FlightSignal(this);
  /** Notifications being relayed on this call's stream: they leave before its result. */
  pending: Array<Promise<unknown>> | undefined = undefined;
  /** Where it is in its router's list of flights; -1 once ended. */
  slot = -1;

  constructor(
    readonly router: InputRouter,
    readonly server: string,
    readonly ctx: RequestContext,
    readonly owner: unknown,
    /** When it began, as a count: the latest call is the highest. */
    readonly seq: number,
  ) {}

  get signal(): AbortSignal {
    return this.controller.asSignal;
  }

  /** The client's request was cancelled: so is the forwarded call. */
  handleEvent(): void {
    this.controller.abort(this.ctx.signal.reason);
  }

  relayed(): Promise<void> | undefined {
    const p = this.pending;
    if (p === undefined) return undefined;
    this.pending = undefined;
    return Promise.all(p).then(() => {});
  }

  end(): void {
    // Still listening to the client's request (see begin): the listener goes with that request.
    this.router.ended(this);
  }
}

/** A call a message that names none belongs to, to relay it on that call's stream. */
export interface SoleCall {
  readonly ctx: RequestContext;
  /** Keeps `sending` ahead of the call's result. */
  relay(sending: Promise<unknown>): void;
}

export class InputRouter {
  /**
   * The calls in flight, unordered (see seq): an array each call leaves by swapping with the last,
   * not a Set, which the garbage collector pays for per call (see engine/id-table.ts).
   */
  private readonly flights: Flight[] = [];
  private begun = 0;
  private readonly idlers: Array<() => void> = [];

  constructor(private readonly words: RouterWords = GATEWAY_WORDS) {}

  /**
   * A call is forwarded to `server` for the client `owner` (a session's key, or anything that
   * stands for one stateless request). The handle's signal goes with the forwarded call; `end`
   * must be called when it settles.
   */
  begin(server: string, ctx: RequestContext, owner: unknown): FlightHandle {
    const flight = new Flight(this, server, ctx, owner, ++this.begun);
    // Without making the client request's own AbortSignal (the request ends soon after the call,
    // and the listener with it, so it is never removed).
    whenCancelled(ctx, flight);
    flight.slot = this.flights.length;
    this.flights.push(flight);
    return flight;
  }

  /** @internal A flight ended. */
  ended(flight: Flight): void {
    const i = flight.slot;
    if (i < 0) return;
    flight.slot = -1;
    const last = this.flights.pop()!;
    if (last !== flight) {
      this.flights[i] = last;
      last.slot = i;
    }
    if (this.flights.length === 0 && this.idlers.length > 0) for (const idle of this.idlers.splice(0)) idle();
  }

  /** The calls in flight on `server`, the latest last. */
  private onServer(server: string): Flight[] {
    return this.flights.filter((f) => f.server === server).sort((a, b) => a.seq - b.seq);
  }

  /** The call of this router whose signal `signal` is. */
  private mine(signal: AbortSignal | undefined): Flight | undefined {
    const s: unknown = signal;
    return s instanceof FlightSignal && s.flight.router === this ? s.flight : undefined;
  }

  /** Relays `sending` on the stream of the call `signal` names (its progress), ahead of its result. */
  relay(signal: AbortSignal, sending: Promise<unknown>): void {
    const f = this.mine(signal);
    if (f) (f.pending ??= []).push(sending.catch(() => {}));
  }

  /**
   * Ends the forwarded call `ctx` made, with `reason` (its client's answer to a question was
   * unusable: the round it would resume is over, and the backend's call with it).
   */
  abort(ctx: RequestContext, reason: unknown): void {
    for (const f of [...this.flights]) if (f.ctx === ctx) f.controller.abort(reason);
  }

  /** Settles when no call is in flight. */
  idle(): Promise<void> {
    return this.flights.length === 0 ? Promise.resolve() : new Promise((resolve) => this.idlers.push(resolve));
  }

  /**
   * The call a message that names none (a log line) belongs to: the latest call on `server` when
   * all its calls in flight are one client's; undefined when none are, or several clients' are.
   */
  sole(server: string): SoleCall | undefined {
    const candidates = this.onServer(server);
    if (new Set(candidates.map((f) => f.owner)).size !== 1) return undefined;
    const f = candidates[candidates.length - 1];
    return { ctx: f.ctx, relay: (sending) => (f.pending ??= []).push(sending.catch(() => {})) };
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
    const exact = this.mine(signal);
    if (exact) return exact.ctx;
    const candidates = this.onServer(server);
    // The real AbortSignal made from a call's own (the one its question's handler was given).
    const made = signal && candidates.find((f) => f.controller.made(signal));
    if (made) return made.ctx;
    const owners = new Set(candidates.map((f) => f.owner));
    if (owners.size === 1) return candidates[candidates.length - 1].ctx;
    if (owners.size === 0) return undefined;
    throw new McpError(ErrorCode.InvalidRequest, this.words.ambiguous(server, owners.size, question));
  }
}
