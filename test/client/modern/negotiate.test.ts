// Era negotiation over a message transport (in memory): the server/discover probe, the
// fallback to initialize, pinned eras and versions, the per-request envelope on the wire.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { McpClient } from '../../../src/client/client.js';
import { LocalError, McpError } from '../../../src/jsonrpc/errors.js';
import { McpServer } from '../../../src/server/mcp-server.js';
import { createLinkedPair } from '../../../src/transports/memory/index.js';
import { discoverResult, initializeResult, M, memoryClient, scriptedClient, text, V } from './helpers.js';
import { flush, ManualClock, waitFor, within } from '../../support/index.js';

function ourServer(options: Partial<ConstructorParameters<typeof McpServer>[0]> = {}): McpServer {
  const s = new McpServer({ name: 'ours', version: '3.1.0', instructions: 'be brief', onerror: () => {}, ...options });
  s.tool('echo', { input: { text: z.string() } }, ({ text }) => text);
  s.tool('log', async (_a, ctx) => {
    await ctx.log('info', 'an info line');
    await ctx.log('error', 'an error line');
    return 'logged';
  });
  s.resource('readme', 'file:///readme', () => 'hello');
  return s;
}

const CAPS = { roots: { listChanged: true }, sampling: {}, elicitation: { form: {} } };

test('auto: our dual-era server is spoken to in 2026-07-28, with no initialize at all', async () => {
  const { client, wire } = await memoryClient(ourServer(), {
    roots: [],
    sampling: () => ({ role: 'assistant', content: { type: 'text', text: '' }, model: 'm' }),
    elicitation: () => ({ action: 'decline' }),
  });
  assert.equal(client.era, 'modern');
  assert.equal(client.protocolVersion, V);
  assert.deepEqual(client.serverInfo, { name: 'ours', version: '3.1.0' });
  assert.equal(client.instructions, 'be brief');
  assert.ok(client.serverCapabilities?.tools);
  assert.equal(text(await client.callTool('echo', { text: 'hi' })), 'hi');
  assert.deepEqual(wire.methods(), ['server/discover', 'tools/call']);
  const envelope = { [M.protocolVersion]: V, [M.clientCapabilities]: CAPS, [M.clientInfo]: { name: 'modern-test', version: '1.0.0' } };
  // Every request carries the whole envelope: the same capabilities a handshake would declare.
  assert.deepEqual(wire.sent[0].params, { _meta: envelope });
  assert.deepEqual(wire.sent[1].params, { name: 'echo', arguments: { text: 'hi' }, _meta: envelope });
  await client.close();
});

test('auto: a server without the modern era gets initialize after the probe fails', async () => {
  const { client, wire } = await memoryClient(ourServer({ modern: false }));
  assert.equal(client.era, 'handshake');
  assert.equal(client.protocolVersion, '2025-11-25');
  assert.deepEqual(client.serverInfo, { name: 'ours', version: '3.1.0' });
  assert.deepEqual(wire.methods(), ['server/discover', 'initialize', 'notifications/initialized']);
  wire.clear();
  assert.equal(text(await client.callTool('echo', { text: 'old' })), 'old');
  // Handshake-era requests carry no envelope.
  assert.deepEqual(wire.sent[0].params, { name: 'echo', arguments: { text: 'old' } });
  assert.deepEqual(await client.ping(), {});
  await client.close();
});

for (const [label, answer] of [
  ['-32601', { error: { code: -32601, message: 'Method not found' } }],
  ['-32602', { error: { code: -32602, message: 'Invalid params' } }],
  ['-32000', { error: { code: -32000, message: 'Server not initialized' } }],
  ['a result that is not a DiscoverResult', { result: {} }],
] as const) {
  test(`auto: a legacy answer to the probe (${label}) falls back to initialize`, async () => {
    const { client, wire, connecting } = await scriptedClient((m) =>
      m.method === 'server/discover' ? answer : m.method === 'initialize' ? { result: initializeResult() } : { result: { tools: [] } },
    );
    await connecting;
    assert.equal(client.era, 'handshake');
    assert.equal(client.protocolVersion, '2025-06-18');
    assert.deepEqual(wire.methods(), ['server/discover', 'initialize', 'notifications/initialized']);
    await client.close();
  });
}

test('auto: a server that never answers the probe is initialized after probeTimeoutMs, without a cancellation', async () => {
  const clock = new ManualClock();
  const { client, wire, connecting } = await scriptedClient((m) => (m.method === 'initialize' ? { result: initializeResult() } : undefined), {
    probeTimeoutMs: 50,
    clock,
  });
  await waitFor(() => wire.methods().length === 1, 'the probe');
  clock.advance(49);
  await flush();
  assert.deepEqual(wire.methods(), ['server/discover'], 'still waiting for the probe before probeTimeoutMs');
  clock.advance(1);
  await within(connecting, 'the fallback to initialize');
  assert.equal(client.era, 'handshake');
  // Nothing but initialize may follow: a legacy server must not see notifications/cancelled first.
  assert.deepEqual(wire.methods(), ['server/discover', 'initialize', 'notifications/initialized']);
  await client.close();
});

