// The Host: an AI application's core in one object. It owns a ServerPool (the servers and their
// tools), a ModelProvider, and the user's side (approvals, elicitation, sampling approval); each
// Conversation (loop/conversation.ts) runs the model/tool loop over them with its own history.
import { checkSandboxEngine } from '../codemode/engine.js';
import { systemClock } from '../engine/clock.js';
import type { ModelProvider } from './model.js';
import { ServerPool } from '../pool/pool.js';
import type { PoolEvent, PoolEventType } from '../pool/pool-types.js';
import { createProvider } from './providers/index.js';
import type { HostTool } from '../pool/tool-source.js';
import { approvalPolicy } from './loop/approval.js';
import { safeCall, type LoopContext } from './loop/context.js';
import { Conversation } from './loop/conversation.js';
import { answerElicitation, answerSampling } from './loop/server-requests.js';
import type { ConversationOptions, HostEvent, HostOptions, HostPoolOptions } from './loop/types.js';

/**
 * Servers, a model and a user, put together:
 *
 *   const host = new Host({ config: '.mcp.json', model: { provider: 'openai', model: 'llama3.2', baseUrl: 'http://localhost:11434/v1' } });
 *   await host.start();
 *   const answer = await host.conversation().send('What is the weather in Hangzhou?');
 *   await host.close();
 */
export class Host {
  readonly pool: ServerPool;
  readonly model: ModelProvider;
  private readonly listeners = new Set<(event: HostEvent) => void>();
  private readonly context: LoopContext;
  private closed = false;
  /** Aborted by close(): every message still being answered ends with it. */
  private readonly closing = new AbortController();

  constructor(private readonly options: HostOptions) {
    // A policy with a value it does not know fails here, not at the first conversation.
    approvalPolicy(options.approval);
    this.model = isProvider(options.model) ? options.model : createProvider(options.model);
    const given = options.pool;
    const poolOptions: HostPoolOptions = given instanceof ServerPool ? {} : { ...flatPoolOptions(options), ...given };
    // The user's middleware and the observer's, both.
    const own = poolOptions.clientMiddleware;
    const observed = options.observer?.clientMiddleware?.bind(options.observer);
    const clientMiddleware = own && observed ? (server: string) => [...own(server), ...observed(server)] : (own ?? observed);
    const ctx = () => this.context;
    this.pool =
      given instanceof ServerPool
        ? given
        : new ServerPool({
            ...poolOptions,
            namePattern: poolOptions.namePattern ?? this.model.toolNamePattern,
            ...(clientMiddleware ? { clientMiddleware } : {}),
            onEvent: (event: PoolEvent) => this.context.broadcast({ type: 'server', event }),
            handlers: {
              sampling: (server, params, c) => answerSampling(ctx(), server, params, c.signal),
              elicitation: (server, params, c) => answerElicitation(ctx(), server, params, c.signal),
              elicitationUrl: true,
              samplingTools: true,
            },
          });
    const sends = new Set<(event: HostEvent) => void>();
    this.context = {
      tools: this.pool,
      model: this.model,
      options,
      interaction: options.interaction ?? {},
      clock: options.clock ?? poolOptions.clock ?? systemClock,
      emit: (event) => this.emit(event),
      broadcast: (event) => {
        this.emit(event);
        for (const l of sends) safeCall(l, event);
      },
      sends,
      closed: this.closing.signal,
    };
    // A pool made elsewhere reports to its own onEvent; the Host passes on what it hears.
    if (given instanceof ServerPool) for (const type of SERVER_EVENTS) given.on(type, (event: PoolEvent) => this.context.broadcast({ type: 'server', event }));
  }

  /**
   * Connects every server, in parallel. Resolves when each has connected or failed its first
   * attempt (failures are reported as `server` events and retried); rejects only when
   * `codeMode` is on and its sandbox engine cannot be loaded (SandboxUnavailableError).
   */
  async start(): Promise<void> {
    // The engine first: a host that cannot run programs fails before it connects anything.
    if (this.options.codeMode) await checkSandboxEngine();
    await this.pool.start();
  }

  /** A new conversation: its own message history, the Host's servers, model and policies. */
  conversation(options: ConversationOptions = {}): Conversation {
    if (this.closed) throw new Error('This host is closed: make a new Host to talk to the servers again');
    return new Conversation(this.context, options);
  }

  /** The tools currently offered, under their model-facing names. */
  tools(): readonly HostTool[] {
    return this.pool.tools();
  }

  /** Listens to every event of the Host (its conversations' too); returns the unsubscribe function. */
  on(listener: (event: HostEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Closes every server connection (stdio children included). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // First the messages (no model turn may follow a call the closing pool fails), then the pool.
    const reason = new Error('The host was closed while this message was being answered');
    reason.name = 'AbortError';
    this.closing.abort(reason);
    await this.pool.close();
    this.listeners.clear();
  }

  private emit(event: HostEvent): void {
    safeCall(this.options.onEvent, event);
    for (const l of this.listeners) safeCall(l, event);
  }
}

const SERVER_EVENTS: readonly PoolEventType[] = ['connecting', 'connected', 'failed', 'closed', 'reconnecting', 'toolsChanged', 'stderr', 'error'];

/** The pool options given at the top of HostOptions (deprecated: `pool` takes them now). */
const FLAT_POOL_KEYS = [
  'servers',
  'config',
  'prefix',
  'separator',
  'namePattern',
  'nameCharset',
  'nameMaxLength',
  'roots',
  'cwd',
  'env',
  'era',
  'requestTimeoutMs',
  'retry',
  'clock',
  'clientInfo',
  'clientMiddleware',
  'clientFetch',
  'stdioEnv',
] as const satisfies ReadonlyArray<keyof HostPoolOptions>;

function flatPoolOptions(options: HostOptions): HostPoolOptions {
  const out: Record<string, unknown> = {};
  for (const key of FLAT_POOL_KEYS) if (options[key] !== undefined) out[key] = options[key];
  return out as HostPoolOptions;
}

function isProvider(model: HostOptions['model']): model is ModelProvider {
  return typeof (model as ModelProvider).complete === 'function';
}
