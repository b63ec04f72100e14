// The client side of the 2026-07-28 tasks extension (SEP-2663) against a scripted server over
// real HTTP: opting in, transparent polling at the server's pace, input requests answered once
// per key, failed / cancelled / aborted tasks, per-poll timeouts, the Mcp-Name routing header,
// and the low-level calls for callers who drive tasks themselves.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { McpClient } from '../../src/client/client.js';
import { TaskCancelledError } from '../../src/client/tasks.js';
import type { ClientOptions } from '../../src/client/options.js';
import type { DetailedTask } from '../../src/protocol/tasks.js';
import { LocalError, McpError } from '../../src/jsonrpc/errors.js';
import { StreamableHttpClientTransport } from '../../src/transports/http/client/streamable.js';
import { startTaskServer, TASKS, type TaskServer, type TaskServerOptions } from '../fixtures/tasks-server.js';
import { flush, waitFor, WatchedClock, within } from '../support/index.js';

const CAPS = 'io.modelcontextprotocol/clientCapabilities';
const FAST = { minPollIntervalMs: 5, pollIntervalMs: 10 };
const done = (text: string) => ({ status: 'completed', result: { content: [{ type: 'text', text }] } });
const form = (message: string) => ({
  method: 'elicitation/create',
  params: { mode: 'form', message, requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } },
});

interface Setup {
  server: TaskServer;
  client: McpClient;
  errors: Error[];
  /** The requests the client sent, with the client clock's time of sending. */
  sent: Array<{ method: string; at: number }>;
  dispose(): Promise<void>;
}

/** When (client clock, from `t0`) the client sent each tasks/get. */
const polls = (s: Setup, t0: number) => s.sent.filter((m) => m.method === 'tasks/get').map((m) => m.at - t0);

/**
 * Settles `call` on a manual clock: each time the client sleeps (a timer of at most `maxMs`,
 * shorter than any request timeout in play), time moves to its wake-up, and no further. Nothing
 * waits on the wall clock, so a loaded machine changes nothing but how long the test takes.
 */
async function onClock<T>(clock: WatchedClock, call: Promise<T>, maxMs = 59_999): Promise<T> {
  let settled = false;
  call.then(
    () => (settled = true),
    () => (settled = true),
  );
  for (;;) {
    const due = await waitFor(() => (settled ? 'settled' : clock.nextDue(maxMs)), 'the call to settle or the client to sleep');
    if (due === 'settled') return call;
    clock.set(due);
  }
}

/** A client opted in to tasks (fast polling) against a scripted server; disposed after the test. */
/** Waits until the server has received `n` requests for `method`. */
async function received(server: TaskServer, method: string, n: number): Promise<void> {
  await waitFor(() => server.bodies(method).length >= n, `${n} ${method} request(s)`);
}

async function setup(t: TestContext | undefined, script: TaskServerOptions, options: Partial<ClientOptions> = {}): Promise<Setup> {
  const server = await startTaskServer(script);
  const errors: Error[] = [];
  const client = new McpClient({ name: 'tasks-test', version: '1.0.0', era: 'modern', tasks: FAST, onerror: (e) => errors.push(e), ...options });
  const transport = new StreamableHttpClientTransport({ url: server.url });
  const sent: Setup['sent'] = [];
  const send = transport.send.bind(transport);
  transport.send = (message, opts) => {
    for (const m of Array.isArray(message) ? message : [message]) if ('method' in m) sent.push({ method: m.method, at: (options.clock ?? Date).now() });
    return send(message, opts);
  };
  await client.connect(transport);
  const dispose = async () => {
    await client.close();
    await server.close();
  };
  t?.after(dispose);
  return {
    server,
    client,
    errors,
    sent,
    dispose,
  };
}

test('tasks: the extension is declared with every request only when the client opts in', async () => {
  for (const tasks of [undefined, false, true, { pollIntervalMs: 50 }] as const) {
    const s = await setup(undefined, { call: () => ({ result: { content: [{ type: 'text', text: 'at once' }] } }) }, { tasks });
    try {
      const r = await s.client.callTool('slow');
      assert.deepEqual(r, { content: [{ type: 'text', text: 'at once' }] });
      for (const method of ['server/discover', 'tools/call']) {
        const caps = s.server.bodies(method)[0].params._meta[CAPS];
        assert.equal(!!caps.extensions?.[TASKS], !!tasks, `${method} with tasks: ${JSON.stringify(tasks)}`);
        if (tasks) assert.deepEqual(caps.extensions[TASKS], {});
      }
      assert.equal(!!s.client.capabilities.extensions?.[TASKS], !!tasks);
    } finally {
      await s.dispose();
    }
  }
});

