// The Resources panel: resources and templates (virtualised, filtered); read one; subscribe and
// see it read again at each notifications/resources/updated; fill a template's variables (RFC 6570,
// all operators, expanded by the same code the server side matches with) with the server's
// completions as you type.
import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import { UriTemplate } from '../../server/uri-template.js';
import type { ServerView } from '../api-types.js';
import { post, serverPath } from './api.js';
import { ResourceContents } from './content.js';
import { useStudio } from './store.js';
import { matches, useList } from './tools.js';
import { VirtualList } from './virtual-list.js';

interface ResourceDef {
  uri: string;
  name?: string;
  title?: string;
  description?: string;
  mimeType?: string;
}
interface TemplateDef {
  uriTemplate: string;
  name?: string;
  title?: string;
  description?: string;
  mimeType?: string;
}

type Item = { kind: 'resource'; r: ResourceDef } | { kind: 'template'; t: TemplateDef };

export function ResourcesPanel({ server, openUri }: { server: ServerView; openUri?: string }) {
  const version = useStudio(useCallback((s) => s.lists[server.name]?.resources ?? 0, [server.name]));
  const res = useList<ResourceDef>(server, 'resources', version);
  const tpl = useList<TemplateDef>(server, 'templates', version);
  const [filter, setFilter] = useState('');
  const [chosen, setChosen] = useState<string | undefined>(openUri);
  const items = useMemo<Item[]>(
    () => [
      ...(res.items ?? []).filter((r) => matches(filter, r.uri, r.name, r.title, r.description)).map((r) => ({ kind: 'resource' as const, r })),
      ...(tpl.items ?? []).filter((t) => matches(filter, t.uriTemplate, t.name, t.title, t.description)).map((t) => ({ kind: 'template' as const, t })),
    ],
    [res.items, tpl.items, filter],
  );
  const keyOf = (i: Item) => (i.kind === 'resource' ? `r:${i.r.uri}` : `t:${i.t.uriTemplate}`);
  const index = items.findIndex((i) => keyOf(i) === chosen);
  const item = items[index];
  if (server.state !== 'connected') return <p class="muted">Not connected.</p>;
  return (
    <div class="split">
      <div class="list-pane">
        <input
          type="search"
          class="filter"
          aria-label="Filter resources"
          placeholder={`Filter ${res.items?.length ?? 0} resources, ${tpl.items?.length ?? 0} templates`}
          value={filter}
          onInput={(e) => setFilter((e.currentTarget as HTMLInputElement).value)}
        />
        {res.error ? <div class="error-text">{res.error}</div> : null}
        <VirtualList
          label="Resources"
          items={items}
          rowHeight={46}
          keyOf={keyOf}
          selected={index}
          onSelect={(i) => setChosen(items[i] ? keyOf(items[i]) : undefined)}
          render={(i) => (
            <div class="row-text">
              <div class="row-title">
                {i.kind === 'template' ? <span class="badge">template</span> : null}{' '}
                {i.kind === 'resource' ? (i.r.title ?? i.r.name ?? i.r.uri) : (i.t.title ?? i.t.name)}
              </div>
              <div class="row-sub">{i.kind === 'resource' ? i.r.uri : i.t.uriTemplate}</div>
            </div>
          )}
        />
      </div>
      <div class="detail-pane">
        {item?.kind === 'resource' ? (
          <ResourceDetail key={item.r.uri} server={server} uri={item.r.uri} def={item.r} />
        ) : item?.kind === 'template' ? (
          <TemplateDetail key={item.t.uriTemplate} server={server} def={item.t} />
        ) : chosen?.startsWith('r:') ? (
          <ResourceDetail key={chosen} server={server} uri={chosen.slice(2)} />
        ) : (
          <p class="muted">Choose a resource or a template.</p>
        )}
      </div>
    </div>
  );
}

