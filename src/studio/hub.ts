// What the studio holds: the connections (a ServerPool), the protocol timeline, the questions
// servers wait on, the servers the page asked to add, and the events the page follows. The HTTP
// layer (http.ts, api.ts) only translates requests into calls on this.
import { basename } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { McpClient } from '../client/client.js';
import type { Subscription } from '../client/listen.js';
import { systemClock, unrefTimer, type Clock } from '../engine/clock.js';
import { ServerPool, type PoolEvent, type ServerSpec } from '../pool/pool.js';
import type { Target } from '../pool/targets.js';
import type { Root } from '../protocol/types.js';
import type { PendingTarget, ServerOrigin, ServerView, StudioEvents, StudioState } from './api-types.js';
import { TargetRequests, viewOf } from './confirm.js';
import { firstLook, type Diagnose } from './diagnose.js';
import { InputQueue } from './inputs.js';
import { AppViews } from './apps.js';
import { TaskTracker } from './tasks.js';
import { tracedFetch } from './http-trace.js';
import { forStream, Timeline } from './timeline.js';
import { Snapshots } from './record.js';
import { StudioChat } from './chat.js';
import { StudioOAuth, type StudioOAuthOptions } from './oauth.js';
import type { ProviderConfig } from '../host/providers/index.js';
import type { Diagnosis } from './api-types.js';

export interface StudioServer {
  name: string;
  target: Target;
  origin: Exclude<ServerOrigin, 'page'>;
  /** Per-server settings of a config entry (era...). */
  settings?: Omit<ServerSpec, 'name' | 'target' | 'transport' | 'client'>;
}

export interface HubOptions {
  servers: StudioServer[];
  version: string;
  cwd: string;
  home?: string;
  config?: string;
  env?: Record<string, string | undefined>;
  clock?: Clock;
  diagnose?: Diagnose;
  /** Whether the page may ask to add servers. Default true. */
  canAdd?: boolean;
  /** Told when the page asks to start something (the CLI prints it on the terminal). */
  onTargetRequest?: (p: PendingTarget) => void;
  /** Default request timeout (ms). */
  requestTimeoutMs?: number;
  timelineCapacity?: number;
  /** The model the chat panel talks to (its key stays in the studio). */
  model?: ProviderConfig;
  /** How HTTP servers that ask for OAuth are signed in to (client id, scope...; or not at all). */
  oauth?: StudioOAuthOptions;
}

export type EventName = keyof StudioEvents;
type Listener = <E extends EventName>(event: E, data: StudioEvents[E]) => void;

interface Meta {
  origin: ServerOrigin;
  target: Target;
  spec: ServerSpec;
  diagnosis: Diagnosis | undefined;
  stderr: string[];
  subscriptions: Map<string, Subscription | undefined>;
  logLevel: string | undefined;
  /** Closes the listeners set on the current client. */
  detach: (() => void) | undefined;
}

const STDERR_LINES = 200;

export class StudioHub {
  readonly pool: ServerPool;
  readonly timeline: Timeline;
  readonly inputs: InputQueue;
  readonly targets: TargetRequests;
  readonly clock: Clock;
  readonly roots: Root[];
  /** The tasks the studio follows (Tasks panel). */
  readonly tasks: TaskTracker;
  /** MCP App views waiting for their sandboxed iframe (Apps panel). */
  readonly appViews: AppViews;
  /** The capability sets kept per server, for diffs over time. */
  readonly snapshots: Snapshots;
  /** The chat panel's host loop over this pool. */
  readonly chat: StudioChat;
  /** The OAuth sign-ins of the HTTP servers, step by step. */
  readonly auth: StudioOAuth;
  private readonly meta = new Map<string, Meta>();
  private readonly listeners = new Set<Listener>();
  private readonly dirty = new Set<string>();
  private flushTimer: unknown;
  private readonly diagnose: Diagnose;
  private closed = false;

