import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { McpServer } from '../../src/server/mcp-server.js';
import type { ToolReturnFor } from '../../src/server/tools.js';
import { createTestPair } from '../../src/testing/index.js';
import { rejectsWithCode, textOf } from './helpers.js';

const newServer = () => new McpServer({ name: 'tools-test', version: '1.0.0' });

test('tools: zod object schema validates, transforms and is advertised', async () => {
  const server = newServer();
  server.tool(
    'greet',
    { input: z.object({ name: z.string().describe('Who to greet'), times: z.number().int().default(1) }) },
    ({ name, times }) => `hello ${name} x${times}`,
  );
  const { client, close } = await createTestPair(server);
  const { tools } = await client.listTools();
  assert.equal(tools.length, 1);
  const schema = tools[0].inputSchema as { type: string; properties: Record<string, { type: string; description?: string }>; required?: string[] };
  assert.equal(schema.type, 'object');
  assert.equal(schema.properties.name.type, 'string');
  assert.equal(schema.properties.name.description, 'Who to greet');
  assert.deepEqual(schema.required, ['name']);
  assert.equal('$schema' in schema, false);
  // the default is applied by zod before the handler runs
  assert.equal(textOf(await client.callTool('greet', { name: 'ann' })), 'hello ann x1');
  assert.equal(textOf(await client.callTool('greet', { name: 'bob', times: 3 })), 'hello bob x3');
  const bad = await client.callTool('greet', { name: 'x', times: 1.5 });
  assert.equal(bad.isError, true);
  assert.match(textOf(bad), /^Invalid arguments: "times"/);
  const missing = await client.callTool('greet', {});
  assert.equal(missing.isError, true);
  assert.match(textOf(missing), /"name" is required/);
  await close();
});

test('tools: zod shape shortcut validates each member and names the failing field', async () => {
  const server = newServer();
  server.tool('add', { input: { a: z.number(), b: z.number().optional() } }, ({ a, b }) => String(a + (b ?? 0)));
  const { client, close } = await createTestPair(server);
  const [tool] = await client.listAllTools();
  assert.deepEqual((tool.inputSchema as { required?: string[] }).required, ['a']);
  assert.equal(textOf(await client.callTool('add', { a: 2, b: 5 })), '7');
  assert.equal(textOf(await client.callTool('add', { a: 2 })), '2');

  const wrongType = await client.callTool('add', { a: 'two' });
  assert.equal(wrongType.isError, true);
  assert.match(textOf(wrongType), /^Invalid arguments: "a"/);

  const missing = await client.callTool('add', {});
  assert.equal(missing.isError, true);
  assert.match(textOf(missing), /"a" is required/);

  // no arguments at all is validated as {}
  const none = await client.callTool('add');
  assert.equal(none.isError, true);
  assert.match(textOf(none), /"a" is required/);
  await close();
});

test('tools: raw JSON Schema input is validated by ajv with readable messages', async () => {
  const server = newServer();
  const inputSchema = {
    type: 'object',
    properties: { city: { type: 'string', minLength: 2 }, days: { type: 'integer', minimum: 1 } },
    required: ['city'],
    additionalProperties: false,
  };
  let seen: unknown;
  server.tool('forecast', { input: inputSchema }, (args) => {
    seen = args;
    return 'sunny';
  });
  const { client, close } = await createTestPair(server);
  const [tool] = (await client.listTools()).tools;
  assert.deepEqual(tool.inputSchema, inputSchema);

  assert.equal(textOf(await client.callTool('forecast', { city: 'Oslo', days: 3 })), 'sunny');
  assert.deepEqual(seen, { city: 'Oslo', days: 3 });

  const r1 = await client.callTool('forecast', { days: 3 });
  assert.equal(r1.isError, true);
  assert.match(textOf(r1), /"city" is required/);
  const r2 = await client.callTool('forecast', { city: 'Oslo', days: 0 });
  assert.equal(r2.isError, true);
  assert.match(textOf(r2), /"days" must be >= 1/);
  const r3 = await client.callTool('forecast', { city: 'Oslo', extra: true });
  assert.equal(r3.isError, true);
  assert.match(textOf(r3), /"extra" is not an allowed property/);
  await close();
});

