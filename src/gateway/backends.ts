// The gateway's connections to its backends, in lanes: one shared lane (a ServerPool holding
// every `shared` backend, used by all clients) and one lane per client for `per-client`
// backends (their own pool: their own stdio processes, the caller's token passed through).
// Each lane routes its backends' questions to the right client (routing.ts).
import type { EraOption } from '../client/era.js';
import type { Clock } from '../engine/clock.js';
import type { MessageMiddleware } from '../engine/middleware.js';
import type { AuthInfo } from '../engine/transport.js';
import { ServerPool, type PoolEvent } from '../pool/pool.js';
import type { ServerSpec } from '../pool/pool-types.js';
import type { LoggingLevel } from '../protocol/types.js';
import type { RequestContext } from '../server/context.js';
import type { Session } from '../server/context.js';
import type { BackendDef } from './config.js';
import type { CallerIdentity } from './policy-types.js';
import { followListChanges } from './list-changes.js';
import { InputRouter } from './routing.js';

export interface Lane {
  readonly pool: ServerPool;
  readonly router: InputRouter;
  /** Whose lane: `shared`, or the client's owner key. */
  readonly owner: string;
  readonly ready: Promise<void>;
}

/** What changed, for the list_changed notifications the front sends. */
export type ListKind = 'tools' | 'prompts' | 'resources';

export interface BackendsOptions {
  separator?: string;
  era?: EraOption;
  clock?: Clock;
  cwd?: string;
  requestTimeoutMs?: number;
  /** Message middleware of each backend connection (tracing: one `otelClient()` per client). */
  clientMiddleware?: (backend: string) => MessageMiddleware[];
  /** A backend's list changed (or a backend came or went). */
  changed(kind: ListKind): void;
  onEvent?(event: PoolEvent, owner: string): void;
}

/** Per-client lanes idle this long after their last use by a stateless (2026-07-28) caller are closed. */
const IDLE_LANE_MS = 15 * 60_000;

export class Backends {
  private defs: BackendDef[];
  readonly shared: Lane;
  private readonly perClient = new Map<string, { lane: Lane; auth: AuthInfo | undefined; used: number }>();
  private readonly sessionIds = new WeakMap<Session, string>();
  private nextSession = 0;
  private closed = false;
  /** Every shared backend has made its first attempt. */
  private started = false;

  constructor(
    defs: readonly BackendDef[],
    private readonly options: BackendsOptions,
  ) {
    this.defs = [...defs];
    this.shared = this.lane(
      'shared',
      this.defs.filter((d) => d.session === 'shared'),
      undefined,
    );
    void this.shared.ready.then(() => (this.started = true));
  }

  /** The backends as configured now. */
  get configured(): readonly BackendDef[] {
    return this.defs;
  }

  /** Whom a request's per-client backends belong to: its session, or (stateless) its caller. */
  ownerOf(ctx: Pick<RequestContext, 'session'>, callerId: string): string {
    const s = ctx.session;
    if (!s) return `caller:${callerId}`;
    let id = this.sessionIds.get(s);
    if (id === undefined) {
      id = `session:${++this.nextSession}`;
      this.sessionIds.set(s, id);
      const key = id;
      s.onClose(() => void this.drop(key));
    }
    return id;
  }

  /**
   * The lanes serving a client: the shared one, and its own when there are per-client backends.
   * A stateless (2026-07-28) caller without a credential has no own lane: nothing tells two such
   * callers apart, and one must never reach what another left in a per-client backend.
   */
  async lanesFor(ctx: Pick<RequestContext, 'session' | 'authInfo'>, caller: CallerIdentity): Promise<Lane[]> {
    const mine = this.defs.filter((d) => d.session === 'per-client');
    // The shared lane is not waited for: each backend's tools are offered once it has answered
    // (then announced with list_changed), so one slow backend holds up nobody.
    if (mine.length === 0 || this.closed || (!ctx.session && caller.auth === undefined)) return [this.shared];
    const owner = this.ownerOf(ctx, caller.id);
    let entry = this.perClient.get(owner);
    if (!entry) {
      entry = { lane: this.lane(owner, mine, ctx.authInfo), auth: ctx.authInfo, used: 0 };
      this.perClient.set(owner, entry);
    }
    entry.used = this.now();
    this.sweep();
    // A client's own connections are waited for at its first request (each within its backend's
    // timeout): they exist for this client alone, and its first list should have their tools.
    await entry.lane.ready;
    return [this.shared, entry.lane];
  }

