// Shared helpers for the tasks extension tests (not a test file itself).
import assert from 'node:assert/strict';
import type { Wire } from './helpers.js';
import { deferred, waitFor } from '../../support/index.js';

export const EXT = 'io.modelcontextprotocol/tasks';
/** Capabilities that declare the tasks extension (and elicitation, which most task tools use). */
export const TASKS = { extensions: { [EXT]: {} }, elicitation: {} };
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** A settable gate: handlers await `wait()`, the test calls `open()`. */
export function gate(): { wait: () => Promise<void>; open: () => void } {
  const d = deferred();
  return { wait: () => d.promise, open: () => d.resolve() };
}

/** Polls tasks/get until `pred` holds and returns that task. */
export async function taskWhere(
  w: Wire,
  taskId: string,
  pred: (t: Record<string, any>) => boolean,
  caps: Record<string, unknown> = TASKS,
): Promise<Record<string, any>> {
  let last: Record<string, any> | undefined;
  return waitFor(
    async () => {
      last = await w.result('tasks/get', { taskId }, caps);
      return pred(last) ? last : undefined;
    },
    { what: `task ${taskId} to match (last: ${JSON.stringify(last)})` },
  );
}

/** Waits for a terminal status. */
export function settled(w: Wire, taskId: string, caps: Record<string, unknown> = TASKS): Promise<Record<string, any>> {
  return taskWhere(w, taskId, (t) => t.status === 'completed' || t.status === 'failed' || t.status === 'cancelled', caps);
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
