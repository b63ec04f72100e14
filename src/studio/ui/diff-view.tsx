// Differences drawn: a list of changes (path, before, after), a JSON value with the changed paths
// highlighted, two values side by side, a capability diff (tools added, removed, changed with
// their schema changes; prompts, resources and templates alike) and paired calls of two sessions.
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { brief, CATALOG_KINDS, comparable, pathJoin, type CatalogDiff, type JsonChange, type PairedCall } from '../diff.js';
import type { Answer, PlannedCall } from '../recording.js';

const LIST_LABEL = { tools: 'Tools', prompts: 'Prompts', resources: 'Resources', templates: 'Resource templates' } as const;

export function ChangeList({ changes }: { changes: JsonChange[] }) {
  if (changes.length === 0) return <div class="muted">no difference</div>;
  return (
    <table class="changes">
      <tbody>
        {changes.map((c) => (
          <tr key={c.path} class={`change ${c.kind}`} data-path={c.path} data-kind={c.kind}>
            <td class="change-kind">{c.kind === 'added' ? '+' : c.kind === 'removed' ? '−' : '~'}</td>
            <td>
              <code>{c.path || '(the value)'}</code>
            </td>
            <td class="change-values">
              {c.kind === 'added' ? (
                <code class="after">{brief(c.after)}</code>
              ) : c.kind === 'removed' ? (
                <code class="before">{brief(c.before)}</code>
              ) : (
                <>
                  <code class="before">{brief(c.before)}</code> → <code class="after">{brief(c.after)}</code>
                </>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A JSON value, pretty-printed, each node whose path is in `marks` highlighted. */
export function MarkedJson({ value, marks }: { value: unknown; marks: Set<string> }) {
  return <pre class="json marked">{node(value, '', marks, '', true)}</pre>;
}

function node(v: unknown, path: string, marks: Set<string>, indent: string, last: boolean): ComponentChildren {
  const comma = last ? '' : ',';
  const hl = marks.has(path);
  const wrap = (c: ComponentChildren) => (hl ? <mark class="diff-hl">{c}</mark> : c);
  if (Array.isArray(v) && v.length > 0) {
    const inner = indent + '  ';
    return wrap(
      <>
        {'[\n'}
        {v.map((x, i) => (
          <>
            {inner}
            {node(x, pathJoin(path, i), marks, inner, i === v.length - 1)}
            {'\n'}
          </>
        ))}
        {indent}]{comma}
      </>,
    );
  }
  if (v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length > 0) {
    const inner = indent + '  ';
    const entries = Object.entries(v as Record<string, unknown>);
    return wrap(
      <>
        {'{\n'}
        {entries.map(([k, x], i) => {
          const p = pathJoin(path, k);
          return (
            <>
              {inner}
              {marks.has(p) ? <mark class="diff-hl">{JSON.stringify(k)}</mark> : JSON.stringify(k)}
              {': '}
              {node(x, p, marks, inner, i === entries.length - 1)}
              {'\n'}
            </>
          );
        })}
        {indent}
        {'}'}
        {comma}
      </>,
    );
  }
  return (
    <>
      {wrap(JSON.stringify(v) ?? 'undefined')}
      {comma}
    </>
  );
}

/** Two values side by side, their differences highlighted on both. */
export function SideBySide({ left, right, labels, changes }: { left: unknown; right: unknown; labels: [string, string]; changes: JsonChange[] }) {
  const marks = new Set(changes.map((c) => c.path));
  return (
    <div class="side-by-side">
      <div>
        <div class="section-title">{labels[0]}</div>
        {left === undefined ? <p class="muted">nothing</p> : <MarkedJson value={left} marks={marks} />}
      </div>
      <div>
        <div class="section-title">{labels[1]}</div>
        {right === undefined ? <p class="muted">nothing</p> : <MarkedJson value={right} marks={marks} />}
      </div>
    </div>
  );
}

function ItemName({ item }: { item: Record<string, unknown> }) {
  const key = item.name ?? item.uri ?? item.uriTemplate;
  return (
    <>
      <strong>{String(key)}</strong> {item.description ? <span class="muted">{String(item.description)}</span> : null}
    </>
  );
}

export function CatalogDiffView({ diff, labels }: { diff: CatalogDiff; labels: [string, string] }) {
  const [open, setOpen] = useState<string | undefined>();
  return (
    <div class="catalog-diff" data-same={diff.same}>
      {diff.same ? <p class="badge good">The same capabilities</p> : null}
      {CATALOG_KINDS.map((kind) => {
        const d = diff.lists[kind];
        if (!d) return null;
        return (
          <section key={kind} class="diff-list" data-kind={kind}>
            <h3>
              {LIST_LABEL[kind]}:{' '}
              <span data-testid={`${kind}-summary`}>
                {d.added.length} added, {d.removed.length} removed, {d.changed.length} changed, {d.unchanged} unchanged
              </span>
            </h3>
            <ul class="diff-items">
              {d.added.map((it) => (
                <li key={`+${String(it.name ?? it.uri ?? it.uriTemplate)}`} class="item-added" data-key={String(it.name ?? it.uri ?? it.uriTemplate)}>
                  <span class="badge good">added</span> <ItemName item={it} />
                </li>
              ))}
              {d.removed.map((it) => (
                <li key={`-${String(it.name ?? it.uri ?? it.uriTemplate)}`} class="item-removed" data-key={String(it.name ?? it.uri ?? it.uriTemplate)}>
                  <span class="badge bad">removed</span> <ItemName item={it} />
                </li>
              ))}
              {d.changed.map((c) => (
                <li key={`~${c.key}`} class="item-changed" data-key={c.key}>
                  <span class="badge warn">changed</span> <strong>{c.key}</strong>{' '}
                  <button type="button" class="link" onClick={() => setOpen(open === `${kind} ${c.key}` ? undefined : `${kind} ${c.key}`)}>
                    {open === `${kind} ${c.key}` ? 'hide both' : 'show both'}
                  </button>
                  <ChangeList changes={c.changes} />
                  {open === `${kind} ${c.key}` ? <SideBySide left={c.before} right={c.after} labels={labels} changes={c.changes} /> : null}
                </li>
              ))}
            </ul>
          </section>
        );
      })}
      {diff.notCompared.length > 0 ? <p class="muted">Not compared (listed on one side only): {diff.notCompared.join(', ')}</p> : null}
    </div>
  );
}

export function callLabel(c: PlannedCall | undefined): string {
  if (!c) return '';
  const p = c.params ?? {};
  const what = p.name ?? p.uri ?? (p.ref as { name?: unknown } | undefined)?.name;
  return what === undefined ? c.method : `${c.method} ${String(what)}`;
}

export function answerValue(a: Answer | undefined): unknown {
  return comparable(a);
}

/** One call of session A beside its partner in B (or alone), with what differs. */
export function PairRow({ pair, labels }: { pair: PairedCall; labels: [string, string] }) {
  const [open, setOpen] = useState(false);
  const state = !pair.a ? 'only-b' : !pair.b ? 'only-a' : pair.params.length + pair.answer.length > 0 ? 'differs' : 'same';
  const label = callLabel(pair.a ?? pair.b);
  return (
    <li class={`call-row ${state}`} data-state={state} data-call={label}>
      <div class="call-head">
        <span class={`badge ${state === 'same' ? 'good' : state === 'differs' ? 'warn' : 'bad'}`}>
          {state === 'only-a' ? `only in ${labels[0]}` : state === 'only-b' ? `only in ${labels[1]}` : state}
        </span>{' '}
        <code>{label}</code>{' '}
        <button type="button" class="link" onClick={() => setOpen(!open)}>
          {open ? 'hide' : 'show'}
        </button>
      </div>
      {pair.params.length > 0 ? (
        <div>
          <div class="section-title">Arguments</div>
          <ChangeList changes={pair.params} />
        </div>
      ) : null}
      {pair.answer.length > 0 ? (
        <div>
          <div class="section-title">Answer</div>
          <ChangeList changes={pair.answer} />
        </div>
      ) : null}
      {open ? <SideBySide left={answerValue(pair.a?.recorded)} right={answerValue(pair.b?.recorded)} labels={labels} changes={pair.answer} /> : null}
    </li>
  );
}
