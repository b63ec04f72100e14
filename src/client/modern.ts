import { ErrorCode, LocalError, McpError } from '../jsonrpc/errors.js';
import type { JsonObject } from '../jsonrpc/messages.js';
import type { RequestOptions } from '../engine/peer.js';
import type { CallOptions } from './calls.js';
import { META, MRTR_METHODS } from '../protocol/modern.js';
import { ENVELOPE_TEXT, envelopeText, type EnvelopeText } from '../protocol/envelope-text.js';
import type { ClientCapabilities, Implementation, LoggingLevel, ServerCapabilities, Tool } from '../protocol/types.js';
import type { InputRequests } from '../protocol/params.js';
import { MODERN_VERSIONS } from '../protocol/versions.js';
import { ResultCache } from './cache.js';
import { isDiscoverResult } from './era.js';
import type { HandshakeOutcome } from './handshake.js';
import type { ClientInputs } from './inputs.js';
import type { ToolHeaderBook } from './param-headers.js';
import type { Clock } from '../engine/clock.js';

/** What `connect()` settled, in either era. */
export interface ConnectOutcome extends HandshakeOutcome {
  era: 'modern' | 'handshake';
  /** 2026-07-28: the revisions the server listed in `server/discover`. */
  supportedVersions?: string[];
}

/** What the stateless era borrows from the client that owns it. */
export interface ModernHost {
  /** Sends one request as is (the envelope is already in `params._meta`). */
  send(method: string, params: JsonObject | undefined, options?: RequestOptions): Promise<JsonObject>;
  readonly inputs: ClientInputs;
  readonly clientInfo: Implementation;
  /** What this client declares; sent with every request. */
  readonly declared: ClientCapabilities;
  /** The credential digest private cache entries are filed under (undefined: anonymous). */
  credential(): Promise<string | undefined>;
  /** The tool header book, and whether invalid tools are dropped (HTTP) or kept (stdio...). */
  readonly tools: ToolHeaderBook;
  readonly dropInvalidTools: boolean;
  readonly maxInputRounds: number;
  readonly cache: boolean;
  /** Where cache freshness reads the time. */
  readonly clock: Clock;
  /** Whether the requests declare the tasks extension: only then may tools/call answer a task. */
  readonly tasks: boolean;
  warn(message: string): void;
}

/**
 * The 2026-07-28 era, client side. No handshake: every request carries the envelope; the
 * server's identity comes from `server/discover`; `input_required` results are answered with
 * the client's handlers and retried; cacheable results are kept as their hints allow.
 */
export class ModernSession {
  private current: string;
  private level: LoggingLevel | undefined;
  /** The envelope's keys and their JSON text, made once per version and level (the keys copied into each request). */
  private template: EnvelopeText | undefined;
  readonly cache: ResultCache | undefined;

  constructor(
    private readonly host: ModernHost,
    pinned: string | undefined,
  ) {
    this.current = pinned ?? MODERN_VERSIONS[0];
    this.cache = host.cache ? new ResultCache(() => host.clock.now()) : undefined;
  }

  get version(): string {
    return this.current;
  }
  set version(v: string) {
    this.current = v;
    this.template = undefined;
  }
  /** Set by `setLoggingLevel`: sent on every request (without it the server logs nothing). */
  get logLevel(): LoggingLevel | undefined {
    return this.level;
  }
  set logLevel(v: LoggingLevel | undefined) {
    this.level = v;
    this.template = undefined;
  }

  /** The per-request `_meta` envelope's keys (SEP-2575). */
  private buildTemplate(): JsonObject {
    const meta: JsonObject = {
      [META.protocolVersion]: this.current,
      [META.clientCapabilities]: this.host.declared as JsonObject,
      [META.clientInfo]: this.host.clientInfo as unknown as JsonObject,
    };
    if (this.level !== undefined) meta[META.logLevel] = this.level;
    return meta;
  }

  /**
   * `params` with the envelope merged into `_meta` (the envelope's keys win). Copied with
   * Object.assign rather than `{ ...params, _meta }`: on Node 20 a spread followed by another
   * key costs ten times as much, and this runs for every request.
   */
  withEnvelope(params: JsonObject | undefined): JsonObject {
    const envelope = (this.template ??= envelopeText(this.buildTemplate()));
    const template = envelope.meta;
    const given = params?._meta as JsonObject | undefined;
    const out = Object.assign({}, params) as JsonObject & { [ENVELOPE_TEXT]?: EnvelopeText };
    out._meta = given === undefined ? Object.assign({}, template) : Object.assign({}, given, template);
    // The HTTP client writes the envelope's text instead of encoding its keys again.
    out[ENVELOPE_TEXT] = envelope;
    return out;
  }