  constructor(readonly options: HubOptions) {
    this.clock = options.clock ?? systemClock;
    this.diagnose = options.diagnose ?? firstLook;
    this.snapshots = new Snapshots(() => this.pool, this.clock);
    this.auth = new StudioOAuth(
      options.oauth ?? {},
      this.clock,
      (v) => this.emit('oauth', v),
      // Signed in after the studio gave up on the server (a slow sign-in): connect it now.
      (name) => {
        if (this.pool.server(name)?.state === 'failed') void this.reconnect(name).catch(() => {});
      },
    );
    this.timeline = new Timeline(this.clock, (e) => this.emit('message', forStream(e)), options.timelineCapacity);
    this.inputs = new InputQueue(this.clock, { added: (i) => this.emit('input', i), done: (id) => this.emit('input-done', { id }) });
    this.targets = new TargetRequests(
      this.clock,
      { cwd: options.cwd, home: options.home, config: options.config },
      {
        added: (p) => {
          this.emit('target-pending', p);
          options.onTargetRequest?.(p);
        },
        done: (id) => this.emit('target-done', { id }),
      },
    );
    this.appViews = new AppViews(this.clock);
    this.tasks = new TaskTracker({
      clock: this.clock,
      client: (server) => this.pool.client(server),
      inputs: this.inputs,
      roots: () => [...this.roots],
      emit: (view) => this.emit('task', view),
      removed: (server, taskId) => this.emit('task-removed', { server, taskId }),
    });
    // One array, kept: the pool hands it to each client it makes, so changes reach reconnections.
    // Default, as the pool's: the working directory.
    this.roots = [{ uri: pathToFileURL(options.cwd).href, name: basename(options.cwd) || options.cwd }];
    const specs: ServerSpec[] = [];
    for (const s of options.servers) {
      const spec = { ...s.settings, name: s.name, target: s.target } as ServerSpec;
      specs.push(spec);
      this.meta.set(s.name, this.newMeta(s.origin, s.target, spec));
    }
    this.pool = new ServerPool({
      servers: specs,
      cwd: options.cwd,
      env: options.env,
      clock: options.clock,
      roots: this.roots,
      requestTimeoutMs: options.requestTimeoutMs,
      clientInfo: { name: 'mcpkit-studio', version: options.version },
      // One retry, then the person decides (the Reconnect button): a studio is watched.
      retry: { maxAttempts: 2 },
      // The studio renders MCP App views and follows tasks (its Apps and Tasks panels).
      apps: true,
      tasks: true,
      handlers: {
        elicitation: (server, params, ctx) => this.inputs.elicit(server, params, ctx.signal),
        sampling: (server, params, ctx) => this.inputs.sample(server, params, ctx.signal),
        elicitationUrl: true,
      },
      clientMiddleware: (server) => [this.timeline.middleware(server, () => this.pool.server(server)?.era)],
      clientFetch: (server) => this.auth.fetchFor(server, this.meta.get(server)?.target, tracedFetch(server, this.timeline, this.clock)),
      onEvent: (e) => this.onPoolEvent(e),
    });
    this.chat = new StudioChat(this.pool, options.model, (m) => this.emit('chat', m));
  }

  private newMeta(origin: ServerOrigin, target: Target, spec: ServerSpec): Meta {
    return { origin, target, spec, diagnosis: undefined, stderr: [], subscriptions: new Map(), logLevel: undefined, detach: undefined };
  }

  /** The first attempts, in parallel; resolves when each has connected or failed. */
  start(): Promise<void> {
    return this.pool.start();
  }

