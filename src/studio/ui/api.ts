// The page's side of the studio API: every request carries the per-run key the page was served
// with (the studio refuses any request without it), and the one event stream is read with fetch
// (not EventSource) so that it carries the key too.
import type { StudioEvents } from '../api-types.js';

const KEY = document.querySelector<HTMLMetaElement>('meta[name="mcpkit-studio-key"]')?.content ?? '';
const HEADER = 'X-Mcpkit-Studio-Key';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export async function api<T = unknown>(method: 'GET' | 'POST', path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
  const res = await fetch(path, {
    method,
    headers: method === 'POST' ? { [HEADER]: KEY, 'Content-Type': 'application/json' } : { [HEADER]: KEY },
    body: method === 'POST' ? JSON.stringify(body ?? {}) : undefined,
    credentials: 'same-origin',
    signal,
  });
  const text = await res.text();
  let data: unknown;
  try {
    data = text === '' ? {} : JSON.parse(text);
  } catch {
    throw new ApiError(res.status, `The studio answered ${res.status} with something that is not JSON`);
  }
  if (!res.ok) throw new ApiError(res.status, (data as { error?: { message?: string } }).error?.message ?? `HTTP ${res.status}`);
  return data as T;
}

export const post = <T = unknown>(path: string, body?: unknown, signal?: AbortSignal) => api<T>('POST', path, body, signal);
export const get = <T = unknown>(path: string) => api<T>('GET', path);

export const serverPath = (name: string, what: string) => `/api/servers/${encodeURIComponent(name)}/${what}`;

type Handler = <E extends keyof StudioEvents>(event: E, data: StudioEvents[E]) => void;

/**
 * Follows /api/events for as long as the page lives: each (re)connection starts with a snapshot.
 * `onStatus` says whether the stream is up (the studio may have been stopped).
 */
export function followEvents(onEvent: Handler, onStatus: (up: boolean, why?: string) => void): () => void {
  let stopped = false;
  let ctl: AbortController | undefined;
  let delay = 250;
  const loop = async () => {
    while (!stopped) {
      ctl = new AbortController();
      try {
        const res = await fetch('/api/events', { headers: { [HEADER]: KEY }, credentials: 'same-origin', signal: ctl.signal });
        if (!res.ok || !res.body) throw new Error(res.status === 401 ? 'signed out: open the address mcpkit studio printed' : `HTTP ${res.status}`);
        onStatus(true);
        delay = 250;
        await readEvents(res.body, onEvent);
        onStatus(false, 'the studio closed the stream');
      } catch (err) {
        if (stopped) return;
        onStatus(false, err instanceof Error ? err.message : String(err));
      }
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, 5000);
    }
  };
  void loop();
  return () => {
    stopped = true;
    ctl?.abort();
  };
}

async function readEvents(body: ReadableStream<Uint8Array>, onEvent: Handler): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buf = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buf += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = buf.indexOf('\n\n')) >= 0) {
      const block = buf.slice(0, end);
      buf = buf.slice(end + 2);
      let event = 'message';
      let data = '';
      for (const line of block.split('\n')) {
        if (line.startsWith('event: ')) event = line.slice(7);
        else if (line.startsWith('data: ')) data += line.slice(6);
      }
      if (data === '') continue;
      try {
        onEvent(event as keyof StudioEvents, JSON.parse(data));
      } catch (err) {
        console.error('studio: a bad event', event, err);
      }
    }
  }
}

/** A random id for a tool call (to cancel it and follow its progress). */
export function newId(): string {
  return crypto.randomUUID();
}
