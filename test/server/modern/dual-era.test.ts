// Both eras on ONE connection: an initialize handshake and 2026-07-28 requests interleaved,
// in memory and over a real stdio child. The same tool elicits with a real server-to-client
// request in the handshake era and with input_required in the modern era.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { McpServer } from '../../../src/server/mcp-server.js';
import { M, meta, V, Wire, type Frame } from './helpers.js';
import { flush, patient } from '../../support/index.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const INIT = (caps: Record<string, unknown> = {}) => ({ protocolVersion: '2025-11-25', capabilities: caps, clientInfo: { name: 'legacy', version: '1' } });
const FORM = { message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } };

function server(): McpServer {
  const s = new McpServer({ name: 'dual', version: '1.0.0', onerror: () => {} });
  s.tool('ask-name', async (_a, ctx) => {
    const r = await ctx.elicit(FORM as never);
    return r.action === 'accept' ? `Hello, ${(r.content as { name: string }).name}!` : `declined (${r.action})`;
  });
  s.tool('era', (_a, ctx) => `${ctx.protocolVersion} session=${ctx.session !== undefined} era=${ctx.era}`);
  return s;
}

test('in memory: handshake and modern requests interleave on one connection', async () => {
  const w = await Wire.connect(server());
  // Modern before any handshake.
  const era0 = await w.result('tools/call', { name: 'era', arguments: {} });
  assert.deepEqual(era0.content, [{ type: 'text', text: `${V} session=false era=modern` }]);
  // The handshake.
  const init = await w.request('initialize', INIT({ elicitation: {} }), 0);
  assert.equal(init.result?.protocolVersion, '2025-11-25');
  assert.equal(init.result?.resultType, undefined);
  // Modern between initialize and initialized.
  assert.equal((await w.result('server/discover')).resultType, 'complete');
  w.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  await flush();
  // Handshake era: no resultType, no _meta serverInfo.
  const legacy = await w.request('tools/call', { name: 'era', arguments: {} }, 'h1');
  assert.deepEqual(legacy.result, { content: [{ type: 'text', text: '2025-11-25 session=true era=handshake' }] });
  // Modern again, after the handshake: still stateless, still decorated.
  const era1 = await w.result('tools/call', { name: 'era', arguments: {} });
  assert.deepEqual(era1.content, [{ type: 'text', text: `${V} session=false era=modern` }]);
  assert.equal(era1.resultType, 'complete');
  // A second initialize is still refused by the handshake era (the modern era did not reset it).
  const again = await w.request('initialize', INIT(), 'i2');
  assert.ok(again.error, 'a second initialize is an error');
  // ping belongs to the handshake era; with the modern envelope it does not exist.
  assert.deepEqual((await w.request('ping', undefined, 'p1')).result, {});
  assert.equal((await w.modern('ping', {}, {}, 'p2')).error?.code, -32601);
});

test('in memory: the same tool elicits with a real request (handshake) and with input_required (modern)', async () => {
  const w = await Wire.connect(server());
  await w.request('initialize', INIT({ elicitation: {} }), 0);
  w.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  await flush();

  // Handshake era: the server sends elicitation/create; answer it like a client would.
  w.send({ jsonrpc: '2.0', id: 'legacy-call', method: 'tools/call', params: { name: 'ask-name', arguments: {} } });
  const ask = await w.waitFor('elicitation/create request', (f) => f.method === 'elicitation/create' && f.id !== undefined);
  assert.deepEqual(ask.params, FORM);
  // Modern request while the legacy one waits for its answer: served at once, without a request.
  const modern = await w.result('tools/call', { name: 'ask-name', arguments: {} }, { elicitation: {} });
  assert.equal(modern.resultType, 'input_required');
  assert.deepEqual(modern.inputRequests, { 'elicit-1': { method: 'elicitation/create', params: FORM } });
  assert.equal(w.frames.filter((f) => f.method === 'elicitation/create').length, 1, 'the modern call sent no request');
  w.send({ jsonrpc: '2.0', id: ask.id, result: { action: 'accept', content: { name: 'Legacy' } } });
  const legacyDone = await w.response('legacy-call');
  assert.deepEqual(legacyDone.result, { content: [{ type: 'text', text: 'Hello, Legacy!' }] });
  const modernDone = await w.result(
    'tools/call',
    { name: 'ask-name', arguments: {}, inputResponses: { 'elicit-1': { action: 'accept', content: { name: 'Modern' } } }, requestState: modern.requestState },
    { elicitation: {} },
  );
  assert.deepEqual(modernDone.content, [{ type: 'text', text: 'Hello, Modern!' }]);
  // Modern capabilities are per request: the handshake's elicitation does not count.
  assert.equal((await w.modern('tools/call', { name: 'ask-name', arguments: {} }, {}, 'nocap')).error?.code, -32021);
});

