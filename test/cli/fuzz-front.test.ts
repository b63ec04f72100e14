// The HTTP front and the gateway under hostile input, as real processes (the built CLI):
// seeded random and mutated frames, deep nesting, huge ids and bodies, invalid UTF-8,
// `__proto__` payloads, odd headers. After each round: the process is up, no answer is a 5xx
// or carries a stack trace, a well-formed call still works in both eras, and the resident
// memory does not keep growing from round to round.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { request, Agent } from 'node:http';
import { join } from 'node:path';
import { connect } from '../../src/client/connect.js';
import { cleanEnv, ROOT } from './helpers.js';
import { gatewayBackend, tempDir, waitFor, patient } from '../support/index.js';

/** mulberry32: a small seeded generator, so a failing frame can be found again from the seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Frame {
  label: string;
  body: Buffer;
  headers: Record<string, string>;
}

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const MODERN = { ...JSON_HEADERS, 'mcp-protocol-version': '2026-07-28' };
const HANDSHAKE = { ...JSON_HEADERS, 'mcp-protocol-version': '2025-11-25' };

// 2026-07-28 requests carry their envelope in _meta: with it, a fuzzed frame reaches the
// dispatcher and the handlers instead of stopping at the envelope check.
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'fuzz', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': { elicitation: {}, sampling: {} },
};
const validFor = (tool: string) => [
  { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } } },
  { jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: META } },
  { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: tool, arguments: { text: 'hi', message: 'hi' }, _meta: META } },
  { jsonrpc: '2.0', id: 4, method: 'resources/read', params: { uri: 'file:///notes.txt', _meta: META } },
  { jsonrpc: '2.0', id: 5, method: 'prompts/get', params: { name: 'greet', arguments: { name: 'x' }, _meta: META } },
  {
    jsonrpc: '2.0',
    id: 6,
    method: 'completion/complete',
    params: { ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'name', value: 'a' }, _meta: META },
  },
  { jsonrpc: '2.0', id: 7, method: 'resources/templates/list', params: { _meta: META } },
  { jsonrpc: '2.0', method: 'notifications/initialized' },
  { jsonrpc: '2.0', id: 8, method: 'server/discover', params: { _meta: META } },
];

/** Every kind of hostile frame, drawn from the seed: the same seed gives the same frames. */
function frames(seed: number, count: number, tool: string): Frame[] {
  const valid = validFor(tool);
  const rnd = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const headers = () => pick([JSON_HEADERS, MODERN, HANDSHAKE]);
  const out: Frame[] = [];
  const fixed: Frame[] = [
    { label: 'deep array', body: Buffer.from('['.repeat(200_000)), headers: MODERN },
    { label: 'deep object', body: Buffer.from('{"a":'.repeat(100_000)), headers: HANDSHAKE },
    {
      label: 'deep params',
      body: Buffer.from(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":${'['.repeat(5000)}${']'.repeat(5000)}}}`),
      headers: MODERN,
    },
    { label: 'huge string id', body: Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 'i'.repeat(1_000_000), method: 'tools/list' })), headers: HANDSHAKE },
    { label: 'huge number id', body: Buffer.from(`{"jsonrpc":"2.0","id":${'9'.repeat(400)},"method":"tools/list"}`), headers: MODERN },
    { label: 'object id', body: Buffer.from('{"jsonrpc":"2.0","id":{"x":1},"method":"tools/list"}'), headers: MODERN },
    { label: 'body over the limit', body: Buffer.alloc(5 * 1024 * 1024, 0x20), headers: JSON_HEADERS },
    {
      label: 'invalid UTF-8',
      body: Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":1,"method":"tools/'), Buffer.from([0xc3, 0x28, 0xff, 0xfe]), Buffer.from('"}')]),
      headers: MODERN,
    },
    {
      label: 'lone surrogate escape',
      body: Buffer.from('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"\\ud800","arguments":{}}}'),
      headers: MODERN,
    },
    {
      label: '__proto__ arguments',
      body: Buffer.from('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"__proto__":{"polluted":true},"text":"x"}}}'),
      headers: MODERN,
    },
    {
      label: '__proto__ params',
      body: Buffer.from('{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"__proto__":{"cursor":"x"},"constructor":{"prototype":{"polluted":true}}}}'),
      headers: MODERN,
    },
    { label: '__proto__ message', body: Buffer.from('{"__proto__":{"jsonrpc":"2.0","method":"tools/list","id":1}}'), headers: HANDSHAKE },
    { label: 'empty batch', body: Buffer.from('[]'), headers: HANDSHAKE },
    { label: 'junk batch', body: Buffer.from('[1,"x",null,{},[]]'), headers: HANDSHAKE },
    {
      label: 'large batch',
      body: Buffer.from(JSON.stringify(Array.from({ length: 5000 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'ping' })))),
      headers: HANDSHAKE,
    },
    { label: 'text/plain', body: Buffer.from(JSON.stringify(valid[1])), headers: { 'content-type': 'text/plain', accept: '*/*' } },
    { label: 'no accept', body: Buffer.from(JSON.stringify(valid[1])), headers: { 'content-type': 'application/json' } },
    { label: 'bad version header', body: Buffer.from(JSON.stringify(valid[2])), headers: { ...JSON_HEADERS, 'mcp-protocol-version': '../../etc' } },
    { label: 'garbage session', body: Buffer.from(JSON.stringify(valid[2])), headers: { ...HANDSHAKE, 'mcp-session-id': '\u00ff'.repeat(64) } },
    { label: 'empty body', body: Buffer.alloc(0), headers: MODERN },
  ];
  out.push(...fixed);
  while (out.length < count) {
    const base = Buffer.from(JSON.stringify(pick(valid)));
    const kind = rnd();
    let body: Buffer;
    let label: string;
    if (kind < 0.25) {
      label = 'random bytes';
      body = Buffer.from(Array.from({ length: 1 + Math.floor(rnd() * 512) }, () => Math.floor(rnd() * 256)));
    } else if (kind < 0.5) {
      label = 'flipped bytes';
      body = Buffer.from(base);
      for (let i = 0; i < 1 + Math.floor(rnd() * 6); i++) body[Math.floor(rnd() * body.length)] = Math.floor(rnd() * 256);
    } else if (kind < 0.65) {
      label = 'truncated';
      body = base.subarray(0, Math.floor(rnd() * base.length));
    } else if (kind < 0.8) {
      label = 'spliced';
      const other = Buffer.from(JSON.stringify(pick(valid)));
      body = Buffer.concat([base.subarray(0, Math.floor(rnd() * base.length)), other.subarray(Math.floor(rnd() * other.length))]);
    } else {
      // Well-formed JSON with fields of the wrong type in random places.
      label = 'wrong types';
      const m = JSON.parse(base.toString()) as Record<string, unknown>;
      const odd = () =>
        pick<() => unknown>([() => null, () => -1, () => 1e308, () => '', () => [], () => ({}), () => true, () => 'x'.repeat(10_000), () => [[[[[]]]]]])();
      if (rnd() < 0.3) m[pick(['id', 'method', 'params', 'jsonrpc', 'result', 'error'])] = odd();
      const params = m.params as Record<string, unknown> | undefined;
      if (typeof params === 'object' && params !== null) {
        const field = pick(['name', 'arguments', 'uri', 'cursor', 'ref', 'argument', 'text', 'message']);
        if (field === 'text' || field === 'message') {
          if (typeof params.arguments === 'object' && params.arguments !== null) (params.arguments as Record<string, unknown>)[field] = odd();
        } else params[field] = odd();
      }
      body = Buffer.from(JSON.stringify(m));
    }
    // A fuzzed 2026-07-28 frame carries the Mcp-Method header its method asks for (when it still
    // has a string method), so that it gets past the header check to the handlers.
    let h: Record<string, string> = headers();
    if (label === 'wrong types') {
      const m = JSON.parse(body.toString()) as { method?: unknown; params?: { name?: unknown; uri?: unknown } };
      h = typeof m.method === 'string' ? { ...MODERN, 'mcp-method': m.method } : MODERN;
      const name = m.params?.name ?? m.params?.uri;
      if (typeof name === 'string' && /^[\x20-\x7e]*$/.test(name)) h['mcp-name'] = name;
    }
    out.push({ label, body, headers: h });
  }
  return out;
}