test('tools: a tool without an input schema advertises an object schema and receives {}', async () => {
  const server = newServer();
  let got: unknown = 'unset';
  server.tool('ping', (args) => {
    got = args;
    return 'pong';
  });
  const { client, close } = await createTestPair(server);
  const [tool] = (await client.listTools()).tools;
  assert.equal(tool.name, 'ping');
  assert.equal((tool.inputSchema as { type: string }).type, 'object');
  assert.equal(textOf(await client.callTool('ping')), 'pong');
  assert.deepEqual(got, {});
  // arguments that are not an object are a tool error, not a protocol error
  const bad = (await client.request('tools/call', { name: 'ping', arguments: [1, 2] as never })) as { isError?: boolean };
  assert.equal(bad.isError, true);
  await close();
});

test('tools/list shows every field in registration order', async () => {
  const server = newServer();
  const icons = [{ src: 'https://example.com/i.png', mimeType: 'image/png', sizes: ['48x48'] }];
  server.tool('zeta', () => 'z');
  server.tool(
    'alpha',
    {
      title: 'Alpha tool',
      description: 'Does alpha things',
      input: { q: z.string() },
      output: { n: z.number() },
      annotations: { readOnlyHint: true, openWorldHint: false },
      icons,
      _meta: { 'example.com/tier': 'gold' },
    },
    () => ({ n: 1 }),
  );
  server.tool('middle', { description: 'm' }, () => 'm');
  const { client, close } = await createTestPair(server);
  const { tools, nextCursor } = await client.listTools();
  assert.equal(nextCursor, undefined);
  assert.deepEqual(
    tools.map((t) => t.name),
    ['zeta', 'alpha', 'middle'],
  );
  const alpha = tools[1];
  assert.equal(alpha.title, 'Alpha tool');
  assert.equal(alpha.description, 'Does alpha things');
  assert.deepEqual(alpha.annotations, { readOnlyHint: true, openWorldHint: false });
  assert.deepEqual(alpha.icons, icons);
  assert.deepEqual(alpha._meta, { 'example.com/tier': 'gold' });
  assert.equal((alpha.inputSchema as { properties: Record<string, unknown> }).properties.q !== undefined, true);
  assert.deepEqual((alpha.outputSchema as { required: string[] }).required, ['n']);
  // fields that were not given are absent, not null
  assert.deepEqual(Object.keys(tools[0]).sort(), ['inputSchema', 'name']);
  await close();
});

test('tools: output schema — plain object becomes structuredContent plus a JSON text block', async () => {
  const server = newServer();
  server.tool('stats', { output: z.object({ count: z.number(), label: z.string().default('none') }) }, () => ({ count: 3 }));
  const { client, close } = await createTestPair(server);
  const r = await client.callTool('stats');
  assert.equal(r.isError, undefined);
  // the validated value (defaults applied) is what is sent
  assert.deepEqual(r.structuredContent, { count: 3, label: 'none' });
  assert.deepEqual(JSON.parse(textOf(r)), { count: 3, label: 'none' });
  await close();
});