function ResourceDetail({ server, uri, def }: { server: ServerView; uri: string; def?: ResourceDef }) {
  const [contents, setContents] = useState<unknown[] | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const updated = useStudio(useCallback((s) => s.updates[`${server.name} ${uri}`], [server.name, uri]));
  const subscribed = server.subscriptions.includes(uri);
  const canSubscribe = !!(server.capabilities?.resources as Record<string, unknown> | undefined)?.subscribe;
  const read = async () => {
    setBusy(true);
    try {
      const r = await post<{ result?: { contents: unknown[] }; error?: { message: string } }>(serverPath(server.name, 'read'), { uri });
      setContents(r.result?.contents);
      setError(r.error?.message);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  useEffect(() => {
    void read();
  }, [uri, updated]);
  const toggle = async () => {
    try {
      await post(serverPath(server.name, 'subscribe'), { uri, on: !subscribed });
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return (
    <div>
      <h2>{def?.title ?? def?.name ?? uri}</h2>
      <div class="muted">
        <code>{uri}</code> {def?.mimeType ?? ''}
      </div>
      {def?.description ? <p class="desc">{def.description}</p> : null}
      <div class="actions">
        <button type="button" onClick={() => void read()} disabled={busy}>
          Read again
        </button>
        {canSubscribe ? (
          <button type="button" aria-pressed={subscribed} onClick={() => void toggle()}>
            {subscribed ? 'Unsubscribe' : 'Subscribe'}
          </button>
        ) : (
          <span class="muted">The server does not offer subscriptions.</span>
        )}
        {updated ? <span class="badge good">updated {new Date(updated).toLocaleTimeString()}</span> : null}
      </div>
      {error ? <div class="error-text">{error}</div> : null}
      {contents ? <ResourceContents contents={contents as never} /> : null}
    </div>
  );
}

function TemplateDetail({ server, def }: { server: ServerView; def: TemplateDef }) {
  const template = useMemo(() => {
    try {
      return new UriTemplate(def.uriTemplate);
    } catch {
      return undefined;
    }
  }, [def.uriTemplate]);
  const [vars, setVars] = useState<Record<string, string>>({});
  const [uri, setUri] = useState<string | undefined>();
  if (!template) return <div class="error-text">Not a valid URI template: {def.uriTemplate}</div>;
  const expanded = template.expand(vars);
  return (
    <div>
      <h2>{def.title ?? def.name}</h2>
      <div class="muted">
        <code>{def.uriTemplate}</code> {def.mimeType ?? ''}
      </div>
      {def.description ? <p class="desc">{def.description}</p> : null}
      <div class="schema-form">
        {template.variableNames.map((name) => (
          <CompletingInput
            key={name}
            server={server}
            name={name}
            value={vars[name] ?? ''}
            refObj={{ type: 'ref/resource', uri: def.uriTemplate }}
            context={vars}
            onChange={(v) => setVars({ ...vars, [name]: v })}
          />
        ))}
      </div>
      <div class="actions">
        <code class="expanded">{expanded}</code>
        <button type="button" class="primary" onClick={() => setUri(expanded)}>
          Read
        </button>
      </div>
      {uri ? <ResourceDetail key={uri} server={server} uri={uri} /> : null}
    </div>
  );
}

/** A text input whose suggestions come from completion/complete (debounced, as typed). */
export function CompletingInput(p: {
  server: ServerView;
  name: string;
  value: string;
  refObj: Record<string, unknown>;
  context: Record<string, string>;
  onChange: (v: string) => void;
  required?: boolean;
  description?: string;
}) {
  const [options, setOptions] = useState<string[]>([]);
  const [info, setInfo] = useState<string | undefined>();
  const canComplete = !!p.server.capabilities?.completions;
  useEffect(() => {
    if (!canComplete) return;
    const t = setTimeout(() => {
      const others = Object.fromEntries(Object.entries(p.context).filter(([k, v]) => k !== p.name && v !== ''));
      post<{ result?: { completion: { values: string[]; total?: number; hasMore?: boolean } }; error?: { message: string } }>(
        serverPath(p.server.name, 'complete'),
        {
          ref: p.refObj,
          argument: { name: p.name, value: p.value },
          ...(Object.keys(others).length > 0 ? { context: { arguments: others } } : {}),
        },
      )
        .then((r) => {
          const c = r.result?.completion;
          setOptions(c?.values ?? []);
          setInfo(r.error ? r.error.message : c && (c.hasMore || (c.total ?? 0) > c.values.length) ? `${c.values.length} of ${c.total ?? 'more'}` : undefined);
        })
        .catch(() => setOptions([]));
    }, 150);
    return () => clearTimeout(t);
  }, [p.value, canComplete]);
  const listId = `complete-${p.name.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  return (
    <div class="field">
      <div class="field-head">
        <label for={`${listId}-input`}>
          {p.name}
          {p.required ? <span class="req">*</span> : null}
        </label>
        {canComplete ? <span class="hint">completions{info ? `: ${info}` : ''}</span> : null}
      </div>
      {p.description ? <div class="desc">{p.description}</div> : null}
      <input
        id={`${listId}-input`}
        name={p.name}
        list={listId}
        autocomplete="off"
        value={p.value}
        onInput={(e) => p.onChange((e.currentTarget as HTMLInputElement).value)}
      />
      <datalist id={listId}>
        {options.map((o) => (
          <option key={o} value={o} />
        ))}
      </datalist>
      {options.length > 0 ? (
        <fieldset class="suggestions">
          <legend class="hint">suggestions</legend>
          {options.slice(0, 12).map((o) => (
            <button type="button" class="chip" key={o} onClick={() => p.onChange(o)}>
              {o}
            </button>
          ))}
        </fieldset>
      ) : null}
    </div>
  );
}
