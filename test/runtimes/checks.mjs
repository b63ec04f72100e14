// The checks `npm run test:runtimes` runs, from Node, against the matrix server (app.mjs) hosted
// by each runtime: mcpkit's own client (dist/) for the protocol, raw fetch for the wire. The same
// list for every runtime, so the counts compare.
import assert from 'node:assert/strict';
import { connect, McpError } from '../../dist/entries/client.js';

const MODERN = '2026-07-28';
const HANDSHAKE = '2025-11-25';
const INFO = { name: 'runtime-matrix-client', version: '1.0.0' };
const ACCEPT = 'application/json, text/event-stream';
const ENVELOPE = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} };

/** A fetch that records the JSON-RPC method of every POST it sends, and the session ids it is given. */
function recordingFetch() {
  const methods = [];
  const sessions = new Set();
  const f = async (input, init) => {
    if (init?.method === 'POST' && typeof init.body === 'string') {
      try {
        methods.push(JSON.parse(init.body).method ?? 'response');
      } catch {
        methods.push('?');
      }
    }
    const response = await fetch(input, init);
    const sid = response.headers.get('mcp-session-id');
    if (sid) sessions.add(sid);
    return response;
  };
  return { fetch: f, methods, sessions };
}

async function withClient(url, { fetch: f, ...options }, fn) {
  const client = await connect(f ? { url, fetch: f } : url, { ...INFO, ...options });
  try {
    return await fn(client);
  } finally {
    await client.close();
  }
}

function text(result) {
  return result.content.map((c) => c.text).join('');
}

function post(url, body, headers = {}) {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: ACCEPT, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

async function callWithProgress(client) {
  const seen = [];
  const result = await client.callTool('progress', { steps: 3 }, { onprogress: (p) => seen.push(p.progress) });
  assert.equal(text(result), 'did 3');
  assert.deepEqual(seen, [1, 2, 3]);
}

/** The `sum` tool, whose input is a plain JSON Schema: validated by ajv. */
async function sumCheck(url, era) {
  await withClient(url, { era }, async (client) => {
    assert.equal(text(await client.callTool('sum', { a: 2, b: 3 })), '5');
    const bad = await client.callTool('sum', { a: 'two', b: 3 });
    assert.equal(bad.isError, true);
    assert.match(text(bad), /a/);
  });
}

/** name → check(base), where base is `http://host:port` of the runtime's server. */
export const CHECKS = {
  'handshake: initialize opens a session': async (base) => {
    const { fetch: f, methods, sessions } = recordingFetch();
    await withClient(`${base}/mcp`, { era: 'handshake', fetch: f }, async (client) => {
      assert.equal(client.era, 'handshake');
      assert.equal(client.protocolVersion, HANDSHAKE);
      assert.equal(client.serverInfo.name, 'runtime-matrix');
      await client.ping();
    });
    assert.deepEqual(methods.slice(0, 3), ['initialize', 'notifications/initialized', 'ping']);
    assert.equal(sessions.size, 1, 'one session id, on every answer');
  },
  'handshake: tools/list': async (base) => {
    await withClient(`${base}/mcp`, { era: 'handshake' }, async (client) => {
      const { tools } = await client.listTools();
      const names = tools.map((t) => t.name);
      for (const name of ['ask', 'echo', 'progress']) assert.ok(names.includes(name), `${name} is listed`);
      assert.equal(tools.find((t) => t.name === 'echo').inputSchema.properties.text.type, 'string');
    });
  },
  'handshake: tools/call streams progress': async (base) => {
    await withClient(`${base}/mcp`, { era: 'handshake' }, callWithProgress);
  },
  'handshake: elicitation over the session': async (base) => {
    const asked = [];
    const elicitation = async (params) => {
      asked.push(params.message);
      return { action: 'accept', content: { name: 'Ada' } };
    };
    await withClient(`${base}/mcp`, { era: 'handshake', elicitation }, async (client) => {
      assert.equal(text(await client.callTool('ask', {})), 'hello Ada');
    });
    assert.deepEqual(asked, ['Your name?']);
  },
  'handshake: stateless endpoint (no session)': async (base) => {
    const { fetch: f, methods, sessions } = recordingFetch();
    await withClient(`${base}/stateless`, { era: 'handshake', fetch: f }, async (client) => {
      assert.equal(client.protocolVersion, HANDSHAKE);
      await callWithProgress(client);
    });
    assert.ok(methods.includes('tools/call'));
    assert.equal(sessions.size, 0, 'no session id');
  },
  'handshake: DELETE ends the session, then 404': async (base) => {
    const init = await post(`${base}/mcp`, {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: HANDSHAKE, capabilities: {}, clientInfo: INFO },
    });
    assert.equal(init.status, 200);
    const sid = init.headers.get('mcp-session-id');
    assert.ok(sid);
    await init.body?.cancel();
    const headers = { 'mcp-session-id': sid, 'mcp-protocol-version': HANDSHAKE };
    const del = await fetch(`${base}/mcp`, { method: 'DELETE', headers });
    assert.equal(del.status, 200);
    await del.body?.cancel();
    const after = await post(`${base}/mcp`, { jsonrpc: '2.0', id: 2, method: 'ping' }, headers);
    assert.equal(after.status, 404);
    await after.body?.cancel();
  },
  '2026-07-28: server/discover': async (base) => {
    const { fetch: f, methods } = recordingFetch();
    await withClient(`${base}/mcp`, { era: 'auto', fetch: f }, async (client) => {
      assert.equal(client.era, 'modern');
      assert.equal(client.protocolVersion, MODERN);
      assert.equal(client.serverInfo.name, 'runtime-matrix');
      const discover = await client.request('server/discover', {});
      assert.ok(discover.supportedVersions.includes(MODERN));
    });
    assert.equal(methods[0], 'server/discover');
    assert.ok(!methods.includes('initialize'));
  },
  '2026-07-28: tools/call streams progress': async (base) => {
    await withClient(`${base}/mcp`, { era: 'modern' }, callWithProgress);
  },
  '2026-07-28: elicitation as an input_required round (MRTR)': async (base) => {
    const { fetch: f, methods } = recordingFetch();
    const elicitation = async () => ({ action: 'accept', content: { name: 'Grace' } });
    await withClient(`${base}/mcp`, { era: 'modern', elicitation, fetch: f }, async (client) => {
      assert.equal(text(await client.callTool('ask', {})), 'hello Grace');
    });
    // Two POSTs of tools/call: the first answered input_required, the retry carried the answer.
    assert.equal(methods.filter((m) => m === 'tools/call').length, 2);
  },
  '2026-07-28: concurrent calls and an unknown tool': async (base) => {
    await withClient(`${base}/mcp`, { era: 'modern' }, async (client) => {
      const texts = await Promise.all(Array.from({ length: 8 }, (_, i) => client.callTool('echo', { text: `n${i}` }).then(text)));
      assert.deepEqual(
        texts,
        Array.from({ length: 8 }, (_, i) => `n${i}`),
      );
      await assert.rejects(client.callTool('nope', {}), (e) => e instanceof McpError && e.code === -32602);
    });
  },
  'handshake: a plain JSON Schema input (ajv)': (base) => sumCheck(`${base}/mcp`, 'handshake'),
  '2026-07-28: a plain JSON Schema input (ajv)': (base) => sumCheck(`${base}/mcp`, 'modern'),
  'wire: bad JSON is 400 with -32700': async (base) => {
    for (const path of ['/mcp', '/stateless']) {
      const r = await post(`${base}${path}`, '{"jsonrpc":', { 'mcp-protocol-version': MODERN });
      assert.equal(r.status, 400, path);
      const body = await r.json();
      assert.equal(body.error.code, -32700, path);
    }
  },
  'wire: 2026-07-28 POST without session; refusals': async (base) => {
    const r = await post(
      `${base}/mcp`,
      { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'echo', arguments: { text: 'raw' }, _meta: ENVELOPE } },
      { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'echo' },
    );
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('mcp-session-id'), null);
    const body = r.headers.get('content-type')?.includes('text/event-stream') ? parseSse(await r.text()) : await r.json();
    assert.equal(body.id, 7);
    assert.equal(body.result.content[0].text, 'raw');
    const put = await fetch(`${base}/mcp`, { method: 'PUT', body: '{}' });
    assert.equal(put.status, 405);
    await put.body?.cancel();
    const nowhere = await post(`${base}/elsewhere`, { jsonrpc: '2.0', id: 1, method: 'ping' });
    assert.equal(nowhere.status, 404);
    await nowhere.body?.cancel();
  },
};

