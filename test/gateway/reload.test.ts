// Hot reload: the config file is rewritten while a client is connected. An added backend's tools
// appear (with tools/list_changed), a removed one's disappear, an unchanged one keeps its process,
// and the client's session survives it all. reload() does the same on demand (SIGHUP in the CLI).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from '../../src/client/connect.js';
import { createGateway, type GatewayEvent } from '../../src/gateway/gateway.js';
import { gatewayBackend, tempDir, waitFor } from '../support/index.js';

const text = (r: { content?: unknown }) => ((r.content as Array<{ text?: string }>)[0]?.text ?? '') as string;

test('a config change adds and removes backends without dropping the session or restarting the others', async (t) => {
  const dir = tempDir();
  const file = join(dir, 'gateway.json');
  const write = (servers: Record<string, unknown>) => writeFileSync(file, JSON.stringify({ mcpServers: servers }));
  write({ keep: gatewayBackend('reload-keep'), drop: gatewayBackend('reload-drop') });
  const events: GatewayEvent[] = [];
  const gateway = createGateway({ config: file, watch: true, onEvent: (e) => events.push(e) });
  const running = await gateway.listen({ port: 0 });
  t.after(() => gateway.close());
  await gateway.ready;
  const client = await connect(running.url, { era: 'handshake' });
  t.after(() => client.close());
  let changes = 0;
  client.on('notifications/tools/list_changed', () => changes++);
  const names = async () => (await client.listTools()).tools.map((x) => x.name).sort();
  assert.deepEqual(await names(), ['drop_ask', 'drop_echo', 'drop_pid', 'drop_wait', 'keep_ask', 'keep_echo', 'keep_pid', 'keep_wait']);
  const pid = text(await client.callTool('keep_pid', {}));
  const session = client.sessionState;

  write({ keep: gatewayBackend('reload-keep'), added: { ...gatewayBackend('reload-added'), allow: ['echo'] } });
  await waitFor(() => events.some((e) => e.type === 'reloaded'));
  assert.deepEqual(
    events.find((e) => e.type === 'reloaded'),
    { type: 'reloaded', added: ['added'], removed: ['drop'], changed: [] },
  );
  await waitFor(() => changes > 0);
  assert.deepEqual(await names(), ['added_echo', 'keep_ask', 'keep_echo', 'keep_pid', 'keep_wait']);
  assert.equal(text(await client.callTool('added_echo', { text: 'new' })), 'echo:new');
  assert.equal(text(await client.callTool('keep_pid', {})), pid, 'the unchanged backend kept its process');
  assert.equal(client.sessionState, session);

  // reload() on demand, with a broken file: the error says why, the running backends stay.
  writeFileSync(file, '{ not json');
  await assert.rejects(gateway.reload(), /gateway\.json/);
  assert.equal(text(await client.callTool('keep_pid', {})), pid);
});
