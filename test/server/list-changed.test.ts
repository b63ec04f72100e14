import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { McpServer } from '../../src/server/mcp-server.js';
import { createTestPair, type TestPair } from '../../src/testing/index.js';
import { rejectsWithCode } from './helpers.js';
import { flush } from '../support/index.js';

type Kind = 'tools' | 'resources' | 'prompts';

function counter(pair: TestPair): Record<Kind, number> {
  const counts: Record<Kind, number> = { tools: 0, resources: 0, prompts: 0 };
  for (const kind of ['tools', 'resources', 'prompts'] as const) {
    pair.client.on(`notifications/${kind}/list_changed`, () => counts[kind]++);
  }
  return counts;
}

async function setup(): Promise<{ server: McpServer; a: TestPair; b: TestPair }> {
  const server = new McpServer({ name: 'lc', version: '1' });
  server.tool('t0', () => 't0');
  server.resource('r0', 'file:///r0', () => 'r0');
  server.prompt('p0', () => 'p0');
  // Sessions receive list changes (a 2026-07-28 client would listen instead).
  const a = await createTestPair(server, { era: 'handshake' });
  const b = await createTestPair(server, { era: 'handshake' });
  await flush();
  return { server, a, b };
}

test('list_changed: capabilities declare listChanged for every kind', async () => {
  const { a, b } = await setup();
  const caps = a.initialize.serverCapabilities;
  assert.equal(caps.tools?.listChanged, true);
  assert.equal(caps.resources?.listChanged, true);
  assert.equal(caps.prompts?.listChanged, true);
  await a.close();
  await b.close();
});

test('list_changed: tool add/disable/enable/remove, one coalesced notification per tick, to every client', async () => {
  const { server, a, b } = await setup();
  const ca = counter(a);
  const cb = counter(b);

  // several changes in one tick → exactly one notification
  const t1 = server.tool('t1', () => 't1');
  const t2 = server.tool('t2', () => 't2');
  t2.disable();
  await flush();
  assert.deepEqual(ca, { tools: 1, resources: 0, prompts: 0 });
  assert.deepEqual(cb, { tools: 1, resources: 0, prompts: 0 });
  assert.deepEqual(
    (await a.client.listTools()).tools.map((t) => t.name),
    ['t0', 't1'],
  );

  // disabled: gone from the list and not callable
  assert.equal(t2.enabled, false);
  await rejectsWithCode(a.client.callTool('t2'), -32602);

  t2.enable();
  await flush();
  assert.equal(ca.tools, 2);
  assert.deepEqual(
    (await a.client.listTools()).tools.map((t) => t.name),
    ['t0', 't1', 't2'],
  );
  assert.equal((await a.client.callTool('t2')).isError, undefined);

  t1.remove();
  await flush();
  assert.equal(ca.tools, 3);
  assert.deepEqual(
    (await b.client.listTools()).tools.map((t) => t.name),
    ['t0', 't2'],
  );
  await rejectsWithCode(b.client.callTool('t1'), -32602);

  // no-op toggles do not notify
  t2.enable();
  t1.remove();
  await flush();
  assert.equal(ca.tools, 3);
  assert.equal(cb.tools, 3);
  // the name is free again after remove
  server.tool('t1', () => 'again');
  await flush();
  assert.equal(ca.tools, 4);
  await a.close();
  await b.close();
});

test('list_changed: static and template resources changed in the same tick give one notification', async () => {
  const { server, a, b } = await setup();
  const ca = counter(a);
  const r1 = server.resource('r1', 'file:///r1', () => 'r1');
  const tpl = server.resourceTemplate('tpl', 'file:///t/{x}', {}, () => 't');
  await flush();
  assert.deepEqual(ca, { tools: 0, resources: 1, prompts: 0 });
  r1.disable();
  tpl.disable();
  await flush();
  assert.equal(ca.resources, 2);
  assert.deepEqual(
    (await a.client.listResources()).resources.map((r) => r.uri),
    ['file:///r0'],
  );
  assert.deepEqual((await a.client.listResourceTemplates()).resourceTemplates, []);
  await rejectsWithCode(a.client.readResource('file:///r1'), -32002);
  await rejectsWithCode(a.client.readResource('file:///t/1'), -32002);
  tpl.enable();
  await flush();
  assert.equal(ca.resources, 3);
  assert.equal(((await a.client.readResource('file:///t/1')).contents[0] as { text: string }).text, 't');
  r1.remove();
  await flush();
  assert.equal(ca.resources, 4);
  await a.close();
  await b.close();
});

test('list_changed: prompts, and changes of different kinds notify separately', async () => {
  const { server, a, b } = await setup();
  const ca = counter(a);
  const p1 = server.prompt('p1', () => 'p1');
  server.tool('tx', () => 'x');
  await flush();
  assert.deepEqual(ca, { tools: 1, resources: 0, prompts: 1 });
  p1.disable();
  await flush();
  assert.equal(ca.prompts, 2);
  await rejectsWithCode(a.client.getPrompt('p1'), -32602);
  assert.deepEqual(
    (await a.client.listPrompts()).prompts.map((p) => p.name),
    ['p0'],
  );
  p1.enable();
  await flush();
  assert.equal(ca.prompts, 3);
  p1.remove();
  await flush();
  assert.equal(ca.prompts, 4);
  await a.close();
  await b.close();
});

