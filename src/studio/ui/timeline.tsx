// The protocol timeline: every message both ways, across servers, virtualised (10,000 rows cost
// what 30 do), filtered by server, direction, kind and a search over method and body; pin rows;
// see one in full; send a recorded request or notification again; export what is shown as JSON.
import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import type { TimelineEntry } from '../api-types.js';
import { get, post, serverPath } from './api.js';
import { Json } from './content.js';
import { store, useStudio } from './store.js';
import { VirtualList } from './virtual-list.js';

/** Each entry's searchable text, made once. */
const haystacks = new WeakMap<TimelineEntry, string>();
function haystack(e: TimelineEntry): string {
  let h = haystacks.get(e);
  if (h === undefined) {
    h = `${e.server} ${e.method ?? ''} ${e.kind} ${e.id ?? ''} ${e.message === undefined ? '' : JSON.stringify(e.message)}`.toLowerCase();
    haystacks.set(e, h);
  }
  return h;
}

const clock = (t: number) => {
  const d = new Date(t);
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}`;
};

const size = (n: number) => (n < 1024 ? `${n} B` : `${(n / 1024).toFixed(1)} KiB`);

export function TimelinePanel({ server: initialServer }: { server?: string }) {
  const version = useStudio(useCallback((s) => s.timelineVersion, []));
  const servers = useStudio(useCallback((s) => s.state?.servers, []));
  const [server, setServer] = useState(initialServer ?? '');
  const [dir, setDir] = useState('');
  const [kind, setKind] = useState('');
  const [q, setQ] = useState('');
  const [pinned, setPinned] = useState<Set<number>>(new Set());
  const [onlyPinned, setOnlyPinned] = useState(false);
  const [chosen, setChosen] = useState<number | undefined>();
  const shown = useMemo(() => {
    const f = q.trim().toLowerCase();
    return store.timeline.filter(
      (e) =>
        (server === '' || e.server === server) &&
        (dir === '' || e.dir === dir) &&
        (kind === '' || e.kind === kind) &&
        (!onlyPinned || pinned.has(e.seq)) &&
        (f === '' || haystack(e).includes(f)),
    );
  }, [version, server, dir, kind, q, onlyPinned, pinned]);
  const index = chosen === undefined ? -1 : shown.findIndex((e) => e.seq === chosen);
  const entry = index >= 0 ? shown[index] : store.timeline.find((e) => e.seq === chosen);
  const pin = (seq: number) => {
    const next = new Set(pinned);
    if (next.has(seq)) next.delete(seq);
    else next.add(seq);
    setPinned(next);
  };
  const exportShown = () => {
    const blob = new Blob([JSON.stringify(shown, null, 2)], { type: 'application/json' });
    const a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = `mcpkit-studio-timeline-${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
    a.click();
    setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
  };
  return (
    <div class="timeline">
      <div class="toolbar">
        <input
          type="search"
          class="filter"
          aria-label="Search the timeline"
          placeholder="Search method, id, body…"
          value={q}
          onInput={(e) => setQ((e.currentTarget as HTMLInputElement).value)}
        />
        <select aria-label="Server" value={server} onChange={(e) => setServer((e.currentTarget as HTMLSelectElement).value)}>
          <option value="">all servers</option>
          {(servers ?? []).map((s) => (
            <option key={s.name} value={s.name}>
              {s.name}
            </option>
          ))}
        </select>
        <select aria-label="Direction" value={dir} onChange={(e) => setDir((e.currentTarget as HTMLSelectElement).value)}>
          <option value="">both ways</option>
          <option value="out">→ to server</option>
          <option value="in">← from server</option>
        </select>
        <select aria-label="Kind" value={kind} onChange={(e) => setKind((e.currentTarget as HTMLSelectElement).value)}>
          <option value="">all kinds</option>
          <option value="request">requests</option>
          <option value="response">responses</option>
          <option value="error">errors</option>
          <option value="notification">notifications</option>
          <option value="http">HTTP exchanges</option>
        </select>
        <label class="check">
          <input type="checkbox" checked={onlyPinned} onChange={(e) => setOnlyPinned((e.currentTarget as HTMLInputElement).checked)} /> pinned only
        </label>
        <span class="muted" data-testid="timeline-count">
          {shown.length} of {store.timeline.length}
        </span>
        <button type="button" class="small" onClick={exportShown}>
          Export
        </button>
      </div>
      <div class="split timeline-split">
        <VirtualList
          label="Protocol timeline"
          className="timeline-list"
          items={shown}
          rowHeight={28}
          follow
          keyOf={(e) => e.seq}
          selected={index}
          onSelect={(i) => setChosen(shown[i]?.seq)}
          render={(e) => (
            <div class={`tl-row ${e.kind}`} data-seq={e.seq}>
              <button
                type="button"
                class={`pin${pinned.has(e.seq) ? ' on' : ''}`}
                aria-label={pinned.has(e.seq) ? 'Unpin' : 'Pin'}
                aria-pressed={pinned.has(e.seq)}
                onClick={(ev) => {
                  ev.stopPropagation();
                  pin(e.seq);
                }}
              >
                {pinned.has(e.seq) ? '★' : '☆'}
              </button>
              <span class="tl-time">{clock(e.time)}</span>
              <span class={`tl-dir ${e.dir}`}>{e.dir === 'out' ? '→' : '←'}</span>
              <span class="tl-server">{e.server}</span>
              <span class="tl-era">{e.era === 'modern' ? '2026' : e.era === 'handshake' ? 'hs' : ''}</span>
              <span class="tl-method">
                {e.kind === 'response' ? 'result ' : e.kind === 'error' ? 'error ' : ''}
                {e.method ?? ''}
              </span>
              <span class="tl-id">{e.id !== undefined ? `#${e.id}` : ''}</span>
              <span class="tl-ms">{e.latencyMs !== undefined ? `${e.latencyMs} ms` : ''}</span>
              <span class="tl-size">{size(e.size)}</span>
            </div>
          )}
        />
        <div class="detail-pane">{entry ? <EntryDetail key={entry.seq} entry={entry} /> : <p class="muted">Choose a message.</p>}</div>
      </div>
    </div>
  );
}

