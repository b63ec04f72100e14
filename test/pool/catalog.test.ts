// The lists a pool keeps besides tools (PoolOptions.lists): each server's prompts, resources and
// templates, listed when it connects and again on its list_changed, reported with `listChanged`.
// A 2026-07-28 server is followed on ONE listen stream (tools, prompts and resources together),
// over real HTTP; a handshake-era one by its notifications.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { McpServer } from '../../src/server/mcp-server.js';
import { serve } from '../../src/serving/node.js';
import { ServerPool, type PoolEvent } from '../../src/pool/pool.js';
import { waitFor } from '../support/index.js';

for (const era of ['modern', 'handshake'] as const) {
  test(`prompts and resources kept per server, fresh after list_changed (${era})`, async (t) => {
    const backend = new McpServer({ name: 'docs', version: '1.0.0', ...(era === 'handshake' ? { modern: false as const } : {}) });
    backend.tool('search', {}, () => 'found');
    backend.prompt('first', () => 'first');
    backend.resource('readme', 'file:///readme.md', () => '# readme');
    backend.resourceTemplate('note', 'file:///notes/{id}', {}, (_u, { id }) => `note ${id}`);
    const running = await serve(backend, { port: 0 });
    const events: PoolEvent[] = [];
    const pool = new ServerPool({ servers: [{ name: 'docs', target: running.url, era }], lists: ['prompts', 'resources'], onEvent: (e) => events.push(e) });
    t.after(async () => {
      await pool.close();
      await running.close();
    });
    await pool.start();
    await pool.listening('docs');
    const catalog = pool.catalog('docs');
    assert.deepEqual(
      catalog?.prompts.map((p) => p.name),
      ['first'],
    );
    assert.deepEqual(
      catalog?.resources.map((r) => r.uri),
      ['file:///readme.md'],
    );
    assert.deepEqual(
      catalog?.resourceTemplates.map((r) => r.uriTemplate),
      ['file:///notes/{id}'],
    );
    assert.deepEqual(
      catalog?.tools.map((x) => x.name),
      ['search'],
    );
    if (era === 'modern') assert.equal(backend.server.modern?.listenCount, 1, 'one listen stream follows all three lists');

    const heard = (list: string) => events.filter((e) => e.type === 'listChanged' && e.list === list).length;
    const prompts = heard('prompts');
    const resources = heard('resources');
    backend.prompt('later', () => 'later');
    backend.resource('changelog', 'file:///changelog.md', () => 'changes');
    await waitFor(() => heard('prompts') > prompts && heard('resources') > resources, 'both lists reported again');
    await waitFor(() => pool.catalog('docs')?.prompts.length === 2 && pool.catalog('docs')?.resources.length === 2, 'the lists listed again');
    assert.deepEqual(
      pool
        .catalog('docs')
        ?.prompts.map((p) => p.name)
        .sort(),
      ['first', 'later'],
    );

    // A server that goes takes its lists along.
    const before = heard('prompts');
    await pool.remove('docs');
    assert.equal(pool.catalog('docs'), undefined);
    assert.equal(heard('prompts'), before + 1);
  });
}

test('a pool that keeps no other lists lists only tools', async (t) => {
  const backend = new McpServer({ name: 'docs', version: '1.0.0' });
  const listed: string[] = [];
  backend.use(async (method, _params, _ctx, next) => {
    listed.push(method);
    return next();
  });
  backend.tool('search', {}, () => 'found');
  backend.prompt('first', () => 'first');
  const running = await serve(backend, { port: 0 });
  const pool = new ServerPool({ servers: [{ name: 'docs', target: running.url }] });
  t.after(async () => {
    await pool.close();
    await running.close();
  });
  await pool.start();
  assert.deepEqual(pool.catalog('docs')?.prompts, []);
  assert.ok(!listed.includes('prompts/list'), listed.join(', '));
});
