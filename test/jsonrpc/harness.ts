// Shared helpers for the JSON-RPC, engine and lifecycle tests (not a test file itself).
import assert from 'node:assert/strict';
import { McpClient, type ClientOptions } from '../../src/client/client.js';
import { LocalError, McpError } from '../../src/jsonrpc/errors.js';
import type { JsonObject } from '../../src/jsonrpc/messages.js';
import { Server, type ServerOptions } from '../../src/server/server.js';
import type { ServerSession } from '../../src/server/session.js';
import { WireRecorder } from '../../src/testing/index.js';
import { createLinkedPair, type MemoryTransport } from '../../src/transports/memory/index.js';
import { aborted, sleep } from '../support/index.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
export type Frame = any;

export async function rejectsWithCode(p: Promise<unknown>, code: number, message?: RegExp): Promise<McpError> {
  const e = await p.then(
    () => assert.fail(`expected an McpError ${code}, but it resolved`),
    (err: unknown) => err,
  );
  assert.ok(e instanceof McpError, `expected an McpError ${code}, got ${String(e)}`);
  assert.equal(e.code, code, e.message);
  if (message) assert.match(e.message, message);
  return e;
}

export async function rejectsLocally(p: Promise<unknown>, kind: LocalError['kind'], message?: RegExp): Promise<LocalError> {
  const e = await p.then(
    () => assert.fail(`expected a LocalError (${kind}), but it resolved`),
    (err: unknown) => err,
  );
  assert.ok(e instanceof LocalError, `expected a LocalError (${kind}), got ${String(e)}`);
  assert.equal(e.kind, kind, e.message);
  if (message) assert.match(e.message, message);
  return e;
}

/**
 * A low-level server with a few test methods:
 * - `test/echo` returns its params;
 * - `test/boom` throws a plain Error('boom');
 * - `test/wait` waits for `params.ms` (default: until cancelled) and records the abort in `aborts`.
 */
export function testServer(options: Partial<ServerOptions> = {}): { server: Server; errors: Error[]; aborts: unknown[] } {
  const errors: Error[] = [];
  const aborts: unknown[] = [];
  const server = new Server({ name: 'test-server', version: '1.0.0', onerror: (e) => errors.push(e), ...options });
  server.setRequestHandler('test/echo', (params) => ({ echo: params ?? null }));
  server.setRequestHandler('test/boom', () => {
    throw new Error('boom');
  });
  server.setRequestHandler('test/wait', async (params, ctx) => {
    ctx.signal.addEventListener('abort', () => aborts.push(ctx.requestId), { once: true });
    const ms = typeof params?.ms === 'number' ? params.ms : undefined;
    await Promise.race([aborted(ctx.signal), ms === undefined ? new Promise(() => {}) : sleep(ms)]);
    return { waited: true };
  });
  return { server, errors, aborts };
}

/** A hand-driven client: raw frames in, parsed frames out. */
export interface RawClient {
  transport: MemoryTransport;
  session: ServerSession;
  frames: Frame[];
  /** Sends an object as JSON, or a string as-is. */
  send(message: unknown): void;
  /** The next frame not yet read. */
  next(ms?: number): Promise<Frame>;
  /** send + next. */
  call(message: unknown): Promise<Frame>;
  /** Asserts that nothing arrives for `ms`. */
  silence(ms?: number): Promise<void>;
  /** Runs initialize (+ notifications/initialized) and returns the result. */
  initialize(protocolVersion?: string, capabilities?: JsonObject): Promise<Frame>;
}

export async function rawClient(server: Server): Promise<RawClient> {
  const [clientSide, serverSide] = createLinkedPair();
  const session = await server.connect(serverSide);
  const frames: Frame[] = [];
  let read = 0;
  let wake: (() => void) | undefined;
  clientSide.onmessage = (f) => {
    frames.push(JSON.parse(f as string));
    wake?.();
  };
  await clientSide.start();
  let nextId = 1000;
  const raw: RawClient = {
    transport: clientSide,
    session,
    frames,
    send(message) {
      clientSide.sendRaw(typeof message === 'string' ? message : JSON.stringify(message));
    },
    async next(ms = 1000) {
      const end = Date.now() + ms;
      while (read >= frames.length) {
        const left = end - Date.now();
        if (left <= 0) assert.fail(`no frame arrived within ${ms} ms`);
        await new Promise<void>((r) => {
          const t = setTimeout(r, left);
          wake = () => {
            clearTimeout(t);
            r();
          };
        });
        wake = undefined;
      }
      return frames[read++];
    },
    call(message) {
      raw.send(message);
      return raw.next();
    },
    async silence(ms = 30) {
      const before = frames.length;
      await sleep(ms);
      assert.deepEqual(frames.slice(before), [], 'expected no frame');
    },
    async initialize(protocolVersion = '2025-11-25', capabilities = {}) {
      const r = await raw.call({
        jsonrpc: '2.0',
        id: nextId++,
        method: 'initialize',
        params: { protocolVersion, capabilities, clientInfo: { name: 'raw', version: '0' } },
      });
      raw.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      return r;
    },
  };
  return raw;
}

/**
 * A real McpClient wired to `server` with both transports exposed (for sendRaw). The engine
 * and lifecycle tests assert exact wire sequences and use server-to-client requests, which
 * belong to the handshake era, so the client pins it unless `options.era` says otherwise.
 */
export async function clientPair(server: Server, options: Partial<ClientOptions> = {}) {
  const [clientSide, serverSide] = createLinkedPair();
  const session = await server.connect(serverSide);
  const wire = new WireRecorder();
  const clientErrors: Error[] = [];
  const client = new McpClient({
    name: 'test-client',
    version: '0.0.0',
    onerror: (e) => clientErrors.push(e),
    era: 'handshake',
    ...options,
    middleware: [wire, ...(options.middleware ?? [])],
  });
  const initialize = await client.connect(clientSide);
  return { client, session, wire, clientSide, serverSide, initialize, clientErrors };
}
