// Two instances joined by the in-process MemoryBus and a shared InMemoryTaskStore (RedisBus:
// test/state/redis/bus.test.ts runs the same checks over Redis).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InMemoryTaskStore } from '../../src/state/task-store.js';
import { MemoryBus } from '../../src/state/bus.js';
import { connect } from '../../src/client/connect.js';
import { call, crossInstanceChecks, instance } from './bus-helpers.js';
import { waitFor } from '../support/index.js';

test('MemoryBus: updates, logs, list changes and task events cross instances; own messages are not applied twice', async () => {
  const bus = new MemoryBus();
  const store = new InMemoryTaskStore();
  const a = await instance(bus, store);
  const b = await instance(bus, store);
  try {
    await crossInstanceChecks(a, b);

    // A listen stream on B that follows a task running on A gets its status changes.
    const created = await call(a.url, 'tools/call', { name: 'slow', arguments: { label: 'x2' } });
    const client = await connect(b.url, { era: 'modern', tasks: true });
    const statuses: string[] = [];
    const sub = client.listen({ taskIds: [created.taskId] }, (n) => statuses.push((n.params as { status: string }).status));
    await sub.acknowledged;
    await call(a.url, 'tasks/cancel', { taskId: created.taskId });
    await waitFor(async () => (statuses.includes('cancelled') ? true : undefined), 'notifications/tasks on B');
    await sub.close();
    await client.close();

    // A's own resource update reaches A's subscriber once, not once more from the bus.
    const hs = await connect(a.url, { era: 'handshake' });
    const updates: string[] = [];
    hs.on('notifications/resources/updated', (p) => updates.push(p.uri));
    await hs.subscribeResource('file:///report.txt');
    await hs.subscribeResource('file:///marker.txt');
    a.mcp.resourceUpdated('file:///report.txt');
    // A marker raised on B after it reaches A over the bus behind any echo of A's own update
    // (the bus keeps order), so once it is in, a duplicate would be too.
    b.mcp.resourceUpdated('file:///marker.txt');
    await waitFor(async () => (updates.includes('file:///marker.txt') ? true : undefined), 'the marker on A');
    assert.deepEqual(updates, ['file:///report.txt', 'file:///marker.txt']);
    await hs.close();
    assert.deepEqual(
      [...a.errors, ...b.errors].map((e) => e.message),
      [],
    );
  } finally {
    await a.running.close();
    await b.running.close();
  }
});

test('a malformed bus message is reported and ignored', async () => {
  const bus = new MemoryBus();
  const a = await instance(bus, new InMemoryTaskStore());
  try {
    await bus.publish('not json');
    await bus.publish(JSON.stringify({ o: 'someone', k: 'notify', m: 42 }));
    await bus.publish(JSON.stringify({ o: 'someone', k: 'ext', x: 'io.modelcontextprotocol/tasks', d: { cancel: 'no-such-task' } })); // unknown here: nothing to do
    // A marker after them (the bus delivers in order): once its report is in, the cancel before it
    // has been handled, and it reported nothing.
    await bus.publish('marker: not json either');
    await waitFor(() => a.errors.length >= 3, 'the reports');
    assert.deepEqual(
      a.errors.map((e) => e.message),
      [
        'message bus: ignored a message that is not JSON',
        'message bus: ignored an unknown or malformed "notify" message',
        'message bus: ignored a message that is not JSON',
      ],
    );
  } finally {
    await a.running.close();
  }
});
