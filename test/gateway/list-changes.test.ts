// Prompt and resource list changes of a 2026-07-28 backend (sent only on a listen stream) reach
// the gateway's clients. The gateway is ready once it follows them, and the client listens
// before the change, so a missed notification is a failure, not a race.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from '../../src/client/connect.js';
import { McpServer } from '../../src/server/mcp-server.js';
import { serve } from '../../src/serving/node.js';
import { createGateway } from '../../src/gateway/gateway.js';
import { waitFor } from '../support/index.js';

test('a 2026-07-28 backend adds a prompt and a resource: the gateway clients are told, and see them', async () => {
  const backend = new McpServer({ name: 'grower', version: '1.0.0' });
  backend.prompt('first', () => 'first');
  backend.resource('first', 'file:///first.txt', () => 'first');
  const running = await serve(backend, { port: 0 });
  const gateway = createGateway({ servers: { b: { url: running.url, era: 'modern' } } });
  const front = await gateway.listen({ port: 0 });
  const client = await connect(front.url, { era: 'modern' });
  try {
    await gateway.ready;
    let prompts = 0;
    let resources = 0;
    client.on('notifications/prompts/list_changed', () => prompts++);
    client.on('notifications/resources/list_changed', () => resources++);
    const sub = client.listen({ promptsListChanged: true, resourcesListChanged: true });
    assert.deepEqual(await sub.acknowledged, { promptsListChanged: true, resourcesListChanged: true });
    backend.prompt('later', () => 'later');
    backend.resource('later', 'file:///later.txt', () => 'later');
    await waitFor(() => prompts > 0 && resources > 0);
    assert.deepEqual((await client.listPrompts()).prompts.map((p) => p.name).sort(), ['b_first', 'b_later']);
    assert.deepEqual((await client.listResources()).resources.map((r) => r.uri).sort(), ['mcpgw://b/file:///first.txt', 'mcpgw://b/file:///later.txt']);
  } finally {
    await client.close();
    await gateway.close();
    await running.close();
  }
});
