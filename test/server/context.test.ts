import { test } from 'node:test';
import assert from 'node:assert/strict';
import { McpServer } from '../../src/server/mcp-server.js';
import type { RequestContext } from '../../src/server/context.js';
import { createTestPair } from '../../src/testing/index.js';
import type { ProgressInfo } from '../../src/engine/peer.js';
import type { ElicitParams } from '../../src/protocol/params.js';
import { textOf } from './helpers.js';
import { flush } from '../support/index.js';

const newServer = () => new McpServer({ name: 'ctx-test', version: '1.0.0' });

test('ctx.progress reaches callTool onprogress; non-increasing values are dropped', async () => {
  const server = newServer();
  server.tool('long', async (_a, ctx) => {
    await ctx.progress(1, 3, 'one');
    await ctx.progress(1, 3, 'again'); // not increasing: dropped
    await ctx.progress(2, 3);
    await ctx.progress(3, 3, 'done');
    return 'ok';
  });
  const { client, wire, close } = await createTestPair(server);
  const seen: ProgressInfo[] = [];
  const r = await client.callTool('long', {}, { onprogress: (p) => seen.push(p) });
  assert.equal(textOf(r), 'ok');
  assert.deepEqual(seen, [
    { progress: 1, total: 3, message: 'one' },
    { progress: 2, total: 3 },
    { progress: 3, total: 3, message: 'done' },
  ]);
  const call = wire.messages('tools/call')[0];
  assert.ok('id' in call);
  assert.equal((call.params?._meta as { progressToken?: unknown } | undefined)?.progressToken, call.id);
  // without onprogress no token is sent and ctx.progress sends nothing
  wire.clear();
  await client.callTool('long');
  assert.equal(wire.messages('notifications/progress').length, 0);
  await close();
});

test('ctx.elicit: form mode round trip; the client fills schema defaults into accepted content', async () => {
  const server = newServer();
  server.tool('book', async (_a, ctx) => {
    const r = await ctx.elicit({
      message: 'Booking details?',
      requestedSchema: {
        type: 'object',
        properties: {
          seats: { type: 'integer', minimum: 1, default: 2 },
          vegetarian: { type: 'boolean', default: false },
          name: { type: 'string' },
        },
        required: ['name'],
      },
    });
    return { content: [{ type: 'text', text: JSON.stringify(r) }] };
  });
  const asked: ElicitParams[] = [];
  const { client, initialize, close } = await createTestPair(server, {
    elicitation: (params) => {
      asked.push(params);
      return { action: 'accept', content: { name: 'Ann', seats: 4 } };
    },
  });
  assert.ok(initialize);
  const r = await client.callTool('book');
  assert.equal(r.isError, undefined);
  assert.deepEqual(JSON.parse(textOf(r)), { action: 'accept', content: { name: 'Ann', seats: 4, vegetarian: false } });
  assert.equal(asked.length, 1);
  assert.equal(asked[0].message, 'Booking details?');
  // decline passes through untouched
  client.setElicitationHandler(() => ({ action: 'decline' }));
  assert.deepEqual(JSON.parse(textOf(await client.callTool('book'))), { action: 'decline' });
  await close();
});

