import { ErrorCode, LocalError, McpError } from '../jsonrpc/errors.js';
import type { JsonObject } from '../jsonrpc/messages.js';
import { responseTo, type InboundRequest } from '../engine/inbound.js';
import { missingCapability, type ModernEnvelope } from '../protocol/modern.js';
import type { ClientCapabilities } from '../protocol/types.js';
import type { InputRequest, InputRequests } from '../protocol/params.js';
import {
  answerProblem,
  INPUT_KEY_PREFIX,
  InputRequiredSignal,
  snapshotDigest,
  snapshotText,
  type LazySnapshot,
  type RequestStateSealer,
  type RoundState,
} from './mrtr.js';
import { StepLog } from './steps.js';

type InputMethod = InputRequest['method'];

/** Why a client that declared `caps` cannot be asked `method` with `params` (-32021); undefined when it can. */
export function inputRefusal(method: InputMethod, params: unknown, caps: ClientCapabilities): McpError | undefined {
  switch (method) {
    case 'elicitation/create': {
      const cap = caps.elicitation;
      const mode = (params as { mode?: string } | undefined)?.mode ?? 'form';
      if (!cap) return missingCapability({ elicitation: {} }, 'elicitation');
      if (mode === 'url' && !cap.url) return missingCapability({ elicitation: { url: {} } }, 'elicitation.url');
      if (mode === 'form' && cap.url && !cap.form) return missingCapability({ elicitation: { form: {} } }, 'elicitation.form');
      return undefined;
    }
    case 'sampling/createMessage': {
      const cap = caps.sampling;
      if (!cap) return missingCapability({ sampling: {} }, 'sampling');
      const p = params as { tools?: unknown; toolChoice?: unknown } | undefined;
      if ((p?.tools || p?.toolChoice) && !cap.tools) return missingCapability({ sampling: { tools: {} } }, 'sampling.tools');
      return undefined;
    }
    default:
      return caps.roots ? undefined : missingCapability({ roots: {} }, 'roots');
  }
}

/** What a run needs of the era that serves it. */
export interface RunHost {
  readonly sealer: RequestStateSealer;
  /** Keeps `run` here under `id` until its retry comes; false when it cannot (the retry replays). */
  park(id: string, run: InputRun): boolean;
  /** Forgets the run kept under `id` (taken by its retry, finished or given up). */
  unpark(id: string): void;
  warn(message: string): void;
  /** A problem with no request left to report it on. */
  report(error: unknown): void;
  /** A round's answer as the client gets it. */
  outcome(method: string, result: JsonObject | Promise<JsonObject>): JsonObject | Promise<JsonObject>;
}

/** What a run needs of its handler's context. */
export interface RunContext {
  /** A retry carries the run on: its id, envelope and stream are the request's from now on. */
  resume(inbound: InboundRequest, envelope: ModernEnvelope): void;
  /** The run is given up: `ctx.signal` fires. */
  abandon(reason: string): void;
}

/** A question the handler waits on. */
interface Question {
  method: InputMethod;
  params: unknown;
  request: InputRequest;
  promise: Promise<unknown>;
  resolve(answer: unknown): void;
  reject(err: unknown): void;
}

const ignore = (): void => {};

/** Which request the run answers now. */
const FIRST = 0; // the one that started it: the handler's own promise answers it, unless it waits for input
const RETRY = 1; // a retry that resumed it
const NONE = 2; // none: it waits for a retry, or it is over

/** What the handler's promise settles with once its request was answered another way (the engine sends nothing). */
const ANSWERED: JsonObject = {};

/**
 * After the microtasks of this turn (a timer, not setImmediate: the server runs outside Node):
 * questions asked together (`Promise.all`, or a few awaits apart) go out in one round.
 */
const nextTurn = (fn: () => void): void => void setTimeout(fn, 0);

