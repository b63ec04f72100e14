// The Tools panel: the server's tools (virtualised, filtered), and for the chosen one a form
// generated from its inputSchema or raw JSON (both validated against the schema by the studio),
// an optional request `_meta`, the call with its progress and a Cancel, and the result.
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { CallOutcome, ServerView } from '../api-types.js';
import { newId, post, serverPath } from './api.js';
import { Json, Outcome, ResourceContents } from './content.js';
import { initialValue, rootOf, type Schema } from './schema.js';
import { SchemaForm } from './schema-form.js';
import { useStudio } from './store.js';
import { TaskFollow } from './tasks.js';
import { VirtualList } from './virtual-list.js';

export interface ToolDef {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: Schema;
  outputSchema?: Schema;
  annotations?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
  /** 2025-11-25: whether calls may, or must, run as tasks. */
  execution?: { taskSupport?: string };
}

/** Lists with the studio's `{ result | error }` answer. */
export function useList<T>(server: ServerView, kind: 'tools' | 'resources' | 'templates' | 'prompts', version: number) {
  const [items, setItems] = useState<T[] | undefined>();
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    if (server.state !== 'connected') return;
    let live = true;
    post<{ result?: T[]; error?: { message: string } }>(serverPath(server.name, 'list'), { kind })
      .then((r) => {
        if (!live) return;
        if (r.error) setError(r.error.message);
        else {
          setItems(r.result ?? []);
          setError(undefined);
        }
      })
      .catch((e: Error) => live && setError(e.message));
    return () => {
      live = false;
    };
  }, [server.name, server.state, kind, version]);
  return { items, error };
}

export function matches(filter: string, ...fields: unknown[]): boolean {
  if (filter === '') return true;
  const f = filter.toLowerCase();
  return fields.some((x) => typeof x === 'string' && x.toLowerCase().includes(f));
}

export function ToolsPanel({ server }: { server: ServerView }) {
  const version = useStudio(useCallback((s) => s.lists[server.name]?.tools ?? 0, [server.name]));
  const { items, error } = useList<ToolDef>(server, 'tools', version);
  const [filter, setFilter] = useState('');
  const [chosen, setChosen] = useState<string | undefined>();
  const shown = useMemo(() => (items ?? []).filter((t) => matches(filter, t.name, t.title, t.description)), [items, filter]);
  const index = shown.findIndex((t) => t.name === chosen);
  const tool = items?.find((t) => t.name === chosen);
  if (server.state !== 'connected') return <p class="muted">Not connected.</p>;
  return (
    <div class="split">
      <div class="list-pane">
        <input
          type="search"
          class="filter"
          placeholder={`Filter ${items?.length ?? 0} tools`}
          aria-label="Filter tools"
          value={filter}
          onInput={(e) => setFilter((e.currentTarget as HTMLInputElement).value)}
        />
        {error ? <div class="error-text">{error}</div> : null}
        {items === undefined && !error ? <p class="muted">Listing…</p> : null}
        <VirtualList
          label="Tools"
          items={shown}
          rowHeight={46}
          keyOf={(t) => t.name}
          selected={index}
          onSelect={(i) => setChosen(shown[i]?.name)}
          render={(t) => (
            <div class="row-text" data-tool={t.name}>
              <div class="row-title">{t.name}</div>
              <div class="row-sub">{t.title && t.title !== t.name ? t.title : (t.description ?? '')}</div>
            </div>
          )}
        />
      </div>
      <div class="detail-pane">{tool ? <ToolDetail key={tool.name} server={server} tool={tool} /> : <p class="muted">Choose a tool.</p>}</div>
    </div>
  );
}

const ANNOTATIONS: Array<[string, string]> = [
  ['readOnlyHint', 'read-only'],
  ['destructiveHint', 'destructive'],
  ['idempotentHint', 'idempotent'],
  ['openWorldHint', 'open world'],
];

