// The Tasks panel end to end in headless Chromium, against real servers running real tasks: the
// demo server's build_report over HTTP (2026-07-28 tasks extension: a long-running task polled to
// its result, another one cancelled), task tools over HTTP (a task that asks for input: the
// question in the dialog, the answer sent with tasks/update), and the same tools over stdio in
// the handshake era at 2025-11-25 (core tasks: a required tool called as a task, its question on
// the tasks/result stream, an optional tool run as a task on request, tasks/list, cancel), and a
// task followed by its id. Every wait is on what the page shows or the server was sent.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { serve, type RunningServer } from '../../src/serving/node.js';
import type { TimelineEntry } from '../../src/studio/api-types.js';
import type { RunningStudio } from '../../src/studio/http.js';
import { resolveTarget } from '../../src/pool/targets.js';
import { ROOT, TSX } from '../cli/helpers.js';
import { taskToolsServer, type TaskToolLog } from '../fixtures/tasks-tools.js';
import { startDemoHttp, waitFor } from '../support/index.js';
import { launchChromium, startTestStudio } from './helpers.js';

const SHOTS = join(ROOT, '.artifacts', 'studio');
const TASKS_LINE = `"${process.execPath}" --import ${TSX} "${join(ROOT, 'test/fixtures/tasks-tools.ts')}"`;

