// Sessions: record the timeline to a file and load recordings back; replay a recording's requests
// against a connected server, each answer beside the recorded one with the differences marked;
// and compare two recordings, or two capability sets (a recording's, one the studio kept at a
// connection or a tools change, or a server's live set now).
import { useCallback, useEffect, useState } from 'preact/hooks';
import { catalogDiff, pairCalls, answerDiff, type CatalogDiff, type PairedCall } from '../diff.js';
import { readRecording, recordedServers, replayPlan, type Answer, type Catalog, type CatalogSnapshot, type PlannedCall, type Recording } from '../recording.js';
import { ApiError, post, serverPath } from './api.js';
import { type MappedId, ReplayIds } from '../replay-ids.js';
import { answerValue, callLabel, CatalogDiffView, ChangeList, PairRow, SideBySide } from './diff-view.js';
import {
  addRecording,
  download,
  keepSnapshot,
  refreshSnapshots,
  removeRecording,
  sessions,
  stamp,
  startRecording,
  stopRecording,
  useSessions,
} from './recordings.js';
import { useStudio } from './store.js';

export function SessionsPanel({ server }: { server?: string }) {
  const s = useSessions();
  const [error, setError] = useState<string | undefined>();
  useEffect(() => void refreshSnapshots().catch(() => {}), []);
  const save = async (after: number, name: string) => {
    setError(undefined);
    try {
      const rec = await post<Recording>('/api/recording', { after });
      const file = `mcpkit-studio-${name}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
      addRecording(file, rec);
      download(file, rec);
    } catch (e) {
      setError((e as Error).message);
    }
  };
  const load = async (files: FileList | null) => {
    setError(undefined);
    for (const f of Array.from(files ?? [])) {
      const r = readRecording(await f.text());
      if ('error' in r) setError(`${f.name}: ${r.error}`);
      else addRecording(f.name, r);
    }
  };
  return (
    <div class="sessions">
      <section class="card-box">
        <h2>Record</h2>
        <div class="actions">
          {s.since ? (
            <>
              <span class="badge bad recording" role="status">
                ● recording since {stamp(s.since.at)}
              </span>
              <button
                type="button"
                class="primary"
                onClick={() => {
                  const since = stopRecording();
                  if (since) void save(since.seq, 'recording');
                }}
              >
                Stop and save
              </button>
            </>
          ) : (
            <button type="button" class="primary" onClick={startRecording}>
              Start recording
            </button>
          )}
          <button type="button" onClick={() => void save(0, 'session')}>
            Save the whole session
          </button>
          <label class="file-button">
            Load recordings…
            <input
              type="file"
              name="load-recording"
              accept=".json,application/json"
              multiple
              onChange={(e) => void load((e.currentTarget as HTMLInputElement).files)}
            />
          </label>
        </div>
        <p class="muted small-print">
          A recording is one JSON file: every message both ways (with its era and timing), the HTTP exchanges, the servers as they were and their capability
          sets (tools, prompts, resources, templates) when it was saved. Credentials are masked in it as in the timeline.
        </p>
        {error ? <div class="error-text">{error}</div> : null}
        {s.recordings.length > 0 ? (
          <ul class="recordings">
            {s.recordings.map((l) => (
              <li key={l.id} data-recording={l.name}>
                <strong>{l.name}</strong>{' '}
                <span class="muted">
                  {stamp(l.recording.recordedAt)} · {recordedServers(l.recording).join(', ') || 'no server'} · {l.recording.entries.length} messages
                </span>{' '}
                <button type="button" class="link" onClick={() => download(l.name, l.recording)}>
                  Download
                </button>{' '}
                <button type="button" class="link danger" onClick={() => removeRecording(l.id)}>
                  Remove
                </button>
              </li>
            ))}
          </ul>
        ) : null}
      </section>
      <Replay defaultServer={server} />
      <Compare />
    </div>
  );
}

interface Row {
  call: PlannedCall;
  live?: Answer;
  failed?: string;
  /** The recorded answer read with the live server's ids (what the live one is compared with). */
  recorded?: Answer;
  /** Recorded ids this request was sent with the live values of. */
  sentWith?: MappedId[];
  /** Ids this answer made: the recorded one and the live one. */
  learned?: MappedId[];
}

const recordedOf = (r: Row): Answer | undefined => r.recorded ?? r.call.recorded;

function Replay({ defaultServer }: { defaultServer?: string }) {
  const s = useSessions();
  const servers = useStudio(useCallback((st) => st.state?.servers, [])) ?? [];
  const connected = servers.filter((v) => v.state === 'connected');
  const [recId, setRecId] = useState<number | undefined>();
  const rec = s.recordings.find((r) => r.id === recId) ?? s.recordings.at(-1);
  const names = rec ? recordedServers(rec.recording) : [];
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const source = names.includes(from) ? from : (names[0] ?? '');
  const target = connected.some((v) => v.name === to) ? to : (connected.find((v) => v.name === source)?.name ?? defaultServer ?? connected[0]?.name ?? '');
  const [rows, setRows] = useState<Row[]>([]);
  const [running, setRunning] = useState<AbortController | undefined>();
  const plan = rec && source ? replayPlan(rec.recording, source) : [];
  const run = async () => {
    const ctl = new AbortController();
    setRunning(ctl);
    const done: Row[] = plan.map((call) => ({ call }));
    setRows([...done]);
    // Ids the recorded server made (tasks, cursors, what tools created), paired with the live server's as they come.
    const ids = new ReplayIds();
    for (const row of done) {
      if (ctl.signal.aborted) break;
      if (row.call.skip) continue;
      try {
        const { value: params, used } = ids.apply(row.call.params);
        if (used.length > 0) row.sentWith = used;
        const out = await post<{ result?: unknown; error?: { code?: number; message: string; data?: unknown } }>(
          serverPath(target, 'replay'),
          { message: { jsonrpc: '2.0', id: 1, method: row.call.method, ...(params ? { params } : {}) } },
          ctl.signal,
        );
        row.live = out.error !== undefined ? { error: out.error } : { result: out.result };
        const learned = ids.learn(answerValue(row.call.recorded), answerValue(row.live));
        if (learned.length > 0) row.learned = learned;
        if (ids.size > 0 && row.call.recorded) row.recorded = ids.apply(row.call.recorded).value;
      } catch (e) {
        row.failed = e instanceof ApiError || e instanceof Error ? e.message : String(e);
      }
      setRows([...done]);
    }
    setRunning(undefined);
  };
  const sent = rows.filter((r) => r.live || r.failed);
  const differ = sent.filter((r) => r.failed || answerDiff(recordedOf(r), r.live).length > 0).length;
  return (
    <section class="card-box replay">
      <h2>Replay a recording</h2>
      {s.recordings.length === 0 ? (
        <p class="muted">Record or load a recording first.</p>
      ) : (
        <>
          <div class="actions">
            <select aria-label="Recording to replay" value={rec?.id} onChange={(e) => setRecId(Number((e.currentTarget as HTMLSelectElement).value))}>
              {s.recordings.map((l) => (
                <option key={l.id} value={l.id}>
                  {l.name}
                </option>
              ))}
            </select>
            <span>the requests to</span>
            <select aria-label="Recorded server" value={source} onChange={(e) => setFrom((e.currentTarget as HTMLSelectElement).value)}>
              {names.map((n) => (
                <option key={n} value={n}>
                  {n}
                </option>
              ))}
            </select>
            <span>sent to</span>
            <select aria-label="Live server" value={target} onChange={(e) => setTo((e.currentTarget as HTMLSelectElement).value)}>
              {connected.map((v) => (
                <option key={v.name} value={v.name}>
                  {v.name}
                </option>
              ))}
            </select>
            {running ? (
              <button type="button" onClick={() => running.abort()}>
                Stop
              </button>
            ) : (
              <button type="button" class="primary" disabled={!target || plan.length === 0} onClick={() => void run()}>
                Replay {plan.filter((c) => !c.skip).length} requests
              </button>
            )}
          </div>
          {rows.length > 0 ? (
            <p data-testid="replay-summary">
              {sent.length} of {rows.filter((r) => !r.call.skip).length} sent · {sent.length - differ} answered the same · {differ} differ
              {rows.some((r) => r.call.skip) ? ` · ${rows.filter((r) => r.call.skip).length} not replayed` : ''}
            </p>
          ) : null}
          <ul class="calls">
            {rows.map((r) => (
              <ReplayRow key={r.call.seq} row={r} />
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

function ReplayRow({ row }: { row: Row }) {
  const [open, setOpen] = useState(false);
  const changes = row.live ? answerDiff(recordedOf(row), row.live) : [];
  const state = row.call.skip ? 'skipped' : row.failed ? 'failed' : !row.live ? 'waiting' : changes.length > 0 ? 'differs' : 'same';
  const show = open || state === 'differs';
  return (
    <li class={`call-row ${state}`} data-state={state} data-call={callLabel(row.call)}>
      <div class="call-head">
        <span class={`badge ${state === 'same' ? 'good' : state === 'differs' || state === 'failed' ? 'bad' : ''}`}>{state}</span>{' '}
        <code>{callLabel(row.call)}</code> {row.call.skip ? <span class="muted">{row.call.skip}</span> : null}
        {row.live ? (
          <button type="button" class="link" onClick={() => setOpen(!open)}>
            {show ? 'hide' : 'show'}
          </button>
        ) : null}
      </div>
      {row.failed ? <div class="error-text">{row.failed}</div> : null}
      {row.sentWith ? <MappedIds what="sent with the live server's ids:" ids={row.sentWith} /> : null}
      {row.learned ? <MappedIds what="ids the live server made (the recorded ones are read as these):" ids={row.learned} /> : null}
      {row.live && show ? (
        <>
          <ChangeList changes={changes} />
          <SideBySide
            left={answerValue(recordedOf(row))}
            right={answerValue(row.live)}
            labels={[row.recorded ? 'Recorded answer (with the live ids)' : 'Recorded answer', 'Live answer']}
            changes={changes}
          />
        </>
      ) : null}
    </li>
  );
}

function MappedIds({ what, ids }: { what: string; ids: MappedId[] }) {
  return (
    <div class="muted small-print ids-mapped" data-testid="ids-mapped">
      {what}{' '}
      {ids.map((m, i) => (
        <span key={m.recorded}>
          {i > 0 ? ', ' : ''}
          <code>{m.path}</code> <code>{m.recorded}</code> → <code>{m.live}</code>
        </span>
      ))}
    </div>
  );
}

/** A side of a comparison: a recording (its calls and its servers' sets), a kept set, or a live set. */
type Side = { kind: 'rec'; id: number; server: string } | { kind: 'snap'; id: string } | { kind: 'live'; server: string };

function sideKey(x: Side): string {
  return x.kind === 'rec' ? `rec:${x.id}:${x.server}` : x.kind === 'snap' ? `snap:${x.id}` : `live:${x.server}`;
}

function Compare() {
  const s = useSessions();
  const servers = useStudio(useCallback((st) => st.state?.servers, [])) ?? [];
  const options: Array<{ side: Side; label: string }> = [];
  for (const l of s.recordings)
    for (const name of recordedServers(l.recording)) options.push({ side: { kind: 'rec', id: l.id, server: name }, label: `${l.name} › ${name}` });
  for (const v of servers) if (v.state === 'connected') options.push({ side: { kind: 'live', server: v.name }, label: `${v.name}: live now` });
  for (const k of [...s.snapshots].reverse()) options.push({ side: { kind: 'snap', id: k.id }, label: `${k.server}: ${k.reason}, ${stamp(k.at)}` });
  const [a, setA] = useState('');
  const [b, setB] = useState('');
  const pick = (key: string, fallback: number) => options.find((o) => sideKey(o.side) === key) ?? options[fallback] ?? options[0];
  const left = pick(a, 0);
  const right = pick(b, options.length > 1 ? 1 : 0);
  const [result, setResult] = useState<{ labels: [string, string]; catalog?: CatalogDiff; calls?: PairedCall[]; note?: string } | undefined>();
  const [error, setError] = useState<string | undefined>();
  const catalogOf = async (x: Side): Promise<{ catalog?: Catalog; recording?: Recording; server?: string }> => {
    if (x.kind === 'rec') {
      const rec = sessions.recordings.find((r) => r.id === x.id)!.recording;
      return { catalog: rec.servers.find((v) => v.name === x.server)?.catalog, recording: rec, server: x.server };
    }
    if (x.kind === 'snap') return { catalog: sessions.snapshots.find((k) => k.id === x.id)?.catalog };
    const snap = await post<CatalogSnapshot>(serverPath(x.server, 'snapshot'));
    keepSnapshot(snap);
    return { catalog: snap.catalog };
  };
  const compare = async () => {
    setError(undefined);
    if (!left || !right) return;
    try {
      const [x, y] = await Promise.all([catalogOf(left.side), catalogOf(right.side)]);
      const labels: [string, string] = [left.label, right.label];
      const out: NonNullable<typeof result> = { labels };
      if (x.catalog && y.catalog) out.catalog = catalogDiff(x.catalog, y.catalog);
      else out.note = 'One side has no capability set (a server that was not connected when it was recorded).';
      if (x.recording && y.recording) out.calls = pairCalls(replayPlan(x.recording, x.server!), replayPlan(y.recording, y.server!));
      setResult(out);
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return (
    <section class="card-box compare">
      <h2>Compare</h2>
      <p class="muted small-print">
        Two capability sets (tools added, removed, schemas changed), and for two recordings their calls side by side. The studio keeps each server's tools at
        every connection and tools change, so a server before and after a restart is here without a recording.
      </p>
      <div class="actions">
        <select aria-label="Compare from" value={left ? sideKey(left.side) : ''} onChange={(e) => setA((e.currentTarget as HTMLSelectElement).value)}>
          {options.map((o) => (
            <option key={sideKey(o.side)} value={sideKey(o.side)}>
              {o.label}
            </option>
          ))}
        </select>
        <span>with</span>
        <select aria-label="Compare to" value={right ? sideKey(right.side) : ''} onChange={(e) => setB((e.currentTarget as HTMLSelectElement).value)}>
          {options.map((o) => (
            <option key={sideKey(o.side)} value={sideKey(o.side)}>
              {o.label}
            </option>
          ))}
        </select>
        <button type="button" class="primary" disabled={options.length === 0} onClick={() => void compare()}>
          Compare
        </button>
        <button type="button" class="link" onClick={() => void refreshSnapshots().catch((e: Error) => setError(e.message))}>
          Refresh kept sets
        </button>
      </div>
      {error ? <div class="error-text">{error}</div> : null}
      {result ? (
        <div class="compare-result">
          {result.note ? <p class="muted">{result.note}</p> : null}
          {result.catalog ? <CatalogDiffView diff={result.catalog} labels={result.labels} /> : null}
          {result.calls ? (
            <>
              <h3>Calls</h3>
              <ul class="calls">
                {result.calls.map((p, i) => (
                  <PairRow key={i} pair={p} labels={result.labels} />
                ))}
              </ul>
            </>
          ) : null}
        </div>
      ) : null}
    </section>
  );
}
