// Shared helpers for the client's 2026-07-28 tests (not a test file itself): a client wired to
// one of our servers in memory with a wire recorder, and a scripted raw server for the cases
// our server never produces.
import { fileURLToPath } from 'node:url';
import { McpClient } from '../../../src/client/client.js';
import type { ClientOptions } from '../../../src/client/options.js';
import type { MessageMiddleware } from '../../../src/engine/middleware.js';
import type { JsonRpcMessage } from '../../../src/jsonrpc/messages.js';
import type { McpServer } from '../../../src/server/mcp-server.js';
import { createLinkedPair } from '../../../src/transports/memory/index.js';

// The wire's key strings, spelled out once for all 2026-07-28 tests (not taken from src/, so a
// typo there fails a test).
import { V, M } from '../../server/modern/helpers.js';
export { V, M };

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const STDIO_EXAMPLE = { command: process.execPath, args: ['--import', 'tsx', 'examples/stdio-server.ts'], cwd: ROOT };
export const OFFICIAL_STDIO = { command: process.execPath, args: ['--import', 'tsx', 'test/fixtures/official-server.ts'], cwd: ROOT };
export const EXIT_ON_UNKNOWN = fileURLToPath(new URL('./fixtures/exit-on-unknown.mjs', import.meta.url));

export type Msg = {
  jsonrpc: '2.0';
  id?: string | number | null;
  method?: string;
  params?: Record<string, any>;
  result?: Record<string, any>;
  error?: { code: number; message: string; data?: any };
};

/** Records every message crossing the client's side of the wire, in order. */
export class Recorder implements MessageMiddleware {
  readonly sent: Msg[] = [];
  readonly received: Msg[] = [];
  async outgoing(m: JsonRpcMessage, next: (m: JsonRpcMessage) => Promise<void>): Promise<void> {
    this.sent.push(structuredClone(m) as Msg);
    await next(m);
  }
  async incoming(m: JsonRpcMessage, next: (m: JsonRpcMessage) => Promise<void>): Promise<void> {
    this.received.push(structuredClone(m) as Msg);
    await next(m);
  }
  /** Requests (and notifications) sent with this method. */
  requests(method: string): Msg[] {
    return this.sent.filter((m) => m.method === method);
  }
  methods(): string[] {
    return this.sent.filter((m) => m.method !== undefined).map((m) => m.method!);
  }
  clear(): void {
    this.sent.length = 0;
    this.received.length = 0;
  }
}

/** A client connected in memory to `server`, recording the wire. `era` defaults to 'auto'. */
export async function memoryClient(server: McpServer, options: Partial<ClientOptions> = {}): Promise<{ client: McpClient; wire: Recorder }> {
  const [clientSide, serverSide] = createLinkedPair();
  await server.server.connect(serverSide);
  const wire = new Recorder();
  const client = new McpClient({ name: 'modern-test', version: '1.0.0', era: 'auto', ...options, middleware: [wire, ...(options.middleware ?? [])] });
  await client.connect(clientSide);
  return { client, wire };
}

/**
 * A raw server on the other end of a memory pair: `reply` gets every message the client sends
 * and returns what to answer (a result object, `{ error }`, or undefined for silence).
 */
export async function scriptedClient(
  reply: (m: Msg, push: (frame: object) => void) => { result?: Record<string, unknown>; error?: { code: number; message: string; data?: unknown } } | undefined,
  options: Partial<ClientOptions> = {},
): Promise<{ client: McpClient; wire: Recorder; connecting: Promise<unknown> }> {
  const [clientSide, serverSide] = createLinkedPair();
  const push = (frame: object) => void serverSide.send({ jsonrpc: '2.0', ...frame } as never);
  serverSide.onmessage = (frame) => {
    const m = JSON.parse(frame as string) as Msg;
    if (m.id === undefined || m.method === undefined) return;
    const answer = reply(m, push);
    if (answer) void serverSide.send({ jsonrpc: '2.0', id: m.id, ...answer } as never);
  };
  await serverSide.start();
  const wire = new Recorder();
  const client = new McpClient({ name: 'modern-test', version: '1.0.0', era: 'auto', ...options, middleware: [wire] });
  const connecting = client.connect(clientSide);
  connecting.catch(() => {});
  return { client, wire, connecting };
}

/** A DiscoverResult as a 2026-07-28 server sends it. */
export function discoverResult(capabilities: Record<string, unknown> = { tools: {} }): Record<string, unknown> {
  return {
    resultType: 'complete',
    supportedVersions: [V],
    capabilities,
    ttlMs: 0,
    cacheScope: 'public',
    _meta: { [M.serverInfo]: { name: 'scripted', version: '9' } },
  };
}

/** The legacy initialize answer. */
export function initializeResult(): Record<string, unknown> {
  return { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'scripted-legacy', version: '1' } };
}

export const text = (r: { content?: Array<{ type: string; text?: string }> }) => r.content?.[0]?.text;
