// A 2026-07-28 tool call sent from the Tools panel with a request `_meta`, which the server makes a
// task of: the `_meta` reaches the server (beside the envelope the session adds), and the task is
// handed to the studio like any other (listed in the Tasks panel's list, polled to its result),
// not followed out of sight by the client. Over real HTTP, through the page's API.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { RunningServer } from '../../src/serving/node.js';
import { resolveTarget } from '../../src/pool/targets.js';
import type { RunningStudio } from '../../src/studio/http.js';
import { startDemoHttp, waitFor } from '../support/index.js';
import { apiCall, signIn, startTestStudio } from './helpers.js';

describe('a 2026-07-28 call with a request _meta made a task', () => {
  let demo: RunningServer;
  let studio: RunningStudio;
  before(async () => {
    demo = await startDemoHttp();
    studio = await startTestStudio({ servers: [{ name: 'demo', origin: 'command-line', target: resolveTarget(demo.url) }] });
    await studio.ready;
  });
  after(async () => {
    await studio?.close();
    await demo?.close();
  });

  test('the _meta is sent, and the task is listed and followed by the studio', async () => {
    const s = await signIn(studio);
    const r = await apiCall(s, '/api/servers/demo/call', { name: 'build_report', arguments: { seconds: 1 }, meta: { 'example.com/trace': 'trace-42' } });
    assert.equal(r.status, 200, r.body);
    const outcome = JSON.parse(r.body) as { task?: { taskId: string; server: string }; result?: unknown };
    assert.ok(outcome.task, `a task, not a result: ${r.body}`);
    const sent = studio.hub.timeline.since(0, 100_000).find((e) => e.server === 'demo' && e.dir === 'out' && e.method === 'tools/call')?.message as {
      params: { _meta?: Record<string, unknown> };
    };
    assert.equal(sent.params._meta?.['example.com/trace'], 'trace-42');
    assert.ok(sent.params._meta?.['io.modelcontextprotocol/protocolVersion'], 'the envelope is there too');
    const id = outcome.task.taskId;
    assert.ok(studio.hub.state().tasks?.some((t) => t.taskId === id));
    const done = await waitFor(() => studio.hub.state().tasks?.find((t) => t.taskId === id && t.status === 'completed'), 'the task completed');
    assert.match(JSON.stringify(done), /Report ready after 1 s\./);
  });
});