test('tools: a Standard Schema output types the return as what the schema accepts; raw JSON Schema stays loose', async () => {
  // `label` has a default: the handler may leave it out (the schema's input), the client gets it.
  const Stats = z.object({ count: z.number(), label: z.string().default('none') });
  const leftOut: ToolReturnFor<typeof Stats> = { count: 1 };
  // @ts-expect-error count is required
  const noCount: ToolReturnFor<typeof Stats> = { label: 'x' };
  // @ts-expect-error a result must carry the structured value (or be an error)
  const noStructured: ToolReturnFor<typeof Stats> = { content: [] };
  const failed: ToolReturnFor<typeof Stats> = { content: [{ type: 'text', text: 'no stats today' }], isError: true };
  // A shape: a member that accepts undefined may be left out.
  const fromShape: ToolReturnFor<{ n: z.ZodNumber; note: z.ZodOptional<z.ZodString> }> = { n: 2 };
  // Without a schema, or with a raw JSON Schema, any ToolReturn.
  const loose: ToolReturnFor<undefined> = 'text';
  const raw: ToolReturnFor<{ type: 'object' }> = [{ type: 'text', text: 'x' }];
  assert.ok([leftOut, noCount, noStructured, failed, fromShape, loose, raw]);

  const server = newServer();
  server.tool('plain', { output: Stats }, () => ({ count: 3 }));
  server.tool('full', { output: Stats }, async () => ({ content: [{ type: 'text', text: 'three' }], structuredContent: { count: 3, label: 'n' } }));
  server.tool('failed', { output: Stats }, () => failed);
  server.tool('raw', { output: { type: 'object', properties: { n: { type: 'number' } } } }, () => ({ n: 1 }));
  const { client, close } = await createTestPair(server);
  assert.deepEqual((await client.callTool('plain')).structuredContent, { count: 3, label: 'none' });
  assert.deepEqual((await client.callTool('full')).structuredContent, { count: 3, label: 'n' });
  // 2026-07-28 results carry serverInfo in _meta; the rest is the handler's result as it was.
  const { _meta, ...gotFailed } = await client.callTool('failed');
  assert.deepEqual(gotFailed, failed);
  assert.deepEqual((await client.callTool('raw')).structuredContent, { n: 1 });
  await close();
});

test('tools: output that does not match the output schema is an isError result', async () => {
  const server = newServer();
  // Each of these is a type error as well (the return is typed by the output schema); the
  // runtime must still refuse them for JavaScript callers and casts.
  // @ts-expect-error wrong structured value
  server.tool('bad', { output: { count: z.number() } }, () => ({ count: 'many' }));
  // @ts-expect-error wrong structuredContent
  server.tool('bad-full', { output: { count: z.number() } }, () => ({ content: [], structuredContent: { count: 'x' } }));
  // @ts-expect-error no structuredContent
  server.tool('missing-structured', { output: { count: z.number() } }, () => ({ content: [{ type: 'text', text: 'hi' }] }));
  // @ts-expect-error nothing returned
  server.tool('nothing', { output: { count: z.number() } }, () => undefined);
  // @ts-expect-error text only
  server.tool('text-only', { output: { count: z.number() } }, () => 'three');
  // @ts-expect-error content blocks only
  server.tool('blocks-only', { output: { count: z.number() } }, () => [{ type: 'text' as const, text: '3' }]);
  server.tool('good-full', { output: { count: z.number() } }, () => ({
    content: [{ type: 'text', text: '5 things' }],
    structuredContent: { count: 5 },
  }));
  const { client, close } = await createTestPair(server, { era: 'handshake' });
  for (const name of ['bad', 'bad-full', 'missing-structured', 'nothing', 'text-only', 'blocks-only']) {
    const r = await client.callTool(name);
    assert.equal(r.isError, true, name);
    assert.equal(r.structuredContent, undefined, name);
    assert.match(textOf(r), new RegExp(`"${name}"`), name);
  }
  assert.match(textOf(await client.callTool('bad')), /Tool "bad" returned invalid output: "count"/);
  const good = await client.callTool('good-full');
  assert.deepEqual(good, { content: [{ type: 'text', text: '5 things' }], structuredContent: { count: 5 } });
  await close();
});

test('tools: a handler that throws gives isError with its message, not a JSON-RPC error', async () => {
  const server = newServer();
  server.tool('boom', () => {
    throw new Error('disk is full');
  });
  server.tool('async-boom', async () => {
    await Promise.resolve();
    throw new TypeError('bad thing');
  });
  const { client, close } = await createTestPair(server, { era: 'handshake' });
  const r = await client.callTool('boom');
  assert.deepEqual(r, { content: [{ type: 'text', text: 'disk is full' }], isError: true });
  const r2 = await client.callTool('async-boom');
  assert.equal(r2.isError, true);
  assert.equal(textOf(r2), 'bad thing');
  await close();
});

