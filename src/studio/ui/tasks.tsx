// The Tasks panel: every task the studio follows (a tool call the server ran as a task, a task
// followed by its id, the tasks a 2025-11-25 server lists), its status as the studio polls it,
// the questions it waits on (put to you in the dialog, answered with tasks/update), its result or
// error, Poll now, Cancel. Both flavours: the 2026-07-28 tasks extension and 2025-11-25 core tasks.
import { useCallback, useMemo, useState } from 'preact/hooks';
import type { CallOutcome, ServerView, TaskView } from '../api-types.js';
import { post, serverPath } from './api.js';
import { Json, Outcome } from './content.js';
import { taskKey, useStudio } from './store.js';

const FLAVOUR: Record<TaskView['flavour'], string> = {
  extension: '2026-07-28 tasks extension: polled with tasks/get, its questions answered with tasks/update',
  core: '2025-11-25 core tasks: polled with tasks/get; its questions and its result come on one tasks/result request',
};

/** From its creation to its last update, as the server stamped them. */
function lifetime(t: TaskView): number {
  const ms = Date.parse(t.lastUpdatedAt ?? '') - Date.parse(t.createdAt ?? '');
  return Number.isFinite(ms) && ms >= 0 ? ms : 0;
}

const ago = (t: number | undefined) => (t === undefined ? '' : `${Math.max(0, Math.round((Date.now() - t) / 1000))} s ago`);

export function StatusBadge({ task }: { task: TaskView }) {
  const cls =
    task.status === 'completed' ? 'good' : task.status === 'failed' || task.status === 'cancelled' ? 'bad' : task.status === 'input_required' ? 'warn' : '';
  return (
    <span class={`badge ${cls}`} data-task-status={task.status}>
      {task.status}
    </span>
  );
}

async function act(task: TaskView, what: 'poll' | 'cancel' | 'dismiss'): Promise<string | undefined> {
  try {
    const r = await post<{ error?: { message: string } }>(serverPath(task.server, `tasks/${what}`), { taskId: task.taskId });
    return r.error?.message;
  } catch (e) {
    return (e as Error).message;
  }
}

export function TasksPanel({ server }: { server: ServerView | undefined }) {
  const tasks = useStudio(useCallback((s) => s.tasks, []));
  const [all, setAll] = useState(true);
  const [chosen, setChosen] = useState<string | undefined>();
  const [byId, setById] = useState('');
  const [note, setNote] = useState<string | undefined>();
  const list = useMemo(
    () =>
      Object.values(tasks)
        .filter((t) => all || t.server === server?.name)
        .sort((a, b) => b.since - a.since),
    [tasks, all, server?.name],
  );
  const task = chosen ? tasks[chosen] : undefined;
  const core = server?.era === 'handshake' && server.protocolVersion === '2025-11-25' && !!(server.capabilities?.tasks as { list?: unknown } | undefined)?.list;

  const follow = async () => {
    if (!server || byId.trim() === '') return;
    setNote(undefined);
    const r = await post<{ result?: TaskView; error?: { message: string } }>(serverPath(server.name, 'tasks/follow'), { taskId: byId.trim() }).catch(
      (e: Error) => ({ error: { message: e.message }, result: undefined }),
    );
    if (r.result) {
      setChosen(taskKey(r.result.server, r.result.taskId));
      setById('');
    } else setNote(r.error?.message);
  };
  const listOnServer = async () => {
    if (!server) return;
    setNote(undefined);
    const r = await post<{ result?: TaskView[]; error?: { message: string } }>(serverPath(server.name, 'tasks/list')).catch((e: Error) => ({
      error: { message: e.message },
      result: undefined,
    }));
    setNote(r.result ? `tasks/list: ${r.result.length} task${r.result.length === 1 ? '' : 's'} on ${server.name}` : r.error?.message);
  };

  return (
    <div class="split">
      <div class="list-pane">
        <div class="task-tools">
          <label class="small-print">
            <input type="checkbox" checked={all} onChange={(e) => setAll((e.currentTarget as HTMLInputElement).checked)} /> every server
          </label>
          {server ? (
            <div class="inline-form">
              <input
                type="text"
                name="task-id"
                aria-label="Task id to follow"
                placeholder={`a task id of ${server.name}`}
                value={byId}
                onInput={(e) => setById((e.currentTarget as HTMLInputElement).value)}
              />
              <button type="button" class="small" onClick={() => void follow()}>
                Follow
              </button>
            </div>
          ) : null}
          {core ? (
            <button type="button" class="small" onClick={() => void listOnServer()}>
              List the server's tasks (tasks/list)
            </button>
          ) : null}
          {note ? (
            <div class="muted small-print" role="status">
              {note}
            </div>
          ) : null}
        </div>
        {list.length === 0 ? (
          <p class="muted">
            No task yet. Call a tool the server runs as a task (the studio declares the 2026-07-28 tasks extension; in 2025-11-25 sessions, tools that require
            tasks or allow them when asked), or follow one by its id.
          </p>
        ) : (
          <ul class="task-list" aria-label="Tasks">
            {list.map((t) => {
              const key = taskKey(t.server, t.taskId);
              return (
                <li key={key}>
                  <button type="button" class={`task-row${key === chosen ? ' selected' : ''}`} data-task={t.taskId} onClick={() => setChosen(key)}>
                    <StatusBadge task={t} /> <strong>{t.tool ?? 'task'}</strong> <span class="muted">{t.server}</span>
                    <div class="row-sub">
                      <code>{t.taskId}</code> {t.asking.length > 0 ? <span class="badge warn">waiting for you</span> : null}
                    </div>
                  </button>
                </li>
              );
            })}
          </ul>
        )}
      </div>
      <div class="detail-pane">{task ? <TaskDetail key={chosen} task={task} /> : <p class="muted">Choose a task.</p>}</div>
    </div>
  );
}