  on(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit<E extends EventName>(event: E, data: StudioEvents[E]): void {
    for (const l of this.listeners) {
      try {
        l(event, data);
      } catch {
        // One broken stream must not stop the others.
      }
    }
  }

  state(): StudioState {
    return {
      version: this.options.version,
      // A server being removed is still in the pool for a moment, no longer here.
      servers: this.pool.servers().flatMap((s) => this.view(s.name) ?? []),
      inputs: this.inputs.list(),
      pendingTargets: this.targets.list(),
      roots: this.roots.map((r) => ({ uri: r.uri, ...(r.name ? { name: r.name } : {}) })),
      lastSeq: this.timeline.lastSeq,
      canAdd: this.options.canAdd !== false,
      tasks: this.tasks.list(),
      ...(this.chat.shown() ? { model: this.chat.shown() } : {}),
    };
  }

  has(name: string): boolean {
    return this.meta.has(name);
  }

  view(name: string): ServerView | undefined {
    const info = this.pool.server(name);
    const m = this.meta.get(name);
    if (!info || !m) return undefined;
    const c = this.pool.client(name);
    return {
      name,
      origin: m.origin,
      target: viewOf(m.target),
      state: info.state,
      era: info.era,
      protocolVersion: info.protocolVersion,
      serverInfo: c?.serverInfo as ServerView['serverInfo'],
      capabilities: c?.serverCapabilities as Record<string, unknown> | undefined,
      instructions: c?.instructions,
      error: info.error?.message,
      diagnosis: info.state === 'connected' ? undefined : m.diagnosis,
      retryInMs: info.retryInMs,
      pid: info.pid,
      stderr: m.stderr.slice(-50),
      subscriptions: [...m.subscriptions.keys()],
      logLevel: m.logLevel,
    };
  }

  /** The connected client of `name`, or undefined. */
  client(name: string): McpClient | undefined {
    return this.pool.client(name);
  }

  /** Adds a server the person confirmed in the page, and makes its first attempt. */
  async addConfirmed(name: string, target: Target): Promise<void> {
    const spec = { name, target } as ServerSpec;
    this.meta.set(name, this.newMeta('page', target, spec));
    try {
      await this.pool.add(spec);
    } catch (err) {
      this.meta.delete(name);
      throw err;
    }
    this.touch(name);
  }

  async remove(name: string): Promise<void> {
    const m = this.meta.get(name);
    if (!m) return;
    m.detach?.();
    this.meta.delete(name);
    this.tasks.forget(name, 'its server was removed');
    this.inputs.dropServer(name);
    this.auth.forget(name);
    await this.pool.remove(name);
    this.timeline.forget(name);
    this.emit('server-removed', { name });
  }

  /** Closes the connection and makes a new first attempt, as at start. */
  async reconnect(name: string): Promise<void> {
    const m = this.meta.get(name);
    if (!m) return;
    m.detach?.();
    m.detach = undefined;
    m.subscriptions.clear();
    m.diagnosis = undefined;
    this.tasks.forget(name, 'its server was reconnected: follow it again by id');
    await this.pool.remove(name);
    this.timeline.forget(name);
    await this.pool.add(m.spec);
    this.touch(name);
  }

  async subscribe(name: string, client: McpClient, uri: string, on: boolean): Promise<void> {
    const m = this.meta.get(name)!;
    if (on) {
      if (m.subscriptions.has(uri)) return;
      if (client.era === 'modern') {
        const sub = client.listen({ resourceSubscriptions: [uri] });
        try {
          await sub.acknowledged;
        } catch (err) {
          void sub.close().catch(() => {});
          throw err;
        }
        m.subscriptions.set(uri, sub);
      } else {
        await client.subscribeResource(uri);
        m.subscriptions.set(uri, undefined);
      }
    } else {
      if (!m.subscriptions.has(uri)) return;
      const sub = m.subscriptions.get(uri);
      m.subscriptions.delete(uri);
      if (sub) await sub.close().catch(() => {});
      else await client.unsubscribeResource(uri);
    }
    this.touch(name);
  }

  async setLogLevel(name: string, client: McpClient, level: string): Promise<void> {
    await client.setLoggingLevel(level as never);
    this.meta.get(name)!.logLevel = level;
    this.touch(name);
  }

  /** Replaces the roots every server is offered (handshake-era servers are told of the change). */
  async setRoots(roots: Root[]): Promise<void> {
    this.roots.splice(0, this.roots.length, ...roots);
    await Promise.all(
      this.pool.servers().map((s) =>
        this.pool
          .client(s.name)
          ?.setRoots([...roots])
          .catch(() => {}),
      ),
    );
    this.emit('roots', { roots: this.state().roots });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.flushTimer !== undefined) this.clock.clearTimeout(this.flushTimer);
    for (const m of this.meta.values()) m.detach?.();
    this.tasks.close();
    this.chat.close();
    this.auth.close();
    await this.pool.close();
    this.listeners.clear();
  }

