// mount(): a server of this process, a stdio command and an HTTP server mounted into an McpServer
// under namespaces; the link is live (a tool, prompt or resource added later appears, with
// list_changed), calls, progress, prompts and reads go through, the mounted server's questions
// reach the client whose call asked, close() takes it all away.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { McpServer } from '../../src/server/mcp-server.js';
import { mount } from '../../src/gateway/mount.js';
import { createTestPair } from '../../src/testing/index.js';
import { serve } from '../../src/serving/node.js';
import { latch, waitFor } from '../support/index.js';

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

  // The mounted server's question goes to the client whose call it is: two clients (one of each
  // era) ask at once, each handler waiting until both are asked.
  const both = latch(2);
  const answer = (word: string) => async () => {
    both.arrive();
    await both.opened;
    return { action: 'accept' as const, content: { word } };
  };
  const alice = await createTestPair(app, { era: 'modern', elicitation: answer('alice') });
  const bob = await createTestPair(app, { era: 'handshake', elicitation: answer('bob') });
  t.after(() => Promise.all([alice.close(), bob.close()]));
  const [a, b] = await Promise.all([alice.client.callTool('files_ask', { question: 'A?' }), bob.client.callTool('files_ask', { question: 'B?' })]);
  assert.equal(text(a), 'A? -> alice');
  assert.equal(text(b), 'B? -> bob');

  let changed = 0;
  client.on('notifications/tools/list_changed', () => changed++);
  math.tool('sub', { input: { a: z.number(), b: z.number() } }, ({ a, b }) => String(a - b));
  await waitFor(() => m1.tools().includes('math_sub'));
  await waitFor(() => changed > 0);
  assert.equal(text(await client.callTool('math_sub', { a: 5, b: 3 })), '2');

  await m1.close();
  assert.deepEqual((await client.listTools()).tools.map((x) => x.name).sort(), ['files_ask', 'files_echo', 'files_pid', 'hello']);
});

test('an HTTP server mounted with its prompts, resources and templates, namespaced like the gateway does, live', async (t) => {
  const docs = new McpServer({ name: 'docs', version: '1.0.0' });
  docs.prompt('summarize', { description: 'Summarizes a topic', args: [{ name: 'topic', required: true }] }, ({ topic }) => `Summarize ${topic}.`);
  docs.resource('readme', 'file:///readme.md', { mimeType: 'text/markdown' }, () => '# Docs');
  docs.resourceTemplate('note', 'file:///notes/{id}', { description: 'A note' }, (_uri, { id }) => `note ${id}`);
  const backend = await serve(docs, { port: 0 });
  t.after(() => backend.close());

  const app = new McpServer({ name: 'app', version: '1.0.0' });
  app.prompt('own', () => 'the app own prompt');
  const mounted = mount(app, backend.url, { namespace: 'docs' });
  t.after(() => mounted.close());
  await mounted.ready;
  assert.deepEqual(mounted.prompts(), ['docs_summarize']);
  assert.deepEqual(mounted.resources(), ['mcpgw://docs/file:///readme.md']);
  assert.deepEqual(mounted.resourceTemplates(), ['docs_note']);

  for (const era of ['handshake', 'modern'] as const) {
    const { client, close } = await createTestPair(app, { era });
    try {
      assert.deepEqual((await client.listPrompts()).prompts.map((p) => p.name).sort(), ['docs_summarize', 'own']);
      const summarize = (await client.listPrompts()).prompts.find((p) => p.name === 'docs_summarize');
      assert.equal(summarize?.description, 'Summarizes a topic');
      assert.deepEqual(summarize?.arguments, [{ name: 'topic', required: true }]);
      const got = await client.getPrompt('docs_summarize', { topic: 'MCP' });
      assert.deepEqual(got.messages[0].content, { type: 'text', text: 'Summarize MCP.' });
      // The mounted prompt's required argument is still checked.
      await assert.rejects(client.getPrompt('docs_summarize', {}), /topic/);

      const [readme] = (await client.listResources()).resources;
      assert.deepEqual(
        { name: readme.name, uri: readme.uri, mimeType: readme.mimeType },
        { name: 'readme', uri: 'mcpgw://docs/file:///readme.md', mimeType: 'text/markdown' },
      );
      const read = await client.readResource(readme.uri);
      assert.deepEqual(read.contents, [{ uri: 'mcpgw://docs/file:///readme.md', mimeType: 'text/markdown', text: '# Docs' }]);

      const [note] = (await client.listResourceTemplates()).resourceTemplates;
      assert.deepEqual({ name: note.name, uriTemplate: note.uriTemplate }, { name: 'docs_note', uriTemplate: 'mcpgw://docs/file:///notes/{id}' });
      const seven = await client.readResource('mcpgw://docs/file:///notes/7');
      assert.equal(seven.contents[0].uri, 'mcpgw://docs/file:///notes/7');
      assert.equal((seven.contents[0] as { text?: string }).text, 'note 7');
    } finally {
      await close();
    }
  }

  // Live: what the mounted server adds or removes later comes and goes, and the app's clients are told.
  const { client, close } = await createTestPair(app, { era: 'handshake' });
  t.after(close);
  let prompts = 0;
  let resources = 0;
  client.on('notifications/prompts/list_changed', () => prompts++);
  client.on('notifications/resources/list_changed', () => resources++);
  const later = docs.prompt('later', () => 'added later');
  docs.resource('changelog', 'file:///changelog.md', () => 'changes');
  await waitFor(() => mounted.prompts().includes('docs_later') && mounted.resources().includes('mcpgw://docs/file:///changelog.md'));
  await waitFor(() => prompts > 0 && resources > 0);
  assert.deepEqual((await client.getPrompt('docs_later')).messages[0].content, { type: 'text', text: 'added later' });
  assert.equal(((await client.readResource('mcpgw://docs/file:///changelog.md')).contents[0] as { text?: string }).text, 'changes');
  later.remove();
  await waitFor(() => !mounted.prompts().includes('docs_later'));
  assert.deepEqual((await client.listPrompts()).prompts.map((p) => p.name).sort(), ['docs_summarize', 'own']);

  await mounted.close();
  assert.deepEqual(
    (await client.listPrompts()).prompts.map((p) => p.name),
    ['own'],
  );
  assert.deepEqual((await client.listResources()).resources, []);
  assert.deepEqual((await client.listResourceTemplates()).resourceTemplates, []);
});
