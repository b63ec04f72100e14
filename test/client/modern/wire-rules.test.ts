// The client-side wire rules of 2026-07-28 that the official conformance suite checks (SEP-2243
// headers, SEP-2575 envelope and version retry, SEP-2322 rounds, SEP-2106 schemas), each over
// real HTTP: against our own server where it can produce the case, else against a small raw
// server that answers exactly what a test needs and records every request.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from '../../../src/client/connect.js';
import { McpError } from '../../../src/jsonrpc/errors.js';
import { McpServer } from '../../../src/server/mcp-server.js';
import { serve } from '../../../src/serving/node.js';
import { encodeHeaderValue } from '../../../src/protocol/headers.js';
import { M, text, V, type Msg } from './helpers.js';

interface Hit {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Msg | undefined;
}

type Answer = { status?: number; result?: Record<string, unknown>; error?: { code: number; message: string; data?: unknown } } | undefined;

/** A raw HTTP server: `answer` decides the reply to each JSON-RPC request POSTed to /mcp. */
async function rawServer(answer: (m: Msg, hit: Hit) => Answer) {
  const hits: Hit[] = [];
  const server = createServer((req, res) => {
    let data = '';
    req.on('data', (c: Buffer) => (data += c.toString('utf8')));
    req.on('end', () => {
      const hit: Hit = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: data ? (JSON.parse(data) as Msg) : undefined };
      hits.push(hit);
      if (req.method !== 'POST' || hit.path !== '/mcp' || !hit.body) return void res.writeHead(404).end();
      if (hit.body.id === undefined) return void res.writeHead(202).end();
      const a = answer(hit.body, hit) ?? { error: { code: -32601, message: `Method not found: ${hit.body.method}` } };
      const { status = a.error ? 400 : 200, ...rest } = a;
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: hit.body.id, ...rest }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    url: `${base}/mcp`,
    hits,
    posts: (rpc: string) => hits.filter((h) => h.body?.method === rpc),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const complete = (extra: Record<string, unknown>) => ({ resultType: 'complete', ...extra });
const discovered = (extra: Record<string, unknown> = {}) =>
  complete({ supportedVersions: [V], capabilities: { tools: {} }, ttlMs: 0, cacheScope: 'private', ...extra });
const toolsList = (tools: unknown[], ttlMs = 0) => complete({ tools, ttlMs, cacheScope: 'private' });

test('Mcp-Param-*: values are encoded by the rule (tabs and other control characters as Base64), and our server accepts each', async () => {
  const mcp = new McpServer({ name: 'params', version: '1.0.0', onerror: () => {} });
  mcp.tool(
    'route',
    {
      input: {
        type: 'object',
        properties: {
          text: { type: 'string', 'x-mcp-header': 'Text' },
          priority: { type: 'integer', 'x-mcp-header': 'Priority' },
          verbose: { type: 'boolean', 'x-mcp-header': 'Verbose' },
          method_val: { type: 'string', 'x-mcp-header': 'Method' },
          query: { type: 'string' },
          ratio: { type: 'number' },
        },
      },
    },
    (args) => JSON.stringify(args),
  );
  const running = await serve(mcp, { port: 0, host: '127.0.0.1' });
  const seen: Record<string, string>[] = [];
  const recording: typeof fetch = (input, init) => {
    const h: Record<string, string> = {};
    new Headers(init?.headers).forEach((v, k) => {
      h[k] = v;
    });
    seen.push(h);
    return fetch(input, init);
  };
  const client = await connect({ url: running.url, fetch: recording }, { era: 'auto' });
  const b64 = (s: string) => `=?base64?${Buffer.from(s, 'utf8').toString('base64')}?=`;
  try {
    await client.listTools();
    const cases: Array<[string, string]> = [
      ['us west 1', 'us west 1'],
      ['a\tb', b64('a\tb')],
      ['\tindented', b64('\tindented')],
      [' padded ', b64(' padded ')],
      ['us-west1 ', b64('us-west1 ')],
      ['line1\r\nline2', b64('line1\r\nline2')],
      ['bell\u0007', b64('bell\u0007')],
      ['del\u007f', b64('del\u007f')],
      ['Hello, 世界', b64('Hello, 世界')],
      ['=?base64?aGk=?=', b64('=?base64?aGk=?=')],
    ];
    for (const [value, header] of cases) {
      const args = { text: value, priority: 42, verbose: false, method_val: 'test-method', query: 'SELECT 1', ratio: 3.14 };
      const r = await client.callTool('route', args);
      assert.ok(!r.isError, `${JSON.stringify(value)} refused: ${text(r)}`);
      assert.deepEqual(JSON.parse(text(r)!), args, JSON.stringify(value));
      const h = seen.at(-1)!;
      assert.equal(h['mcp-param-text'], header, JSON.stringify(value));
      assert.equal(h['mcp-param-priority'], '42');
      assert.equal(h['mcp-param-verbose'], 'false');
      // A parameter named "Method" gets its own header; Mcp-Method still names the JSON-RPC method.
      assert.equal(h['mcp-param-method'], 'test-method');
      assert.equal(h['mcp-method'], 'tools/call');
      assert.deepEqual(
        Object.keys(h)
          .filter((k) => k.startsWith('mcp-param-'))
          .sort(),
        ['mcp-param-method', 'mcp-param-priority', 'mcp-param-text', 'mcp-param-verbose'],
      );
    }
    // null is "no value": no header at all.
    await client.callTool('route', { text: 'x', priority: 1, verbose: null });
    assert.equal(seen.at(-1)!['mcp-param-verbose'], undefined);
  } finally {
    await client.close();
    await running.close();
  }
  assert.equal(encodeHeaderValue('a\tb'), '=?base64?YQli?=');
  assert.equal(encodeHeaderValue(true), 'true');
});

test('x-mcp-header: every kind of invalid annotation drops its tool with a warning; the valid tool is kept and mirrored', async () => {
  const prop = (type: string, header: string) => ({ type, 'x-mcp-header': header });
  const invalid: Record<string, Record<string, unknown>> = {
    empty: { value: prop('string', '') },
    object: { data: prop('object', 'Data') },
    array: { items: { ...prop('array', 'Items'), items: { type: 'string' } } },
    null: { nil: prop('null', 'Nil') },
    number: { score: prop('number', 'Score') },
    duplicate: { a: prop('string', 'Region'), b: prop('string', 'Region') },
    duplicate_case: { a: prop('string', 'MyField'), b: prop('string', 'myfield') },
    space: { value: prop('string', 'My Region') },
    colon: { value: prop('string', 'Region:Primary') },
    non_ascii: { value: prop('string', 'Région') },
    control: { value: prop('string', 'Region\t1') },
  };
  const tools = [
    { name: 'valid_tool', inputSchema: { type: 'object', properties: { region: prop('string', 'Region') }, required: ['region'] } },
    ...Object.entries(invalid).map(([name, properties]) => ({ name: `invalid_${name}`, inputSchema: { type: 'object', properties } })),
  ];
  const srv = await rawServer((m) => {
    if (m.method === 'server/discover') return { result: discovered() };
    if (m.method === 'tools/list') return { result: toolsList(tools) };
    if (m.method === 'tools/call') return { result: complete({ content: [{ type: 'text', text: 'called' }] }) };
    return undefined;
  });
  const warnings: string[] = [];
  const client = await connect(srv.url, { era: 'auto', onerror: (e) => warnings.push(e.message) });
  try {
    assert.deepEqual(
      (await client.listTools()).tools.map((t) => t.name),
      ['valid_tool'],
    );
    for (const name of Object.keys(invalid))
      assert.ok(
        warnings.some((w) => w.includes(`"invalid_${name}"`)),
        `no warning for invalid_${name}:\n${warnings.join('\n')}`,
      );
    await client.callTool('valid_tool', { region: 'us-west1' });
    assert.equal(srv.posts('tools/call')[0].headers['mcp-param-region'], 'us-west1');
  } finally {
    await client.close();
    await srv.close();
  }
});

test('-32022 naming the very version sent is retried once, on a new id; the header always equals _meta; serverInfo beside capabilities is read', async () => {
  for (const era of ['modern', 'auto'] as const) {
    let refused = false;
    const srv = await rawServer((m) => {
      if (!refused) {
        refused = true;
        return { error: { code: -32022, message: 'Unsupported protocol version', data: { supported: [V], requested: V } } };
      }
      if (m.method === 'server/discover') return { result: discovered({ serverInfo: { name: 'beside', version: '2' } }) };
      return undefined;
    });
    const client = await connect(srv.url, { era, roots: [], elicitation: () => ({ action: 'decline' }) });
    try {
      assert.equal(client.era, 'modern');
      assert.deepEqual(client.serverInfo, { name: 'beside', version: '2' });
      const posts = srv.posts('server/discover');
      assert.equal(posts.length, 2, era);
      assert.notEqual(posts[0].body!.id, posts[1].body!.id);
      for (const p of posts) {
        const meta = p.body!.params!._meta;
        assert.equal(p.headers['mcp-protocol-version'], V);
        assert.equal(meta[M.protocolVersion], V);
        assert.deepEqual(meta[M.clientCapabilities], { roots: { listChanged: true }, elicitation: { form: {} } });
        assert.deepEqual(meta[M.clientInfo], { name: 'mcpkit-client', version: '0.1.0' });
      }
    } finally {
      await client.close();
      await srv.close();
    }
  }
  // A server that refuses every time is not asked forever: one retry, then its error.
  const stubborn = await rawServer(() => ({ error: { code: -32022, message: 'Unsupported protocol version', data: { supported: [V] } } }));
  await assert.rejects(connect(stubborn.url, { era: 'modern' }), (e: unknown) => e instanceof McpError && e.code === -32022);
  assert.equal(stubborn.posts('server/discover').length, 2);
  await stubborn.close();
});

test('input_required over HTTP: requestState echoed exactly or not at all, a new id per retry, nothing leaks into other calls, no resultType = complete', async () => {
  const state = JSON.stringify({ nonce: 'é\u2028</script>\\"', n: 1 });
  const ask = {
    confirm: {
      method: 'elicitation/create',
      params: { message: 'Confirm?', requestedSchema: { type: 'object', properties: { confirmed: { type: 'boolean' } } } },
    },
  };
  const done = (t: string) => ({ result: complete({ content: [{ type: 'text', text: t }] }) });
  const srv = await rawServer((m) => {
    if (m.method === 'server/discover') return { result: discovered() };
    if (m.method !== 'tools/call') return undefined;
    const retry = m.params!.inputResponses !== undefined;
    switch (m.params!.name) {
      case 'with_state':
        return retry ? done('with-state-ok') : { result: { resultType: 'input_required', inputRequests: ask, requestState: state } };
      case 'no_state':
        return retry ? done('no-state-ok') : { result: { resultType: 'input_required', inputRequests: ask } };
      case 'no_result_type':
        return { result: { content: [{ type: 'text', text: 'plain' }] } };
      default:
        return done('unrelated-ok');
    }
  });
  let unrelated: Promise<unknown> | undefined;
  const client = await connect(srv.url, {
    era: 'auto',
    elicitation: () => {
      // Another call made while a round is open must carry nothing of it.
      unrelated ??= client.callTool('unrelated', {});
      return { action: 'accept', content: { confirmed: true } };
    },
  });
  try {
    assert.equal(text(await client.callTool('with_state', { a: 1 })), 'with-state-ok');
    assert.equal(text(await client.callTool('no_state', {})), 'no-state-ok');
    assert.equal(text(await client.callTool('no_result_type', {})), 'plain');
    await unrelated;
    const calls = (name: string) =>
      srv
        .posts('tools/call')
        .filter((h) => h.body!.params!.name === name)
        .map((h) => h.body!);
    const [first, retry] = calls('with_state');
    assert.notEqual(first.id, retry.id);
    assert.equal(retry.params!.requestState, state);
    assert.deepEqual(retry.params!.inputResponses, { confirm: { action: 'accept', content: { confirmed: true } } });
    assert.deepEqual(retry.params!.arguments, { a: 1 });
    const noState = calls('no_state');
    assert.equal(noState.length, 2);
    assert.ok(!('requestState' in noState[1].params!));
    assert.equal(calls('no_result_type').length, 1);
    const [other] = calls('unrelated');
    assert.ok(!('requestState' in other.params!) && !('inputResponses' in other.params!));
  } finally {
    await client.close();
    await srv.close();
  }
});

test('tool schemas: 2020-12 keywords and $refs come back exactly as served, and a network $ref is never fetched', async () => {
  let srvBase = '';
  const schema = () => ({
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    $defs: { address: { $anchor: 'addressDef', type: 'object', properties: { street: { type: 'string' } } } },
    properties: {
      address: { $ref: '#/$defs/address' },
      profile: { $ref: `${srvBase}/canary/profile-schema.json` },
      contact: { type: 'string', enum: ['phone', 'email'] },
    },
    allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
    if: { properties: { contact: { const: 'phone' } }, required: ['contact'] },
    then: { required: ['phone'] },
    else: { required: ['email'] },
    additionalProperties: false,
    'x-vendor': { kept: true },
  });
  const srv = await rawServer((m) => {
    if (m.method === 'server/discover') return { result: discovered() };
    // Cacheable, so the second listing below comes from the client's cache.
    if (m.method === 'tools/list')
      return {
        result: toolsList(
          [
            { name: 'lookup', inputSchema: schema() },
            { name: 'echo', inputSchema: { type: 'object' } },
          ],
          60_000,
        ),
      };
    if (m.method === 'tools/call') return { result: complete({ content: [{ type: 'text', text: 'echoed' }] }) };
    return undefined;
  });
  srvBase = srv.base;
  const client = await connect(srv.url, { era: 'auto' });
  try {
    const listed = (await client.listTools()).tools.find((t) => t.name === 'lookup')!;
    assert.deepEqual(listed.inputSchema, schema());
    assert.deepEqual((await client.listTools()).tools.find((t) => t.name === 'lookup')!.inputSchema, schema());
    assert.equal(srv.posts('tools/list').length, 1);
    await client.callTool('echo', { schema: listed.inputSchema });
    assert.deepEqual(srv.posts('tools/call')[0].body!.params!.arguments, { schema: schema() });
    assert.deepEqual(
      srv.hits.filter((h) => h.path.startsWith('/canary')),
      [],
    );
  } finally {
    await client.close();
    await srv.close();
  }
});
