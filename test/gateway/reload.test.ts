// Hot reload: the config file is rewritten while a client is connected. An added backend's tools
// appear (with tools/list_changed), a removed one's disappear, an unchanged one keeps its process,
// and the client's session survives it all. reload() does the same on demand (SIGHUP in the CLI).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from '../../src/client/connect.js';
import { createGateway, type GatewayEvent } from '../../src/gateway/gateway.js';
import { gatewayBackend, tempDir, waitFor, patient } from '../support/index.js';

const text = (r: { content?: unknown }) => ((r.content as Array<{ text?: string }>)[0]?.text ?? '') as string;

test('a config change adds and removes backends without dropping the session or restarting the others', async (t) => {
  const dir = tempDir();
  const file = join(dir, 'gateway.json');
  // As editors save: a new file renamed over the old one (the watch must survive that).
  const write = (servers: Record<string, unknown>) => {
    writeFileSync(`${file}.tmp`, JSON.stringify({ mcpServers: servers }));
    renameSync(`${file}.tmp`, file);
  };
  write({ keep: gatewayBackend('reload-keep'), drop: gatewayBackend('reload-drop') });
  const events: GatewayEvent[] = [];
  // The era is pinned only to spare a loaded machine the probe of each new process.
  const gateway = createGateway({ config: file, watch: true, era: 'modern', onEvent: (e) => events.push(e) });
  const running = await gateway.listen({ port: 0 });
  t.after(() => gateway.close());
  await gateway.ready;
  const client = await connect(running.url, { era: 'handshake' });
  t.after(() => client.close());
  let changes = 0;
  client.on('notifications/tools/list_changed', () => changes++);
  const names = async () => (await client.listTools()).tools.map((x) => x.name).sort();
  assert.deepEqual(await names(), [
    'drop_ask',
    'drop_cancelled',
    'drop_echo',
    'drop_pid',
    'drop_wait',
    'keep_ask',
    'keep_cancelled',
    'keep_echo',
    'keep_pid',
    'keep_wait',
  ]);
  const pid = text(await client.callTool('keep_pid', {}));
  const session = client.sessionState;

  write({ keep: gatewayBackend('reload-keep'), added: { ...gatewayBackend('reload-added'), allow: ['echo'] } });
  // A reload ends once new servers have connected: on a loaded machine starting one takes a while.
  const slow = { timeoutMs: patient(60_000), what: 'the reload' };
  await waitFor(() => events.some((e) => e.type === 'reloaded'), slow);
  assert.deepEqual(
    events.find((e) => e.type === 'reloaded'),
    { type: 'reloaded', added: ['added'], removed: ['drop'], changed: [] },
  );
  await waitFor(() => changes > 0);
  assert.deepEqual(await names(), ['added_echo', 'keep_ask', 'keep_cancelled', 'keep_echo', 'keep_pid', 'keep_wait']);
  assert.equal(text(await client.callTool('added_echo', { text: 'new' })), 'echo:new');
  assert.equal(text(await client.callTool('keep_pid', {})), pid, 'the unchanged backend kept its process');
  assert.equal(client.sessionState, session);

  // A changed entry is restarted (a new process), with its new settings.
  write({ keep: { ...gatewayBackend('reload-keep'), deny: ['wait'] }, added: { ...gatewayBackend('reload-added'), allow: ['echo'] } });
  const second = await waitFor(() => events.find((e) => e.type === 'reloaded' && e.changed.length > 0), slow);
  assert.deepEqual(second, { type: 'reloaded', added: [], removed: [], changed: ['keep'] });
  assert.ok(!(await names()).includes('keep_wait'));
  const restarted = text(await client.callTool('keep_pid', {}));
  assert.notEqual(restarted, pid);

  // reload() on demand, with a broken file: the error says why, the running backends stay.
  writeFileSync(file, '{ not json');
  await assert.rejects(gateway.reload(), /gateway\.json/);
  assert.equal(text(await client.callTool('keep_pid', {})), restarted);
});
