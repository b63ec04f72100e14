// One server of a pool, kept connected: the first connection, its tool list (and, when the pool
// keeps them, its prompts, resources and templates), each refreshed on its `list_changed`, and a
// reconnection with backoff whenever the connection is lost or an attempt fails. The pool
// (pool.ts) owns the names; a link only knows its own server.
import { createInterface } from 'node:readline';
import { McpClient, type ClientOptions } from '../client/client.js';
import { connectHttp } from '../client/connect-http.js';
import { ProbeClosedError } from '../client/era.js';
import type { Subscription } from '../client/listen.js';
import { unrefTimer, type Clock, type TimerHandle } from '../engine/clock.js';
import type { Prompt, Resource, ResourceTemplate, Tool } from '../protocol/types.js';
import { StdioClientTransport } from '../transports/stdio/client.js';
import { defaultEnvironment } from '../transports/stdio/process.js';
import { ServerUnavailableError } from './errors.js';
import type { ServerDef } from './pool-config.js';
import type { CatalogList, PoolEvent, ServerState } from './pool-types.js';
import { toolFilter } from './tool-filter.js';

/** What a link needs from its pool. */
export interface LinkHost {
  clock: Clock;
  /** The client options for this server (handlers bound to its name, roots, era, timeouts). */
  clientOptions(def: ServerDef): ClientOptions;
  retry: { initialDelayMs: number; maxDelayMs: number; maxAttempts: number };
  cwd: string;
  env: Record<string, string | undefined>;
  stdioEnv: Record<string, string> | undefined;
  emit(event: PoolEvent): void;
  /** The fetch an HTTP server's transport uses (PoolOptions.clientFetch); undefined: the global one. */
  fetch?(server: string): typeof fetch | undefined;
  /** The link's tool list (or its availability) changed. */
  changed(link: ServerLink): void;
  /** The lists kept besides tools (PoolOptions.lists). */
  lists: ReadonlySet<CatalogList>;
  /** One of those lists was listed anew. */
  catalogChanged(link: ServerLink, list: CatalogList): void;
}

/** What a list refresh is about: the tools, or one of the lists kept besides them. */
type ListName = 'tools' | CatalogList;

function asError(e: unknown): Error {
  return e instanceof Error ? e : new Error(String(e));
}

/** How long a 2026-07-28 link waits for its listen stream's acknowledgement before it is used anyway. */
const FOLLOW_GRACE_MS = 5_000;

export class ServerLink {
  state: ServerState = 'connecting';
  /** The tools as last listed (kept while reconnecting, so names stay put). */
  tools: readonly Tool[] = [];
  /** The prompts as last listed, when the pool keeps them (kept while reconnecting, as tools are). */
  prompts: readonly Prompt[] = [];
  /** The resources and resource templates as last listed, when the pool keeps them. */
  resources: readonly Resource[] = [];
  templates: readonly ResourceTemplate[] = [];
  /** Whether the server has ever been listed: only then do its tools count. */
  listed = false;
  client: McpClient | undefined;
  lastError: Error | undefined;
  /** When the next attempt is due (clock time), while one is scheduled. */
  retryAt: number | undefined;
  /** The stdio child's process id while connected. */
  pid: number | undefined;
  /** The server's allow/deny lists, as a predicate over its tool names. */
  readonly offers: (tool: string) => boolean;
  /** Incremented per connection: callbacks of an old one are ignored. */
  generation = 0;
  private failures = 0;
  private attempts = 0;
  private timer: TimerHandle | undefined;
  private attempt: Promise<void> | undefined;
  private closing = false;
  private subscription: Subscription | undefined;
  /** Refreshes run one after another; a burst of list_changed costs one more listing at most. */
  private refreshing: Promise<void> = Promise.resolve();
  private refreshQueued = false;
  /** The lists a queued refresh lists again. */
  private readonly stale = new Set<ListName>();
  /** Refreshes asked for so far: a call that saw it move waits for the listing (see ServerPool.call). */
  refreshes = 0;
  /** Settles once this connection's list changes are followed (2026-07-28: its listen stream answered). */
  following: Promise<void> = Promise.resolve();
  /** A stdio transport being started, closed if the pool closes meanwhile. */
  private opening: StdioClientTransport | undefined;

  constructor(
    readonly def: ServerDef,
    private readonly host: LinkHost,
  ) {
    this.offers = toolFilter(def.settings.allow, def.settings.deny);
  }

  get name(): string {
    return this.def.name;
  }

  /** Whether a lost connection or a failed attempt can be tried again. */
  get restartable(): boolean {
    const c = this.def.connector;
    return c.kind === 'target' || (c.kind === 'transport' && c.reusable);
  }

