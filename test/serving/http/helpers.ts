// Shared helpers for the HTTP server end-to-end tests (not a test file itself): a fixture
// McpServer, raw-fetch wrappers and a tiny SSE reader. Deliberately independent of the
// HTTP client under src/transports/http/client.
import assert from 'node:assert/strict';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { z } from 'zod';
import { McpServer } from '../../../src/server/mcp-server.js';
import { serve, type RunningServer, type ServeOptions } from '../../../src/serving/node.js';
import { SAFETY_NET_MS, sleep } from '../../support/index.js';

export const LATEST = '2025-11-25';

/** Accept + Content-Type every well-behaved client sends. */
export const BOTH = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };

export interface Fixture {
  mcp: McpServer;
  /** How many times the `counter` tool ran (shared by every session: one server). */
  counter: { n: number };
}

/** An McpServer with the tools, resource and prompt the tests need. */
export function makeServer(): Fixture {
  const mcp = new McpServer({ name: 'http-e2e', version: '1.0.0' });
  const counter = { n: 0 };
  mcp.tool('echo', { input: { text: z.string() } }, ({ text }) => text);
  mcp.tool('counter', () => String(++counter.n));
  mcp.tool('progress', { input: { steps: z.number().int(), delayMs: z.number().int() } }, async ({ steps, delayMs }, ctx) => {
    for (let i = 1; i <= steps; i++) {
      await ctx.progress(i, steps, `step ${i}`);
      await sleep(delayMs);
    }
    return `did ${steps}`;
  });
  mcp.tool('log', async (_args, ctx) => {
    await ctx.log('info', 'hello from the tool');
    return 'logged';
  });
  mcp.tool('fail', () => {
    throw new Error('boom');
  });
  mcp.tool('ask', async (_args, ctx) => {
    const r = await ctx.elicit({ message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
    return r.action === 'accept' ? `hello ${String(r.content?.name)}` : r.action;
  });
  // Reports progress 0 (when asked: that opens an SSE stream), then waits; stops when aborted.
  mcp.tool('slow', { input: { ms: z.number().int() } }, async ({ ms }, ctx) => {
    await ctx.progress(0);
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, ms);
      ctx.signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
    });
    return ctx.signal.aborted ? 'aborted' : `slept ${ms}`;
  });
  mcp.resource('greeting', 'mem://greeting', { mimeType: 'text/plain' }, () => 'Hello, resource');
  mcp.prompt('hi', { args: [{ name: 'who', required: true }] }, ({ who }) => `Say hi to ${who}`);
  return { mcp, counter };
}

export interface Started extends Fixture {
  running: RunningServer;
  url: string;
  base: string;
}

/** serve() on 127.0.0.1, a free port. Remember to `await s.running.close()`. */
export async function start(options: ServeOptions = {}, fixture: Fixture = makeServer()): Promise<Started> {
  const running = await serve(fixture.mcp, { port: 0, host: '127.0.0.1', ...options });
  return { ...fixture, running, url: running.url, base: `http://127.0.0.1:${running.port}` };
}

let nextId = 1;
export function req(method: string, params?: Record<string, unknown>, id: number | string = nextId++): Record<string, unknown> {
  return params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
}

export function initReq(version = LATEST, capabilities: Record<string, unknown> = {}): Record<string, unknown> {
  return req('initialize', { protocolVersion: version, capabilities, clientInfo: { name: 'raw-fetch', version: '0' } });
}

export function call(name: string, args: Record<string, unknown> = {}, meta?: Record<string, unknown>): Record<string, unknown> {
  return req('tools/call', meta ? { name, arguments: args, _meta: meta } : { name, arguments: args });
}

export function post(url: string, body: unknown, headers: Record<string, string> = {}, signal?: AbortSignal): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { ...BOTH, ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body), signal });
}

