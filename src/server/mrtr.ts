import { ErrorCode, McpError } from '../jsonrpc/errors.js';
import type { JsonObject } from '../jsonrpc/messages.js';
import { base64ToBytes, base64ToText, bytesToBase64url, textToBase64url, utf8Bytes } from '../protocol/encoding.js';
import { systemClock, type Clock } from '../engine/clock.js';
import type { InputRequest, InputRequests } from '../protocol/types.js';

/**
 * Thrown (as a rejected promise) by `ctx.elicit/sample/roots` in the stateless era when the
 * answer is not in hand yet. The dispatcher turns it into an `input_required` result; handlers
 * must let it propagate.
 */
export class InputRequiredSignal extends Error {
  constructor() {
    super('Input required from the client (this error ends the handler run; let it propagate)');
    this.name = 'InputRequiredSignal';
  }
}

/** What a sealed `requestState` carries between rounds. */
interface RoundState {
  v: 1;
  /** method */
  m: string;
  /** digest of the request params (without _meta, inputResponses, requestState) */
  d: string;
  /** principal, or null when unauthenticated */
  p: string | null;
  /** expiry, ms since epoch */
  e: number;
  /** answers gathered in earlier rounds, by input key */
  a: Record<string, unknown>;
  /** keys asked for in the last round (informational: an answer is matched when its key is asked again) */
  q: string[];
}

/**
 * Integrity-protects `requestState` (attacker-controlled input) with HMAC-SHA256, on Web Crypto
 * so the server runs outside Node. Web Crypto is asynchronous: only rounds that carry or make a
 * `requestState` pay for it; a request that asks for no input never reaches this class.
 */
export class RequestStateSealer {
  private readonly secret: Uint8Array<ArrayBuffer>;
  private key: Promise<CryptoKey> | undefined;
  readonly ttlMs: number;
  /** Where expiry reads the time. */
  readonly clock: Clock;

  /** A random per-process key by default: set `secret` when several instances serve one client. */
  constructor(options: { secret?: string | Uint8Array; ttlMs?: number; clock?: Clock } = {}) {
    const { secret } = options;
    this.secret =
      secret === undefined ? globalThis.crypto.getRandomValues(new Uint8Array(32)) : typeof secret === 'string' ? utf8Bytes(secret) : new Uint8Array(secret);
    // An empty HMAC key would let anyone forge requestState.
    if (this.secret.length === 0) throw new TypeError('modern.stateSecret must not be empty');
    this.ttlMs = options.ttlMs ?? 10 * 60_000;
    this.clock = options.clock ?? systemClock;
  }

  async seal(state: RoundState): Promise<string> {
    const body = textToBase64url(JSON.stringify(state));
    const mac = await globalThis.crypto.subtle.sign('HMAC', await this.hmacKey(), utf8Bytes(body));
    return `${body}.${bytesToBase64url(new Uint8Array(mac))}`;
  }

  async open(token: unknown): Promise<RoundState | undefined> {
    if (typeof token !== 'string' || token.length > 1_000_000) return undefined;
    const dot = token.lastIndexOf('.');
    if (dot <= 0) return undefined;
    const body = token.slice(0, dot);
    const mac = base64ToBytes(token.slice(dot + 1));
    if (mac === undefined) return undefined;
    // verify() compares in constant time.
    if (!(await globalThis.crypto.subtle.verify('HMAC', await this.hmacKey(), mac, utf8Bytes(body)))) return undefined;
    try {
      const s = JSON.parse(base64ToText(body) ?? '') as RoundState;
      return s && s.v === 1 ? s : undefined;
    } catch {
      return undefined;
    }
  }