test('tasks: a task given to a client that did not declare the extension is a protocol error', async (t) => {
  const s = await setup(t, { call: (_p, server) => ({ result: server.createTask([done('x')]) }) }, { tasks: false });
  await assert.rejects(
    s.client.callTool('slow'),
    (e: unknown) => e instanceof LocalError && e.kind === 'protocol' && /resultType "task".*did not declare the tasks extension/.test(e.message),
  );
  assert.equal(s.server.bodies('tasks/get').length, 0);
  // Nor can it reach for tasks/* itself: the server would answer -32021.
  await assert.rejects(
    s.client.getTask('task-1'),
    (e: unknown) => e instanceof LocalError && e.kind === 'capability' && /tasks` client option/.test(e.message),
  );
  assert.throws(() => s.client.listen({ taskIds: ['task-1'] }), /tasks` client option/);
  assert.equal(s.server.bodies('tasks/get').length, 0);
});

test("tasks: callTool polls tasks/get at the server's pace and returns the result as if it had come at once", async (t) => {
  const seen: DetailedTask[] = [];
  const clock = new WatchedClock();
  const t0 = clock.now();
  const s = await setup(
    t,
    {
      call: (_p, server) => ({
        result: server.createTask([{ status: 'working' }, { status: 'working', statusMessage: 'half way' }, done('finished')], {
          pollIntervalMs: 60,
          first: { statusMessage: 'queued' },
        }),
      }),
    },
    { clock },
  );
  const r = await onClock(clock, s.client.callTool('slow', { n: 1 }, { ontask: (t) => seen.push(t) }));
  assert.deepEqual(r, { content: [{ type: 'text', text: 'finished' }] });
  assert.equal('resultType' in r, false);
  assert.equal(s.server.bodies('tasks/get').length, 3);
  assert.deepEqual(polls(s, t0), [60, 120, 180], 'each poll 60 ms after the one before');
  assert.deepEqual(
    seen.map((t) => [t.status, t.statusMessage]),
    [
      ['working', 'queued'],
      ['working', undefined],
      ['working', 'half way'],
      ['completed', undefined],
    ],
  );
  assert.equal('resultType' in seen[0], false);
  const taskId = seen[0].taskId;
  for (const b of s.server.bodies('tasks/get')) assert.equal(b.params.taskId, taskId);
});

test("tasks: the server's poll interval is kept within the configured bounds", async (t) => {
  const clock = new WatchedClock();
  const t0 = clock.now();
  const s = await setup(
    t,
    { call: (_p, server) => ({ result: server.createTask([{ status: 'working' }, { status: 'working' }, done('ok')], { pollIntervalMs: 0 }) }) },
    { tasks: { minPollIntervalMs: 50, maxPollIntervalMs: 60 }, clock },
  );
  await onClock(clock, s.client.callTool('slow'));
  assert.deepEqual(polls(s, t0), [50, 100, 150], 'a 0 ms suggestion must not become a busy loop');
  const later = new WatchedClock();
  const t1 = later.now();
  const slow = await setup(
    t,
    { call: (_p, server) => ({ result: server.createTask([{ status: 'working' }, done('ok')], { pollIntervalMs: 60_000 }) }) },
    { tasks: { minPollIntervalMs: 10, maxPollIntervalMs: 40 }, clock: later },
  );
  await onClock(later, slow.client.callTool('slow'));
  assert.deepEqual(polls(slow, t1), [40, 80], 'the ceiling caps a long suggestion');
});

test('tasks: tasks/* requests carry Mcp-Name = taskId (and Mcp-Method) on HTTP', async (t) => {
  let id = '';
  const s = await setup(
    t,
    {
      call: (_p, server) => {
        const created = server.createTask([{ status: 'input_required', inputRequests: { who: form('Name?') } }, done('hi')]);
        id = created.taskId;
        return { result: created };
      },
    },
    { elicitation: () => ({ action: 'accept', content: { name: 'Ada' } }) },
  );
  await s.client.callTool('slow');
  await s.client.cancelTask(id);
  for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
    const headers = s.server.headers(method);
    assert.ok(headers.length > 0, method);
    for (const h of headers) {
      assert.equal(h['mcp-name'], id, `${method} Mcp-Name`);
      assert.equal(h['mcp-method'], method);
    }
  }
});

