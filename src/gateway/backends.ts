// The gateway's connections to its backends, in lanes (relay/lane.ts): one shared lane holding
// every `shared` backend, used by all clients, and one lane per client for `per-client` backends
// (their own pool: their own stdio processes, the caller's token passed through). Each lane
// routes its backends' questions to the right client and keeps the indexes the relay answers from.
import type { EraOption } from '../client/era.js';
import type { Clock } from '../engine/clock.js';
import type { MessageMiddleware } from '../engine/middleware.js';
import type { AuthInfo } from '../engine/transport.js';
import type { PoolEvent } from '../pool/pool.js';
import type { ServerSpec } from '../pool/pool-types.js';
import type { RequestContext } from '../server/context.js';
import type { BackendDef } from './config.js';
import type { CallerIdentity } from './policy-types.js';
import { Lane, type ListKind } from './relay/lane.js';
import type { RelayNaming } from './relay/naming.js';
import { Owners } from './relay/owners.js';

export type { ListKind };

export interface BackendsOptions {
  naming: RelayNaming;
  era?: EraOption;
  clock?: Clock;
  cwd?: string;
  requestTimeoutMs?: number;
  /** Message middleware of each backend connection (tracing: one `otelClient()` per client). */
  clientMiddleware?: (backend: string) => MessageMiddleware[];
  /** A backend's list changed (or a backend came or went). */
  changed(kind: ListKind): void;
  /** A subscribed resource changed (its URI as clients know it). */
  updated(uri: string): void;
  onEvent?(event: PoolEvent, owner: string): void;
}

/** Per-client lanes idle this long after their last use by a stateless (2026-07-28) caller are closed. */
const IDLE_LANE_MS = 15 * 60_000;

interface ClientLane {
  readonly lane: Lane;
  /** The lanes of this client's requests: the shared one, then its own (one array, not one a request). */
  readonly lanes: readonly Lane[];
  readonly auth: AuthInfo | undefined;
  readonly ready: Promise<void>;
  settled: boolean;
  used: number;
}

export class Backends {
  private defs: BackendDef[];
  /** Whether any backend is per-client (asked on every request: kept, not filtered anew). */
  private perClientDefs = false;
  readonly shared: Lane;
  readonly ready: Promise<void>;
  /** Whose requests are whose; a closed session's own lane closes with it. */
  readonly owners = new Owners((key) => void this.drop(key));
  private readonly sharedOnly: readonly Lane[];
  private readonly perClient = new Map<string, ClientLane>();
  private closed = false;
  private lastSweep = 0;
  /** Every shared backend has made its first attempt. */
  private started = false;

  constructor(
    defs: readonly BackendDef[],
    private readonly options: BackendsOptions,
  ) {
    this.defs = [...defs];
    this.perClientDefs = this.defs.some((d) => d.session === 'per-client');
    this.shared = this.lane('shared');
    this.sharedOnly = [this.shared];
    this.ready = this.start(this.shared, 'shared', undefined);
    void this.ready.then(() => (this.started = true));
  }

  /** The backends as configured now. */
  get configured(): readonly BackendDef[] {
    return this.defs;
  }

  /** Whom a request's per-client backends belong to: its session, or (stateless) its caller. */
  ownerOf(ctx: Pick<RequestContext, 'session'>, callerId: string): string {
    // A session's own lane closes with it.
    return ctx.session ? this.owners.session(ctx.session, true) : `caller:${callerId}`;
  }

  /**
   * The lanes serving a client: the shared one, and its own when there are per-client backends.
   * A stateless (2026-07-28) caller without a credential has no own lane: nothing tells two such
   * callers apart, and one must never reach what another left in a per-client backend.
   */
  lanesFor(ctx: Pick<RequestContext, 'session' | 'authInfo'>, caller: CallerIdentity): readonly Lane[] | Promise<readonly Lane[]> {
    // The shared lane is not waited for: each backend's tools are offered once it has answered
    // (then announced with list_changed), so one slow backend holds up nobody.
    if (!this.perClientDefs || this.closed || (!ctx.session && caller.auth === undefined)) return this.sharedOnly;
    const owner = this.ownerOf(ctx, caller.id);
    let entry = this.perClient.get(owner);
    if (!entry) {
      const lane = this.lane(owner);
      const ready = this.start(lane, 'per-client', ctx.authInfo);
      const made: ClientLane = { lane, lanes: [this.shared, lane], auth: ctx.authInfo, ready, settled: false, used: 0 };
      void ready.then(() => (made.settled = true));
      this.perClient.set(owner, (entry = made));
    }
    entry.used = this.now();
    this.sweep();
    if (entry.settled) return entry.lanes;
    // A client's own connections are waited for at its first request (each within its backend's
    // timeout): they exist for this client alone, and its first list should have their tools.
    const lanes = entry.lanes;
    return entry.ready.then(() => lanes);
  }