function TaskDetail({ task }: { task: TaskView }) {
  const [error, setError] = useState<string | undefined>();
  const run = async (what: 'poll' | 'cancel' | 'dismiss') => setError(await act(task, what));
  const over = task.status === 'completed' || task.status === 'failed' || task.status === 'cancelled';
  const took = lifetime(task);
  const outcome: CallOutcome | undefined = task.result
    ? { result: task.result, durationMs: took }
    : task.error
      ? { error: task.error, durationMs: took, cancelled: task.status === 'cancelled' }
      : undefined;
  return (
    <div class="task-detail" data-task-detail={task.taskId}>
      <h2>
        {task.tool ?? 'Task'} <StatusBadge task={task} />
      </h2>
      <div class="muted small-print">{FLAVOUR[task.flavour]}</div>
      {task.statusMessage ? <p class="desc">{task.statusMessage}</p> : null}
      <dl class="facts">
        <dt>Task</dt>
        <dd>
          <code>{task.taskId}</code> on {task.server}
        </dd>
        {task.arguments ? (
          <>
            <dt>Arguments</dt>
            <dd>
              <code>{JSON.stringify(task.arguments)}</code>
            </dd>
          </>
        ) : null}
        <dt>Created</dt>
        <dd>{task.createdAt ?? '?'}</dd>
        <dt>Updated</dt>
        <dd>{task.lastUpdatedAt ?? '?'}</dd>
        <dt>Kept for</dt>
        <dd>{task.ttlMs === null ? 'no limit' : task.ttlMs !== undefined ? `${Math.round(task.ttlMs / 1000)} s after creation` : '?'}</dd>
        <dt>Polled</dt>
        <dd data-testid="task-polls">
          {task.polls} time{task.polls === 1 ? '' : 's'} {task.polledAt ? `· last ${ago(task.polledAt)}` : ''}
          {task.pollIntervalMs !== undefined ? <span class="muted"> · the server suggests every {task.pollIntervalMs} ms</span> : null}
          <span class="badge">{task.following ? 'following' : over ? 'over' : 'not followed'}</span>
        </dd>
      </dl>
      {task.problem ? <div class="warn-text">{task.problem}</div> : null}
      {task.inputRequests ? (
        <section>
          <div class="section-title">Waiting for input (input_required)</div>
          {Object.entries(task.inputRequests).map(([key, req]) => (
            <div key={key} class="input-request">
              <span class="badge">{key}</span> <code>{req.method}</code>{' '}
              {task.asking.includes(key) ? (
                <span class="badge warn">asked of you now (the dialog)</span>
              ) : task.answered.includes(key) ? (
                <span class="badge good">answered</span>
              ) : null}
              <Json value={req.params} />
            </div>
          ))}
        </section>
      ) : null}
      {task.answered.length > 0 ? (
        <div class="answered-keys">
          Answered with tasks/update:{' '}
          {task.answered.map((k) => (
            <span key={k} class="badge good">
              {k}
            </span>
          ))}
        </div>
      ) : null}
      <div class="actions">
        <button type="button" onClick={() => void run('poll')}>
          Poll now
        </button>
        <button type="button" class="danger" disabled={over} onClick={() => void run('cancel')}>
          Cancel the task
        </button>
        <button type="button" class="link" onClick={() => void run('dismiss')}>
          Remove from the list
        </button>
      </div>
      {error ? <div class="error-text">{error}</div> : null}
      {outcome ? (
        <section>
          <div class="section-title">{task.result ? 'Result' : 'Error'}</div>
          <Outcome outcome={outcome} />
        </section>
      ) : over && task.following ? (
        <p class="muted">Over; its result is being read…</p>
      ) : null}
    </div>
  );
}

/** A call the server made a task of, in the Tools panel: its live status, and its result once over. */
export function TaskFollow({ task: first }: { task: TaskView }) {
  const task = useStudio(useCallback((s) => s.tasks[taskKey(first.server, first.taskId)] ?? first, [first]));
  return (
    <div class="outcome task-outcome" role="status">
      <div class="outcome-head">
        <span class="badge">task</span> <StatusBadge task={task} /> <code>{task.taskId}</code>
        <a class="link" href={`#${encodeURIComponent(task.server)}/tasks`}>
          open in Tasks
        </a>
      </div>
      {task.statusMessage ? <div class="muted">{task.statusMessage}</div> : null}
      {task.asking.length > 0 ? <div class="warn-text">It waits for your answer (the dialog).</div> : null}
      {task.result ? <Outcome outcome={{ result: task.result, durationMs: lifetime(task) }} /> : null}
      {task.error ? <Outcome outcome={{ error: task.error, durationMs: lifetime(task), cancelled: task.status === 'cancelled' }} /> : null}
    </div>
  );
}