test('ctx.elicit: a client that declared elicitation as {} (form only) answers form requests', async () => {
  const server = newServer();
  server.tool('ask', async (_a, ctx) => {
    const r = await ctx.elicit({ message: 'ok?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } });
    return r.action;
  });
  const { client, close } = await createTestPair(server, {
    capabilities: { elicitation: {} },
    elicitation: () => ({ action: 'accept', content: { ok: true } }),
  });
  const r = await client.callTool('ask');
  assert.equal(r.isError, undefined, JSON.stringify(r));
  assert.equal(textOf(r), 'accept');
  await close();
});

test('ctx.elicit: URL mode only when the client declared elicitationUrl', async () => {
  const server = newServer();
  server.tool('connect', async (_a, ctx) => {
    const r = await ctx.elicit({ mode: 'url', message: 'Sign in', url: 'https://example.com/auth', elicitationId: 'e1' });
    return r.action;
  });
  const urls: string[] = [];
  const handler = (p: ElicitParams) => {
    if (p.mode === 'url') urls.push(p.url);
    return { action: 'accept' as const };
  };
  const withUrl = await createTestPair(server, { era: 'handshake', elicitation: handler, elicitationUrl: true });
  const r = await withUrl.client.callTool('connect');
  assert.equal(textOf(r), 'accept');
  assert.deepEqual(urls, ['https://example.com/auth']);

  const formOnly = await createTestPair(server, { era: 'handshake', elicitation: handler });
  formOnly.wire.clear();
  const denied = await formOnly.client.callTool('connect');
  assert.equal(denied.isError, true);
  assert.match(textOf(denied), /URL mode/);
  assert.equal(formOnly.wire.messages('elicitation/create').length, 0, 'the server never asked');
  assert.deepEqual(urls, ['https://example.com/auth']);
  await withUrl.close();
  await formOnly.close();
});

test('ctx.sample: round trip with the client sampling handler; tools only with sampling.tools', async () => {
  const server = newServer();
  server.tool('summarize', async ({ withTools }, ctx) => {
    const r = await ctx.sample({
      messages: [{ role: 'user', content: { type: 'text', text: 'Summarize this' } }],
      maxTokens: 50,
      ...(withTools ? { tools: [{ name: 'lookup', inputSchema: { type: 'object' } }] } : {}),
    });
    return `${r.model}: ${(r.content as { text: string }).text}`;
  });
  const requests: unknown[] = [];
  const sampling = (params: unknown) => {
    requests.push(params);
    return { role: 'assistant' as const, content: { type: 'text' as const, text: 'short' }, model: 'm1', stopReason: 'endTurn' };
  };
  const plain = await createTestPair(server, { era: 'handshake', sampling });
  assert.deepEqual(plain.initialize && plain.client.capabilities.sampling, {});
  assert.equal(textOf(await plain.client.callTool('summarize')), 'm1: short');
  assert.equal((requests[0] as { maxTokens: number }).maxTokens, 50);
  const noTools = await plain.client.callTool('summarize', { withTools: true });
  assert.equal(noTools.isError, true);
  assert.match(textOf(noTools), /sampling\.tools/);
  assert.equal(requests.length, 1);

  const withTools = await createTestPair(server, { era: 'handshake', sampling, capabilities: { sampling: { tools: {} } } });
  assert.equal(textOf(await withTools.client.callTool('summarize', { withTools: true })), 'm1: short');
  assert.equal(requests.length, 2);
  assert.deepEqual((requests[1] as { tools: unknown[] }).tools, [{ name: 'lookup', inputSchema: { type: 'object' } }]);
  await plain.close();
  await withTools.close();
});

test('ctx.roots with the client roots; setRoots notifies the server', async () => {
  const server = newServer();
  server.tool('roots', async (_a, ctx) => JSON.stringify(await ctx.roots()));
  const changes: string[] = [];
  server.server.setNotificationHandler('notifications/roots/list_changed', (_p, session) => {
    changes.push(session.clientInfo?.name ?? '?');
  });
  const { client, wire, close } = await createTestPair(server, {
    era: 'handshake',
    name: 'rooted',
    roots: [{ uri: 'file:///home/ann/project', name: 'project' }],
  });
  assert.deepEqual(client.capabilities.roots, { listChanged: true });
  assert.deepEqual(JSON.parse(textOf(await client.callTool('roots'))), [{ uri: 'file:///home/ann/project', name: 'project' }]);
  await client.setRoots([{ uri: 'file:///tmp' }]);
  await flush();
  assert.deepEqual(changes, ['rooted']);
  assert.equal(wire.messages('notifications/roots/list_changed').length, 1);
  assert.deepEqual(JSON.parse(textOf(await client.callTool('roots'))), [{ uri: 'file:///tmp' }]);
  await assert.rejects(client.setRoots([{ uri: 'https://example.com' }]), /file:\/\//);
  await close();
});

test('ctx helpers: a client without the capability gives the tool a clear error', async () => {
  const server = newServer();
  server.tool('elicit', async (_a, ctx) => (await ctx.elicit({ message: 'x', requestedSchema: { type: 'object', properties: {} } })).action);
  server.tool('sample', async (_a, ctx) => (await ctx.sample({ messages: [], maxTokens: 1 })).model);
  server.tool('roots', async (_a, ctx) => String((await ctx.roots()).length));
  const { client, wire, close } = await createTestPair(server, { era: 'handshake' });
  assert.deepEqual(client.capabilities, {});
  wire.clear();
  for (const [name, cap] of [
    ['elicit', 'elicitation'],
    ['sample', 'sampling'],
    ['roots', 'roots'],
  ] as const) {
    const r = await client.callTool(name);
    assert.equal(r.isError, true, name);
    assert.match(textOf(r), new RegExp(`did not declare the "${cap}" capability`), name);
  }
  // nothing was ever sent to the client
  assert.deepEqual(
    wire.methods().filter((m) => m.startsWith('←') && !m.startsWith('← response')),
    [],
  );
  await close();
});

test('ctx.meta, clientInfo, protocolVersion, clientCapabilities and authInfo', async () => {
  const server = newServer();
  let seen: RequestContext | undefined;
  let snapshot: Record<string, unknown> = {};
  server.tool('who', (_a, ctx) => {
    seen = ctx;
    snapshot = {
      meta: ctx.meta,
      clientInfo: ctx.clientInfo,
      protocolVersion: ctx.protocolVersion,
      authInfo: ctx.authInfo,
      method: ctx.method,
      caps: ctx.clientCapabilities,
      hasSession: ctx.session !== undefined,
      aborted: ctx.signal.aborted,
    };
    return 'ok';
  });
  const { client, close } = await createTestPair(server, {
    era: 'handshake',
    name: 'agent',
    version: '9.9.9',
    title: 'The Agent',
    frameInfo: { authInfo: { principal: 'alice', scopes: ['read'] } },
  });
  await client.request('tools/call', { name: 'who', arguments: {}, _meta: { traceparent: 't-1', 'example.com/k': 2 } });
  assert.ok(seen);
  assert.deepEqual(snapshot, {
    meta: { traceparent: 't-1', 'example.com/k': 2 },
    clientInfo: { name: 'agent', version: '9.9.9', title: 'The Agent' },
    protocolVersion: '2025-11-25',
    authInfo: { principal: 'alice', scopes: ['read'] },
    method: 'tools/call',
    caps: {},
    hasSession: true,
    aborted: false,
  });
  await close();
});

test('ctx: an older protocol version is visible and gates features', async () => {
  const server = newServer();
  server.tool('v', async (_a, ctx) => {
    await ctx.elicit({ message: 'x', requestedSchema: { type: 'object', properties: {} } });
    return ctx.protocolVersion;
  });
  const { client, close } = await createTestPair(server, {
    protocolVersion: '2025-03-26',
    elicitation: () => ({ action: 'accept' }),
  });
  const r = await client.callTool('v');
  assert.equal(r.isError, true);
  assert.match(textOf(r), /2025-03-26/);
  await close();
});

test('ctx.signal aborts when the client cancels the call', async () => {
  const server = newServer();
  let aborted: unknown;
  let started!: () => void;
  const running = new Promise<void>((r) => (started = r));
  server.tool('slow', async (_a, ctx) => {
    started();
    await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
    aborted = ctx.signal.reason;
    return 'late';
  });
  const { client, wire, close } = await createTestPair(server);
  const ac = new AbortController();
  const call = client.callTool('slow', {}, { signal: ac.signal });
  await running;
  ac.abort('user gave up');
  await assert.rejects(call, /aborted/);
  await flush();
  assert.ok(aborted instanceof Error);
  assert.equal(wire.messages('notifications/cancelled').length, 1);
  // the cancelled request gets no response
  assert.equal(wire.entries.filter((e) => e.direction === 'server→client' && 'id' in e.message && e.message.id === 1).length, 0);
  await close();
});

test('ctx.elicit: a form schema that is not flat primitives fails in the server, before sending', async () => {
  const server = newServer();
  server.tool(
    'nested',
    async (_a, ctx) =>
      (
        await ctx.elicit({
          message: 'x',
          requestedSchema: { type: 'object', properties: { address: { type: 'object', properties: {} } } } as never,
        })
      ).action,
  );
  let asked = 0;
  const { client, wire, close } = await createTestPair(server, { elicitation: () => (asked++, { action: 'accept' }) });
  const r = await client.callTool('nested');
  assert.equal(r.isError, true);
  assert.match(textOf(r), /Cannot elicit: Property "address"/);
  assert.equal(wire.messages('elicitation/create').length, 0);
  assert.equal(asked, 0);
  await close();
});
