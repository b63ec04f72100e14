// The seam between the gateway (routing client sessions to backend servers) and the policies in
// front of it: who the caller is, what they may see and call, how often, and the call log. The
// gateway asks; policy/ answers. Neither knows how the other works.
import type { AuthInfo } from '../engine/transport.js';

/** Who is calling, as the gateway's front authentication established it. */
export interface CallerIdentity {
  /** Stable id for limits and logs: the API key's name, the token's `sub`, or `anonymous`. */
  readonly id: string;
  /** OAuth scopes (empty for API keys unless configured). */
  readonly scopes: readonly string[];
  /** Token claims or the API key's configured attributes (groups, tenant...). */
  readonly claims: Readonly<Record<string, unknown>>;
  /** The credential as the front saw it, for pass-through to backends that take the caller's token. */
  readonly auth: AuthInfo | undefined;
}

/** One thing the gateway exposes: a namespaced tool, prompt or resource of a backend. */
export interface GatewayItem {
  readonly kind: 'tool' | 'prompt' | 'resource';
  /** The namespaced name (or URI) the caller sees. */
  readonly name: string;
  /** The backend server's name in the config. */
  readonly server: string;
  /** The name (or URI) on the backend. */
  readonly original: string;
}

export type Admission = { ok: true } | { ok: false; reason: string; retryAfterMs: number };

/** One finished call, for the call log. */
export interface CallRecord {
  readonly time: string;
  readonly caller: string;
  readonly method: string;
  readonly item?: GatewayItem;
  readonly durationMs: number;
  readonly outcome: 'ok' | 'tool_error' | 'error' | 'refused' | 'cancelled';
  readonly error?: string;
  readonly session?: string;
  /** The call's arguments, given for a call log configured to keep them (policies leave them out by default). */
  readonly arguments?: Readonly<Record<string, unknown>>;
}

export interface GatewayPolicy {
  /** The caller behind a request's auth info (undefined when the front let it in unauthenticated). */
  identify(auth: AuthInfo | undefined): CallerIdentity;
  /** Whether the caller may see (list) and use the item. Called for every list and call. */
  visible(caller: CallerIdentity, item: GatewayItem): boolean;
  /**
   * Rate limits and quotas, checked before a call is forwarded: a promise where the counters are
   * elsewhere (Redis), the answer itself where they are in memory (no await per call then).
   */
  admit(caller: CallerIdentity, item: GatewayItem): Admission | Promise<Admission>;
  /** A call finished (or was refused). Must not throw or block the answer. */
  record(entry: CallRecord): void;
  close?(): Promise<void>;
}