describe('mcpkit studio: tasks', () => {
  let demo: RunningServer;
  let tasks: RunningServer;
  let log: TaskToolLog;
  let studio: RunningStudio;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    const tools = taskToolsServer(100);
    log = tools.log;
    [demo, tasks] = await Promise.all([startDemoHttp(), serve(tools.mcp, { port: 0 })]);
    const t = (spec: string) => resolveTarget(spec, { cwd: ROOT });
    studio = await startTestStudio({
      servers: [
        { name: 'demo', origin: 'command-line', target: t(demo.url) },
        { name: 'tasks', origin: 'command-line', target: t(tasks.url) },
        { name: 'tasks-core', origin: 'command-line', target: t(TASKS_LINE), settings: { era: 'handshake' } },
      ],
    });
    await studio.ready;
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1360, height: 860 } });
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.goto(studio.url);
    for (const name of ['demo', 'tasks', 'tasks-core']) await page.waitForSelector(`[data-server="${name}"][data-state="connected"]`);
  });
  after(async () => {
    await browser?.close();
    await studio?.close();
    await Promise.all([demo?.close(), tasks?.close()]);
  });

  const shot = (name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`) });
  const sent = (server: string, method: string): TimelineEntry[] =>
    studio.hub.timeline.since(0, 100_000).filter((e) => e.server === server && e.dir === 'out' && e.method === method && e.kind !== 'response');

  async function openTool(server: string, tool: string): Promise<void> {
    await page.click(`[data-server="${server}"]`);
    await page.click('[data-tab="tools"]');
    await page.fill('[aria-label="Filter tools"]', tool);
    await page.click(`[data-tool="${tool}"]`);
    await page.waitForSelector(`.tool-detail h2:has-text("${tool}")`);
  }

  /** Calls the open tool; the server makes a task of it: its id, as the page shows it. */
  async function callAsTask(): Promise<string> {
    await page.click('button:has-text("Call tool")');
    const id = await page.waitForSelector('.task-outcome code');
    return (await id.textContent()) ?? '';
  }

  async function openTask(server: string, taskId: string): Promise<void> {
    await page.click(`[data-server="${server}"]`);
    await page.click('[data-tab="tasks"]');
    await page.click(`[data-task="${taskId}"]`);
    await page.waitForSelector(`[data-task-detail="${taskId}"]`);
  }

  test('a long-running task (demo build_report, 2026-07-28): polled to its result', async () => {
    await openTool('demo', 'build_report');
    await page.fill('[name="seconds"]', '2');
    const id = await callAsTask();
    assert.ok(id.length > 0);
    await page.waitForSelector('.task-outcome [data-task-status="working"]');
    await page.waitForSelector('.task-outcome [data-task-status="completed"]');
    await page.waitForSelector('.task-outcome .outcome:has-text("Report ready after 2 s.")');
    await page.click('.task-outcome a:has-text("open in Tasks")');
    await page.waitForSelector('[data-tab="tasks"][aria-selected="true"]');
    await page.click(`[data-task="${id}"]`);
    const detail = await page.waitForSelector(`[data-task-detail="${id}"]:has-text("Report ready after 2 s.")`);
    assert.match((await detail.textContent()) ?? '', /2026-07-28 tasks extension/);
    assert.ok(sent('demo', 'tasks/get').length >= 1, 'the studio never polled');
    await shot('tasks');
  });

  test('a running task cancelled from the panel (tasks/cancel)', async () => {
    await openTool('demo', 'build_report');
    await page.fill('[name="seconds"]', '60');
    const id = await callAsTask();
    await openTask('demo', id);
    await page.click(`[data-task-detail="${id}"] button:has-text("Cancel the task")`);
    await page.waitForSelector(`[data-task-detail="${id}"] h2 [data-task-status="cancelled"]`);
    assert.equal(sent('demo', 'tasks/cancel').length, 1);
  });

  test('a task that asks for input (2026-07-28): the question in the dialog, the answer sent with tasks/update', async () => {
    await openTool('tasks', 'confirm');
    const id = await callAsTask();
    const dialog = await page.waitForSelector('[role="dialog"][data-input-kind="elicitation"]:has-text("Sure?")');
    await (await dialog.$('[name="ok"]'))!.selectOption('true');
    await page.click('[role="dialog"] button:has-text("Accept")');
    await page.waitForSelector('.task-outcome .outcome:has-text("confirmed: true")');
    const updates = sent('tasks', 'tasks/update');
    assert.equal(updates.length, 1);
    assert.equal((updates[0].message as any).params.taskId, id);
    const answer = Object.values((updates[0].message as any).params.inputResponses)[0] as any;
    assert.deepEqual(answer, { action: 'accept', content: { ok: true } });
    await openTask('tasks', id);
    await page.waitForSelector(`[data-task-detail="${id}"] .answered-keys .badge`);
  });

  test('core tasks (2025-11-25, stdio): a required tool as a task, its question on tasks/result; an optional one on request', async () => {
    await openTool('tasks-core', 'confirm');
    const id = await callAsTask();
    const dialog = await page.waitForSelector('[role="dialog"][data-input-kind="elicitation"]:has-text("Sure?")');
    await (await dialog.$('[name="ok"]'))!.selectOption('false');
    await page.click('[role="dialog"] button:has-text("Accept")');
    await page.waitForSelector('.task-outcome .outcome:has-text("confirmed: false")');
    const call = sent('tasks-core', 'tools/call').at(-1)!;
    assert.deepEqual((call.message as any).params.task, {}, 'the call was not task-augmented');
    assert.equal(call.era, 'handshake');
    assert.deepEqual((sent('tasks-core', 'tasks/result')[0].message as any).params, { taskId: id });
    // An optional tool runs as a task only when asked.
    await openTool('tasks-core', 'compute');
    await page.fill('[name="ms"]', '50');
    await page.check('[name="as-task"]');
    await callAsTask();
    await page.waitForSelector('.task-outcome .outcome:has-text("computed in 50 ms")');
    await page.uncheck('[name="as-task"]');
    await page.click('button:has-text("Call tool")');
    await page.waitForSelector('.outcome:not(.task-outcome):has-text("computed in 50 ms")');
    assert.equal((sent('tasks-core', 'tools/call').at(-1)!.message as any).params.task, undefined);
  });

  test('core tasks: tasks/list finds them; a running one cancelled', async () => {
    await openTool('tasks-core', 'forever');
    await page.fill('[name="label"]', 'core-cancel');
    const id = await callAsTask();
    await openTask('tasks-core', id);
    await page.click('button:has-text("List the server\'s tasks (tasks/list)")');
    const note = await page.waitForSelector('[role="status"]:has-text("tasks/list:")');
    assert.ok(Number(/(\d+) task/.exec((await note.textContent()) ?? '')?.[1]) >= 3, (await note.textContent()) ?? '');
    await page.click(`[data-task-detail="${id}"] button:has-text("Cancel the task")`);
    await page.waitForSelector(`[data-task-detail="${id}"] h2 [data-task-status="cancelled"]`);
    assert.ok(sent('tasks-core', 'tasks/cancel').length >= 1);
    await shot('tasks-core');
  });

  test('a task followed by its id, then cancelled (2026-07-28)', async () => {
    const created = (await studio.hub.client('tasks')!.startToolCall('forever', { label: 'by-id' })) as unknown as { taskId: string; resultType: string };
    assert.equal(created.resultType, 'task');
    await page.click('[data-server="tasks"]');
    await page.click('[data-tab="tasks"]');
    await page.fill('[name="task-id"]', created.taskId);
    await page.click('.task-tools button:has-text("Follow")');
    await page.waitForSelector(`[data-task-detail="${created.taskId}"] h2 [data-task-status="working"]`);
    await page.click(`[data-task-detail="${created.taskId}"] button:has-text("Cancel the task")`);
    await page.waitForSelector(`[data-task-detail="${created.taskId}"] h2 [data-task-status="cancelled"]`);
    await waitFor(() => log.aborted.includes('by-id'), 'the task handler to see its cancellation');
  });

  test('no error in the page', () => {
    assert.deepEqual(pageErrors, []);
  });
});