test('auto: a server slow to start answers the probe after probeTimeoutMs, before initialize: it is spoken to in 2026-07-28', async () => {
  // A stdio server that was only slow to start (a loaded machine, a cold npx) reads its input in
  // order: server/discover first. Its late answer, arriving before initialize's, decides.
  const clock = new ManualClock();
  const held: Array<() => void> = [];
  const { client, wire, connecting } = await scriptedClient(
    (m, push) => {
      if (m.method === 'server/discover') {
        held.push(() => push({ id: m.id, result: discoverResult() }));
        return undefined;
      }
      if (m.method === 'initialize') {
        // Answered only after the held probe answer, as a server reading in order would.
        for (const release of held.splice(0)) release();
        held.push(() => push({ id: m.id, result: initializeResult() }));
        return undefined;
      }
      return m.method === 'tools/list' ? { result: { resultType: 'complete', tools: [] } } : undefined;
    },
    { probeTimeoutMs: 50, clock },
  );
  await waitFor(() => wire.methods().length === 1, 'the probe');
  clock.advance(50);
  await within(connecting, 'the late probe answer to win');
  assert.equal(client.era, 'modern');
  assert.ok(!wire.methods().includes('notifications/initialized'), `the abandoned handshake is not completed: ${wire.methods().join()}`);
  for (const release of held.splice(0)) release();
  await flush();
  assert.ok(!wire.methods().includes('notifications/initialized'), 'nor when its answer arrives later');
  await client.close();
});

for (const code of [-32020, -32021]) {
  test(`auto: a recognised modern error (${code}) means modern, with no fallback to initialize`, async () => {
    const { client, wire, connecting } = await scriptedClient(() => ({
      error: { code, message: 'modern says no', data: { requiredCapabilities: { sampling: {} } } },
    }));
    const err = await connecting.catch((e: unknown) => e);
    assert.ok(err instanceof McpError && err.code === code, String(err));
    assert.ok(!wire.methods().includes('initialize'), wire.methods().join());
    assert.equal(client.connected, false);
  });
}

test('auto: -32022 to the probe → modern, retried with a version from data.supported', async () => {
  let calls = 0;
  const { client, wire, connecting } = await scriptedClient(
    (m) => {
      calls++;
      const v = m.params?._meta?.[M.protocolVersion];
      if (v !== V) return { error: { code: -32022, message: 'Unsupported protocol version', data: { supported: ['2031-01-01', V], requested: v } } };
      return { result: m.method === 'server/discover' ? discoverResult() : { tools: [], resultType: 'complete' } };
    },
    { protocolVersion: '2030-01-01' },
  );
  await connecting;
  assert.equal(client.era, 'modern');
  assert.equal(client.protocolVersion, V);
  assert.deepEqual(
    wire.sent.map((m) => [m.method, m.params?._meta?.[M.protocolVersion]]),
    [
      ['server/discover', '2030-01-01'],
      ['server/discover', V],
    ],
  );
  assert.deepEqual(client.serverInfo, { name: 'scripted', version: '9' });
  await client.listTools();
  assert.equal(wire.sent.at(-1)!.params?._meta?.[M.protocolVersion], V);
  assert.equal(calls, 3);
  await client.close();
});

test('pinned modern with a bad version: -32022 from our server is retried once with a supported one', async () => {
  const { client, wire } = await memoryClient(ourServer(), { era: 'modern', protocolVersion: '2099-01-01' });
  assert.equal(client.protocolVersion, V);
  assert.deepEqual(
    wire.sent.map((m) => [m.method, m.params?._meta?.[M.protocolVersion]]),
    [
      ['server/discover', '2099-01-01'],
      ['server/discover', V],
    ],
  );
  assert.equal(wire.received[0].error?.code, -32022);
  assert.deepEqual(wire.received[0].error?.data?.supported, [V]);
  assert.equal(text(await client.callTool('echo', { text: 'x' })), 'x');
  await client.close();
});