test('tools: unknown tool and malformed call are JSON-RPC -32602', async () => {
  const server = newServer();
  server.tool('x', () => 'x');
  const { client, wire, close } = await createTestPair(server);
  const err = await rejectsWithCode(client.callTool('nope'), -32602, /nope/);
  assert.ok(err.message.length > 0);
  await rejectsWithCode(client.request('tools/call', {} as never), -32602);
  // the error really is a JSON-RPC error response on the wire
  const last = wire.entries.at(-1)!.message as { error?: { code: number } };
  assert.equal(last.error?.code, -32602);
  await close();
});

test('tools: every return shape is normalised into a CallToolResult', async () => {
  const server = newServer();
  const image = { type: 'image' as const, data: 'AAAA', mimeType: 'image/png' };
  server.tool('str', () => 'plain');
  server.tool('blocks', () => [{ type: 'text' as const, text: 'a' }, image]);
  server.tool('full', () => ({ content: [{ type: 'text' as const, text: 'f' }], isError: true, _meta: { k: 1 } }));
  server.tool('undef', () => undefined);
  server.tool('async-str', async () => 'later');
  server.tool('obj', () => ({ a: 1, nested: { b: [1, 2] } }));
  server.tool('arr', () => [1, 2, 3]);
  server.tool('empty', () => []);
  const { client, close } = await createTestPair(server, { era: 'handshake' });
  assert.deepEqual(await client.callTool('str'), { content: [{ type: 'text', text: 'plain' }] });
  assert.deepEqual(await client.callTool('blocks'), { content: [{ type: 'text', text: 'a' }, image] });
  assert.deepEqual(await client.callTool('full'), { content: [{ type: 'text', text: 'f' }], isError: true, _meta: { k: 1 } });
  assert.deepEqual(await client.callTool('undef'), { content: [] });
  assert.deepEqual(await client.callTool('async-str'), { content: [{ type: 'text', text: 'later' }] });
  const obj = await client.callTool('obj');
  assert.deepEqual(obj.structuredContent, { a: 1, nested: { b: [1, 2] } });
  assert.deepEqual(JSON.parse(textOf(obj)), { a: 1, nested: { b: [1, 2] } });
  // structuredContent must be an object before 2026-07-28, so an array is only sent as text
  assert.deepEqual(await client.callTool('arr'), { content: [{ type: 'text', text: '[1,2,3]' }] });
  assert.deepEqual(await client.callTool('empty'), { content: [] });
  await close();
});

test('tools: structuredContent is not sent to a 2025-03-26 client (the field did not exist)', async () => {
  const server = newServer();
  server.tool('obj', () => ({ a: 1 }));
  const { client, close } = await createTestPair(server, { protocolVersion: '2025-03-26' });
  assert.equal(client.protocolVersion, '2025-03-26');
  const r = await client.callTool('obj');
  assert.equal(r.structuredContent, undefined);
  assert.deepEqual(JSON.parse(textOf(r)), { a: 1 });
  await close();
});

test('tools: a JSON Schema is compiled once at registration, never per call', async () => {
  const server = newServer();
  let reads = 0;
  const props = { n: { type: 'number' } };
  const schema: Record<string, unknown> = { type: 'object', required: ['n'] };
  Object.defineProperty(schema, 'properties', {
    enumerable: true,
    get() {
      reads++;
      return props;
    },
  });
  server.tool('count', { input: schema }, ({ n }) => String(n));
  const afterRegistration = reads;
  assert.ok(afterRegistration > 0, 'registration compiles the schema');
  const { client, close } = await createTestPair(server);
  for (let i = 0; i < 100; i++) assert.equal(textOf(await client.callTool('count', { n: i })), String(i));
  const bad = await client.callTool('count', { n: 'x' });
  assert.equal(bad.isError, true);
  assert.equal(reads, afterRegistration, 'calls must not re-read (recompile) the schema');
  await close();
});