// ---------------------------------------------------------------- stdio

const WAIT_MS = patient(20_000);
const children: ChildProcessWithoutNullStreams[] = [];
after(() => {
  for (const c of children) if (c.exitCode === null) c.kill();
});

/** A raw line-based connection to a stdio child. */
class Child {
  readonly child: ChildProcessWithoutNullStreams;
  readonly frames: Frame[] = [];
  private waiters: Array<() => void> = [];
  private buf = '';
  stderr = '';

  constructor(script: string) {
    this.child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: ROOT, stdio: 'pipe' });
    children.push(this.child);
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (d: string) => {
      this.buf += d;
      let i: number;
      while ((i = this.buf.indexOf('\n')) >= 0) {
        this.frames.push(JSON.parse(this.buf.slice(0, i)) as Frame); // stdout holds only JSON lines
        this.buf = this.buf.slice(i + 1);
      }
      for (const w of this.waiters.splice(0)) w();
    });
    this.child.stderr.on('data', (d: Buffer) => (this.stderr += d.toString('utf8')));
    this.child.stdin.on('error', () => {});
  }

  send(obj: object): void {
    this.child.stdin.write(JSON.stringify(obj) + '\n');
  }

  async waitFor(what: string, pred: (f: Frame) => boolean): Promise<Frame> {
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      const hit = this.frames.find(pred);
      if (hit) return hit;
      const left = deadline - Date.now();
      if (left <= 0 || this.child.exitCode !== null)
        throw new Error(`no ${what}; frames ${JSON.stringify(this.frames).slice(0, 800)}; stderr ${this.stderr.slice(-500)}`);
      await new Promise<void>((r) => {
        const t = setTimeout(r, left);
        this.waiters.push(() => (clearTimeout(t), r()));
      });
    }
  }

  request(id: string | number, method: string, params?: Record<string, unknown>): Promise<Frame> {
    this.send(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params });
    return this.waitFor(`response ${id}`, (f) => f.id === id && f.method === undefined);
  }

  async end(): Promise<void> {
    this.child.stdin.end();
    if (this.child.exitCode === null) await new Promise((r) => this.child.once('exit', r));
  }
}

