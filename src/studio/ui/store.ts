// What the page knows, fed by the event stream: one mutable store, and a hook that re-renders a
// component when the part it selects changes. Changes are announced once per animation frame,
// so a burst of 1,000 messages costs one render.
import { useEffect, useReducer, useRef } from 'preact/hooks';
import type { PendingInput, PendingTarget, ServerView, StudioEvents, StudioState, TaskView, TimelineEntry } from '../api-types.js';

export interface LogLine {
  server: string;
  level: string;
  logger?: string;
  data: unknown;
  time: number;
}

export interface UiState {
  up: boolean;
  why: string | undefined;
  state: StudioState | undefined;
  timeline: TimelineEntry[];
  /** Bumped on every timeline change (the array is appended to in place). */
  timelineVersion: number;
  progress: Record<string, { progress: number; total?: number; message?: string }>;
  /** Per server, bumped when its tools, prompts or resources changed (list_changed). */
  lists: Record<string, { tools: number; prompts: number; resources: number }>;
  /** `server uri` → time of the last notifications/resources/updated. */
  updates: Record<string, number>;
  logs: LogLine[];
  /** The tasks the studio follows, by `server\ntaskId` (see taskKey). */
  tasks: Record<string, TaskView>;
}

export const taskKey = (server: string, taskId: string) => `${server}\n${taskId}`;

/** Timeline entries kept in the page (the studio keeps more; older ones are fetched by seq). */
const PAGE_TIMELINE = 20_000;
const LOG_LINES = 500;

export const store: UiState = {
  up: false,
  why: undefined,
  state: undefined,
  timeline: [],
  timelineVersion: 0,
  progress: {},
  lists: {},
  updates: {},
  logs: [],
  tasks: {},
};

const listeners = new Set<() => void>();
let scheduled = false;

export function changed(): void {
  if (scheduled) return;
  scheduled = true;
  requestAnimationFrame(() => {
    scheduled = false;
    for (const l of [...listeners]) l();
  });
}

/** The part of the store `select` picks; the component re-renders when it changes (Object.is). */
export function useStudio<T>(select: (s: UiState) => T): T {
  const [, bump] = useReducer((n: number) => n + 1, 0);
  const last = useRef<T>(select(store));
  last.current = select(store);
  useEffect(() => {
    const l = () => {
      if (!Object.is(select(store), last.current)) bump(0);
    };
    listeners.add(l);
    return () => void listeners.delete(l);
  }, [select]);
  return last.current;
}

function replaceServer(v: ServerView): void {
  const st = store.state;
  if (!st) return;
  const i = st.servers.findIndex((s) => s.name === v.name);
  const servers = [...st.servers];
  if (i >= 0) servers[i] = v;
  else servers.push(v);
  store.state = { ...st, servers };
}

function bumpList(server: string, what: 'tools' | 'prompts' | 'resources'): void {
  const cur = store.lists[server] ?? { tools: 0, prompts: 0, resources: 0 };
  store.lists = { ...store.lists, [server]: { ...cur, [what]: cur[what] + 1 } };
}

function pushEntries(entries: TimelineEntry[]): void {
  store.timeline.push(...entries);
  if (store.timeline.length > PAGE_TIMELINE) store.timeline.splice(0, store.timeline.length - PAGE_TIMELINE);
  store.timelineVersion++;
}

/** Panels that follow events of their own (the chat's) listen here; `apply` tells them first. */
export const eventListeners = new Set<<E extends keyof StudioEvents>(event: E, data: StudioEvents[E]) => void>();

export function apply<E extends keyof StudioEvents>(event: E, data: StudioEvents[E]): void {
  for (const l of eventListeners) l(event, data);
  const st = store.state;
  switch (event) {
    case 'snapshot': {
      const d = data as StudioEvents['snapshot'];
      store.state = d.state;
      store.tasks = Object.fromEntries((d.state.tasks ?? []).map((t) => [taskKey(t.server, t.taskId), t]));
      store.timeline = [];
      pushEntries(d.timeline);
      break;
    }
    case 'server':
      replaceServer(data as ServerView);
      break;
    case 'server-removed':
      if (st) store.state = { ...st, servers: st.servers.filter((s) => s.name !== (data as { name: string }).name) };
      break;
    case 'message':
      pushEntries([data as TimelineEntry]);
      break;
    case 'progress': {
      const p = data as StudioEvents['progress'];
      store.progress = { ...store.progress, [p.callId]: p };
      break;
    }
    case 'input':
      if (st) store.state = { ...st, inputs: [...st.inputs.filter((i) => i.id !== (data as PendingInput).id), data as PendingInput] };
      break;
    case 'input-done':
      if (st) store.state = { ...st, inputs: st.inputs.filter((i) => i.id !== (data as { id: string }).id) };
      break;
    case 'target-pending':
      if (st) store.state = { ...st, pendingTargets: [...st.pendingTargets.filter((p) => p.id !== (data as PendingTarget).id), data as PendingTarget] };
      break;
    case 'target-done':
      if (st) store.state = { ...st, pendingTargets: st.pendingTargets.filter((p) => p.id !== (data as { id: string }).id) };
      break;
    case 'task': {
      const t = data as TaskView;
      store.tasks = { ...store.tasks, [taskKey(t.server, t.taskId)]: t };
      break;
    }
    case 'task-removed': {
      const { [taskKey((data as { server: string }).server, (data as { taskId: string }).taskId)]: _gone, ...rest } = store.tasks;
      store.tasks = rest;
      break;
    }
    case 'roots':
      if (st) store.state = { ...st, roots: (data as StudioEvents['roots']).roots };
      break;
    case 'notification': {
      const n = data as StudioEvents['notification'];
      const params = (n.params ?? {}) as Record<string, unknown>;
      if (n.method === 'notifications/tools/list_changed') bumpList(n.server, 'tools');
      else if (n.method === 'notifications/prompts/list_changed') bumpList(n.server, 'prompts');
      else if (n.method === 'notifications/resources/list_changed') bumpList(n.server, 'resources');
      else if (n.method === 'notifications/resources/updated') store.updates = { ...store.updates, [`${n.server} ${String(params.uri)}`]: Date.now() };
      else if (n.method === 'notifications/message') {
        store.logs = [
          ...store.logs.slice(-(LOG_LINES - 1)),
          { server: n.server, level: String(params.level ?? 'info'), logger: params.logger as string | undefined, data: params.data, time: Date.now() },
        ];
      }
      break;
    }
  }
  changed();
}

export function setConnection(up: boolean, why?: string): void {
  store.up = up;
  store.why = why;
  changed();
}
