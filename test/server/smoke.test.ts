import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { McpServer } from '../../src/server/mcp-server.js';
import { createTestPair } from '../../src/testing/index.js';

test('smoke: tool, resource, prompt over the in-memory pair', async () => {
  const server = new McpServer({ name: 's', version: '1.0.0', instructions: 'hi' });
  server.tool('add', { input: { a: z.number(), b: z.number() } }, ({ a, b }) => String(a + b));
  server.resource('cfg', 'file:///cfg.json', () => '{"x":1}');
  server.prompt('p', { args: { topic: z.string() } }, ({ topic }) => `about ${topic}`);
  const { client, wire, initialize, close } = await createTestPair(server, { era: 'handshake' });
  assert.equal(initialize.protocolVersion, '2025-11-25');
  assert.equal(initialize.instructions, 'hi');
  const r = await client.callTool('add', { a: 2, b: 3 });
  assert.deepEqual(r, { content: [{ type: 'text', text: '5' }] });
  const bad = await client.callTool('add', { a: 'x', b: 3 });
  assert.equal(bad.isError, true);
  console.log(bad.content);
  await assert.rejects(client.callTool('nope'), (e: Error & { code?: number }) => e.code === -32602);
  const res = await client.readResource('file:///cfg.json');
  assert.equal((res.contents[0] as { text: string }).text, '{"x":1}');
  const p = await client.getPrompt('p', { topic: 'cats' });
  assert.equal((p.messages[0].content as { text: string }).text, 'about cats');
  console.log(wire.methods());
  await close();
});