test('stdio (examples/stdio-server.ts): discover probe, handshake and modern requests on one process', async () => {
  const c = new Child('examples/stdio-server.ts');
  // The dual-era client's probe: server/discover first.
  const d = await c.request('probe', 'server/discover', { _meta: meta() });
  assert.deepEqual(d.result?.supportedVersions, [V]);
  assert.deepEqual(d.result?._meta, { [M.serverInfo]: { name: 'example-stdio', version: '1.0.0' } });
  assert.equal(d.result?.instructions, 'Tools for demos and tests.');
  const m1 = await c.request(1, 'tools/call', { name: 'add', arguments: { a: 2, b: 3 }, _meta: meta() });
  assert.deepEqual(m1.result, {
    content: [{ type: 'text', text: '{"sum":5}' }],
    structuredContent: { sum: 5 },
    resultType: 'complete',
    _meta: { [M.serverInfo]: { name: 'example-stdio', version: '1.0.0' } },
  });
  // A legacy client on the same process.
  const init = await c.request(0, 'initialize', INIT());
  assert.equal(init.result?.protocolVersion, '2025-11-25');
  assert.deepEqual(init.result?.serverInfo, { name: 'example-stdio', version: '1.0.0' });
  c.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  const h1 = await c.request('h1', 'tools/call', { name: 'echo', arguments: { message: 'legacy' } });
  assert.deepEqual(h1.result, { content: [{ type: 'text', text: 'legacy' }] });
  const m2 = await c.request('m2', 'tools/call', { name: 'echo', arguments: { message: 'modern' }, _meta: meta() });
  assert.deepEqual(m2.result?.content, [{ type: 'text', text: 'modern' }]);
  assert.equal(m2.result?.resultType, 'complete');
  // Era-specific errors on the same process.
  assert.equal((await c.request('nf-m', 'resources/read', { uri: 'file:///nope', _meta: meta() })).error?.code, -32602);
  assert.equal((await c.request('nf-h', 'resources/read', { uri: 'file:///nope' })).error?.code, -32002);
  assert.equal((await c.request('rm', 'logging/setLevel', { level: 'debug', _meta: meta() })).error?.code, -32601);
  assert.deepEqual((await c.request('sl', 'logging/setLevel', { level: 'debug' })).result, {});
  const list = await c.request('tl', 'tools/list', { _meta: meta() });
  assert.equal(list.result?.ttlMs, 0);
  assert.equal(list.result?.cacheScope, 'private');
  await c.end();
  assert.equal(c.child.exitCode, 0, c.stderr);
});

test('stdio: the same tool sends elicitation/create to a handshake client and answers input_required to a modern one', async () => {
  const c = new Child('test/server/modern/fixtures/dual-era-server.ts');
  await c.request(0, 'initialize', INIT({ elicitation: {} }));
  c.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  c.send({ jsonrpc: '2.0', id: 'legacy', method: 'tools/call', params: { name: 'ask-name', arguments: {} } });
  const ask = await c.waitFor('elicitation/create', (f) => f.method === 'elicitation/create' && f.id !== undefined);
  assert.deepEqual(ask.params, FORM);
  const modern = await c.request('modern', 'tools/call', { name: 'ask-name', arguments: {}, _meta: meta({ elicitation: {} }) });
  assert.equal(modern.result?.resultType, 'input_required');
  assert.deepEqual(modern.result?.inputRequests, { 'elicit-1': { method: 'elicitation/create', params: FORM } });
  assert.equal(c.frames.filter((f) => f.method === 'elicitation/create').length, 1);
  c.send({ jsonrpc: '2.0', id: ask.id, result: { action: 'accept', content: { name: 'Stdio' } } });
  const legacy = await c.waitFor('legacy response', (f) => f.id === 'legacy' && f.method === undefined);
  assert.deepEqual(legacy.result, { content: [{ type: 'text', text: 'Hello, Stdio!' }] });
  const done = await c.request('modern-2', 'tools/call', {
    name: 'ask-name',
    arguments: {},
    inputResponses: { 'elicit-1': { action: 'accept', content: { name: 'Modern' } } },
    requestState: modern.result?.requestState,
    _meta: meta({ elicitation: {} }),
  });
  assert.deepEqual(done.result?.content, [{ type: 'text', text: 'Hello, Modern!' }]);
  // A listen on stdio: acknowledged, tagged; cancelled with notifications/cancelled, no response.
  c.send({ jsonrpc: '2.0', id: 'L', method: 'subscriptions/listen', params: { _meta: meta(), notifications: { toolsListChanged: true } } });
  const ack = await c.waitFor('ack', (f) => f.method === 'notifications/subscriptions/acknowledged');
  assert.deepEqual(ack.params, { notifications: { toolsListChanged: true }, _meta: { [M.subscriptionId]: 'L' } });
  c.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'L' } });
  const after = await c.request('after', 'server/discover', { _meta: meta() });
  assert.equal(after.result?.resultType, 'complete');
  assert.equal(c.frames.filter((f) => f.id === 'L').length, 0);
  await c.end();
});