/** initialize + notifications/initialized; returns the session id and the headers to send next. */
export async function open(
  url: string,
  version = LATEST,
  extra: Record<string, string> = {},
  capabilities: Record<string, unknown> = {},
): Promise<{ sid: string; headers: Record<string, string> }> {
  const r = await post(url, initReq(version, capabilities), extra);
  assert.equal(r.status, 200, await r.clone().text());
  const sid = r.headers.get('mcp-session-id');
  assert.ok(sid, 'initialize must return Mcp-Session-Id');
  await r.text();
  const headers = { ...extra, 'mcp-session-id': sid, 'mcp-protocol-version': version };
  const n = await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
  assert.equal(n.status, 202);
  return { sid, headers };
}

/**
 * A request through node:http, for what fetch cannot express: no Accept header at all, or a
 * forged Host header. Reads the whole body.
 */
export function raw(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const r = httpRequest(url, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
    });
    r.on('error', reject);
    r.end(body);
  });
}

/** The JSON body of an error response, asserting its shape. */
export async function jsonError(r: Response, status: number, code?: number): Promise<{ code: number; message: string }> {
  assert.equal(r.status, status);
  assert.match(r.headers.get('content-type') ?? '', /application\/json/);
  const body = (await r.json()) as { jsonrpc: string; error: { code: number; message: string } };
  assert.equal(body.jsonrpc, '2.0');
  if (code !== undefined) assert.equal(body.error.code, code);
  return body.error;
}

export interface SseEvent {
  id?: string;
  event?: string;
  data?: string;
  retry?: number;
  /** Set for a block made only of comment lines (`: keepalive`). */
  comment?: string;
}

/** A minimal SSE reader over a fetch Response: one event block at a time. */
export class SseReader {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();
  private buffer = '';
  ended = false;

  constructor(res: Response) {
    assert.match(res.headers.get('content-type') ?? '', /text\/event-stream/);
    this.reader = res.body!.getReader();
  }

  /** The next block, or undefined when the stream ended. Fails after `timeoutMs`. */
  async next(timeoutMs = SAFETY_NET_MS): Promise<SseEvent | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const cut = this.buffer.indexOf('\n\n');
      if (cut >= 0) {
        const block = this.buffer.slice(0, cut);
        this.buffer = this.buffer.slice(cut + 2);
        return parseBlock(block);
      }
      if (this.ended) return undefined;
      const left = deadline - Date.now();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no SSE event within ${timeoutMs} ms (buffer: ${JSON.stringify(this.buffer)})`)), Math.max(0, left));
      });
      try {
        const { done, value } = await Promise.race([this.reader.read(), timeout]);
        if (done) this.ended = true;
        else this.buffer += this.decoder.decode(value, { stream: true });
      } finally {
        clearTimeout(timer);
      }
    }
  }

  /** The next event that carries a JSON-RPC message (skips comments and priming events). */
  async message(timeoutMs = 3000): Promise<Record<string, unknown> & { id?: unknown; method?: string; result?: any; error?: any; params?: any }> {
    for (;;) {
      const e = await this.next(timeoutMs);
      assert.ok(e, 'the stream ended before the expected message');
      if (e.data) return JSON.parse(e.data);
    }
  }

  /** Every remaining message event, until the server ends the stream. */
  async rest(timeoutMs = 3000): Promise<SseEvent[]> {
    const out: SseEvent[] = [];
    for (let e = await this.next(timeoutMs); e; e = await this.next(timeoutMs)) if (e.data) out.push(e);
    return out;
  }

  async cancel(): Promise<void> {
    await this.reader.cancel().catch(() => {});
  }
}

function parseBlock(block: string): SseEvent {
  const e: SseEvent = {};
  const comments: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) {
      comments.push(line.slice(1).trim());
      continue;
    }
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') e.data = e.data === undefined ? value : `${e.data}\n${value}`;
    else if (field === 'id') e.id = value;
    else if (field === 'event') e.event = value;
    else if (field === 'retry') e.retry = Number(value);
  }
  if (comments.length > 0 && e.data === undefined && e.id === undefined && e.event === undefined) e.comment = comments.join('\n');
  return e;
}

/** Whether some session of `s` has its standalone GET stream connected (peeks inside). */
export function getStreamOpen(s: Started): boolean {
  const inner = s.running.handler.streamable as unknown as { sessions: Map<string, { transport: { standalone?: { connected: boolean } } }> };
  return [...inner.sessions.values()].some((l) => l.transport.standalone?.connected === true);
}