test('tools: a zod schema is converted to JSON Schema once at registration', async () => {
  const server = newServer();
  const input = z.object({ n: z.number() });
  const std = input['~standard'] as unknown as { jsonSchema: { input: (o: unknown) => unknown } };
  const original = std.jsonSchema.input;
  let conversions = 0;
  const jsonSchema = {
    ...std.jsonSchema,
    input(o: unknown) {
      conversions++;
      return original.call(std.jsonSchema, o);
    },
  };
  Object.defineProperty(input['~standard'], 'jsonSchema', { value: jsonSchema, configurable: true });
  server.tool('z', { input }, ({ n }) => String(n * 2));
  assert.equal(conversions, 1);
  const { client, close } = await createTestPair(server);
  for (let i = 0; i < 20; i++) await client.callTool('z', { n: i });
  await client.listTools();
  await client.listTools();
  assert.equal(conversions, 1);
  await close();
});

test('tools: registering an invalid schema fails at registration', () => {
  const server = newServer();
  assert.throws(() => server.tool('bad', { input: { type: 'string' } }, () => ''), /type "object"/);
  assert.throws(() => server.tool('bad2', { input: z.string() as never }, () => ''), /type "object"/);
  assert.doesNotThrow(() => server.tool('dup2', () => ''));
  assert.throws(() => server.tool('dup2', () => ''), /already registered/);
});

test('tools: pagination with a small page size; listAllTools walks every page', async () => {
  const server = new McpServer({ name: 'p', version: '1', pageSize: 2 });
  for (let i = 0; i < 5; i++) server.tool(`t${i}`, () => String(i));
  const { client, wire, close } = await createTestPair(server);
  const first = await client.listTools();
  assert.deepEqual(
    first.tools.map((t) => t.name),
    ['t0', 't1'],
  );
  assert.equal(typeof first.nextCursor, 'string');
  const second = await client.listTools({ cursor: first.nextCursor });
  assert.deepEqual(
    second.tools.map((t) => t.name),
    ['t2', 't3'],
  );
  wire.clear();
  const all = await client.listAllTools();
  assert.deepEqual(
    all.map((t) => t.name),
    ['t0', 't1', 't2', 't3', 't4'],
  );
  assert.equal(wire.messages('tools/list').length, 3);
  await rejectsWithCode(client.listTools({ cursor: 'garbage!' }), -32602);
  await close();
});

test('tools: update() changes a tool in place, keeping its list position', async () => {
  const server = newServer();
  server.tool('a', () => 'a');
  const b = server.tool('b', { description: 'old' }, () => 'old');
  server.tool('c', () => 'c');
  const { client, close } = await createTestPair(server);
  b.update({ description: 'new', handler: () => 'new' });
  const { tools } = await client.listTools();
  assert.deepEqual(
    tools.map((t) => t.name),
    ['a', 'b', 'c'],
  );
  assert.equal(tools[1].description, 'new');
  assert.equal(textOf(await client.callTool('b')), 'new');
  await close();
});

test('tools: a name outside the 2025-11-25 character set is registered with a warning', async () => {
  const warnings: Error[] = [];
  const server = new McpServer({ name: 'w', version: '1', onerror: (e) => warnings.push(e) });
  server.tool('good_name-1.0', () => '');
  assert.equal(warnings.length, 0);
  server.tool('bad name!', () => 'still works');
  assert.equal(warnings.length, 1);
  assert.match(warnings[0].message, /bad name!/);
  assert.equal(warnings[0].name, 'McpWarning');
  const { client, close } = await createTestPair(server);
  assert.equal(textOf(await client.callTool('bad name!')), 'still works');
  await close();
});

test('tools: with the default onerror, the tool-name warning is one line on stderr, without stack frames', (t) => {
  const warn = t.mock.method(console, 'warn', () => {});
  const error = t.mock.method(console, 'error', () => {});
  new McpServer({ name: 'w', version: '1' }).tool('bad name!', () => '');
  assert.equal(error.mock.callCount(), 0);
  assert.deepEqual(
    warn.mock.calls.map((c) => c.arguments),
    [['[mcpkit] warning: Tool name "bad name!" should be 1-128 characters of A-Z a-z 0-9 _ - . (MCP 2025-11-25); some clients reject it']],
  );
});