test("tasks: input requests are answered with the client's handlers, each key once across polls", async (t) => {
  const asked: string[] = [];
  const s = await setup(
    t,
    {
      call: (_p, server) => {
        const created = server.createTask(
          [
            { status: 'input_required', inputRequests: { first: form('First name?') } },
            // Polled again before the answer shows: the same key must not be answered twice.
            { status: 'input_required', inputRequests: { first: form('First name?') } },
          ],
          {
            onupdate: (responses, t) => {
              if ('first' in responses) {
                t.states = [
                  ...t.states.slice(0, t.gets),
                  { status: 'working' },
                  // A stale `first` still listed next to the new `second`: only `second` is new.
                  { status: 'input_required', inputRequests: { first: form('First name?'), second: form('Last name?') } },
                ];
              } else if ('second' in responses) {
                t.states = [...t.states.slice(0, t.gets), done('hello Ada Lovelace')];
              }
            },
          },
        );
        return { result: created };
      },
    },
    {
      elicitation: (params) => {
        asked.push(params.message);
        return { action: 'accept', content: { name: params.message.startsWith('First') ? 'Ada' : 'Lovelace' } };
      },
    },
  );
  const r = await s.client.callTool('slow');
  assert.deepEqual(r.content, [{ type: 'text', text: 'hello Ada Lovelace' }]);
  assert.deepEqual(asked, ['First name?', 'Last name?']);
  const tasks = [...s.server.tasks.values()];
  assert.deepEqual(tasks[0].updates, [
    { first: { action: 'accept', content: { name: 'Ada' } } },
    { second: { action: 'accept', content: { name: 'Lovelace' } } },
  ]);
  assert.ok(s.server.bodies('tasks/get').length >= 4);
});

test('tasks: an input this client cannot give fails the call and cancels the task', async (t) => {
  const s = await setup(t, {
    call: (_p, server) => ({
      result: server.createTask([
        { status: 'input_required', inputRequests: { llm: { method: 'sampling/createMessage', params: { messages: [], maxTokens: 5 } } } },
      ]),
    }),
  });
  await assert.rejects(s.client.callTool('slow'), (e: unknown) => e instanceof LocalError && e.kind === 'capability' && /sampling handler/.test(e.message));
  await received(s.server, 'tasks/cancel', 1);
  assert.equal(s.server.bodies('tasks/cancel').length, 1);
});

test('tasks: a task created already finished is read once with tasks/get, without waiting', async (t) => {
  const clock = new WatchedClock();
  const s = await setup(
    t,
    { call: (_p, server) => ({ result: server.createTask([done('instant')], { pollIntervalMs: 60_000, first: { status: 'completed' } }) }) },
    { tasks: { maxPollIntervalMs: 60_000 }, clock },
  );
  // The clock never moves: a client that slept before reading the task would never finish.
  const r = await within(s.client.callTool('slow'), 'the call, with the clock standing still');
  assert.deepEqual(r.content, [{ type: 'text', text: 'instant' }]);
  assert.equal(s.server.bodies('tasks/get').length, 1);
  assert.deepEqual(polls(s, clock.now()), [0]);
});

test('tasks: a tool error is a completed task: the result comes back with isError', async (t) => {
  const s = await setup(t, {
    call: (_p, server) => ({ result: server.createTask([{ status: 'completed', result: { content: [{ type: 'text', text: 'bad input' }], isError: true } }]) }),
  });
  const r = await s.client.callTool('slow');
  assert.deepEqual(r, { content: [{ type: 'text', text: 'bad input' }], isError: true });
});

test('tasks: a failed task rejects with its JSON-RPC error as an McpError', async (t) => {
  const s = await setup(t, {
    call: (_p, server) => ({
      result: server.createTask([
        { status: 'working' },
        { status: 'failed', statusMessage: 'rate limited', error: { code: -32603, message: 'API rate limit exceeded', data: { retryAfter: 5 } } },
      ]),
    }),
  });
  await assert.rejects(
    s.client.callTool('slow'),
    (e: unknown) =>
      e instanceof McpError && e.code === -32603 && e.message === 'API rate limit exceeded' && (e.data as { retryAfter: number }).retryAfter === 5,
  );
  assert.equal(s.server.bodies('tasks/cancel').length, 0, 'a finished task is not cancelled');
});

test('tasks: a task the server cancelled rejects with a TaskCancelledError (a LocalError)', async (t) => {
  const s = await setup(t, { call: (_p, server) => ({ result: server.createTask([{ status: 'cancelled', statusMessage: 'operator stopped it' }]) }) });
  await assert.rejects(
    s.client.callTool('slow'),
    (e: unknown) =>
      e instanceof TaskCancelledError &&
      e instanceof LocalError &&
      e.kind === 'aborted' &&
      e.task.statusMessage === 'operator stopped it' &&
      /operator stopped it/.test(e.message),
  );
  assert.equal(s.server.bodies('tasks/cancel').length, 0);
});