function ToolDetail({ server, tool }: { server: ServerView; tool: ToolDef }) {
  const root = rootOf(tool.inputSchema);
  const [args, setArgs] = useState<Record<string, unknown>>(() => (initialValue(root, root, true) as Record<string, unknown>) ?? {});
  const [mode, setMode] = useState<'form' | 'json'>('form');
  const [raw, setRaw] = useState('');
  const [rawError, setRawError] = useState<string | undefined>();
  const [meta, setMeta] = useState('');
  const [check, setCheck] = useState<{ ok: boolean; message?: string } | undefined>();
  const [running, setRunning] = useState<string | undefined>();
  const [outcome, setOutcome] = useState<CallOutcome | undefined>();
  const [opened, setOpened] = useState<{ uri: string; contents?: unknown[]; error?: string } | undefined>();
  const [showSchema, setShowSchema] = useState(false);
  // 2025-11-25 core tasks: the client decides for a tool that allows tasks (one that requires them always is one).
  const taskChoice = server.protocolVersion === '2025-11-25' && tool.execution?.taskSupport === 'optional';
  const [asTask, setAsTask] = useState(false);
  const progress = useStudio(useCallback((s) => (running ? s.progress[running] : undefined), [running]));
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const box = useRef<HTMLDivElement>(null);

  // The arguments checked against the inputSchema by the studio (ajv), a moment after each change.
  // A verdict shows only for the arguments it was given: cleared at each change, and an answer
  // that comes back after a newer change is dropped.
  const checked = useRef(0);
  useEffect(() => {
    clearTimeout(timer.current);
    setCheck(undefined);
    const n = ++checked.current;
    timer.current = setTimeout(() => {
      post<{ ok: boolean; message?: string }>('/api/validate', { schema: root, value: args })
        .then((r) => n === checked.current && setCheck(r))
        .catch(() => n === checked.current && setCheck(undefined));
    }, 250);
    return () => clearTimeout(timer.current);
  }, [args]);

  // Ctrl+Enter calls the tool from anywhere in its form.
  const callRef = useRef<(() => void) | undefined>(undefined);
  callRef.current = () => {
    if (!running) void call();
  };
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
        e.preventDefault();
        callRef.current?.();
      }
    };
    el.addEventListener('keydown', onKey);
    return () => el.removeEventListener('keydown', onKey);
  }, []);

  const toJson = () => {
    setRaw(JSON.stringify(args, null, 2));
    setRawError(undefined);
    setMode('json');
  };

  const call = async () => {
    let metaValue: Record<string, unknown> | undefined;
    if (meta.trim() !== '') {
      try {
        metaValue = JSON.parse(meta);
      } catch (err) {
        setOutcome({ error: { message: `_meta is not JSON: ${(err as Error).message}` }, durationMs: 0 });
        return;
      }
    }
    const callId = newId();
    setRunning(callId);
    setOutcome(undefined);
    setOpened(undefined);
    try {
      setOutcome(
        await post<CallOutcome>(serverPath(server.name, 'call'), {
          name: tool.name,
          arguments: args,
          callId,
          meta: metaValue,
          ...(asTask ? { task: true } : {}),
        }),
      );
    } catch (err) {
      setOutcome({ error: { message: (err as Error).message }, durationMs: 0 });
    } finally {
      setRunning(undefined);
    }
  };

  const openUri = async (uri: string) => {
    setOpened({ uri });
    const r = await post<{ result?: { contents: unknown[] }; error?: { message: string } }>(serverPath(server.name, 'read'), { uri }).catch((e: Error) => ({
      error: { message: e.message },
      result: undefined,
    }));
    setOpened({ uri, contents: r.result?.contents, error: r.error?.message });
  };

  return (
    <div class="tool-detail" ref={box}>
      <h2>
        {tool.name} {tool.title && tool.title !== tool.name ? <span class="muted">{tool.title}</span> : null}
      </h2>
      <div class="badges">
        {ANNOTATIONS.filter(([k]) => tool.annotations?.[k] === true).map(([k, label]) => (
          <span key={k} class="badge">
            {label}
          </span>
        ))}
        {tool.outputSchema ? <span class="badge">outputSchema</span> : null}
        {tool.execution?.taskSupport ? <span class="badge">tasks: {tool.execution.taskSupport}</span> : null}
      </div>
      {tool.description ? <p class="desc">{tool.description}</p> : null}
      <div class="tabs small-tabs" role="tablist">
        <button type="button" role="tab" aria-selected={mode === 'form'} onClick={() => setMode('form')}>
          Form
        </button>
        <button type="button" role="tab" aria-selected={mode === 'json'} onClick={toJson}>
          JSON
        </button>
        <button type="button" class="link" onClick={() => setShowSchema(!showSchema)}>
          {showSchema ? 'hide schemas' : 'show schemas'}
        </button>
      </div>
      {showSchema ? (
        <div class="schemas">
          <div class="section-title">inputSchema</div>
          <Json value={tool.inputSchema ?? {}} />
          {tool.outputSchema ? (
            <>
              <div class="section-title">outputSchema</div>
              <Json value={tool.outputSchema} />
            </>
          ) : null}
        </div>
      ) : null}
      {mode === 'form' ? (
        <SchemaForm schema={root} value={args} onChange={setArgs} />
      ) : (
        <div>
          <textarea
            class="code"
            rows={10}
            aria-label="Arguments as JSON"
            name="raw-arguments"
            value={raw}
            onInput={(e) => {
              const text = (e.currentTarget as HTMLTextAreaElement).value;
              setRaw(text);
              try {
                const v = text.trim() === '' ? {} : JSON.parse(text);
                if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error('the arguments must be a JSON object');
                setArgs(v);
                setRawError(undefined);
              } catch (err) {
                setRawError((err as Error).message);
              }
            }}
          />
          {rawError ? <div class="error-text">Not sent as is: {rawError}</div> : null}
        </div>
      )}
      <details class="meta">
        <summary>Request _meta</summary>
        <textarea
          class="code"
          rows={3}
          name="request-meta"
          aria-label="Request _meta as JSON"
          placeholder='{"io.example/trace": "abc"}'
          value={meta}
          onInput={(e) => setMeta((e.currentTarget as HTMLTextAreaElement).value)}
        />
      </details>
      {check && !check.ok ? (
        <div class="warn-text" role="note">
          {check.message} <span class="muted">(you can still send it: servers must answer bad arguments well)</span>
        </div>
      ) : null}
      <div class="actions">
        <button type="button" class="primary" disabled={!!running} onClick={() => void call()}>
          {running ? 'Calling…' : 'Call tool'}
        </button>
        {running ? (
          <button type="button" onClick={() => void post(`/api/calls/${running}/cancel`)}>
            Cancel
          </button>
        ) : null}
        <span class="muted">Ctrl+Enter</span>
        {taskChoice ? (
          <label class="small-print">
            <input type="checkbox" name="as-task" checked={asTask} onChange={(e) => setAsTask((e.currentTarget as HTMLInputElement).checked)} /> run as a task
          </label>
        ) : null}
      </div>
      {running && progress ? (
        <div class="progress" role="progressbar" aria-valuenow={progress.progress} aria-valuemax={progress.total}>
          <ProgressBar value={progress.progress} total={progress.total} />
          <span>
            {progress.progress}
            {progress.total !== undefined ? ` / ${progress.total}` : ''} {progress.message ?? ''}
          </span>
        </div>
      ) : null}
      {outcome?.task ? <TaskFollow task={outcome.task} /> : outcome ? <Outcome outcome={outcome} onOpenUri={openUri} /> : null}
      {opened ? (
        <div class="opened">
          <div class="section-title">{opened.uri}</div>
          {opened.error ? (
            <div class="error-text">{opened.error}</div>
          ) : opened.contents ? (
            <ResourceContents contents={opened.contents as never} />
          ) : (
            <p class="muted">Reading…</p>
          )}
        </div>
      ) : null}
    </div>
  );
}

function ProgressBar({ value, total }: { value: number; total?: number }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (ref.current) ref.current.style.width = total ? `${Math.min(100, (value / total) * 100)}%` : '100%';
  }, [value, total]);
  return (
    <div class={`bar${total ? '' : ' indeterminate'}`}>
      <div ref={ref} />
    </div>
  );
}
