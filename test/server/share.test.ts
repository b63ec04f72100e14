// Server.share: a bus and a task store given to a server after it was built (what
// `mcpkit serve --redis` does to a module's server), and what a server's own choices keep.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { McpServer } from '../../src/server/mcp-server.js';
import { MemoryBus } from '../../src/state/bus.js';
import { InMemoryTaskStore, type TaskRecord } from '../../src/state/task-store.js';
import { tasks } from '../../src/extensions/tasks/extension.js';
import { connect } from '../../src/client/connect.js';
import { serve } from '../../src/serving/node.js';
import { waitFor } from '../support/index.js';

class CountingStore extends InMemoryTaskStore {
  created: string[] = [];
  override async create(record: TaskRecord): Promise<void> {
    this.created.push(record.task.taskId);
    await super.create(record);
  }
}

function build(options: { bus?: MemoryBus; store?: CountingStore } = {}): McpServer {
  const mcp = new McpServer({ name: 'late', version: '1.0.0', bus: options.bus, extensions: [tasks({ store: options.store, pollIntervalMs: 20 })] });
  mcp.tool('job', { task: 'required' }, () => 'done');
  mcp.resource('doc', 'file:///doc.txt', () => 'doc');
  return mcp;
}

test('share: the bus joins a built server to others; tasks go to the shared store unless the extension has its own', async () => {
  const bus = new MemoryBus();
  const shared = new CountingStore();
  const a = build();
  const b = build();
  a.server.share({ bus, taskStore: shared });
  b.server.share({ bus, taskStore: shared });
  const own = new CountingStore();
  const c = build({ store: own });
  c.server.share({ taskStore: shared });
  const ra = await serve(a, { port: 0 });
  const rb = await serve(b, { port: 0 });
  const rc = await serve(c, { port: 0 });
  try {
    const client = await connect(rb.url, { era: 'handshake' });
    const updates: string[] = [];
    client.on('notifications/resources/updated', (p) => updates.push(p.uri));
    await client.subscribeResource('file:///doc.txt');
    a.resourceUpdated('file:///doc.txt');
    await waitFor(() => updates.length > 0, 'the update raised on A, on B');
    await client.close();

    for (const [url, store, other] of [
      [ra.url, shared, own],
      [rc.url, own, shared],
    ] as const) {
      const before = other.created.length;
      const m = await connect(url, { era: 'modern', tasks: true });
      const r = await m.callTool('job');
      assert.deepEqual(r.content, [{ type: 'text', text: 'done' }]);
      await m.close();
      assert.equal(store.created.length, 1, url);
      assert.equal(other.created.length, before);
    }
  } finally {
    await Promise.all([ra.close(), rb.close(), rc.close()]);
  }
});

test('share: a server built with a bus keeps it', () => {
  const mine = new MemoryBus();
  const mcp = build({ bus: mine });
  const before = mcp.server.bus;
  mcp.server.share({ bus: new MemoryBus() });
  assert.equal(mcp.server.bus, before);
});