test('tasks: aborting the call sends tasks/cancel and rejects at once', async (t) => {
  const s = await setup(t, { call: (_p, server) => ({ result: server.createTask([{ status: 'working' }], { pollIntervalMs: 20 }) }) });
  const ctl = new AbortController();
  const call = s.client.callTool('slow', {}, { signal: ctl.signal });
  await waitFor(() => s.server.bodies('tasks/get').length >= 2, 'two tasks/get polls');
  ctl.abort(new Error('user gave up'));
  await assert.rejects(call, (e: unknown) => e instanceof LocalError && e.kind === 'aborted' && /tasks\/cancel sent.*user gave up/.test(e.message));
  await s.client.close(); // gives the best-effort tasks/cancel time to leave
  await received(s.server, 'tasks/cancel', 1);
  const cancels = s.server.bodies('tasks/cancel');
  assert.equal(cancels.length, 1);
  assert.equal(cancels[0].params.taskId, [...s.server.tasks.keys()][0]);
});

test('tasks: the request timeout applies to each poll, not to the whole task', async (t) => {
  const clock = new WatchedClock();
  const t0 = clock.now();
  const s = await setup(
    t,
    { call: (_p, server) => ({ result: server.createTask([...Array(25).fill({ status: 'working' }), done('long job')], { pollIntervalMs: 50 }) }) },
    { clock },
  );
  // Time moves only between polls (to each 50 ms wake-up), never while a poll is in flight.
  const r = await onClock(clock, s.client.callTool('slow', {}, { timeoutMs: 1000 }), 999);
  assert.equal(clock.now() - t0, 26 * 50, 'the task outlived the 1000 ms request timeout');
  assert.deepEqual(r.content, [{ type: 'text', text: 'long job' }]);
  // A poll that is never answered times out like any request, and the task is cancelled.
  const hungClock = new WatchedClock();
  const hung = await setup(
    t,
    {
      call: (_p, server) => ({ result: server.createTask([{ status: 'working' }], { pollIntervalMs: 10 }) }),
      get: (_id, server) => (server.bodies('tasks/get').length > 1 ? 'silence' : undefined),
    },
    { clock: hungClock },
  );
  const call = hung.client.callTool('slow', {}, { timeoutMs: 1000 });
  for (let n = 1; n <= 2; n++) {
    hungClock.set(await waitFor(() => hungClock.nextDue(10), `the wait before poll ${n}`));
    await received(hung.server, 'tasks/get', n);
  }
  // The second poll is unanswered: only its timeout is left to fire.
  hungClock.advance(999);
  await flush();
  assert.equal(hung.server.bodies('tasks/cancel').length, 0, 'not timed out before its 1000 ms');
  hungClock.advance(1);
  await assert.rejects(call, (e: unknown) => e instanceof LocalError && e.kind === 'timeout' && /"tasks\/get" timed out/.test(e.message));
  await received(hung.server, 'tasks/cancel', 1);
  assert.equal(hung.server.bodies('tasks/cancel').length, 1);
});

test('tasks: input_required (MRTR) before the task is created is answered first, then the task driven', async (t) => {
  const s = await setup(
    t,
    {
      call: (params, server) => {
        if (!params.inputResponses) return { result: { resultType: 'input_required', inputRequests: { ok: form('Go?') }, requestState: 'st-1' } };
        assert.equal(params.requestState, 'st-1');
        return { result: server.createTask([done(`go: ${params.inputResponses.ok.content.name}`)]) };
      },
    },
    { elicitation: () => ({ action: 'accept', content: { name: 'yes' } }) },
  );
  const r = await s.client.callTool('slow');
  assert.deepEqual(r.content, [{ type: 'text', text: 'go: yes' }]);
});

