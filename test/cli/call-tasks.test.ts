// `mcpkit call` against a 2026-07-28 server that runs tool calls as tasks (scripted, over real
// HTTP): the CLI opts in, follows the task with its status on stderr, prints the result, turns
// a failed task into exit 1, cancels the task on Ctrl-C, and stays out of tasks with --no-tasks.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { CAPS, startTaskServer, TASKS, type TaskServer } from '../fixtures/tasks-server.js';
import { cleanEnv, CLI, mcpkit, ROOT, TSX } from './helpers.js';
import { waitFor, patient } from '../support/index.js';

let server: TaskServer;

before(async () => {
  server = await startTaskServer({
    call: (params, s) => {
      if (!params._meta?.[CAPS]?.extensions?.[TASKS]) return { result: { content: [{ type: 'text', text: 'answered at once' }] } };
      const mode = params.arguments?.mode;
      if (mode === 'fail')
        return {
          result: s.createTask([{ status: 'failed', statusMessage: 'boom', error: { code: -32603, message: 'the job crashed' } }], { pollIntervalMs: 20 }),
        };
      if (mode === 'forever') return { result: s.createTask([{ status: 'working', statusMessage: 'still going' }], { pollIntervalMs: 20 }) };
      return {
        result: s.createTask(
          [
            { status: 'working', statusMessage: 'step 1 of 2' },
            { status: 'working', statusMessage: 'step 2 of 2' },
            { status: 'completed', result: { content: [{ type: 'text', text: 'all done' }] } },
          ],
          { pollIntervalMs: 20, first: { statusMessage: 'queued' } },
        ),
      };
    },
  });
});
after(async () => {
  await server?.close();
});

test('mcpkit call follows a task: status lines on stderr, the result on stdout', async () => {
  const r = await mcpkit(['call', server.url, 'slow']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, 'all done\n');
  const id = [...server.tasks.keys()].at(-1)!;
  const lines = r.stderr.split('\n').filter((l) => l.startsWith('task '));
  assert.deepEqual(lines, [`task ${id} working: queued`, `task ${id} working: step 1 of 2`, `task ${id} working: step 2 of 2`, `task ${id} completed`]);
  assert.ok(server.bodies('tasks/get').length >= 3);
});

test('mcpkit call --json prints the final CallToolResult, not the task', async () => {
  const r = await mcpkit(['call', server.url, 'slow', '--json']);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), { content: [{ type: 'text', text: 'all done' }] });
});

test('mcpkit call: a failed task exits 1 with its JSON-RPC error', async () => {
  const r = await mcpkit(['call', server.url, 'slow', 'mode=fail']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /task \S+ failed: boom/);
  assert.match(r.stderr, /✖ JSON-RPC error -32603: the job crashed/);
});

test('mcpkit call --no-tasks does not declare the extension', async () => {
  const r = await mcpkit(['call', server.url, 'slow', '--no-tasks']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, 'answered at once\n');
  assert.doesNotMatch(r.stderr, /^task /m);
});

test('mcpkit call: Ctrl-C cancels the running task (tasks/cancel) and exits 130', async () => {
  const before = server.bodies('tasks/cancel').length;
  const child = spawn(process.execPath, [...CLI, 'call', server.url, 'slow', 'mode=forever'], { cwd: ROOT, env: cleanEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c));
  const code = new Promise<number | null>((resolve) => child.on('close', resolve));
  await waitFor(() => /still going/.test(stderr), { what: 'the task status on stderr', timeoutMs: patient(30_000) });
  child.kill('SIGINT');
  assert.equal(await code, 130, stderr);
  const cancels = server.bodies('tasks/cancel').slice(before);
  assert.equal(cancels.length, 1, stderr);
  assert.equal(cancels[0].params.taskId, [...server.tasks.keys()].at(-1));
});

test('mcpkit call --era handshake at 2025-11-25 drives core tasks (SEP-1686) of an mcpkit server', async () => {
  const target = `"${process.execPath}" --import ${TSX} "${ROOT}/test/fixtures/tasks-tools.ts"`;
  const common = ['--era', 'handshake', '--protocol-version', '2025-11-25'];
  // 'optional': the CLI takes tasks, so the call is augmented and followed with tasks/result.
  const r = await mcpkit(['call', target, 'compute', 'ms=5', ...common]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, 'computed in 5 ms\n');
  assert.match(r.stderr, /^task \S+ working$/m);
  assert.match(r.stderr, /^task \S+ completed$/m);
  // 'required': a plain call would be -32601; the tool's own error result comes back instead.
  const e = await mcpkit(['call', target, 'tool_error', ...common]);
  assert.equal(e.code, 1);
  assert.match(e.stderr, /Tool "tool_error" returned an error/);
  assert.match(e.stderr, /bad input/);
  assert.doesNotMatch(e.stderr, /-32601/);
});
