// The recordings the page holds (made here or loaded from files), the recording under way, and the
// capability sets the studio kept: kept outside the components, so switching panels loses nothing.
import { useEffect, useReducer } from 'preact/hooks';
import type { CatalogSnapshot, Recording } from '../recording.js';
import { get } from './api.js';
import { store } from './store.js';

export interface Loaded {
  id: number;
  /** The file's name, or when it was made here. */
  name: string;
  recording: Recording;
}

interface State {
  recordings: Loaded[];
  /** A recording under way: the timeline's last sequence number when it began. */
  since: { seq: number; at: number } | undefined;
  snapshots: CatalogSnapshot[];
}

export const sessions: State = { recordings: [], since: undefined, snapshots: [] };
const subs = new Set<() => void>();
let next = 1;

function changed(): void {
  for (const s of [...subs]) s();
}

/** Re-renders the component when the recordings, the recording under way or the kept sets change. */
export function useSessions(): State {
  const [, bump] = useReducer((n: number) => n + 1, 0);
  useEffect(() => {
    const s = () => bump(0);
    subs.add(s);
    return () => void subs.delete(s);
  }, []);
  return sessions;
}

export function addRecording(name: string, recording: Recording): Loaded {
  const l = { id: next++, name, recording };
  sessions.recordings = [...sessions.recordings, l];
  changed();
  return l;
}

export function removeRecording(id: number): void {
  sessions.recordings = sessions.recordings.filter((r) => r.id !== id);
  changed();
}

export function startRecording(): void {
  sessions.since = { seq: store.timeline.at(-1)?.seq ?? 0, at: Date.now() };
  changed();
}

export function stopRecording(): { seq: number; at: number } | undefined {
  const since = sessions.since;
  sessions.since = undefined;
  changed();
  return since;
}

export async function refreshSnapshots(): Promise<CatalogSnapshot[]> {
  sessions.snapshots = await get<CatalogSnapshot[]>('/api/snapshots');
  changed();
  return sessions.snapshots;
}

export function keepSnapshot(s: CatalogSnapshot): void {
  if (!sessions.snapshots.some((x) => x.id === s.id)) sessions.snapshots = [...sessions.snapshots, s];
  changed();
}

/** Saves `value` as a JSON file through the browser's download. */
export function download(fileName: string, value: unknown): void {
  const blob = new Blob([JSON.stringify(value, null, 2)], { type: 'application/json' });
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = fileName;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
}

export function stamp(t: number | string): string {
  const d = new Date(t);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}