/**
 * One handler run of a tools/call, resources/read or prompts/get in the 2026-07-28 era, and its
 * input rounds. `ctx.elicit/sample/roots` answered by the state or the request resolve at once;
 * any other question waits. Once the handler has asked what it asks this turn, the request is
 * answered with `input_required` and the run is parked here, still waiting; the retry whose
 * sealed state names it delivers the answers and the same run goes on (its outcome answers the
 * retry). A retry that lands where the run is not (another instance, a restart, expiry, a second
 * retry of the same round) gets a fresh run, which replays the handler with the sealed answers
 * and step results. Most runs ask nothing: their tables are made on first use.
 */
export class InputRun {
  /** The context of the handler; set before it runs. */
  ctx: RunContext | undefined = undefined;
  /** Set when an answer the client sent does not fit the question asked under its key. */
  private invalid: string | undefined = undefined;
  private counts: Record<string, number> | undefined = undefined;
  private questions: Map<string, Question> | undefined = undefined;
  private steps: StepLog | undefined = undefined;
  private stage = FIRST;
  /** Settles the retry the run answers (stage RETRY). */
  private retry: { resolve(r: JsonObject | Promise<JsonObject>): void; reject(err: unknown): void } | undefined = undefined;
  private flushing = false;
  /** The handler returned or threw. */
  private done = false;
  /** Given up: expired, crowded out, cancelled, or the server closed. */
  private dropped = false;
  /** The id it is parked under while it waits. */
  private parkedAs: string | undefined = undefined;

  /**
   * @param answers answers of earlier rounds, from the sealed state (already checked; they win)
   * @param offered this request's `inputResponses`: client input, checked when a key is asked
   * @param snapshot the request's params as JSON text (without the round keys), taken before
   *   the handler ran (it may change its arguments in place), or the request's own JSON text to
   *   take it from; read and hashed only if a state is sealed
   * @param recorded step results from the sealed state
   */
  constructor(
    private readonly host: RunHost,
    readonly method: string,
    private readonly principal: string | null,
    private inbound: InboundRequest,
    private readonly snapshot: string | LazySnapshot,
    private digest: string | undefined,
    private answers: Record<string, unknown> | undefined,
    private offered: Record<string, unknown> | undefined,
    private readonly recorded: unknown,
  ) {}

  /** True while no request waits on the run: progress, logs and notifications go nowhere. */
  get quiet(): boolean {
    return this.dropped || (this.stage === NONE && !this.done);
  }

  /** The call's steps (`ctx.step`), with what the sealed state recorded. */
  stepLog(): StepLog {
    return (this.steps ??= new StepLog(this.recorded));
  }

  need(method: InputMethod, params: unknown, named?: string): Promise<unknown> {
    if (this.done || this.dropped) return Promise.reject(new LocalError('aborted', `The ${this.method} request is over: no more input can be asked for`));
    const short = INPUT_KEY_PREFIX[method];
    const counts = (this.counts ??= {});
    const n = (counts[short] = (counts[short] ?? 0) + 1);
    const key = named ?? `${short}-${n}`;
    const answers = this.answers;
    if (answers !== undefined && Object.hasOwn(answers, key)) return Promise.resolve(answers[key]);
    const offered = this.offered;
    if (offered !== undefined && Object.hasOwn(offered, key)) {
      const answer = offered[key];
      // Answers are client input: a handler must never get a number where its ctx.elicit
      // promised an ElicitResult. The run ends; the round answers -32602.
      const problem = answerProblem(method, key, answer);
      if (problem !== undefined) {
        this.invalid ??= problem;
        this.soon();
        return Promise.reject(new InputRequiredSignal());
      }
      (this.answers ??= {})[key] = answer;
      return Promise.resolve(answer);
    }
    const asked = this.questions?.get(key);
    if (asked !== undefined) return asked.promise;
    const q = question(method, params);
    (this.questions ??= new Map()).set(key, q);
    this.soon();
    return q.promise;
  }

  matches(method: string, digest: string, principal: string | null): boolean {
    return this.method === method && this.digest === digest && this.principal === principal;
  }

  /**
   * Waits for an asynchronous handler. Its promise answers the request unless the handler waits
   * for input first: then the request is answered with `input_required` meanwhile, and what the
   * handler ends with answers the retry that resumed it.
   */
  race(result: PromiseLike<JsonObject>): Promise<JsonObject> {
    return Promise.resolve(result).then(
      (r) => this.settled(true, r),
      (err: unknown) => this.settled(false, err),
    );
  }