  /** Starts the first attempt; resolves when it has succeeded or failed (never rejects). */
  start(): Promise<void> {
    return this.connect();
  }

  /** Waits for an attempt under way; then the client if connected, or a ServerUnavailableError. */
  async ready(tool: string | undefined, signal?: AbortSignal): Promise<McpClient> {
    if (this.state === 'connecting' && this.attempt) {
      const attempt = this.attempt;
      if (signal) {
        await new Promise<void>((resolve, reject) => {
          const onAbort = () => reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
          if (signal.aborted) return onAbort();
          signal.addEventListener('abort', onAbort, { once: true });
          void attempt.then(() => {
            signal.removeEventListener('abort', onAbort);
            resolve();
          });
        });
      } else await attempt;
    }
    if (this.state === 'connected' && this.client) return this.client;
    throw new ServerUnavailableError(this.name, tool, this.unavailableText(tool));
  }

  /** Why calls cannot be made now, for a person. */
  unavailableText(tool: string | undefined): string {
    const what = tool === undefined ? `server "${this.name}"` : `Cannot call "${tool}": server "${this.name}"`;
    const why = this.lastError ? ` (${this.lastError.message})` : '';
    if (this.state === 'closed') return `${what} is closed`;
    if (this.retryAt !== undefined) {
      const inMs = Math.max(0, this.retryAt - this.host.clock.now());
      return `${what} is not connected${why}; retrying in ${inMs} ms`;
    }
    if (this.state === 'failed') return `${what} is not connected${why}; it will not be retried`;
    return `${what} is not connected yet`;
  }

  private connect(): Promise<void> {
    this.retryAt = undefined;
    this.timer = undefined;
    this.state = 'connecting';
    const run = this.run().finally(() => {
      if (this.attempt === run) this.attempt = undefined;
    });
    this.attempt = run;
    return run;
  }

  private async run(): Promise<void> {
    this.attempts++;
    this.host.emit({ type: 'connecting', server: this.name, attempt: this.attempts });
    let client: McpClient | undefined;
    let had: Record<CatalogList, number> = { prompts: 0, resources: 0 };
    try {
      client = await this.open();
      if (this.closing) {
        await client.close().catch(() => {});
        return;
      }
      const generation = ++this.generation;
      this.client = client;
      client.onClose((reason) => this.lost(generation, reason));
      client.on('notifications/tools/list_changed', () => {
        if (this.generation === generation) this.refresh();
      });
      for (const list of this.host.lists) {
        client.on(`notifications/${list}/list_changed`, () => {
          if (this.generation === generation) void this.refresh(list);
        });
      }
      // Listed together: a server's other lists cost no extra round trip of waiting.
      const c = client;
      had = this.catalogSizes();
      // Following before listing, and connected once both are done: a change the server makes
      // after that (a call that adds a tool) is announced on a stream it already serves, and
      // one made in between is in the list or announced. Listing first missed such changes.
      if (client.era === 'modern') this.listen(client, generation);
      const [tools, , followed] = await Promise.all([
        this.list(c),
        Promise.all([...this.host.lists].map((l) => this.listCatalog(c, l, generation))),
        this.followingWithin(this.host.clientOptions(this.def).requestTimeoutMs),
      ]);
      this.tools = tools;
      // Used before its stream was acknowledged: a change made before then may have gone unseen,
      // so the lists are taken again once it is.
      if (!followed)
        void this.following.then(() => {
          if (this.generation === generation && !this.closing) this.refreshAll();
        });
    } catch (err) {
      if (client) {
        this.client = undefined;
        this.generation++;
        await client.close().catch(() => {});
      }
      if (this.closing) return;
      this.failed(asError(err));
      return;
    }
    if (this.closing) return;
    this.listed = true;
    this.failures = 0;
    this.lastError = undefined;
    this.state = 'connected';
    this.host.emit({
      type: 'connected',
      server: this.name,
      era: client.era ?? 'handshake',
      protocolVersion: client.protocolVersion,
      tools: this.tools.filter((t) => this.offers(t.name)).length,
    });
    this.host.changed(this);
    // Its other lists, where it has (or had) any.
    for (const list of this.host.lists) if (client.serverCapabilities?.[list] || had[list] > 0) this.host.catalogChanged(this, list);
  }