const agent = new Agent({ keepAlive: true, maxSockets: 8 });

/** One POST of raw bytes; resolves with the status and the first 4 KiB of the body. */
function send(url: string, frame: Frame): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const r = request(url, { method: 'POST', agent, headers: { ...frame.headers, 'content-length': String(frame.body.length) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        if (text.length < 4096) text += c;
        // An event stream answering a request ends when its answer is written; a listen stream
        // would stay open, and the status is all this test needs from it.
        if (/^text\/event-stream/.test(res.headers['content-type'] ?? '') && /\n\n/.test(text)) res.destroy();
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      res.on('close', () => resolve({ status: res.statusCode ?? 0, text }));
      res.on('error', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    // The server may answer 413 and close before reading a huge body: that is an answer.
    r.on('error', (e: NodeJS.ErrnoException) => (e.code === 'ECONNRESET' || e.code === 'EPIPE' ? resolve({ status: 0, text: e.code }) : reject(e)));
    r.end(frame.body);
  });
}

function rssKb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m?.[1] ?? 0);
}

const STACK = /\n\s+at .+:\d+:\d+|node:internal|\.ts:\d+:\d+/;

/** Starts the built CLI and waits for the URL it prints. */
async function start(args: string[]): Promise<{ url: string; child: ChildProcess; err: () => string }> {
  const child = spawn(process.execPath, [join(ROOT, 'dist/cli/main.js'), ...args, '--port', '0'], {
    cwd: ROOT,
    env: cleanEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (c: Buffer) => (out += c));
  child.stderr!.on('data', (c: Buffer) => (err += c));
  const url = await waitFor(() => /listening on (http:\/\/\S+)/.exec(out)?.[1], {
    what: `the URL mcpkit ${args.join(' ')} prints`,
    timeoutMs: patient(60_000),
  });
  return { url, child, err: () => err };
}

async function fuzz(url: string, child: ChildProcess, seed: number, tool: string, arg: string, err: () => string) {
  const rss: number[] = [];
  const statuses: Record<string, number> = {};
  for (let round = 0; round < Number(process.env.FUZZ_ROUNDS ?? 4); round++) {
    const batch = frames(seed + round, 150, tool);
    // Eight at a time, as several hostile clients would.
    for (let i = 0; i < batch.length; i += 8) {
      const answers = await Promise.all(batch.slice(i, i + 8).map((f) => send(url, f).then((a) => ({ f, a }))));
      for (const { f, a } of answers) {
        statuses[a.status] = (statuses[a.status] ?? 0) + 1;
        assert.ok(
          a.status < 500 || a.status === 503,
          `${f.label} (seed ${seed + round}) was answered ${a.status}: ${a.text.slice(0, 300)}\n${err().slice(-2000)}`,
        );
        assert.doesNotMatch(a.text, STACK, `${f.label} (seed ${seed + round}) leaked a stack trace`);
      }
    }
    assert.equal(child.exitCode, null, `the process exited during round ${round}\n${err().slice(-2000)}`);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    // Still serving, in both eras.
    for (const era of ['modern', 'handshake'] as const) {
      const client = await connect(url, { era });
      const r = await client.callTool(tool, { [arg]: `round ${round}` });
      assert.match(JSON.stringify(r.content), new RegExp(`round ${round}`));
      await client.close();
    }
    rss.push(rssKb(child.pid!));
  }
  // Round 0 warms the heap up; from then on the resident size must level off (a leak of the
  // frames' bodies, sessions or pending requests would add megabytes every round).
  if (process.env.FUZZ_DEBUG) console.log(seed, rss, statuses);
  const growth = (rss[3]! - rss[1]!) / 1024;
  assert.ok(growth < 48, `resident memory grew ${growth.toFixed(1)} MB between rounds 1 and 3 (${rss.map((k) => Math.round(k / 1024)).join(', ')} MB)`);
}

test('mcpkit serve stays up with bounded memory under 600 hostile frames', async (t) => {
  const { url, child, err } = await start(['serve']);
  t.after(() => child.kill('SIGKILL'));
  await fuzz(url, child, 0x5eed, 'echo', 'message', err);
});

test('mcpkit gateway stays up with bounded memory under 600 hostile frames', async (t) => {
  const file = join(tempDir('fuzz-gateway'), 'servers.json');
  writeFileSync(file, JSON.stringify({ mcpServers: { b: gatewayBackend('fuzz') } }));
  const { url, child, err } = await start(['gateway', '--config', file, '--no-watch']);
  t.after(() => child.kill('SIGKILL'));
  await waitFor(
    async () => {
      const c = await connect(url, { era: 'modern' });
      const names = (await c.listTools()).tools.map((x) => x.name);
      await c.close();
      return names.includes('b_echo');
    },
    { what: 'the gateway to list its backend', timeoutMs: patient(60_000) },
  );
  await fuzz(url, child, 0xface, 'b_echo', 'text', err);
});
