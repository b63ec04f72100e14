import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { McpServer } from '../../src/server/mcp-server.js';
import { createTestPair } from '../../src/testing/index.js';
import { rejectsLocally, rejectsWithCode } from './helpers.js';

const newServer = () => new McpServer({ name: 'prompt-test', version: '1.0.0' });

test('prompts/list: arguments from a zod shape, with required flags and descriptions', async () => {
  const server = newServer();
  server.prompt(
    'review',
    {
      title: 'Code review',
      description: 'Review some code',
      args: {
        code: z.string().describe('The code to review'),
        language: z.string().optional().describe('Language hint'),
        style: z.string().default('strict'),
      },
      icons: [{ src: 'https://example.com/r.svg' }],
      _meta: { v: 1 },
    },
    ({ code }) => `review ${code}`,
  );
  server.prompt('bare', () => 'bare');
  const { client, close } = await createTestPair(server);
  const { prompts } = await client.listPrompts();
  assert.deepEqual(prompts, [
    {
      name: 'review',
      title: 'Code review',
      description: 'Review some code',
      arguments: [{ name: 'code', description: 'The code to review', required: true }, { name: 'language', description: 'Language hint' }, { name: 'style' }],
      icons: [{ src: 'https://example.com/r.svg' }],
      _meta: { v: 1 },
    },
    { name: 'bare' },
  ]);
  assert.deepEqual(await client.listAllPrompts(), prompts);
  await close();
});

test('prompts/get: validated args reach the handler, defaults applied', async () => {
  const server = newServer();
  let seen: unknown;
  server.prompt('p', { args: { topic: z.string(), tone: z.string().default('neutral') } }, (args) => {
    seen = args;
    return `write about ${args.topic} in a ${args.tone} tone`;
  });
  const { client, close } = await createTestPair(server, { era: 'handshake' });
  const r = await client.getPrompt('p', { topic: 'cats' });
  assert.deepEqual(seen, { topic: 'cats', tone: 'neutral' });
  assert.deepEqual(r, { messages: [{ role: 'user', content: { type: 'text', text: 'write about cats in a neutral tone' } }] });
  await close();
});

test('prompts/get: missing required argument and unknown prompt are -32602', async () => {
  const server = newServer();
  server.prompt('p', { args: { topic: z.string(), n: z.string().regex(/^\d+$/) } }, ({ topic }) => topic);
  server.prompt('listed', { args: [{ name: 'who', required: true }, { name: 'opt' }] }, (a) => `hi ${a.who}`);
  const { client, close } = await createTestPair(server);
  await rejectsWithCode(client.getPrompt('p', { n: '1' }), -32602, /topic/);
  await rejectsWithCode(client.getPrompt('p'), -32602, /topic, n|n, topic/);
  await rejectsWithCode(client.getPrompt('p', { topic: 't', n: 'abc' }), -32602, /"n"/);
  await rejectsWithCode(client.getPrompt('nope'), -32602, /nope/);
  await rejectsWithCode(client.getPrompt('listed'), -32602, /who/);
  assert.equal(((await client.getPrompt('listed', { who: 'ann' })).messages[0].content as { text: string }).text, 'hi ann');
  await rejectsWithCode(client.request('prompts/get', { name: 'p', arguments: 'x' } as never), -32602);
  await close();
});

test('prompts/get: string, message array and full results; description is carried', async () => {
  const server = newServer();
  server.prompt('str', { description: 'a string prompt' }, () => 'just text');
  server.prompt('arr', () => [
    { role: 'user', content: { type: 'text', text: 'q' } },
    { role: 'assistant', content: { type: 'text', text: 'a' } },
    { role: 'user', content: { type: 'resource_link', uri: 'file:///x', name: 'x' } },
  ]);
  server.prompt('full', { description: 'ignored for full results' }, async () => ({
    description: 'custom',
    messages: [{ role: 'user', content: { type: 'text', text: 'full' } }],
  }));
  const { client, close } = await createTestPair(server, { era: 'handshake' });
  assert.deepEqual(await client.getPrompt('str'), {
    description: 'a string prompt',
    messages: [{ role: 'user', content: { type: 'text', text: 'just text' } }],
  });
  const arr = await client.getPrompt('arr');
  assert.deepEqual(
    arr.messages.map((m) => m.role),
    ['user', 'assistant', 'user'],
  );
  assert.equal(arr.messages[2].content.type, 'resource_link');
  assert.equal(arr.description, undefined);
  assert.deepEqual(await client.getPrompt('full'), {
    description: 'custom',
    messages: [{ role: 'user', content: { type: 'text', text: 'full' } }],
  });
  await close();
});