  /**
   * `following`, waited for at most `ms`: true if it settled in time. A server that is slow to
   * acknowledge its listen stream (or never does) still gets used, without holding the link for
   * a whole request timeout.
   */
  private followingWithin(requestTimeoutMs: number | undefined): Promise<boolean> {
    const ms = requestTimeoutMs !== undefined && requestTimeoutMs > 0 ? Math.min(requestTimeoutMs, FOLLOW_GRACE_MS) : FOLLOW_GRACE_MS;
    let timer: TimerHandle | undefined;
    const late = new Promise<boolean>((resolve) => {
      timer = this.host.clock.setTimeout(() => resolve(false), ms);
      unrefTimer(timer);
    });
    return Promise.race([this.following.then(() => true), late]).finally(() => this.host.clock.clearTimeout(timer!));
  }

  private catalogSizes(): Record<CatalogList, number> {
    return { prompts: this.prompts.length, resources: this.resources.length + this.templates.length };
  }

  private async open(): Promise<McpClient> {
    const c = this.def.connector;
    // A new HTTP session (the old one expired) may come with other tools.
    const options: ClientOptions = { ...this.host.clientOptions(this.def), onreinitialize: () => this.refreshAll() };
    if (c.kind === 'client') {
      if (!c.client.connected) throw new Error(`the client given for server "${this.name}" is not connected`);
      return c.client;
    }
    if (c.kind === 'transport') {
      const client = new McpClient(options);
      await client.connect(c.make());
      return client;
    }
    const t = c.target;
    if (t.kind === 'http') return (await connectHttp(t.url, options, { headers: t.headers, fetch: this.host.fetch?.(this.name) })).client;
    // As the CLI does: a server that exits on the era probe is started once more and initialized
    // (the era cache remembers it); one that exits for a reason of its own is reported.
    for (let probe = 1; ; probe++) {
      const transport = new StdioClientTransport({
        command: t.command,
        args: t.args,
        env: { ...defaultEnvironment(this.host.env), ...this.host.stdioEnv, ...t.env },
        cwd: t.cwd ?? this.host.cwd,
        stderr: 'pipe',
      });
      this.forwardStderr(transport);
      this.opening = transport;
      const client = new McpClient(options);
      try {
        await client.connect(transport);
        this.pid = transport.pid;
        return client;
      } catch (err) {
        if (err instanceof ProbeClosedError && probe === 1 && !this.closing) continue;
        throw err;
      } finally {
        this.opening = undefined;
      }
    }
  }

  private forwardStderr(t: StdioClientTransport): void {
    if (!t.stderr) return;
    const rl = createInterface({ input: t.stderr, crlfDelay: Infinity });
    rl.on('line', (line) => this.host.emit({ type: 'stderr', server: this.name, line }));
  }

  private async list(client: McpClient): Promise<Tool[]> {
    if (!client.serverCapabilities?.tools) return [];
    return client.listAllTools();
  }

  /**
   * Lists prompts, or resources and templates. A server whose list fails keeps what it had (its
   * tools still count: the failure is reported, and the next change or reconnect lists again).
   */
  private async listCatalog(client: McpClient, list: CatalogList, generation: number): Promise<void> {
    if (!client.serverCapabilities?.[list]) {
      if (list === 'prompts') this.prompts = [];
      else this.resources = this.templates = [];
      return;
    }
    try {
      if (list === 'prompts') {
        const prompts = await client.listAllPrompts();
        if (this.generation === generation) this.prompts = prompts;
      } else {
        const [resources, templates] = await Promise.all([client.listAllResources(), client.listAllResourceTemplates()]);
        if (this.generation === generation) {
          this.resources = resources;
          this.templates = templates;
        }
      }
    } catch (err) {
      if (this.generation === generation && !this.closing) this.host.emit({ type: 'error', server: this.name, error: asError(err) });
    }
  }

  /** Lists everything again: a new session (or a listen stream re-opened) may have other lists. */
  private refreshAll(): void {
    void this.refresh();
    for (const list of this.host.lists) void this.refresh(list);
  }

  /** 2026-07-28: list changes come on a `subscriptions/listen` stream, to the `on` listeners above. */
  private listen(client: McpClient, generation: number): void {
    const caps = client.serverCapabilities;
    const filter = {
      toolsListChanged: caps?.tools?.listChanged === true,
      promptsListChanged: this.host.lists.has('prompts') && caps?.prompts?.listChanged === true,
      resourcesListChanged: this.host.lists.has('resources') && caps?.resources?.listChanged === true,
    };
    if (!filter.toolsListChanged && !filter.promptsListChanged && !filter.resourcesListChanged) return;
    try {
      const sub = client.listen(filter, () => {}, {
        // Changes sent while the stream was down are not replayed: list again.
        onrelisten: () => {
          if (this.generation === generation) this.refreshAll();
        },
      });
      this.subscription = sub;
      this.following = sub.acknowledged.then(
        () => {},
        () => {},
      );
      sub.acknowledged.catch((err: unknown) => {
        if (this.generation === generation && !this.closing) this.host.emit({ type: 'error', server: this.name, error: asError(err) });
      });
    } catch (err) {
      this.host.emit({ type: 'error', server: this.name, error: asError(err) });
    }
  }

