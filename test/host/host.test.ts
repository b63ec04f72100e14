// The Host as a whole: a server that fails to start is reported while the others work, `_meta`
// per call reaches the server, a pool made elsewhere and a ModelProvider object are used as
// given, and close() ends what the Host owns.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { Host } from '../../src/host/host.js';
import type { HostEvent } from '../../src/host/loop/types.js';
import { ServerPool } from '../../src/pool/pool.js';
import { OpenAIProvider } from '../../src/host/providers/openai.js';
import { serve } from '../../src/serving/node.js';
import { McpServer } from '../../src/server/mcp-server.js';
import { ManualClock, startScriptedOpenAI, textTurn, toolCallsTurn } from '../support/index.js';

function whoami(): McpServer {
  const mcp = new McpServer({ name: 'who', version: '1.0.0' });
  mcp.tool('whoami', { input: { loud: z.boolean().optional() } }, (_args, ctx) => JSON.stringify(ctx.meta ?? {}));
  return mcp;
}

test('a server that cannot start is reported (and retried) while the others work; meta(call) reaches the server as _meta', async () => {
  const running = await serve(whoami(), { port: 0 });
  const llm = await startScriptedOpenAI([
    (req) => {
      assert.deepEqual(
        req.body.tools.map((t: any) => t.function.name),
        ['whoami'],
      );
      return toolCallsTurn({ name: 'whoami', arguments: { loud: true } });
    },
    (req) => {
      const meta = JSON.parse(req.body.messages.at(-1).content);
      assert.equal(meta['example.com/call'], 'who/whoami call_0_0 {"loud":true}');
      return textTurn('you are you');
    },
  ]);
  const events: HostEvent[] = [];
  const host = new Host({
    servers: { who: { url: running.url }, broken: { command: process.execPath, args: ['-e', 'process.exit(3)'] } },
    model: { provider: 'openai', model: 'scripted', baseUrl: llm.baseUrl },
    meta: (call) => ({ 'example.com/call': `${call.server}/${call.tool} ${call.id} ${JSON.stringify(call.arguments)}` }),
    onEvent: (e) => events.push(e),
  });
  try {
    await host.start();
    const failed = events.flatMap((e) => (e.type === 'server' && e.event.type === 'failed' ? [e.event] : []));
    assert.equal(failed[0]?.server, 'broken');
    assert.ok(failed[0]?.retryInMs !== undefined, 'it is retried');
    assert.equal(host.pool.server('who')?.state, 'connected');
    assert.equal((await host.conversation().send('who am I?')).text, 'you are you');
    llm.assertNoErrors();
  } finally {
    await host.close();
    await running.close();
    await llm.close();
  }
  assert.equal(
    host.pool.servers().every((s) => s.state !== 'connected'),
    true,
    'close() closed the pool',
  );
});

test('a pool made elsewhere and a ModelProvider object are used as given; the pool reports through the Host', async () => {
  const running = await serve(whoami(), { port: 0 });
  const llm = await startScriptedOpenAI([textTurn('hello')]);
  const pool = new ServerPool({ servers: { who: { url: running.url } } });
  const model = new OpenAIProvider({ baseUrl: llm.baseUrl, model: 'mine' });
  const events: HostEvent[] = [];
  const host = new Host({ pool, model, system: 'Be nice.', temperature: 0.1, maxTokens: 99, onEvent: (e) => events.push(e) });
  try {
    assert.equal(host.pool, pool);
    assert.equal(host.model, model);
    await host.start();
    assert.ok(events.some((e) => e.type === 'server' && e.event.type === 'connected' && e.event.server === 'who'));
    const chat = host.conversation({ system: 'Be brief.' });
    assert.equal((await chat.send('hi')).text, 'hello');
    assert.deepEqual(llm.requests[0]?.body.messages[0], { role: 'system', content: 'Be brief.' });
    assert.equal(llm.requests[0]?.body.model, 'mine');
    assert.equal(llm.requests[0]?.body.temperature, 0.1);
    assert.equal(llm.requests[0]?.body.max_tokens, 99);
  } finally {
    await host.close();
    await running.close();
    await llm.close();
  }
  assert.equal(pool.server('who')?.state, 'closed');
  assert.throws(() => host.conversation(), /^Error: This host is closed/);
});

test('a command that cannot be started (not found) is reported once and not retried: no retry can make it start', async () => {
  const clock = new ManualClock();
  const events: HostEvent[] = [];
  const host = new Host({
    servers: { ghost: { command: 'mcpkit-test-no-such-command' }, who: { command: process.execPath, args: ['-e', 'process.exit(3)'] } },
    model: { provider: 'openai', model: 'scripted', baseUrl: 'http://127.0.0.1:9/v1' },
    clock,
    retry: { initialDelayMs: 1000 },
    onEvent: (e) => events.push(e),
  });
  try {
    await host.start();
    const failed = events.flatMap((e) => (e.type === 'server' && e.event.type === 'failed' ? [e.event] : []));
    const ghost = failed.find((f) => f.server === 'ghost');
    assert.ok(ghost, 'the failure is reported');
    assert.match(ghost.error.message, /Cannot start MCP server "mcpkit-test-no-such-command": command not found/);
    assert.equal(ghost.retryInMs, undefined, 'no retry is scheduled');
    assert.equal(host.pool.server('ghost')?.retryInMs, undefined);
    // A server that starts and exits may come up on a retry (a file it needs appears): retried.
    assert.equal(failed.find((f) => f.server === 'who')?.retryInMs, 1000);
    clock.advance(60_000);
    assert.equal(events.filter((e) => e.type === 'server' && e.event.type === 'connecting' && e.event.server === 'ghost').length, 1, 'one attempt only');
  } finally {
    await host.close();
  }
});

test('pool options under `pool` build the Host its own pool; the deprecated top-level ones still work, and `pool` wins', async () => {
  const running = await serve(whoami(), { port: 0 });
  const llm = await startScriptedOpenAI([]);
  const events: HostEvent[] = [];
  const host = new Host({
    pool: { servers: { who: { url: running.url } } },
    // The deprecated place: `pool` says otherwise, and wins.
    servers: { ignored: { command: process.execPath, args: ['-e', 'process.exit(3)'] } },
    model: { provider: 'openai', model: 'scripted', baseUrl: llm.baseUrl },
    onEvent: (e) => events.push(e),
  });
  try {
    await host.start();
    assert.deepEqual(
      host.pool.servers().map((s) => [s.name, s.state]),
      [['who', 'connected']],
    );
    assert.ok(events.some((e) => e.type === 'server' && e.event.type === 'connected' && e.event.server === 'who'));
    assert.deepEqual(
      host.tools().map((t) => t.name),
      ['whoami'],
    );
  } finally {
    await host.close();
    await running.close();
    await llm.close();
  }
});

test('the deprecated top-level pool options alone still build the pool', async () => {
  const running = await serve(whoami(), { port: 0 });
  const llm = await startScriptedOpenAI([]);
  const host = new Host({ servers: { who: { url: running.url } }, model: { provider: 'openai', model: 'scripted', baseUrl: llm.baseUrl } });
  try {
    await host.start();
    assert.equal(host.pool.server('who')?.state, 'connected');
  } finally {
    await host.close();
    await running.close();
    await llm.close();
  }
});
