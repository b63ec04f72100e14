// The Apps panel: the server's tools that have an MCP App view (`_meta.ui.resourceUri`), and for
// one of them its arguments, theme / device / locale presets, then **Run**: the tool is called, its
// `ui://` resource read and checked by the studio, and the view rendered in a sandboxed iframe that
// speaks the host protocol (app-view.tsx). What the resource asked for (CSP origins, permissions,
// domain) and what the studio applied are shown beside it.
import { useCallback, useMemo, useRef, useState } from 'preact/hooks';
import { toolUi } from '../../protocol/apps.js';
import type { AppViewInfo, CallOutcome, ServerView } from '../api-types.js';
import { post, serverPath } from './api.js';
import { AppView, DEVICES, LOCALES, type Device, type Presets } from './app-view.js';
import { Json, Outcome } from './content.js';
import { initialValue, rootOf } from './schema.js';
import { SchemaForm } from './schema-form.js';
import { useStudio } from './store.js';
import { matches, useList, type ToolDef } from './tools.js';
import { VirtualList } from './virtual-list.js';

/** The tool's view, when it has one (the deprecated flat key counts). */
export function viewOf(tool: ToolDef): string | undefined {
  const uri = toolUi(tool as never).resourceUri;
  return uri?.startsWith('ui://') ? uri : undefined;
}

export function AppsPanel({ server, theme }: { server: ServerView; theme: 'light' | 'dark' }) {
  const version = useStudio(useCallback((s) => s.lists[server.name]?.tools ?? 0, [server.name]));
  const { items, error } = useList<ToolDef>(server, 'tools', version);
  const [filter, setFilter] = useState('');
  const [chosen, setChosen] = useState<string | undefined>();
  const withViews = useMemo(() => (items ?? []).filter((t) => viewOf(t) !== undefined), [items]);
  const shown = useMemo(() => withViews.filter((t) => matches(filter, t.name, t.title, t.description, viewOf(t))), [withViews, filter]);
  const index = shown.findIndex((t) => t.name === chosen);
  const tool = withViews.find((t) => t.name === chosen);
  if (server.state !== 'connected') return <p class="muted">Not connected.</p>;
  return (
    <div class="split">
      <div class="list-pane">
        <input
          type="search"
          class="filter"
          placeholder={`Filter ${withViews.length} tools with a view`}
          aria-label="Filter app tools"
          value={filter}
          onInput={(e) => setFilter((e.currentTarget as HTMLInputElement).value)}
        />
        {error ? <div class="error-text">{error}</div> : null}
        {items !== undefined && withViews.length === 0 ? (
          <p class="muted">No tool of this server names a ui:// view (_meta.ui.resourceUri). The studio declares io.modelcontextprotocol/ui to every server.</p>
        ) : null}
        <VirtualList
          label="App tools"
          items={shown}
          rowHeight={46}
          keyOf={(t) => t.name}
          selected={index}
          onSelect={(i) => setChosen(shown[i]?.name)}
          render={(t) => (
            <div class="row-text" data-app-tool={t.name}>
              <div class="row-title">
                {t.name} {toolUi(t as never).visibility.includes('model') ? null : <span class="badge">app only</span>}
              </div>
              <div class="row-sub">{viewOf(t)}</div>
            </div>
          )}
        />
      </div>
      <div class="detail-pane">
        {tool ? (
          <AppDetail key={tool.name} server={server} tool={tool} tools={items ?? []} theme={theme} />
        ) : (
          <p class="muted">Choose a tool to run it and see its view.</p>
        )}
      </div>
    </div>
  );
}

type Opened = { view: AppViewInfo; args: Record<string, unknown> | undefined; outcome: CallOutcome | undefined; run: number };