  /**
   * A retry named this parked run. Throws, leaving it parked, when the retry cannot answer its
   * questions (an answer of the wrong kind: -32602; a capability no longer declared: -32021);
   * otherwise takes it, hands over the answers and answers the retry with what the run does next.
   */
  resume(inbound: InboundRequest, envelope: ModernEnvelope, offered: Record<string, unknown> | undefined): Promise<JsonObject> {
    const questions = this.questions ?? new Map<string, Question>();
    for (const [key, q] of questions) {
      const refusal = inputRefusal(q.method, q.params, envelope.clientCapabilities);
      if (refusal !== undefined) throw refusal;
      if (offered !== undefined && Object.hasOwn(offered, key)) {
        const problem = answerProblem(q.method, key, offered[key]);
        if (problem !== undefined) throw new McpError(ErrorCode.InvalidParams, problem);
      }
    }
    // Taken: another retry of this round no longer finds it, and replays.
    if (this.parkedAs !== undefined) this.host.unpark(this.parkedAs);
    this.parkedAs = undefined;
    this.inbound = inbound;
    this.offered = offered;
    this.ctx!.resume(inbound, envelope);
    return new Promise<JsonObject>((resolve, reject) => {
      this.stage = RETRY;
      this.retry = { resolve, reject };
      const signal = inbound.signal;
      if (signal.aborted) return this.drop('The request was cancelled');
      // Its answer would go nowhere: the run is given up, and the client's next retry replays.
      signal.addEventListener('abort', () => this.drop('The request was cancelled'), { once: true });
      for (const [key, q] of questions) {
        if (offered === undefined || !Object.hasOwn(offered, key)) continue;
        questions.delete(key);
        (this.answers ??= {})[key] = offered[key];
        q.resolve(offered[key]);
      }
      if (questions.size > 0) this.soon();
    });
  }

  /**
   * The round's outcome once the handler returned: its result, or `input_required` when it
   * returned with questions open. Throws -32602 for an invalid answer.
   */
  finish(result: JsonObject | undefined): JsonObject | Promise<JsonObject> {
    this.done = true;
    if (this.invalid !== undefined) throw new McpError(ErrorCode.InvalidParams, this.invalid);
    if (this.questions === undefined || this.questions.size === 0) return result!;
    if (result !== undefined)
      this.host.warn(
        `A ${this.method} handler returned while its ctx.elicit/sample/roots still waited for an answer; await them (or let their errors propagate)`,
      );
    return this.seal(false);
  }

  /** The round's outcome once the handler threw: rethrows what is not about input. */
  fail(err: unknown): JsonObject | Promise<JsonObject> {
    this.done = true;
    // A missing capability is final: answering the other questions cannot fix it (-32021 tells
    // the client what to declare), so it wins over pending input.
    if (err instanceof McpError && err.code === ErrorCode.MissingRequiredClientCapability) throw err;
    if (!(err instanceof InputRequiredSignal) && (this.questions === undefined || this.questions.size === 0) && this.invalid === undefined) throw err;
    return this.finish(undefined);
  }

  /**
   * Gives the run up: `ctx.signal` fires, open questions reject (so `finally` blocks run), and
   * a retry waiting on it gets `error`. Nothing it does afterwards reaches anyone.
   */
  drop(reason: string, error: unknown = new LocalError('aborted', reason)): void {
    if (this.dropped) return;
    this.dropped = true;
    if (this.parkedAs !== undefined) this.host.unpark(this.parkedAs);
    this.parkedAs = undefined;
    this.ctx?.abandon(reason);
    const retry = this.stage === RETRY ? this.retry : undefined;
    this.stage = NONE;
    this.retry = undefined;
    retry?.reject(error);
    const questions = this.questions;
    this.questions = undefined;
    if (questions !== undefined) for (const q of questions.values()) q.reject(new LocalError('aborted', reason));
  }