test('prompts/get: a throwing handler is -32603', async () => {
  const server = new McpServer({ name: 'p', version: '1', onerror: () => {} });
  server.prompt('bad', () => {
    throw new Error('template missing');
  });
  const { client, close } = await createTestPair(server);
  await rejectsWithCode(client.getPrompt('bad'), -32603, /template missing/);
  await close();
});

test('completions: prompt argument values, with context.arguments passed through', async () => {
  const server = newServer();
  const contexts: unknown[] = [];
  server.prompt(
    'translate',
    {
      args: { from: z.string(), to: z.string() },
      complete: {
        to: (value, context) => {
          contexts.push(context);
          return ['de', 'en', 'es', 'fr'].filter((l) => l.startsWith(value) && l !== context.arguments.from);
        },
      },
    },
    ({ from, to }) => `${from}->${to}`,
  );
  const { client, initialize, close } = await createTestPair(server, { era: 'handshake' });
  assert.deepEqual(initialize.serverCapabilities.completions, {});
  const r = await client.complete({
    ref: { type: 'ref/prompt', name: 'translate' },
    argument: { name: 'to', value: 'e' },
    context: { arguments: { from: 'en' } },
  });
  assert.deepEqual(r, { completion: { values: ['es'], total: 1, hasMore: false } });
  assert.deepEqual(contexts, [{ arguments: { from: 'en' } }]);
  // no context → empty arguments
  const r2 = await client.complete({ ref: { type: 'ref/prompt', name: 'translate' }, argument: { name: 'to', value: '' } });
  assert.deepEqual(r2.completion.values, ['de', 'en', 'es', 'fr']);
  assert.deepEqual(contexts[1], { arguments: {} });
  // an argument without a completer completes to nothing
  const r3 = await client.complete({ ref: { type: 'ref/prompt', name: 'translate' }, argument: { name: 'from', value: 'x' } });
  assert.deepEqual(r3.completion, { values: [], total: 0, hasMore: false });
  await rejectsWithCode(client.complete({ ref: { type: 'ref/prompt', name: 'nope' }, argument: { name: 'to', value: '' } }), -32602);
  await rejectsWithCode(client.request('completion/complete', { ref: { type: 'ref/bogus' }, argument: { name: 'a', value: '' } } as never), -32602);
  await rejectsWithCode(client.request('completion/complete', { ref: { type: 'ref/prompt', name: 'translate' } } as never), -32602);
  await close();
});

test('completions: template variables via ref/resource, capped at 100 with total/hasMore', async () => {
  const server = newServer();
  const many = Array.from({ length: 250 }, (_, i) => `file${String(i).padStart(3, '0')}`);
  server.resourceTemplate(
    'files',
    'file:///{dir}/{name}',
    {
      complete: {
        name: async (value, context) => many.filter((n) => n.startsWith(value)).map((n) => `${context.arguments.dir ?? ''}${n}`),
        dir: () => ['src', 'test'],
      },
    },
    () => 'x',
  );
  const { client, close } = await createTestPair(server);
  const r = await client.complete({ ref: { type: 'ref/resource', uri: 'file:///{dir}/{name}' }, argument: { name: 'name', value: 'file' } });
  assert.equal(r.completion.values.length, 100);
  assert.equal(r.completion.total, 250);
  assert.equal(r.completion.hasMore, true);
  assert.equal(r.completion.values[0], 'file000');
  const withCtx = await client.complete({
    ref: { type: 'ref/resource', uri: 'file:///{dir}/{name}' },
    argument: { name: 'name', value: 'file24' },
    context: { arguments: { dir: 'src/' } },
  });
  assert.deepEqual(withCtx.completion, {
    values: Array.from({ length: 10 }, (_, i) => `src/file24${i}`),
    total: 10,
    hasMore: false,
  });
  const dirs = await client.complete({ ref: { type: 'ref/resource', uri: 'file:///{dir}/{name}' }, argument: { name: 'dir', value: '' } });
  assert.deepEqual(dirs.completion.values, ['src', 'test']);
  await rejectsWithCode(client.complete({ ref: { type: 'ref/resource', uri: 'file:///{nope}' }, argument: { name: 'nope', value: '' } }), -32602);
  await close();
});

test('completions: the capability is declared only when something can complete', async () => {
  const server = newServer();
  server.prompt('p', { args: { a: z.string() } }, () => 'x');
  const { client, initialize, wire, close } = await createTestPair(server);
  assert.equal(initialize.serverCapabilities.completions, undefined);
  wire.clear();
  await rejectsLocally(client.complete({ ref: { type: 'ref/prompt', name: 'p' }, argument: { name: 'a', value: '' } }), 'capability');
  assert.equal(wire.entries.length, 0, 'nothing was sent');
  await close();
});