function AppDetail({ server, tool, tools, theme }: { server: ServerView; tool: ToolDef; tools: ToolDef[]; theme: 'light' | 'dark' }) {
  const root = rootOf(tool.inputSchema);
  const [args, setArgs] = useState<Record<string, unknown>>(() => (initialValue(root, root, true) as Record<string, unknown>) ?? {});
  const [presets, setPresets] = useState<Presets>(() => ({ theme, device: 'desktop', locale: navigator.language || 'en-US' }));
  const [opened, setOpened] = useState<Opened | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const teardown = useRef<(() => Promise<void>) | undefined>(undefined);
  const uri = viewOf(tool)!;
  const ui = toolUi(tool as never);
  const appOnly = !ui.visibility.includes('model');

  const open = async (call: boolean) => {
    setError(undefined);
    setBusy(true);
    // The view on stage is asked to wind down before it goes (ui/resource-teardown).
    await teardown.current?.();
    teardown.current = undefined;
    setOpened(undefined);
    try {
      const r = await post<{ result?: AppViewInfo; error?: { message: string } }>(serverPath(server.name, 'apps/open'), { uri });
      if (!r.result) {
        setError(r.error?.message ?? 'The view could not be read');
        return;
      }
      const run = Date.now();
      setOpened({ view: r.result, args: call ? args : undefined, outcome: undefined, run });
      if (call) {
        const outcome = await post<CallOutcome>(serverPath(server.name, 'call'), { name: tool.name, arguments: args }).catch(
          (e: Error): CallOutcome => ({ error: { message: e.message }, durationMs: 0 }),
        );
        setOpened((o) => (o && o.run === run ? { ...o, outcome } : o));
      }
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };

  const set = <K extends keyof Presets>(k: K, v: Presets[K]) => setPresets((p) => ({ ...p, [k]: v }));
  return (
    <div class="app-detail">
      <h2>
        {tool.name} {tool.title && tool.title !== tool.name ? <span class="muted">{tool.title}</span> : null}
      </h2>
      <div class="badges">
        <span class="badge">
          view <code>{uri}</code>
        </span>
        <span class="badge">visibility: {ui.visibility.join(', ')}</span>
      </div>
      {tool.description ? <p class="desc">{tool.description}</p> : null}
      <fieldset class="presets" aria-label="View presets">
        <label>
          Theme{' '}
          <select name="app-theme" value={presets.theme} onChange={(e) => set('theme', (e.currentTarget as HTMLSelectElement).value as Presets['theme'])}>
            <option value="light">light</option>
            <option value="dark">dark</option>
          </select>
        </label>
        <label>
          Device{' '}
          <select name="app-device" value={presets.device} onChange={(e) => set('device', (e.currentTarget as HTMLSelectElement).value as Device)}>
            {(Object.keys(DEVICES) as Device[]).map((d) => (
              <option key={d} value={d}>
                {DEVICES[d].label} ({DEVICES[d].width} px)
              </option>
            ))}
          </select>
        </label>
        <label>
          Locale{' '}
          <select name="app-locale" value={presets.locale} onChange={(e) => set('locale', (e.currentTarget as HTMLSelectElement).value)}>
            {[...new Set([presets.locale, ...LOCALES])].map((l) => (
              <option key={l} value={l}>
                {l}
              </option>
            ))}
          </select>
        </label>
      </fieldset>
      {appOnly ? (
        <p class="muted">Only its view calls this tool (visibility ["app"]): open the view of a tool that shows it.</p>
      ) : (
        <SchemaForm schema={root} value={args} onChange={setArgs} />
      )}
      <div class="actions">
        {appOnly ? null : (
          <button type="button" class="primary" disabled={busy} onClick={() => void open(true)}>
            Run and show the view
          </button>
        )}
        <button type="button" disabled={busy} onClick={() => void open(false)}>
          Open the view only
        </button>
      </div>
      {error ? <div class="error-text">{error}</div> : null}
      {opened ? (
        <>
          <AppView
            key={opened.view.id}
            server={server}
            tool={tool}
            tools={tools}
            view={opened.view}
            args={opened.args}
            outcome={opened.outcome}
            presets={presets}
            onClose={() => setOpened(undefined)}
            teardown={teardown}
          />
          {opened.outcome ? <Outcome outcome={opened.outcome} /> : null}
          <ViewFacts view={opened.view} />
        </>
      ) : null}
    </div>
  );
}

/** What the resource asked for, and what the studio applied. */
function ViewFacts({ view }: { view: AppViewInfo }) {
  const ui = view.ui as { csp?: unknown; permissions?: Record<string, unknown>; domain?: string; prefersBorder?: boolean };
  return (
    <details class="view-facts">
      <summary>
        The view's sandbox{' '}
        <span class="muted">
          · {view.bytes} bytes · {view.fingerprint.slice(0, 19)}…
        </span>
      </summary>
      <dl class="facts">
        <dt>Resource</dt>
        <dd>
          <code>{view.uri}</code>
        </dd>
        <dt>Fingerprint</dt>
        <dd>
          <code data-testid="view-fingerprint">{view.fingerprint}</code>
        </dd>
        <dt>Sandbox</dt>
        <dd>
          <code>allow-scripts allow-forms</code> <span class="muted">(no allow-same-origin: an opaque origin)</span>
        </dd>
        <dt>Policy applied</dt>
        <dd>
          <code data-testid="view-csp">{view.csp}</code>
        </dd>
        {view.ignored.length > 0 ? (
          <>
            <dt>Left out</dt>
            <dd class="warn-text">{view.ignored.join('; ')}</dd>
          </>
        ) : null}
        <dt>Permissions</dt>
        <dd>{view.allow || <span class="muted">none asked</span>}</dd>
        {ui.domain ? (
          <>
            <dt>Domain</dt>
            <dd>
              <code>{ui.domain}</code> <span class="muted">(asked for; the studio serves every view from its own address, sandboxed)</span>
            </dd>
          </>
        ) : null}
      </dl>
      <div class="section-title">_meta.ui as sent</div>
      <Json value={view.ui} />
    </details>
  );
}