test('tasks: startToolCall hands the task over; getTask / updateTask / cancelTask / waitForTask drive it by hand', async (t) => {
  const clock = new WatchedClock();
  const s = await setup(
    t,
    {
      call: (params, server) => {
        if (params.arguments?.now) return { result: { content: [{ type: 'text', text: 'immediate' }] } };
        return {
          result: server.createTask([{ status: 'input_required', inputRequests: { who: form('Name?') } }], {
            onupdate: (_r, task) => (task.states = [...task.states.slice(0, task.gets), done('by hand')]),
          }),
        };
      },
    },
    { clock },
  );
  const immediate = await s.client.startToolCall('slow', { now: true });
  assert.notEqual(immediate.resultType, 'task');
  assert.deepEqual(immediate, { content: [{ type: 'text', text: 'immediate' }] });

  const started = await s.client.startToolCall('slow');
  assert.equal(started.resultType, 'task');
  if (started.resultType !== 'task') return;
  assert.equal(started.status, 'working');
  // Driving would start at once (a poll, or a wait on the clock before it): let that happen if it would.
  await flush();
  assert.equal(clock.nextDue(59_999), undefined, 'no wait before a poll is armed');
  assert.equal(polls(s, 0).length, 0, 'a handed-over task is not polled');

  const now = await s.client.getTask(started.taskId);
  assert.equal(now.status, 'input_required');
  assert.equal('resultType' in now, false);
  assert.deepEqual(Object.keys(now.inputRequests ?? {}), ['who']);
  await s.client.updateTask(started.taskId, { who: { action: 'accept', content: { name: 'me' } } });
  const r = await onClock(clock, s.client.waitForTask(started.taskId));
  assert.deepEqual(r, { content: [{ type: 'text', text: 'by hand' }] });

  // waitForTask also takes the CreateTaskResult itself.
  const again = await s.client.startToolCall('slow');
  if (again.resultType !== 'task') throw new Error('expected a task');
  await s.client.cancelTask(again.taskId);
  await assert.rejects(onClock(clock, s.client.waitForTask(again)), TaskCancelledError);

  await assert.rejects(s.client.getTask('no-such-task'), (e: unknown) => e instanceof McpError && e.code === -32602);
});

test('tasks: listen({ taskIds }) delivers notifications/tasks, and they wake a waiting poller', async (t) => {
  const clock = new WatchedClock();
  let id = '';
  const s = await setup(
    t,
    {
      call: (_p, server) => {
        const created = server.createTask([{ status: 'working' }], { pollIntervalMs: 10_000 });
        id = created.taskId;
        return { result: created };
      },
    },
    { tasks: { listen: true, maxPollIntervalMs: 60_000 }, clock },
  );
  const seen: Array<{ method: string; status?: string }> = [];
  const on: string[] = [];
  s.client.on('notifications/tasks', (p) => on.push(String(p?.status)));
  const call = s.client.callTool('slow');
  await waitFor(() => id && s.server.bodies('subscriptions/listen').length > 0, 'the task id and the listen request');
  const sub = s.client.listen({ taskIds: [id] }, (n) => seen.push({ method: n.method, status: n.params?.status as string }));
  assert.deepEqual(await sub.acknowledged, { taskIds: [id] });
  // The poller is asleep for its 10 s (the poll its own stream's acknowledgement triggers may come first).
  await waitFor(() => clock.nextDue(10_000) !== undefined && s.server.bodies('tasks/get').length === polls(s, 0).length, 'the poller to sleep');
  const gets = s.server.bodies('tasks/get').length;
  const finished = done('woken');
  s.server.tasks.get(id)!.states = [finished];
  assert.equal(s.server.notify({ taskId: id, ...finished }), 2);
  // The clock stands still: only the notification can end the 10 s wait.
  const r = await within(call, 'the call, woken by the notification');
  assert.deepEqual(r.content, [{ type: 'text', text: 'woken' }]);
  assert.equal(s.server.bodies('tasks/get').length, gets + 1, 'one poll, on the notification');
  assert.deepEqual(seen, [{ method: 'notifications/tasks', status: 'completed' }]);
  assert.deepEqual(on, ['completed', 'completed']);
  assert.deepEqual(s.server.bodies('subscriptions/listen')[0].params.notifications, { taskIds: [id] });
  await sub.close();
});

test('tasks: startToolCall sends the request _meta it is given, and still hands the task over', async (t) => {
  const clock = new WatchedClock();
  const metas: unknown[] = [];
  const s = await setup(
    t,
    {
      call: (params, server) => {
        metas.push((params as { _meta?: unknown })._meta);
        return { result: server.createTask([done('traced')]) };
      },
    },
    { clock },
  );
  const started = await s.client.startToolCall('slow', {}, {}, { 'example.com/trace': 't-1' });
  assert.equal(started.resultType, 'task');
  assert.equal((metas[0] as Record<string, unknown> | undefined)?.['example.com/trace'], 't-1');
  await flush();
  assert.equal(polls(s, 0).length, 0, 'a handed-over task is not polled');
});