  /** Applies a new set of backends: removed and changed ones are closed, added ones started, the rest untouched. */
  async reload(defs: readonly BackendDef[]): Promise<{ added: string[]; removed: string[]; changed: string[] }> {
    const before = new Map(this.defs.map((d) => [d.name, d]));
    const after = new Map(defs.map((d) => [d.name, d]));
    const removed = [...before.keys()].filter((n) => !after.has(n));
    const added = [...after.keys()].filter((n) => !before.has(n));
    const changed = [...after.keys()].filter((n) => before.has(n) && !same(before.get(n)!, after.get(n)!));
    this.defs = [...defs];
    this.perClientDefs = this.defs.some((d) => d.session === 'per-client');
    const gone = new Set([...removed, ...changed]);
    const lanes: Array<{ lane: Lane; mode: BackendDef['session']; auth: AuthInfo | undefined }> = [{ lane: this.shared, mode: 'shared', auth: undefined }];
    for (const e of this.perClient.values()) lanes.push({ lane: e.lane, mode: 'per-client', auth: e.auth });
    // Each lane's pool says what went and came (list_changed follows): nothing to announce here.
    await Promise.all(
      lanes.map(async ({ lane, mode, auth }) => {
        for (const name of gone) await lane.pool.remove(name);
        const fresh = defs.filter((d) => d.session === mode && (added.includes(d.name) || changed.includes(d.name)));
        await Promise.all(fresh.map((d) => lane.add(specOf(d, auth))));
      }),
    );
    return { added, removed, changed };
  }

  /**
   * For readiness (/readyz): not ready until every shared backend has made its first attempt;
   * then ready, with the backends that are not connected named in `reason`; each one's state in `detail`.
   */
  readiness(): { ready: boolean; reason?: string; detail: Record<string, unknown> } {
    const backends: Record<string, unknown> = {};
    const missing: string[] = [];
    for (const s of this.shared.pool.servers()) {
      const error = s.error?.message;
      backends[s.name] = {
        state: s.state,
        tools: s.tools,
        ...(error !== undefined && { error }),
        ...(s.retryInMs !== undefined && { retryInMs: s.retryInMs }),
      };
      if (s.state === 'connecting') missing.push(`"${s.name}" is not ready yet (connecting)`);
      else if (s.state !== 'connected') missing.push(`"${s.name}" is down${error === undefined ? '' : ` (${error})`}`);
    }
    return { ready: this.started, ...(missing.length > 0 && { reason: `backend ${missing.join('; ')}` }), detail: { backends } };
  }

  async close(): Promise<void> {
    this.closed = true;
    const lanes = [this.shared, ...[...this.perClient.values()].map((e) => e.lane)];
    this.perClient.clear();
    await Promise.all(lanes.map((l) => l.close()));
  }

  private now(): number {
    return (this.options.clock ?? Date).now();
  }

  /** Stateless callers never say goodbye: their lanes go after a while unused (looked for once a minute at most). */
  private sweep(): void {
    const now = this.now();
    if (now - this.lastSweep < 60_000) return;
    this.lastSweep = now;
    const limit = now - IDLE_LANE_MS;
    for (const [owner, e] of this.perClient) if (owner.startsWith('caller:') && e.used < limit) void this.drop(owner);
  }

  private async drop(owner: string): Promise<void> {
    const e = this.perClient.get(owner);
    if (!e) return;
    this.perClient.delete(owner);
    await e.lane.close();
  }

  private lane(owner: string): Lane {
    const o = this.options;
    return new Lane({
      owner,
      naming: o.naming,
      pool: {
        servers: [],
        era: o.era,
        clock: o.clock,
        cwd: o.cwd,
        // The gateway's own directory is nobody's business upstream.
        roots: [],
        requestTimeoutMs: o.requestTimeoutMs,
        clientInfo: { name: 'mcpkit-gateway', version: '0.1.0' },
        ...(o.clientMiddleware ? { clientMiddleware: o.clientMiddleware } : {}),
      },
      changed: o.changed,
      updated: o.updated,
      onEvent: (event) => o.onEvent?.(event, owner),
    });
  }

  /**
   * The lane's backends, added one by one (not pool.start(): that names every server's tools only
   * once all have answered, so one backend that never answers its tools/list would hide everyone's
   * until its timeout). Resolves once each has connected and is followed, or failed its first attempt.
   */
  private start(lane: Lane, mode: BackendDef['session'], auth: AuthInfo | undefined): Promise<void> {
    const defs = this.defs.filter((d) => d.session === mode);
    return Promise.all(defs.map((d) => lane.add(specOf(d, auth)).catch(() => {}))).then(() => {});
  }
}

function same(a: BackendDef, b: BackendDef): boolean {
  return a.fingerprint === b.fingerprint && a.session === b.session && JSON.stringify(a.target) === JSON.stringify(b.target);
}

/** The pool's spec of a backend; a passthrough backend gets the caller's token. */
function specOf(d: BackendDef, auth: AuthInfo | undefined): ServerSpec {
  let target = d.target;
  if (d.passthrough && target.kind === 'http' && auth?.token) target = { ...target, headers: { ...target.headers, Authorization: `Bearer ${auth.token}` } };
  return { name: d.name, target, ...d.settings };
}
