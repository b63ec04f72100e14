import { ErrorCode, McpError } from '../jsonrpc/errors.js';
import type { JsonObject } from '../jsonrpc/messages.js';
import type { InboundRequest } from '../engine/inbound.js';
import { unrefTimer, type TimerHandle } from '../engine/clock.js';
import type { ModernEnvelope } from '../protocol/modern.js';
import type { RequestContext } from './context.js';
import { ModernContext } from './modern-context.js';
import { isObject, paramsDigest, snapshotOf, type RequestStateSealer } from './mrtr.js';
import { InputRun, type RunHost } from './mrtr-run.js';

/**
 * Handler runs kept waiting for input, so that the retry resumes them instead of running the
 * handler again (2026-07-28). Bounded in number and time: past either a run is given up (its
 * signal fires) and its retry replays the handler.
 */
export interface SuspendOptions {
  /** Runs waiting at once (default 1000); past it the oldest is given up. 0 keeps none. */
  max?: number;
  /** How long a run waits for its retry (default, and at most, `stateTtlMs`). */
  ttlMs?: number;
}

/** What the rounds need of their era. */
export interface RoundsHost {
  dispatch(method: string, params: JsonObject | undefined, ctx: RequestContext): Promise<JsonObject> | JsonObject;
  /** A result as the client gets it (resultType, serverInfo, cache hints). */
  decorate(method: string, result: JsonObject): JsonObject;
  onerror(error: Error): void;
  /** A likely mistake that stops nothing (reported as an `McpWarning`). */
  warn(message: string): void;
}

interface Parked {
  run: InputRun;
  timer: TimerHandle;
}

/**
 * The multi round-trip requests of one server (tools/call, resources/read, prompts/get in the
 * 2026-07-28 era): opens a presented `requestState`, resumes the run it names when it waits
 * here, else runs the handler (from the top, with the sealed answers, on a retry).
 */
export class MrtrRounds implements RunHost {
  private readonly parked = new Map<string, Parked>();
  private readonly max: number;
  private readonly ttlMs: number;
  private closed = false;

  constructor(
    readonly sealer: RequestStateSealer,
    private readonly era: RoundsHost,
    options: SuspendOptions | false | undefined,
  ) {
    // Workers cancel a continuation that crosses from one request's context into another's, so a
    // kept run could never be resumed there (the retry would hang): keep none unless asked to.
    const max = options === false ? 0 : (options?.max ?? (onWorkers() ? 0 : 1000));
    if (!(Number.isInteger(max) && max >= 0)) throw new TypeError('modern.suspend.max must be an integer >= 0');
    const ttl = (options || undefined)?.ttlMs ?? sealer.ttlMs;
    if (!(Number.isInteger(ttl) && ttl > 0)) throw new TypeError('modern.suspend.ttlMs must be a positive integer (ms)');
    this.max = max;
    // A run that outlives its state could never be resumed.
    this.ttlMs = Math.min(ttl, sealer.ttlMs);
  }

  /** Runs waiting for their retry now. */
  get waiting(): number {
    return this.parked.size;
  }

  /** Synchronous for a request without `requestState` and a synchronous handler (the common case). */
  serve(method: string, params: JsonObject | undefined, inbound: InboundRequest, env: ModernEnvelope, logging: boolean): Promise<JsonObject> | JsonObject {
    const principal = inbound.info?.authInfo?.principal ?? null;
    const token = params?.requestState;
    if (token !== undefined) return this.reopen(token, method, params, principal, inbound, env, logging);
    // Over HTTP the request's own text stands in for a copy of its params (see FrameInfo.body).
    const body = inbound.info?.body;
    const snapshot = body === undefined ? snapshotOf(params) : { body };
    const run = new InputRun(this, method, principal, inbound, snapshot, undefined, undefined, offeredIn(params), undefined);
    return this.run(run, params, inbound, env, logging);
  }

