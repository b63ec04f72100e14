// What the `serve --redis` tests stand on (not a test file itself): real `mcpkit serve`
// processes from dist/, a load balancer the test steers request by request, and a Redis of the
// test's own that it may kill and restart.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, connect, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { ROOT, cleanEnv } from './helpers.js';
import { waitFor, within, patient } from '../support/index.js';

export const MAIN = join(ROOT, 'dist/cli/main.js');
export const FIXTURE = 'test/fixtures/cli/scaled-server.mjs';

/** A key prefix no other test (or run) shares. */
export function uniquePrefix(): string {
  return `mcpkit-test:serve-${process.pid}-${randomBytes(4).toString('hex')}:`;
}

export interface Instance {
  name: string;
  child: ChildProcess;
  /** http://127.0.0.1:PORT (no path). */
  base: string;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
}

/** Starts `mcpkit serve FIXTURE --redis URL` (from dist/) and waits until it listens. */
export async function startInstance(name: string, redisUrl: string, prefix: string, extra: string[] = []): Promise<Instance> {
  assert.ok(existsSync(MAIN), 'dist/cli/main.js exists (run npm run build first)');
  const args = [MAIN, 'serve', FIXTURE, '--port', '0', '--redis', redisUrl, '--redis-prefix', prefix, ...extra];
  const child = spawn(process.execPath, args, { cwd: ROOT, env: cleanEnv({ SCALED_INSTANCE: name }), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (c: Buffer) => (out += c));
  child.stderr!.on('data', (c: Buffer) => (err += c));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await within(
    Promise.race([
      waitFor(() => /listening on (http:\/\/\S+)\/mcp/.exec(out)?.[1], { what: `instance ${name} to listen`, timeoutMs: patient(30_000) }),
      exited.then((code) => {
        throw new Error(`instance ${name} exited (${code}) before listening\nstdout: ${out}\nstderr: ${err}`);
      }),
    ]),
    () => `instance ${name} to listen\nstdout: ${out}\nstderr: ${err}`,
    30_000,
  );
  return { name, child, base: url, stdout: () => out, stderr: () => err, exited };
}

/** Ends an instance that may already be gone. */
export async function stopInstance(i: Instance): Promise<void> {
  if (i.child.exitCode === null && i.child.signalCode === null) i.child.kill('SIGKILL');
  await within(i.exited, `instance ${i.name} to exit`);
}

/** What a balancer sees of a request, to route it. */
export interface Routed {
  method: string;
  path: string;
  /** The JSON-RPC method of a POST body, when it has one. */
  rpc: string | undefined;
}

/**
 * A load balancer in front of the instances: every request goes to the instance `route` picks
 * (default: `current`). Bodies are read first so that a route may look at the JSON-RPC method;
 * responses, SSE streams included, are piped back as they come. `cut()` drops every response in
 * flight, as a balancer losing its connection would.
 */
export class Balancer {
  current: Instance | undefined;
  route: (r: Routed) => Instance | undefined = () => this.current;
  /** Requests forwarded, by instance name and JSON-RPC method (or HTTP method). */
  readonly seen: string[] = [];
  private readonly open = new Set<ServerResponse>();
  private server: Server | undefined;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => void this.forward(req, res));
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', () => r()));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/mcp`;
  }

  private async forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    let rpc: string | undefined;
    try {
      const parsed = JSON.parse(body.toString('utf8')) as { method?: unknown };
      if (typeof parsed?.method === 'string') rpc = parsed.method;
    } catch {
      // not JSON-RPC: route by HTTP method
    }
    const target = this.route({ method: req.method ?? 'GET', path: req.url ?? '/', rpc });
    if (!target) {
      res.writeHead(502).end('no instance');
      return;
    }
    this.seen.push(`${target.name} ${rpc ?? req.method}`);
    const u = new URL(req.url ?? '/', target.base);
    const headers = { ...req.headers, host: u.host };
    const up = request(u, { method: req.method, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      this.open.add(res);
      res.once('close', () => {
        this.open.delete(res);
        answer.destroy();
      });
      answer.pipe(res);
      // The instance died mid-stream: the client sees its connection drop, as behind a real balancer.
      answer.once('error', () => res.destroy());
      answer.once('aborted', () => res.destroy());
    });
    up.once('error', () => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' }).end('instance unreachable');
      else res.destroy();
    });
    up.end(body);
  }

  /** Drops every response in flight. */
  cut(): void {
    for (const res of this.open) res.destroy();
  }

  async close(): Promise<void> {
    this.cut();
    this.server?.closeAllConnections();
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
  }
}

/** A free TCP port on loopback (closed again, for a server about to bind it). */
export async function freePort(): Promise<number> {
  const srv = createTcpServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const { port } = srv.address() as AddressInfo;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

/** A redis-server of the test's own, on `port`, without persistence. */
export async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const failed = new Promise<never>((_, reject) => child.once('error', reject));
  await Promise.race([
    failed,
    waitFor(
      () =>
        new Promise<boolean>((resolve) => {
          const s = connect(port, '127.0.0.1');
          s.once('connect', () => {
            s.write('PING\r\n');
            s.once('data', (d) => {
              s.destroy();
              resolve(d.toString().startsWith('+PONG'));
            });
          });
          s.once('error', () => resolve(false));
        }),
      { what: `redis-server on port ${port}`, timeoutMs: 15_000 },
    ),
  ]);
  return child;
}

export async function stopRedis(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill('SIGKILL');
  await within(gone, 'redis-server to exit');
}

/** GET a probe: its status. */
export async function probe(base: string, path: '/healthz' | '/readyz'): Promise<number> {
  const r = await fetch(base + path);
  await r.text();
  return r.status;
}