  /** The handler settled: what its promise answers (the first request's outcome, or nothing). */
  private settled(ok: boolean, value: unknown): JsonObject | Promise<JsonObject> {
    const stage = this.stage;
    this.stage = NONE;
    this.done = true;
    // Parked and finished anyway (it stopped waiting): its retry replays.
    if (this.parkedAs !== undefined) this.host.unpark(this.parkedAs);
    this.parkedAs = undefined;
    if (stage === FIRST) return this.host.outcome(this.method, ok ? this.finish(value as JsonObject) : this.fail(value));
    const retry = this.retry;
    this.retry = undefined;
    if (retry !== undefined) {
      try {
        retry.resolve(this.host.outcome(this.method, ok ? this.finish(value as JsonObject) : this.fail(value)));
      } catch (err) {
        retry.reject(err);
      }
    }
    return ANSWERED;
  }

  private soon(): void {
    if (this.flushing) return;
    this.flushing = true;
    nextTurn(() => this.flush());
  }

  /** The turn the questions were asked in is over: answers the request with them. */
  private flush(): void {
    this.flushing = false;
    if (this.done || this.dropped || this.stage === NONE) return;
    if (this.invalid !== undefined) {
      this.answer(Promise.reject(new McpError(ErrorCode.InvalidParams, this.invalid)));
      return this.drop(`An answer did not fit its question: ${this.invalid}`);
    }
    if (this.questions === undefined || this.questions.size === 0) return;
    if (this.inbound.cancelled) return this.drop('The request was cancelled');
    this.answer(Promise.resolve(this.host.outcome(this.method, this.seal(true))));
  }

  /** Answers the request the run answers now with `out`, while the handler goes on waiting. */
  private answer(out: Promise<JsonObject>): void {
    const stage = this.stage;
    this.stage = NONE;
    if (stage === RETRY) {
      const retry = this.retry!;
      this.retry = undefined;
      retry.resolve(out);
      return;
    }
    // The first request: its answer is the handler's promise, which waits. Answered here instead;
    // the engine sends nothing when that promise settles.
    const inbound = this.inbound;
    inbound.preempt();
    out
      .then(
        (r) => responseTo(inbound, true, r, undefined),
        (err: unknown) => responseTo(inbound, false, err, (e) => this.host.report(e)),
      )
      .then((response) => inbound.peer.respond(response))
      .catch((e: unknown) => this.host.report(e));
  }

  /** `input_required` with the open questions, and a state naming this run when it is `kept` here. */
  private async seal(kept: boolean): Promise<JsonObject> {
    // A step still running belongs in this state, or a replay would run it again.
    await this.steps?.idle();
    const inputRequests: InputRequests = {};
    for (const [key, q] of this.questions ?? []) inputRequests[key] = q.request;
    const sealer = this.host.sealer;
    const state: RoundState = {
      v: 1,
      m: this.method,
      d: (this.digest ??= await snapshotDigest(snapshotText(this.snapshot))),
      p: this.principal,
      e: sealer.clock.now() + sealer.ttlMs,
      a: this.answers ?? {},
      q: Object.keys(inputRequests),
    };
    const steps = (this.steps ?? (this.recorded === undefined ? undefined : this.stepLog()))?.records();
    if (steps !== undefined) state.s = steps;
    if (kept && !this.done && !this.dropped) {
      const id = globalThis.crypto.randomUUID();
      if (this.host.park(id, this)) state.i = this.parkedAs = id;
      // Nowhere to keep it: the retry replays, so this run can stop now.
      else this.drop('The request waits for input, and no handler run can be kept (the retry replays it)');
    }
    return { resultType: 'input_required', inputRequests, requestState: await sealer.seal(state) } as JsonObject;
  }
}

function question(method: InputMethod, params: unknown): Question {
  let resolve!: (answer: unknown) => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<unknown>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // Rejected only when the run is given up; a handler that no longer awaits it must not crash the process.
  promise.catch(ignore);
  return { method, params, request: (params === undefined ? { method } : { method, params }) as InputRequest, promise, resolve, reject };
}