  private hmacKey(): Promise<CryptoKey> {
    return (this.key ??= globalThis.crypto.subtle.importKey('raw', this.secret, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']));
  }
}

/** Stable JSON (sorted keys) so that a digest does not depend on key order. */
function canonical(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  if (Array.isArray(v)) {
    let out = '[';
    for (let i = 0; i < v.length; i++) out += (i === 0 ? '' : ',') + canonical(v[i]);
    return out + ']';
  }
  return canonicalMembers(v as Record<string, unknown>);
}

/** `{...}` of `o`'s keys in sorted order. */
function canonicalMembers(o: Record<string, unknown>): string {
  const keys = Object.keys(o);
  // Insertion sort in place: objects here have a handful of keys, and Array#sort allocates
  // (~0.9 KB per request). Same order as sort(): both compare UTF-16 code units.
  for (let i = 1; i < keys.length; i++) {
    const k = keys[i];
    let j = i - 1;
    for (; j >= 0 && keys[j] > k; j--) keys[j + 1] = keys[j];
    keys[j + 1] = k;
  }
  let out = '{';
  let first = true;
  for (const k of keys) {
    out += (first ? '' : ',') + JSON.stringify(k) + ':' + canonical(o[k]);
    first = false;
  }
  return out + '}';
}

/**
 * The params without the keys that change between rounds, as JSON text: a native stringify,
 * far cheaper per request than the canonical form, which is only needed if input is asked for.
 * Digests are always taken of the canonical form of this text's parse, so params handed over
 * in memory (which may hold undefined) digest the same as the JSON a wire would carry.
 */
function snapshotOf(params: JsonObject | undefined): string {
  const kept: Record<string, unknown> = {};
  if (params !== undefined) {
    for (const k in params) if (k !== '_meta' && k !== 'inputResponses' && k !== 'requestState') kept[k] = params[k];
  }
  return JSON.stringify(kept);
}

async function digestOf(canon: string): Promise<string> {
  return bytesToBase64url(new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', utf8Bytes(canon))));
}

/** The digest a round's state binds its params with (see snapshotOf). */
export function paramsDigest(params: JsonObject | undefined): Promise<string> {
  return snapshotDigest(snapshotOf(params));
}

function snapshotDigest(snapshot: string): Promise<string> {
  return digestOf(canonicalMembers(JSON.parse(snapshot) as Record<string, unknown>));
}

/** The default key prefix of each kind of question (`elicit-1`, `sample-1`, `roots-1`). */
export const INPUT_KEY_PREFIX: Readonly<Record<InputRequest['method'], string>> = {
  'elicitation/create': 'elicit',
  'sampling/createMessage': 'sample',
  'roots/list': 'roots',
};

const ANSWER_KIND: Record<InputRequest['method'], string> = {
  'elicitation/create': 'ElicitResult',
  'sampling/createMessage': 'CreateMessageResult',
  'roots/list': 'ListRootsResult',
};

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * Why `value` is not an acceptable answer to the question asked under `key` with `method`, or
 * undefined when it is. Shared with task input (`tasks/update`), which checks answers the same way.
 */
export function answerProblem(method: InputRequest['method'], key: string, value: unknown): string | undefined {
  return validAnswer(method, value) ? undefined : `Invalid params: inputResponses["${key}"] is not a valid ${ANSWER_KIND[method]}`;
}

/**
 * The minimal shape an answer to `method` must have. Judged by the method the handler asked
 * with, never by the key: keys may be the handler's own (`{ key: 'user_name' }`).
 */
function validAnswer(method: InputRequest['method'], v: unknown): boolean {
  if (!isObject(v)) return false;
  switch (method) {
    case 'elicitation/create':
      return (v.action === 'accept' || v.action === 'decline' || v.action === 'cancel') && (v.content === undefined || isObject(v.content));
    case 'sampling/createMessage':
      return typeof v.role === 'string' && (isObject(v.content) || Array.isArray(v.content));
    case 'roots/list':
      return Array.isArray(v.roots);
    default:
      return false;
  }
}

/**
 * One handler run's view of MRTR: answers known so far, and what else it asked for. Keys are
 * `elicit-1`, `sample-1`, `roots-1`… in call order (or the handler's own `key`), so a
 * replay-safe handler asks the same questions under the same keys on every round. Also what
 * sealing this round's state needs. Its tables are made on first use: most runs ask nothing.
 */
export class InputCollector {
  /** Questions asked that no answer covers, by key; undefined while there are none. */
  requests: InputRequests | undefined;
  /** Set when an answer the client sent does not fit the question asked under its key. */
  invalid: string | undefined;
  private counts: Record<string, number> | undefined;

  /**
   * @param answers answers of earlier rounds, from the sealed state (already checked; they win)
   * @param offered this request's `inputResponses`: client input, checked when a key is asked
   * @param snapshot the request's params as JSON text (without the round keys), taken before
   *   the handler ran (it may change its arguments in place); put in canonical form and hashed
   *   only if a state is sealed, which most runs never do
   */
  constructor(
    private answers: Record<string, unknown> | undefined,
    private readonly offered: Record<string, unknown> | undefined,
    private readonly sealer: RequestStateSealer,
    private readonly method: string,
    private readonly principal: string | null,
    private readonly snapshot: string,
    private digest: string | undefined,
  ) {}

  need(method: InputRequest['method'], params: unknown, named?: string): Promise<unknown> {
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
      // promised an ElicitResult (and so complete with garbage). The run ends; the round
      // answers -32602 whatever the handler does with this rejection.
      const problem = answerProblem(method, key, answer);
      if (problem !== undefined) {
        this.invalid ??= problem;
        return Promise.reject(new InputRequiredSignal());
      }
      (this.answers ??= {})[key] = answer;
      return Promise.resolve(answer);
    }
    (this.requests ??= {})[key] = (params === undefined ? { method } : { method, params }) as InputRequest;
    return Promise.reject(new InputRequiredSignal());
  }

  get pending(): boolean {
    return this.requests !== undefined;
  }

  /**
   * The round's outcome once the handler returned: its result, or `input_required` with a
   * fresh sealed state when it still needs input. Throws -32602 for an invalid answer. Only
   * the `input_required` outcome is a promise (sealing is Web Crypto, which is asynchronous).
   */
  finish(result: JsonObject | undefined, warn: (message: string) => void): JsonObject | Promise<JsonObject> {
    if (this.invalid !== undefined) throw new McpError(ErrorCode.InvalidParams, this.invalid);
    const requests = this.requests;
    if (requests === undefined) return result!;
    if (result !== undefined)
      warn(`A ${this.method} handler caught the input-required signal of ctx.elicit/sample/roots and returned anyway; let that error propagate`);
    return this.sealRound(requests);
  }

  private async sealRound(requests: InputRequests): Promise<JsonObject> {
    const expires = this.sealer.clock.now() + this.sealer.ttlMs;
    const state: RoundState = {
      v: 1,
      m: this.method,
      d: (this.digest ??= await snapshotDigest(this.snapshot)),
      p: this.principal,
      e: expires,
      a: this.answers ?? {},
      q: Object.keys(requests),
    };
    return { resultType: 'input_required', inputRequests: requests, requestState: await this.sealer.seal(state) } as JsonObject;
  }

  /** The round's outcome once the handler threw: rethrows what is not about input. */
  fail(err: unknown, warn: (message: string) => void): JsonObject | Promise<JsonObject> {
    // A missing capability is final: answering the other questions cannot fix it (-32021 tells
    // the client what to declare), so it wins over pending input.
    if (err instanceof McpError && err.code === ErrorCode.MissingRequiredClientCapability) throw err;
    if (!(err instanceof InputRequiredSignal) && this.requests === undefined && this.invalid === undefined) throw err;
    return this.finish(undefined, warn);
  }
}

/**
 * Opens one round of a multi round-trip request: opens and checks the state, and collects what
 * the handler asks with the sealed answers plus the ones the client sent (each checked against
 * the question asked under its key). Run the handler with it, then `finish` or `fail`.
 * Synchronous for a request without `requestState` (the common case); a promise when there is
 * one to open, since checking it is Web Crypto.
 */
export function openRound(
  sealer: RequestStateSealer,
  method: string,
  params: JsonObject | undefined,
  principal: string | undefined,
): InputCollector | Promise<InputCollector> {
  const token = params?.requestState;
  if (token !== undefined) return openSealedRound(sealer, token, method, params, principal);
  return collectorFor(sealer, method, params, principal, undefined, undefined);
}

async function openSealedRound(
  sealer: RequestStateSealer,
  token: unknown,
  method: string,
  params: JsonObject | undefined,
  principal: string | undefined,
): Promise<InputCollector> {
  // The digest is taken before the state is opened: both are awaited, and the params must be
  // read as they were when the request arrived.
  const digesting = paramsDigest(params);
  const s = await sealer.open(token);
  const digest = await digesting;
  if (!s || s.m !== method || s.d !== digest || s.p !== (principal ?? null)) {
    throw new McpError(ErrorCode.InvalidParams, 'Invalid params: requestState was altered or belongs to another request');
  }
  if (s.e < sealer.clock.now()) throw new McpError(ErrorCode.InvalidParams, 'Invalid params: requestState has expired; send the request again without it');
  return collectorFor(sealer, method, params, principal, { ...s.a }, digest);
}

function collectorFor(
  sealer: RequestStateSealer,
  method: string,
  params: JsonObject | undefined,
  principal: string | undefined,
  answers: Record<string, unknown> | undefined,
  digest: string | undefined,
): InputCollector {
  // An answer counts when the handler asks under its key and no earlier round answered that key
  // (sealed answers cannot be replaced); other keys are ignored, as the spec requires. Answers
  // sent without a requestState count too (the ephemeral flow): the client is the source of
  // every answer anyway, and the handler sees each one only after its shape was checked.
  const given = params?.inputResponses;
  return new InputCollector(answers, isObject(given) ? given : undefined, sealer, method, principal ?? null, snapshotOf(params), digest);
}

/** One whole round: `openRound`, the handler, then its outcome. */
export async function runRound(
  sealer: RequestStateSealer,
  method: string,
  params: JsonObject | undefined,
  principal: string | undefined,
  run: (collector: InputCollector) => Promise<JsonObject>,
  warn: (message: string) => void,
): Promise<JsonObject> {
  const collector = await openRound(sealer, method, params, principal);
  let result: JsonObject;
  try {
    result = await run(collector);
  } catch (err) {
    return collector.fail(err, warn);
  }
  return collector.finish(result, warn);
}
