// Shared helpers for the tasks extension tests (not a test file itself).
import assert from 'node:assert/strict';
import type { Wire } from './helpers.js';

export const EXT = 'io.modelcontextprotocol/tasks';
/** Capabilities that declare the tasks extension (and elicitation, which most task tools use). */
export const TASKS = { extensions: { [EXT]: {} }, elicitation: {} };
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A settable gate: handlers await `wait()`, the test calls `open()`. */
export function gate(): { wait: () => Promise<void>; open: () => void } {
  let open!: () => void;
  const p = new Promise<void>((r) => (open = r));
  return { wait: () => p, open };
}

/** Polls tasks/get until `pred` holds (2 s at most) and returns that task. */
export async function until(w: Wire, taskId: string, pred: (t: Record<string, any>) => boolean, caps: Record<string, unknown> = TASKS): Promise<Record<string, any>> {
  const deadline = Date.now() + 2000;
  for (;;) {
    const t = await w.result('tasks/get', { taskId }, caps);
    if (pred(t)) return t;
    if (Date.now() > deadline) throw new Error(`task ${taskId} never matched; last: ${JSON.stringify(t)}`);
    await sleep(5);
  }
}

/** Waits for a terminal status. */
export function settled(w: Wire, taskId: string, caps: Record<string, unknown> = TASKS): Promise<Record<string, any>> {
  return until(w, taskId, (t) => t.status === 'completed' || t.status === 'failed' || t.status === 'cancelled', caps);
}

/** Asserts a CreateTaskResult's exact wire shape and returns its taskId. */
export function assertCreated(r: Record<string, any>, ttlMs: number | null, pollIntervalMs: number): string {
  assert.equal(r.resultType, 'task', JSON.stringify(r));
  assert.deepEqual(Object.keys(r).sort(), ['_meta', 'createdAt', 'lastUpdatedAt', 'pollIntervalMs', 'resultType', 'status', 'taskId', 'ttlMs']);
  assert.match(r.taskId, UUID);
  assert.equal(r.status, 'working');
  assert.match(r.createdAt, ISO);
  assert.match(r.lastUpdatedAt, ISO);
  assert.equal(r.ttlMs, ttlMs);
  assert.equal(r.pollIntervalMs, pollIntervalMs);
  return r.taskId as string;
}