test('list_changed: the listener unsubscribe stops delivery; closed sessions are skipped', async () => {
  const { server, a, b } = await setup();
  let n = 0;
  const off = a.client.on('notifications/tools/list_changed', () => n++);
  server.tool('x1', () => '');
  await flush();
  assert.equal(n, 1);
  off();
  server.tool('x2', () => '');
  await flush();
  assert.equal(n, 1);
  await b.close();
  const seen: string[] = [];
  a.client.on('notifications/tools/list_changed', () => seen.push('a'));
  server.tool('x3', () => '');
  await flush();
  assert.deepEqual(seen, ['a']);
  await a.close();
});

test('update(): resources, templates and prompts are re-advertised and re-dispatched', async () => {
  const { server, a, b } = await setup();
  const ca = counter(a);
  const r1 = server.resource('r1', 'file:///r1', { description: 'old' }, () => 'old');
  const tpl = server.resourceTemplate('tpl', 'file:///t/{x}', { description: 'old' }, (_u, v) => `old ${String(v.x)}`);
  const viaResource = server.resource('logs', 'log://{day}', () => 'old log');
  const p1 = server.prompt('p1', { description: 'old' }, () => 'old');
  assert.equal(r1.name, 'r1', 'a static resource handle is named by its name, not its URI');
  assert.equal(viaResource.name, 'logs');
  await flush();
  const before = { ...ca };

  r1.update({ description: 'new', mimeType: 'text/plain', handler: () => 'new' });
  tpl.update({ description: 'new', handler: (_u, v) => `new ${String(v.x)}` });
  viaResource.update({ title: 'Logs', handler: (uri) => `new log ${uri}` });
  p1.update({ description: 'new', args: { q: z.string() }, handler: ({ q }) => `new ${q}` });
  await flush();
  assert.equal(ca.resources, before.resources + 1, 'one resources/list_changed for the tick');
  assert.equal(ca.prompts, before.prompts + 1);

  const { resources } = await a.client.listResources();
  assert.deepEqual(
    resources.find((r) => r.uri === 'file:///r1'),
    { uri: 'file:///r1', name: 'r1', description: 'new', mimeType: 'text/plain' },
  );
  assert.deepEqual(await a.client.readResource('file:///r1'), { contents: [{ uri: 'file:///r1', text: 'new', mimeType: 'text/plain' }] });
  const { resourceTemplates } = await a.client.listResourceTemplates();
  assert.deepEqual(resourceTemplates, [
    { uriTemplate: 'file:///t/{x}', name: 'tpl', description: 'new' },
    { uriTemplate: 'log://{day}', name: 'logs', title: 'Logs' },
  ]);
  assert.equal(((await a.client.readResource('file:///t/9')).contents[0] as { text: string }).text, 'new 9');
  assert.equal(((await a.client.readResource('log://mon')).contents[0] as { text: string }).text, 'new log log://mon');

  const prompt = (await a.client.listPrompts()).prompts.find((p) => p.name === 'p1');
  assert.deepEqual(prompt, { name: 'p1', description: 'new', arguments: [{ name: 'q', required: true }] });
  await rejectsWithCode(a.client.getPrompt('p1'), -32602, /q/);
  assert.equal(((await a.client.getPrompt('p1', { q: 'z' })).messages[0].content as { text: string }).text, 'new z');
  await a.close();
  await b.close();
});

test('update(): adding a completer later declares the completions capability', async () => {
  const server = new McpServer({ name: 'lc', version: '1' });
  const p = server.prompt('p', { args: { a: z.string() } }, () => 'x');
  p.update({ complete: { a: () => ['one'] } });
  const { client, initialize, close } = await createTestPair(server);
  assert.deepEqual(initialize.serverCapabilities.completions, {});
  const r = await client.complete({ ref: { type: 'ref/prompt', name: 'p' }, argument: { name: 'a', value: '' } });
  assert.deepEqual(r.completion.values, ['one']);
  await close();
});

// A tool that adds a tool and answers synchronously: its result used to be written before the
// tick's list_changed, so a host acting on the result (the model's next step) did not yet know
// of the new tool. The changes a handler makes are announced before its answer.
test('list_changed: changes made by a synchronous tool, prompt or read are written before its answer', async () => {
  const { server, a, b } = await setup();
  let n = 0;
  server.tool('unlock', () => {
    server.tool(`added${++n}`, () => 'added');
    return 'unlocked';
  });
  server.prompt('p-unlock', () => {
    server.prompt(`p-added${++n}`, () => 'p');
    return 'p-unlocked';
  });
  server.resource('r-unlock', 'file:///unlock', () => {
    server.resource(`r-added${++n}`, `file:///added${n}`, () => 'r');
    return 'r-unlocked';
  });
  await flush();
  const order = (method: string, answerId: unknown) => {
    const incoming = a.wire.entries.filter((e) => e.direction === 'server→client').map((e) => e.message);
    const changed = incoming.findIndex((m) => 'method' in m && m.method === method);
    const answered = incoming.findIndex((m) => !('method' in m) && m.id === answerId);
    return { changed, answered };
  };
  for (const [kind, ask] of [
    ['tools', () => a.client.callTool('unlock')],
    ['prompts', () => a.client.getPrompt('p-unlock')],
    ['resources', () => a.client.readResource('file:///unlock')],
  ] as const) {
    a.wire.entries.length = 0;
    await ask();
    const request = a.wire.entries.find((e) => e.direction === 'client→server' && 'id' in e.message && 'method' in e.message)!.message as { id: unknown };
    const { changed, answered } = order(`notifications/${kind}/list_changed`, request.id);
    assert.ok(changed >= 0 && changed < answered, `${kind}: list_changed at ${changed}, answer at ${answered}`);
  }
  // Still one notification per change: the microtask queued by the change sends nothing again.
  a.wire.entries.length = 0;
  await flush();
  assert.equal(a.wire.entries.length, 0);
  await a.close();
  await b.close();
});
