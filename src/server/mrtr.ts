import type { JsonObject } from '../jsonrpc/messages.js';
import { base64ToBytes, base64ToText, bytesToBase64url, textToBase64url, utf8Bytes } from '../protocol/encoding.js';
import { systemClock, type Clock } from '../engine/clock.js';
import type { InputRequest } from '../protocol/params.js';
import type { StepRecords } from './steps.js';

/**
 * Rejects `ctx.elicit/sample/roots` in the stateless era when the handler run cannot go on: an
 * answer the client sent does not fit the question asked under its key. The round answers
 * -32602 whatever the handler does next; handlers must let it propagate.
 */
export class InputRequiredSignal extends Error {
  constructor() {
    super('Input required from the client (this error ends the handler run; let it propagate)');
    this.name = 'InputRequiredSignal';
  }
}

/** What a sealed `requestState` carries between rounds. */
export interface RoundState {
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
  /**
   * the handler run waiting for this round's answers on the instance that sealed it; absent
   * when none waits (a retry then replays the handler)
   */
  i?: string;
  /** what the call's `ctx.step`s recorded so far (see StepLog) */
  s?: StepRecords;
}

/**
 * Integrity-protects `requestState` (attacker-controlled input) with HMAC-SHA256, on Web Crypto
 * so the server runs outside Node. Web Crypto is asynchronous: only rounds that carry or make a
 * `requestState` pay for it; a request that asks for no input never reaches this class.
 */
export class RequestStateSealer {
  private secret: Uint8Array<ArrayBuffer> | undefined;
  private key: Promise<CryptoKey> | undefined;
  readonly ttlMs: number;
  /** Where expiry reads the time. */
  readonly clock: Clock;

  /**
   * A random per-process key by default, drawn at first use (Workers refuse random values at a
   * module's top level, where a server is often built): set `secret` when several instances
   * serve one client.
   */
  constructor(options: { secret?: string | Uint8Array; ttlMs?: number; clock?: Clock } = {}) {
    const { secret } = options;
    this.secret = secret === undefined ? undefined : typeof secret === 'string' ? utf8Bytes(secret) : new Uint8Array(secret);
    // An empty HMAC key would let anyone forge requestState.
    if (this.secret?.length === 0) throw new TypeError('modern.stateSecret must not be empty');
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
    this.secret ??= globalThis.crypto.getRandomValues(new Uint8Array(32));
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
export function snapshotOf(params: JsonObject | undefined): string {
  const kept: Record<string, unknown> = {};
  if (params !== undefined) {
    for (const k in params) if (k !== '_meta' && k !== 'inputResponses' && k !== 'requestState') kept[k] = params[k];
  }
  return JSON.stringify(kept);
}

async function digestOf(canon: string): Promise<string> {
  return bytesToBase64url(new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', utf8Bytes(canon))));
}

/**
 * A snapshot to take later: the JSON text of the request itself (FrameInfo.body), immutable, so
 * the params read from it when input is first asked for are the params as they arrived.
 */
export interface LazySnapshot {
  readonly body: string;
}

/** The snapshot's text: as taken, or read now from the request's own JSON text. */
export function snapshotText(snapshot: string | LazySnapshot): string {
  return typeof snapshot === 'string' ? snapshot : snapshotOf((JSON.parse(snapshot.body) as { params?: JsonObject }).params);
}

/** The digest a round's state binds its params with (see snapshotOf). */
export function paramsDigest(params: JsonObject | undefined): Promise<string> {
  return snapshotDigest(snapshotOf(params));
}

export function snapshotDigest(snapshot: string): Promise<string> {
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

export function isObject(v: unknown): v is Record<string, unknown> {
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