  /** A server's view changed: sent once per burst (a chatty stderr is many lines at once). */
  touch(name: string): void {
    this.dirty.add(name);
    if (this.flushTimer !== undefined || this.closed) return;
    this.flushTimer = this.clock.setTimeout(() => {
      this.flushTimer = undefined;
      const names = [...this.dirty];
      this.dirty.clear();
      for (const n of names) {
        const v = this.view(n);
        if (v) this.emit('server', v);
      }
    }, 30);
    unrefTimer(this.flushTimer);
  }

  private onPoolEvent(e: PoolEvent): void {
    this.snapshots.onPoolEvent(e);
    const m = this.meta.get(e.server);
    if (!m) return;
    switch (e.type) {
      case 'stderr':
        m.stderr.push(e.line);
        if (m.stderr.length > STDERR_LINES) m.stderr.splice(0, m.stderr.length - STDERR_LINES);
        break;
      case 'connected':
        m.diagnosis = undefined;
        this.attach(e.server, m);
        break;
      case 'failed':
        // The doctor walks the connection again (a stdio server is started once more): only once
        // the studio has given up; while a retry is due, the error is read as it is.
        void this.diagnoseFailure(e.server, m, e.error, e.retryInMs === undefined);
        break;
      case 'closed':
        this.tasks.forget(e.server, 'its connection closed');
        m.detach?.();
        m.detach = undefined;
        m.subscriptions.clear();
        break;
    }
    this.touch(e.server);
  }

  private async diagnoseFailure(name: string, m: Meta, error: Error, final: boolean): Promise<void> {
    let d: Diagnosis | undefined;
    try {
      if (final) d = await this.diagnose(m.target, { error, stderr: m.stderr });
    } catch {
      d = undefined;
    }
    d ??= await firstLook(m.target, { error, stderr: m.stderr });
    if (this.meta.get(name) !== m) return;
    m.diagnosis = d;
    this.touch(name);
  }

  /** Server notifications the page follows, on the client just connected. */
  private attach(name: string, m: Meta): void {
    const client = this.pool.client(name);
    if (!client) return;
    m.detach?.();
    const offs: Array<() => void> = [];
    const methods = [
      'notifications/message',
      'notifications/resources/updated',
      'notifications/resources/list_changed',
      'notifications/prompts/list_changed',
      'notifications/tools/list_changed',
    ];
    for (const method of methods) offs.push(client.on(method, (params: unknown) => this.emit('notification', { server: name, method, params })));
    // 2026-07-28: list changes other than tools' (the pool listens for those) come on a stream of their own.
    const caps = client.serverCapabilities;
    let sub: Subscription | undefined;
    if (client.era === 'modern' && (caps?.prompts?.listChanged || caps?.resources?.listChanged)) {
      try {
        sub = client.listen({ promptsListChanged: !!caps?.prompts?.listChanged, resourcesListChanged: !!caps?.resources?.listChanged });
        sub.acknowledged.catch(() => {});
      } catch {
        sub = undefined;
      }
    }
    m.detach = () => {
      for (const off of offs) off();
      void sub?.close().catch(() => {});
      for (const s of m.subscriptions.values()) void s?.close().catch(() => {});
    };
  }
}
