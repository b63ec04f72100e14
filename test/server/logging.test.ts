import { test } from 'node:test';
import assert from 'node:assert/strict';
import { McpServer } from '../../src/server/mcp-server.js';
import { createTestPair } from '../../src/testing/index.js';
import { rejectsWithCode } from './helpers.js';
import { flush } from '../support/index.js';

test('logging: ctx.log sends notifications/message before the response; debug only once the client asks for it', async () => {
  const server = new McpServer({ name: 'log', version: '1' });
  server.tool('work', async (_a, ctx) => {
    await ctx.log('info', { step: 1 }, 'worker');
    await ctx.log('debug', 'details');
    return 'done';
  });
  const { client, initialize, session, wire, close } = await createTestPair(server, { era: 'handshake' });
  assert.deepEqual(initialize.serverCapabilities.logging, {});
  const got: unknown[] = [];
  client.on('notifications/message', (p) => got.push(p));
  wire.clear();
  await client.callTool('work');
  // No logging/setLevel yet: info and above (a client that never chose a level is not flooded).
  assert.deepEqual(got, [{ level: 'info', data: { step: 1 }, logger: 'worker' }]);
  assert.deepEqual(wire.methods(), ['→ tools/call', '← notifications/message', '← response 1']);
  assert.equal(session.logLevel, undefined, 'no level was set');
  assert.equal(session.wantsLog('debug'), false);
  assert.equal(session.wantsLog('info'), true);

  await client.setLoggingLevel('debug');
  got.length = 0;
  await client.callTool('work');
  assert.deepEqual(got, [
    { level: 'info', data: { step: 1 }, logger: 'worker' },
    { level: 'debug', data: 'details' },
  ]);
  await close();
});

test('logging: server.log broadcasts to every session; setLoggingLevel filters per session', async () => {
  const server = new McpServer({ name: 'log', version: '1' });
  server.tool('noisy', async (_a, ctx) => {
    for (const level of ['debug', 'info', 'notice', 'warning', 'error', 'critical'] as const) await ctx.log(level, level);
    return 'ok';
  });
  const quiet = await createTestPair(server, { era: 'handshake' });
  const loud = await createTestPair(server, { era: 'handshake' });
  const quietGot: string[] = [];
  const loudGot: string[] = [];
  quiet.client.on('notifications/message', (p) => quietGot.push(`${p.level}:${String(p.data)}`));
  loud.client.on('notifications/message', (p) => loudGot.push(`${p.level}:${String(p.data)}`));

  assert.deepEqual(await quiet.client.setLoggingLevel('warning'), {});
  server.log('info', 'i');
  server.log('warning', 'w', 'app');
  server.log('emergency', 'e');
  await flush();
  assert.deepEqual(quietGot, ['warning:w', 'emergency:e']);
  assert.deepEqual(loudGot, ['info:i', 'warning:w', 'emergency:e']);
  const warn = quiet.wire.messages('notifications/message')[0] as { params: unknown };
  assert.deepEqual(warn.params, { level: 'warning', data: 'w', logger: 'app' });

  quietGot.length = 0;
  await quiet.client.callTool('noisy');
  assert.deepEqual(quietGot, ['warning:warning', 'error:error', 'critical:critical']);

  await quiet.client.setLoggingLevel('debug');
  quietGot.length = 0;
  server.log('debug', 'd');
  await flush();
  assert.deepEqual(quietGot, ['debug:d']);

  await rejectsWithCode(quiet.client.request('logging/setLevel', { level: 'loud' } as never), -32602);
  await quiet.close();
  await loud.close();
});
