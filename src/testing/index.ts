import type { JsonRpcMessage, JsonRpcNotification, JsonRpcRequest } from '../jsonrpc/messages.js';
import type { MessageMiddleware, Next } from '../engine/middleware.js';
import { McpClient, type ClientOptions } from '../client/client.js';
import type { ConnectOutcome } from '../client/modern.js';
import type { McpServer } from '../server/mcp-server.js';
import { lowLevelServer, type Server } from '../server/server.js';
import type { ServerSession } from '../server/session.js';
import { createLinkedPair } from '../transports/memory/index.js';
import type { FrameInfo } from '../engine/transport.js';

export interface WireEntry {
  direction: 'client→server' | 'server→client';
  message: JsonRpcMessage;
}

/**
 * Records every message exactly as it crosses the wire, in order. Install it as client
 * middleware (createTestPair does): outgoing is client→server, incoming is server→client.
 */
export class WireRecorder implements MessageMiddleware {
  readonly entries: WireEntry[] = [];

  incoming(message: JsonRpcMessage, next: Next): Promise<void> {
    this.entries.push({ direction: 'server→client', message: structuredClone(message) });
    return next(message);
  }
  outgoing(message: JsonRpcMessage, next: Next): Promise<void> {
    this.entries.push({ direction: 'client→server', message: structuredClone(message) });
    return next(message);
  }

  /** Messages only, optionally those of one method (requests and notifications, typed as such). */
  messages(): JsonRpcMessage[];
  messages(method: string): Array<JsonRpcRequest | JsonRpcNotification>;
  messages(method?: string): JsonRpcMessage[] {
    const all = this.entries.map((e) => e.message);
    return method === undefined ? all : all.filter((m) => 'method' in m && m.method === method);
  }

  /** The methods in wire order, with direction arrows: handy for sequence assertions. */
  methods(): string[] {
    return this.entries.map(
      (e) =>
        `${e.direction === 'client→server' ? '→' : '←'} ${'method' in e.message ? e.message.method : 'id' in e.message ? `response ${String(e.message.id)}` : 'response'}`,
    );
  }

  clear(): void {
    this.entries.length = 0;
  }
}

export interface TestPair {
  client: McpClient;
  session: ServerSession;
  wire: WireRecorder;
  /** What connecting settled: the `initialize` result, or in the 2026-07-28 era the `server/discover` one. */
  initialize: ConnectOutcome;
  close(): Promise<void>;
}

export interface TestPairOptions extends Partial<ClientOptions> {
  /** Facts the server sees on every frame (e.g. an authenticated principal). */
  frameInfo?: FrameInfo;
  /**
   * The client's era; default `'auto'`, as `McpClient` and `connect()`: against an mcpkit
   * server that is 2026-07-28, where `ctx.elicit` becomes an `input_required` round and the
   * retry resumes or replays the handler, so tests see what users' clients will do. Pass
   * `'handshake'` to test the 2025 era (real server-to-client requests, sessions,
   * `logging/setLevel`), or exact handshake wire sequences; test both when a handler asks for
   * input.
   */
  era?: NonNullable<ClientOptions['era']>;
}

/**
 * A client connected to `server` in-process, with a wire recorder, in one line. The client
 * negotiates the era as `connect()` would (2026-07-28 against an mcpkit server) unless
 * `options.era` says otherwise (see {@link TestPairOptions.era}).
 */
export async function createTestPair(server: McpServer | Server, options: TestPairOptions = {}): Promise<TestPair> {
  const { frameInfo, era = 'auto', ...clientOptions } = options;
  const low = lowLevelServer(server);
  const [clientSide, serverSide] = createLinkedPair({ serverInfo: frameInfo });
  const session = await low.connect(serverSide);
  const wire = new WireRecorder();
  const client = new McpClient({
    name: 'mcpkit-test-client',
    version: '0.0.0',
    ...clientOptions,
    era,
    middleware: [wire, ...(clientOptions.middleware ?? [])],
  });
  const initialize = await client.connect(clientSide);
  return { client, session, wire, initialize, close: () => client.close() };
}