  /**
   * Switches to a version the server said it supports (-32022 `data.supported`, or
   * `supportedVersions`). False when there is none this client speaks.
   */
  adopt(supported: unknown): boolean {
    if (!Array.isArray(supported)) return false;
    if (supported.includes(this.version)) return true;
    const pick = MODERN_VERSIONS.find((v) => supported.includes(v));
    if (pick === undefined) return false;
    this.version = pick;
    return true;
  }

  /** Learns who the server is: from the probe's DiscoverResult, or by asking. */
  async discover(discovered: JsonObject | undefined, timeoutMs: number | undefined): Promise<ConnectOutcome> {
    const r = discovered ?? (await this.exchange('server/discover', undefined, { timeoutMs }));
    if (!isDiscoverResult(r))
      throw new LocalError(
        'protocol',
        `The server answered server/discover without "capabilities" and "supportedVersions": ${JSON.stringify(r).slice(0, 300)}`,
      );
    const supported = (r.supportedVersions as unknown[]).filter((v): v is string => typeof v === 'string');
    if (!this.adopt(supported)) {
      throw new LocalError(
        'protocol',
        `The server supports protocol versions ${supported.join(', ')}; this client speaks ${MODERN_VERSIONS.join(', ')} in the stateless era`,
      );
    }
    // The spec puts serverInfo in the result's _meta; some servers (and drafts) put it beside
    // the capabilities. Display-only either way, so take whichever is there.
    const info = (r._meta as JsonObject | undefined)?.[META.serverInfo] ?? r.serverInfo;
    return {
      era: 'modern',
      protocolVersion: this.version,
      // Self-reported and optional in this era; an empty identity rather than a made-up one.
      serverInfo: isImplementation(info) ? info : { name: '', version: '' },
      serverCapabilities: r.capabilities as ServerCapabilities,
      instructions: typeof r.instructions === 'string' ? r.instructions : undefined,
      supportedVersions: supported,
    };
  }

  /**
   * One call: from the cache when fresh, else over the wire with MRTR rounds as needed. Not
   * async on the common path (an uncacheable call such as tools/call): one promise chain from
   * the engine's promise, no extra async frames per call.
   */
  request(method: string, params: JsonObject | undefined, options: RequestOptions = {}): Promise<JsonObject> {
    if (this.cache !== undefined && ResultCache.accepts(method, params)) return this.cached(method, params, options);
    return this.exchange(method, params, options).then(
      (r) =>
        r.resultType === 'input_required'
          ? this.rounds(method, params, r, options).then((f) => this.finish(method, f, options))
          : this.finish(method, r, options),
      (err: unknown) => this.failed(method, params, err),
    );
  }

  private async cached(method: string, params: JsonObject | undefined, options: RequestOptions): Promise<JsonObject> {
    const credential = await this.host.credential();
    const hit = this.cache!.get(method, params, credential);
    if (hit) return hit;
    const sent = this.host.clock.now();
    let result: JsonObject;
    try {
      result = await this.exchange(method, params, options);
    } catch (err) {
      return this.failed(method, params, err);
    }
    const rounds = result.resultType === 'input_required';
    if (rounds) result = await this.rounds(method, params, result, options);
    result = this.finish(method, result);
    if (!rounds) this.cache!.put(method, params, result, credential, sent);
    return result;
  }

  private failed(method: string, params: JsonObject | undefined, err: unknown): never {
    // An invalid cursor means the pages cached so far belong to a list that changed (§2.18).
    if (err instanceof McpError && err.code === ErrorCode.InvalidParams && params?.cursor !== undefined) this.cache?.dropMethod(method);
    throw err;
  }

  /**
   * What callers get: the same shape in both eras. `resultType` and the server's identity in
   * `_meta` are this era's plumbing (the identity is known from `server/discover`); left in, a
   * gateway or bridge built on this client would hand its backends' names and versions to its
   * own callers.
   */
  private finish(method: string, result: JsonObject, options?: CallOptions): JsonObject {
    if (method === 'tools/list' && Array.isArray(result.tools)) {
      const tools = this.host.tools.learn(result.tools as Tool[], this.host.dropInvalidTools, (m) => this.host.warn(m));
      result = Object.assign({}, result, { tools: tools as unknown as JsonObject[] });
    }
    // A relay's same-era pass-through: its own server puts its identity over the backend's.
    if (options?.asSent) return result;
    const meta = result._meta;
    if (meta === null || typeof meta !== 'object' || !Object.hasOwn(meta, META.serverInfo)) {
      if (result.resultType !== 'complete') return result;
      const { resultType: _done, ...plain } = result;
      return plain;
    }
    // One copy for both (an mcpkit server's results have both): the usual _meta is the identity alone.
    const { resultType, _meta: _identity, ...plain } = result;
    if (resultType !== undefined && resultType !== 'complete') plain.resultType = resultType;
    let rest: JsonObject | undefined;
    for (const key in meta as JsonObject) if (key !== META.serverInfo) (rest ??= {})[key] = (meta as JsonObject)[key];
    if (rest !== undefined) plain._meta = rest;
    return plain;
  }