  private async reopen(
    token: unknown,
    method: string,
    params: JsonObject | undefined,
    principal: string | null,
    inbound: InboundRequest,
    env: ModernEnvelope,
    logging: boolean,
  ): Promise<JsonObject> {
    // The digest is taken before the state is opened: both are awaited, and the params must be
    // read as they were when the request arrived.
    const digesting = paramsDigest(params);
    const s = await this.sealer.open(token);
    const digest = await digesting;
    if (!s || s.m !== method || s.d !== digest || s.p !== principal) {
      throw new McpError(ErrorCode.InvalidParams, 'Invalid params: requestState was altered or belongs to another request');
    }
    if (s.e < this.sealer.clock.now())
      throw new McpError(ErrorCode.InvalidParams, 'Invalid params: requestState has expired; send the request again without it');
    const offered = offeredIn(params);
    // Found and taken with no await in between: of two retries of one round, one resumes.
    const live = typeof s.i === 'string' ? this.parked.get(s.i)?.run : undefined;
    if (live?.matches(method, digest, principal)) return live.resume(inbound, env, offered);
    const answers = isObject(s.a) ? { ...s.a } : {};
    return this.run(new InputRun(this, method, principal, inbound, snapshotOf(params), digest, answers, offered, s.s), params, inbound, env, logging);
  }

  private run(run: InputRun, params: JsonObject | undefined, inbound: InboundRequest, env: ModernEnvelope, logging: boolean): Promise<JsonObject> | JsonObject {
    const ctx = new ModernContext(inbound, env, run, logging);
    run.ctx = ctx;
    let result: Promise<JsonObject> | JsonObject;
    try {
      result = this.era.dispatch(run.method, params, ctx);
    } catch (err) {
      return this.outcome(run.method, run.fail(err));
    }
    if (isThenable(result)) return run.race(result);
    return this.outcome(run.method, run.finish(result));
  }

  /** A round's result, decorated; an input_required one is sealed first (asynchronously). */
  outcome(method: string, result: JsonObject | Promise<JsonObject>): JsonObject | Promise<JsonObject> {
    return isThenable(result) ? result.then((r) => this.era.decorate(method, r)) : this.era.decorate(method, result);
  }

  warn(message: string): void {
    this.era.warn(message);
  }

  report(error: unknown): void {
    this.era.onerror(error instanceof Error ? error : new Error(String(error)));
  }

  park(id: string, run: InputRun): boolean {
    if (this.closed || this.max === 0) return false;
    if (this.parked.size >= this.max) {
      const [oldest, entry] = this.parked.entries().next().value as [string, Parked];
      this.unpark(oldest);
      entry.run.drop(`More than ${this.max} requests wait for input: the oldest was given up (its retry runs the handler again)`);
    }
    const clock = this.sealer.clock;
    const timer = clock.setTimeout(() => {
      if (this.parked.get(id)?.run !== run) return;
      this.unpark(id);
      run.drop('No retry came in time: the request waiting for input was given up');
    }, this.ttlMs);
    // A waiting run must not keep the process alive.
    unrefTimer(timer);
    this.parked.set(id, { run, timer });
    return true;
  }

  unpark(id: string): void {
    const entry = this.parked.get(id);
    if (entry === undefined) return;
    this.parked.delete(id);
    this.sealer.clock.clearTimeout(entry.timer);
  }

  /** Server shutdown: every waiting run is given up, and none is kept from now on. */
  close(): void {
    this.closed = true;
    for (const [id, entry] of [...this.parked]) {
      this.unpark(id);
      entry.run.drop('The server closed');
    }
  }
}

/** This request's `inputResponses`: client input, each checked when its key is asked. */
function offeredIn(params: JsonObject | undefined): Record<string, unknown> | undefined {
  // Answers sent without a requestState count too (the ephemeral flow): the client is the source
  // of every answer anyway, and the handler sees each one only after its shape was checked.
  // Unknown keys are ignored, as the spec requires.
  const given = params?.inputResponses;
  return isObject(given) ? given : undefined;
}

function isThenable(v: unknown): v is PromiseLike<JsonObject> {
  return v !== null && typeof v === 'object' && typeof (v as { then?: unknown }).then === 'function';
}

/** Cloudflare Workers (workerd) names itself in navigator.userAgent. */
function onWorkers(): boolean {
  return (globalThis as { navigator?: { userAgent?: unknown } }).navigator?.userAgent === 'Cloudflare-Workers';
}