  /**
   * Lists the tools (or another list) again, after `list_changed` or a new session; the pool
   * renames (or reports the list) if needed.
   */
  refresh(list: ListName = 'tools'): Promise<void> {
    if (list === 'tools') this.refreshes++;
    this.stale.add(list);
    if (this.refreshQueued) return this.refreshing;
    this.refreshQueued = true;
    this.refreshing = this.refreshing.then(async () => {
      this.refreshQueued = false;
      const lists = [...this.stale];
      this.stale.clear();
      const client = this.client;
      const generation = this.generation;
      if (!client || this.state !== 'connected') return;
      for (const name of lists) {
        if (name !== 'tools') {
          await this.listCatalog(client, name, generation);
          if (this.generation === generation && !this.closing) this.host.catalogChanged(this, name);
          continue;
        }
        try {
          const tools = await this.list(client);
          if (this.generation !== generation || this.closing) return;
          this.tools = tools;
          this.host.changed(this);
        } catch (err) {
          if (this.generation === generation && !this.closing) this.host.emit({ type: 'error', server: this.name, error: asError(err) });
        }
      }
    });
    return this.refreshing;
  }

  /** Settles when every refresh asked for so far has listed the tools (it never rejects). */
  get refreshed(): Promise<void> {
    return this.refreshing;
  }

  /** The connection ended: report it, then reconnect (a connected link only). */
  private lost(generation: number, reason: Error | undefined): void {
    if (generation !== this.generation || this.closing || this.state !== 'connected') return;
    this.generation++;
    this.client = undefined;
    this.subscription = undefined;
    this.pid = undefined;
    this.lastError = reason ?? new Error('the connection closed');
    this.host.emit({ type: 'closed', server: this.name, error: reason });
    this.state = 'failed';
    // Gone for good: its tools are withdrawn. Otherwise they stay listed while it reconnects.
    if (!this.restartable) this.listed = false;
    else this.schedule(this.delay(0), true);
    this.host.changed(this);
  }

  private failed(error: Error): void {
    this.lastError = error;
    this.failures++;
    this.state = 'failed';
    // A command that cannot be started (not found, not executable) will not start on a retry
    // either: retrying it forever would only hide the mistake.
    const again = this.restartable && this.failures < this.host.retry.maxAttempts && !cannotStart(error);
    const inMs = again ? this.delay(this.failures) : undefined;
    this.host.emit({ type: 'failed', server: this.name, error, retryInMs: inMs });
    if (inMs !== undefined) this.schedule(inMs, false);
    else {
      // Given up: its tools are no longer offered.
      this.listed = false;
      this.host.changed(this);
    }
  }

  /** Backoff before the attempt after `failures` failed ones: doubling from the initial delay. */
  private delay(failures: number): number {
    const { initialDelayMs, maxDelayMs } = this.host.retry;
    return Math.min(initialDelayMs * 2 ** Math.max(0, failures - 1), maxDelayMs);
  }

  private schedule(inMs: number, announce: boolean): void {
    this.retryAt = this.host.clock.now() + inMs;
    if (announce) this.host.emit({ type: 'reconnecting', server: this.name, attempt: this.attempts + 1, inMs });
    this.timer = this.host.clock.setTimeout(() => {
      if (!this.closing) void this.connect();
    }, inMs);
    unrefTimer(this.timer);
  }

  /** Stops retrying and closes the connection (the stdio child with it). */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    if (this.timer !== undefined) this.host.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.retryAt = undefined;
    this.state = 'closed';
    const opening = this.opening;
    const client = this.client;
    this.client = undefined;
    this.generation++;
    await Promise.all([opening?.close().catch(() => {}), client?.close().catch(() => {}), this.subscription?.close().catch(() => {})]);
    // An attempt under way settles now (its transport is closed, or it closes its own client).
    await this.attempt;
  }
}

/** Whether `err` is a spawn failure that no retry can fix (errno codes anywhere in its causes). */
function cannotStart(err: unknown): boolean {
  for (let e = err, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EACCES' || code === 'ENOTDIR') return (e as NodeJS.ErrnoException).syscall?.startsWith('spawn') === true;
  }
  return false;
}
