// mount(): a server of this process and a stdio command mounted into an McpServer under
// namespaces; the link is live (a tool added later appears, with list_changed), calls and
// progress go through, close() takes the tools away.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { McpServer } from '../../src/server/mcp-server.js';
import { mount } from '../../src/gateway/mount.js';
import { createTestPair } from '../../src/testing/index.js';
import { waitFor } from '../support/index.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BACKEND = fileURLToPath(new URL('../fixtures/gateway/backend.ts', import.meta.url));
const text = (r: { content?: unknown }) => ((r.content as Array<{ text?: string }>)[0]?.text ?? '') as string;

test('a local server and a stdio server mounted under namespaces, live', async (t) => {
  const app = new McpServer({ name: 'app', version: '1.0.0' });
  app.tool('hello', { description: 'The app own tool' }, () => 'hello');
  const math = new McpServer({ name: 'math', version: '1.0.0' });
  math.tool('add', { input: { a: z.number(), b: z.number() } }, async ({ a, b }, ctx) => {
    await ctx.progress(1, 1);
    return String(a + b);
  });
  const m1 = mount(app, math, { namespace: 'math' });
  const m2 = mount(
    app,
    { kind: 'stdio', command: process.execPath, args: ['--import', 'tsx', BACKEND, 'mount'], env: {}, cwd: ROOT, label: 'backend' },
    { namespace: 'files', deny: ['wait', 'cancelled'] },
  );
  t.after(() => Promise.all([m1.close(), m2.close()]));
  await Promise.all([m1.ready, m2.ready]);
  const { client, close } = await createTestPair(app, { era: 'handshake' });
  t.after(close);
  const names = (await client.listTools()).tools.map((x) => x.name).sort();
  assert.deepEqual(names, ['files_ask', 'files_echo', 'files_pid', 'hello', 'math_add']);
  const progress: number[] = [];
  assert.equal(text(await client.callTool('math_add', { a: 2, b: 3 }, { onprogress: (p) => progress.push(p.progress) })), '5');
  assert.deepEqual(progress, [1]);
  assert.equal(text(await client.callTool('files_echo', { text: 'x' })), 'echo:x');
  // The mounted schema still checks arguments, here as on the mounted server.
  const bad = await client.callTool('math_add', { a: 'two', b: 3 });
  assert.equal(bad.isError, true);

  let changed = 0;
  client.on('notifications/tools/list_changed', () => changed++);
  math.tool('sub', { input: { a: z.number(), b: z.number() } }, ({ a, b }) => String(a - b));
  await waitFor(() => m1.tools().includes('math_sub'));
  await waitFor(() => changed > 0);
  assert.equal(text(await client.callTool('math_sub', { a: 5, b: 3 })), '2');

  await m1.close();
  assert.deepEqual((await client.listTools()).tools.map((x) => x.name).sort(), ['files_ask', 'files_echo', 'files_pid', 'hello']);
});