function EntryDetail({ entry }: { entry: TimelineEntry }) {
  const [message, setMessage] = useState<unknown>(entry.message);
  const [replayed, setReplayed] = useState<unknown>();
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    if (entry.message !== undefined) return;
    get<TimelineEntry>(`/api/timeline/${entry.seq}`)
      .then((e) => setMessage(e.message))
      .catch((e: Error) => setError(e.message));
  }, [entry.seq]);
  const canReplay = entry.dir === 'out' && (entry.kind === 'request' || entry.kind === 'notification');
  const replay = async () => {
    setReplayed(undefined);
    try {
      setReplayed(await post(serverPath(entry.server, 'replay'), { message }));
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return (
    <div>
      <h2>
        {entry.dir === 'out' ? '→' : '←'} {entry.kind} {entry.method ?? ''} {entry.id !== undefined ? <span class="muted">#{entry.id}</span> : null}
      </h2>
      <div class="muted">
        {entry.server} · {new Date(entry.time).toISOString()} ·{' '}
        {entry.era === 'modern' ? '2026-07-28 era' : entry.era === 'handshake' ? 'handshake era' : 'era not known yet'} · {size(entry.size)}
        {entry.latencyMs !== undefined ? ` · answered in ${entry.latencyMs} ms` : ''}
      </div>
      {canReplay ? (
        <div class="actions">
          <button type="button" onClick={() => void replay()} disabled={message === undefined}>
            Send again
          </button>
          <span class="muted">{entry.kind === 'request' ? 'with a new id; the answer shows here and in the timeline' : 'as is'}</span>
        </div>
      ) : null}
      {error ? <div class="error-text">{error}</div> : null}
      {replayed !== undefined ? (
        <div class="outcome">
          <div class="section-title">Answer to the replay</div>
          <Json value={replayed} />
        </div>
      ) : null}
      {message === undefined ? <p class="muted">Loading…</p> : <Json value={message} />}
    </div>
  );
}