/** Checks only the Hono-served endpoints (app.mjs, under /hono) run, after CHECKS. */
export const HONO_CHECKS = {
  "hono: the app's own middleware header is on MCP's answers (JSON, SSE, refusals)": async (base) => {
    const bad = await post(`${base}/mcp`, '{"jsonrpc":', { 'mcp-protocol-version': MODERN });
    assert.equal(bad.status, 400);
    assert.equal(bad.headers.get('x-served-by'), 'hono', 'on a refusal');
    await bad.body?.cancel();
    const call = await post(
      `${base}/mcp`,
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'progress', arguments: { steps: 2 }, _meta: { ...ENVELOPE, progressToken: 'p' } } },
      { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'progress' },
    );
    assert.equal(call.status, 200);
    assert.match(call.headers.get('content-type') ?? '', /text\/event-stream/, 'progress makes it a stream');
    assert.equal(call.headers.get('x-served-by'), 'hono', 'on an SSE stream');
    assert.equal(parseSse(await call.text()).result.content[0].text, 'did 2');
  },
};

/** The last JSON-RPC response in an SSE body. */
function parseSse(body) {
  const data = body
    .split(/\r?\n\r?\n/)
    .flatMap((event) =>
      event
        .split(/\r?\n/)
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trim()),
    )
    .filter((d) => d !== '');
  return data.map((d) => JSON.parse(d)).findLast((m) => 'id' in m && ('result' in m || 'error' in m));
}

/** Runs every check (and `extra`); resolves to { passed, passedNames, failed: [{ name, error }], total }. */
export async function runChecks(base, { timeoutMs = 30_000, extra = {} } = {}) {
  const failed = [];
  const passedNames = [];
  const all = { ...CHECKS, ...extra };
  for (const [name, check] of Object.entries(all)) {
    try {
      await withTimeout(check(base), timeoutMs, name);
      passedNames.push(name);
    } catch (error) {
      failed.push({ name, error });
    }
  }
  return { passed: passedNames.length, passedNames, failed, total: Object.keys(all).length };
}

/** A ceiling so that a runtime that hangs fails its check instead of the whole run; not a measurement. */
function withTimeout(promise, ms, name) {
  let timer;
  const limit = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${name}: no answer within ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}