test('pinned eras: modern skips the probe; handshake skips it too; a pinned handshake version implies handshake', async () => {
  const modern = await memoryClient(ourServer(), { era: 'modern' });
  assert.equal(modern.client.era, 'modern');
  assert.deepEqual(modern.wire.methods(), ['server/discover']);
  await modern.client.close();

  const handshake = await memoryClient(ourServer(), { era: 'handshake' });
  assert.equal(handshake.client.era, 'handshake');
  assert.deepEqual(handshake.wire.methods(), ['initialize', 'notifications/initialized']);
  await handshake.client.close();

  const pinned = await memoryClient(ourServer(), { protocolVersion: '2025-06-18' });
  assert.equal(pinned.client.era, 'handshake');
  assert.equal(pinned.client.protocolVersion, '2025-06-18');
  assert.deepEqual(pinned.wire.methods(), ['initialize', 'notifications/initialized']);
  await pinned.client.close();

  // Contradictory pins are refused before anything is sent.
  const client = new McpClient({ name: 'c', version: '1', era: 'modern', protocolVersion: '2025-06-18' });
  const [c] = createLinkedPair();
  await assert.rejects(client.connect(c), (e: unknown) => e instanceof LocalError && /handshake era/.test(e.message));
});

test("pinned modern against a handshake-only server fails with the server's answer, never initializes", async () => {
  const server = ourServer({ modern: false });
  const [c, s] = createLinkedPair();
  await server.connect(s);
  const client = new McpClient({ name: 'c', version: '1', era: 'modern' });
  await assert.rejects(client.connect(c), (e: unknown) => e instanceof McpError);
  assert.equal(client.connected, false);
  assert.equal(client.era, undefined);
});

test('modern: setLoggingLevel is local and travels in each request; removed methods are refused locally', async () => {
  const { client, wire } = await memoryClient(ourServer());
  const logs: unknown[] = [];
  client.on('notifications/message', (p) => logs.push(p.data));
  await client.callTool('log');
  await flush(); // notifications precede the response on this in-memory connection; listeners have run
  assert.deepEqual(logs, [], 'without a logLevel the server must not log');
  assert.deepEqual(await client.setLoggingLevel('error'), {});
  assert.ok(!wire.methods().includes('logging/setLevel'));
  await client.callTool('log');
  await waitFor(() => logs.length > 0, 'the log line');
  assert.deepEqual(logs, ['an error line']);
  assert.equal(wire.sent.at(-1)!.params?._meta?.[M.logLevel], 'error');
  await assert.rejects(client.setLoggingLevel('loud' as never), TypeError);
  for (const call of [client.ping(), client.subscribeResource('file:///readme'), client.unsubscribeResource('file:///readme')]) {
    await assert.rejects(call, (e: unknown) => e instanceof LocalError && e.kind === 'capability' && /2026-07-28/.test(e.message));
  }
  await client.close();
});

test('modern: a result with a resultType this client does not know is invalid', async () => {
  const { client, connecting } = await scriptedClient((m) => {
    if (m.method === 'server/discover') return { result: discoverResult({ tools: {}, prompts: {} }) };
    if (m.method === 'tools/call') return { result: { resultType: 'task', task: { taskId: 't' } } };
    if (m.method === 'prompts/list') return { result: { resultType: 'input_required', inputRequests: {} } };
    return { result: { tools: [], resultType: 'complete' } };
  });
  await connecting;
  await assert.rejects(client.callTool('x'), (e: unknown) => e instanceof LocalError && e.kind === 'protocol' && /"task"/.test(e.message));
  // input_required exists only for tools/call, resources/read and prompts/get.
  await assert.rejects(client.listPrompts(), (e: unknown) => e instanceof LocalError && /input_required/.test(e.message));
  // A missing resultType (a legacy-style result) is complete.
  assert.deepEqual((await client.listTools()).tools, []);
  await client.close();
});

test('modern: strict capability checks use what server/discover declared', async () => {
  const { client, wire } = await memoryClient(ourServer());
  await assert.rejects(client.listPrompts(), (e: unknown) => e instanceof LocalError && e.kind === 'capability');
  assert.ok(!wire.methods().includes('prompts/list'));
  await client.close();
});

test('modern: a request from the server is never answered (clients send no responses in 2026-07-28)', async () => {
  const errors: string[] = [];
  const { client, wire, connecting } = await scriptedClient(
    (m, push) => {
      if (m.method === 'server/discover') return { result: discoverResult() };
      push({ id: 'srv-1', method: 'roots/list' });
      return { result: { tools: [], resultType: 'complete' } };
    },
    { roots: [], onerror: (e) => errors.push(e.message) },
  );
  await connecting;
  await client.listTools();
  // The client reports the request it ignores (and sends nothing) when it handles it.
  await waitFor(() => errors.some((e) => /roots\/list/.test(e)), 'the ignored roots/list to be reported');
  assert.ok(wire.received.some((m) => m.method === 'roots/list'));
  assert.ok(!wire.sent.some((m) => m.id === 'srv-1'), 'no response went out');
  assert.ok(
    errors.some((e) => /roots\/list/.test(e)),
    errors.join(),
  );
  await client.close();
});