  /** Applies a new set of backends: removed and changed ones are closed, added ones started, the rest untouched. */
  async reload(defs: readonly BackendDef[]): Promise<{ added: string[]; removed: string[]; changed: string[] }> {
    const before = new Map(this.defs.map((d) => [d.name, d]));
    const after = new Map(defs.map((d) => [d.name, d]));
    const removed = [...before.keys()].filter((n) => !after.has(n));
    const added = [...after.keys()].filter((n) => !before.has(n));
    const changed = [...after.keys()].filter((n) => before.has(n) && !same(before.get(n)!, after.get(n)!));
    this.defs = [...defs];
    const gone = new Set([...removed, ...changed]);
    const lanes: Array<{ lane: Lane; mode: BackendDef['session']; auth: AuthInfo | undefined }> = [{ lane: this.shared, mode: 'shared', auth: undefined }];
    for (const e of this.perClient.values()) lanes.push({ lane: e.lane, mode: 'per-client', auth: e.auth });
    await Promise.all(
      lanes.map(async ({ lane, mode, auth }) => {
        for (const name of gone) await lane.pool.remove(name);
        const fresh = defs.filter((d) => d.session === mode && (added.includes(d.name) || changed.includes(d.name)));
        await Promise.all(fresh.map((d) => lane.pool.add(specOf(d, auth))));
      }),
    );
    if (removed.length + added.length + changed.length > 0) {
      // Tools are announced by the pools; prompts and resources have no such bookkeeping.
      this.options.changed('prompts');
      this.options.changed('resources');
    }
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
    await Promise.all(lanes.map((l) => l.pool.close()));
  }

  private now(): number {
    return (this.options.clock ?? Date).now();
  }

  /** Stateless callers never say goodbye: their lanes go after a while unused. */
  private sweep(): void {
    const limit = this.now() - IDLE_LANE_MS;
    for (const [owner, e] of this.perClient) if (owner.startsWith('caller:') && e.used < limit) void this.drop(owner);
  }

  private async drop(owner: string): Promise<void> {
    const e = this.perClient.get(owner);
    if (!e) return;
    this.perClient.delete(owner);
    await e.lane.pool.close();
  }

  private lane(owner: string, defs: readonly BackendDef[], auth: AuthInfo | undefined): Lane {
    const router = new InputRouter();
    const o = this.options;
    // Ready once the first connections follow their list changes: a change right after is not missed.
    let following: Promise<unknown>[] | undefined = [];
    const pool: ServerPool = new ServerPool({
      servers: [],
      prefix: 'always',
      separator: o.separator,
      era: o.era,
      clock: o.clock,
      cwd: o.cwd,
      // The gateway's own directory is nobody's business upstream.
      roots: [],
      requestTimeoutMs: o.requestTimeoutMs,
      clientInfo: { name: 'mcpkit-gateway', version: '0.1.0' },
      ...(o.clientMiddleware ? { clientMiddleware: o.clientMiddleware } : {}),
      handlers: {
        elicitation: (server, params, ctx) => router.route(server, ctx.signal).elicit(params, { signal: ctx.signal }),
        sampling: (server, params, ctx) => router.route(server, ctx.signal).sample(params, { signal: ctx.signal }),
      },
      onEvent: (event) => {
        if (event.type === 'toolsChanged') o.changed('tools');
        if (event.type === 'connected') {
          const client = pool.client(event.server);
          // Ends with the client; a reconnect opens a new one.
          const stream = client && followListChanges(client, (kind) => o.changed(kind));
          if (stream) following?.push(stream.acknowledged.catch(() => undefined));
          // Its prompts and resources are new to the clients too (tools are announced by the pool).
          if (client?.serverCapabilities?.prompts) o.changed('prompts');
          if (client?.serverCapabilities?.resources) o.changed('resources');
          // Everything the backend logs comes here; each client's own level filters it on the way out.
          if (client?.serverCapabilities?.logging) client.setLoggingLevel('debug').catch(() => {});
          // A log line names no call: it goes to the client whose calls are in flight, if only one's are.
          client?.on('notifications/message', (params: { level?: LoggingLevel; data?: unknown; logger?: string }) => {
            const ctx = router.sole(event.server);
            if (ctx && typeof params?.level === 'string') void ctx.log(params.level, params.data, params.logger ?? event.server).catch(() => {});
          });
        }
        o.onEvent?.(event, owner);
      },
    });
    // One by one, not pool.start(): that names every server's tools only once all have answered,
    // so one backend that never answers its tools/list would hide everyone's until its timeout.
    const first = defs.map((d) => pool.add(specOf(d, auth)).catch(() => {}));
    return {
      pool,
      router,
      owner,
      ready: Promise.all(first).then(async () => {
        await Promise.all(following ?? []);
        following = undefined;
      }),
    };
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