  /**
   * Sends once with the envelope. A -32022 naming a version we speak is retried once with it
   * (a new id, a fresh envelope);
   * a -32020 on tools/call once after re-reading the tool list (the spec's advice: our header
   * mirrors came from a stale schema). Results must have a `resultType` we understand: `task`
   * only where the tasks extension allows it, and only if this client declared it.
   */
  exchange(method: string, params: JsonObject | undefined, options?: RequestOptions, attempt = 0): Promise<JsonObject> {
    return this.host.send(method, this.withEnvelope(params), options).then(
      (r) => {
        const type = r.resultType;
        if (
          type !== undefined &&
          type !== 'complete' &&
          !(type === 'input_required' && MRTR_METHODS.has(method)) &&
          !(type === 'task' && this.host.tasks && TASK_CAPABLE.has(method))
        ) {
          throw new LocalError(
            'protocol',
            `The server answered ${method} with resultType ${JSON.stringify(type)}, which is not valid for it${type === 'task' && !this.host.tasks ? ' (this client did not declare the tasks extension)' : ''}`,
          );
        }
        return r;
      },
      async (err: unknown) => {
        if (attempt > 0 || !(err instanceof McpError)) throw err;
        // Retried even when `supported` names the version just sent: behind a load balancer in
        // a rolling upgrade, another instance may well accept it. Once only (attempt > 0 above).
        if (err.code === ErrorCode.UnsupportedProtocolVersion && this.adopt((err.data as { supported?: unknown } | undefined)?.supported)) {
          return this.exchange(method, params, options, 1);
        }
        if (err.code === ErrorCode.HeaderMismatch && method === 'tools/call') {
          await this.refreshTools(options);
          return this.exchange(method, params, options, 1);
        }
        throw err;
      },
    );
  }

  /**
   * Multi round-trip requests (SEP-2322): fulfils the server's input requests with the same
   * handlers the handshake era uses, then retries with a new id, the original params, the
   * answers and the exact `requestState`, for at most `maxInputRounds` rounds.
   */
  private async rounds(method: string, params: JsonObject | undefined, first: JsonObject, options: RequestOptions): Promise<JsonObject> {
    const signal = options.signal ?? new AbortController().signal;
    const { inputResponses: _i, requestState: _s, ...original } = params ?? {};
    let r = first;
    for (let round = 1; r.resultType === 'input_required'; round++) {
      if (round > this.host.maxInputRounds) {
        throw new LocalError('protocol', `${method} still asked for input after ${this.host.maxInputRounds} rounds; giving up (see the maxInputRounds option)`);
      }
      const requests = r.inputRequests as InputRequests | undefined;
      const state = r.requestState;
      if (
        (requests === undefined && state === undefined) ||
        (requests !== undefined && (typeof requests !== 'object' || Array.isArray(requests))) ||
        (state !== undefined && typeof state !== 'string')
      ) {
        throw new LocalError('protocol', `The server answered ${method} with an invalid input_required result: ${JSON.stringify(r).slice(0, 300)}`);
      }
      const retry: JsonObject = { ...original };
      if (requests && Object.keys(requests).length > 0) {
        retry.inputResponses = (await this.host.inputs.fulfil(requests, this.host.declared, signal)) as unknown as JsonObject;
      }
      if (state !== undefined) retry.requestState = state;
      if (signal.aborted) throw new LocalError('aborted', `Request "${method}" was aborted while answering the server's input requests`);
      r = await this.exchange(method, retry, options);
    }
    return r;
  }

  /** Re-reads every page of tools/list from the server (not the cache), to refresh header mirrors. */
  private async refreshTools(options?: RequestOptions): Promise<void> {
    this.cache?.dropMethod('tools/list');
    let cursor: string | undefined;
    for (let page = 0; page < 1000; page++) {
      const r = await this.request('tools/list', cursor === undefined ? undefined : { cursor }, { signal: options?.signal, timeoutMs: options?.timeoutMs });
      if (typeof r.nextCursor !== 'string') return;
      cursor = r.nextCursor;
    }
  }
}

/** Methods a server may answer with a task (SEP-2663: tools/call, for now). */
const TASK_CAPABLE: ReadonlySet<string> = new Set(['tools/call']);

function isImplementation(v: unknown): v is Implementation {
  return !!v && typeof v === 'object' && typeof (v as { name?: unknown }).name === 'string' && typeof (v as { version?: unknown }).version === 'string';
}
