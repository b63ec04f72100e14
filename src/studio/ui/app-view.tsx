// One MCP App view on stage: the sandboxed iframe (`allow-scripts allow-forms`, never
// `allow-same-origin`) pointed at its one-time document, the bridge that speaks the host protocol
// with it, and what the view asks of the host, each shown: tool calls waiting for your approval
// (nothing reaches the server before you allow it), links to open, messages and model context,
// and the log of every message both ways (and of those ignored: not from this view's window).
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { toolUi } from '../../protocol/apps.js';
import type { AppViewInfo, CallOutcome, ServerView } from '../api-types.js';
import { post, serverPath } from './api.js';
import { AppBridge, RpcError, type BridgeLogEntry, type DisplayMode, type HostContext } from './app-bridge.js';
import { filesOf, saveFiles, type ViewFile } from './app-download.js';
import { AppSaid } from './app-said.js';
import { Json } from './content.js';
import { taskKey, useStudio } from './store.js';
import type { ToolDef } from './tools.js';

export type Device = 'desktop' | 'tablet' | 'phone';
export interface Presets {
  theme: 'light' | 'dark';
  device: Device;
  locale: string;
}

export const DEVICES: Record<Device, { label: string; width: number; platform: 'web' | 'mobile'; touch: boolean; insets?: HostContext['safeAreaInsets'] }> = {
  desktop: { label: 'Desktop', width: 1024, platform: 'web', touch: false },
  tablet: { label: 'Tablet', width: 768, platform: 'mobile', touch: true },
  phone: { label: 'Phone', width: 390, platform: 'mobile', touch: true, insets: { top: 47, right: 0, bottom: 34, left: 0 } },
};
export const LOCALES = ['en-US', 'fr-FR', 'de-DE', 'ja-JP', 'ar-EG'];
const MAX_HEIGHT = 640;

const FONT_SANS = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
const FONT_MONO = 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace';
/** The standard variables (2026-01-26 Theming), in the studio's own colours. */
const THEME_VARS: Record<Presets['theme'], Record<string, string>> = {
  light: {
    '--color-background-primary': '#ffffff',
    '--color-background-secondary': '#f7f7f8',
    '--color-text-primary': '#1d1f23',
    '--color-text-secondary': '#5d6470',
    '--color-border-primary': '#d9dce1',
    '--color-ring-primary': '#2f5fd0',
    '--color-text-danger': '#c0262d',
    '--color-text-success': '#1a7f37',
  },
  dark: {
    '--color-background-primary': '#1d2026',
    '--color-background-secondary': '#15171b',
    '--color-text-primary': '#e6e8eb',
    '--color-text-secondary': '#9aa3af',
    '--color-border-primary': '#343944',
    '--color-ring-primary': '#7aa2ff',
    '--color-text-danger': '#ff7b72',
    '--color-text-success': '#4ac26b',
  },
};

function contextOf(p: Presets, mode: DisplayMode): Partial<HostContext> {
  const d = DEVICES[p.device];
  const full = mode === 'fullscreen';
  return {
    theme: p.theme,
    styles: { variables: { ...THEME_VARS[p.theme], '--font-sans': FONT_SANS, '--font-mono': FONT_MONO, '--border-radius-md': '6px' } },
    locale: p.locale,
    platform: d.platform,
    deviceCapabilities: { touch: d.touch, hover: !d.touch },
    safeAreaInsets: d.insets ?? { top: 0, right: 0, bottom: 0, left: 0 },
    containerDimensions: full ? { width: innerWidth, height: innerHeight } : { width: d.width, maxHeight: MAX_HEIGHT },
  };
}

interface Ask {
  id: number;
  kind: 'tools/call' | 'ui/open-link' | 'ui/download-file';
  name?: string;
  args?: unknown;
  url?: string;
  files?: ViewFile[];
  decide(yes: boolean): void;
}

export function AppView(p: {
  server: ServerView;
  tool: ToolDef;
  tools: ToolDef[];
  view: AppViewInfo;
  args: Record<string, unknown> | undefined;
  outcome: CallOutcome | undefined;
  presets: Presets;
  onClose(): void;
  /** Set to what winds the view down (ui/resource-teardown), for the panel to call before replacing it. */
  teardown?: { current?: () => Promise<void> };
}) {
  const stage = useRef<HTMLDivElement>(null);
  const root = useRef<HTMLDivElement>(null);
  const bridge = useRef<AppBridge | undefined>(undefined);
  const frame = useRef<HTMLIFrameElement | undefined>(undefined);
  const latest = useRef(p);
  latest.current = p;
  const [asks, setAsks] = useState<Ask[]>([]);
  const [log, setLog] = useState<BridgeLogEntry[]>([]);
  const [ignored, setIgnored] = useState(0);
  const [ready, setReady] = useState(false);
  const [mode, setMode] = useState<DisplayMode>('inline');
  const modeNow = useRef<DisplayMode>('inline');
  modeNow.current = mode;
  const [context, setContext] = useState<unknown>(undefined);
  const [messages, setMessages] = useState<unknown[]>([]);
  const height = useRef(160);
  const version = useStudio(useCallback((s) => s.state?.version ?? '', []));

  const ask = (a: Omit<Ask, 'id' | 'decide'>) =>
    new Promise<boolean>((resolve) => {
      const id = Math.random();
      setAsks((xs) => [
        ...xs,
        {
          ...a,
          id,
          decide: (yes) => {
            setAsks((ys) => ys.filter((y) => y.id !== id));
            resolve(yes);
          },
        },
      ]);
    });

  // The frame and its bridge, made once per view (the document behind the id loads only once).
  useEffect(() => {
    const box = stage.current;
    if (!box) return;
    const iframe = document.createElement('iframe');
    iframe.setAttribute('sandbox', 'allow-scripts allow-forms');
    if (p.view.allow) iframe.setAttribute('allow', p.view.allow);
    iframe.setAttribute('title', `MCP App view ${p.view.uri}`);
    iframe.setAttribute('referrerpolicy', 'no-referrer');
    iframe.className = 'app-frame';
    frame.current = iframe;
    const b = new AppBridge(
      iframe,
      {
        ...contextOf(p.presets, 'inline'),
        displayMode: 'inline',
        availableDisplayModes: ['inline', 'fullscreen'],
        userAgent: `mcpkit-studio/${version}`,
        toolInfo: { tool: p.tool as never },
      },
      {
        name: 'mcpkit-studio',
        version,
        capabilities: {
          openLinks: {},
          downloadFile: {},
          sampling: {},
          serverTools: {},
          serverResources: {},
          logging: {},
          message: { text: {} },
          updateModelContext: { text: {}, structuredContent: {} },
          sandbox: { csp: (p.view.ui as { csp?: unknown }).csp ?? {}, permissions: (p.view.ui as { permissions?: unknown }).permissions ?? {} },
        },
      },
      {
        callTool: async (params) => {
          const name = typeof params.name === 'string' ? params.name : '';
          const tool = latest.current.tools.find((t) => t.name === name);
          if (!tool) throw new RpcError(-32602, `Unknown tool "${name}" (this view's server has no such tool)`);
          // The spec's MUST: a view calls only tools whose visibility includes "app", of its own server.
          if (!toolUi(tool as never).visibility.includes('app')) throw new RpcError(-32602, `Tool "${name}" is not callable by apps (visibility ["model"])`);
          const args = params.arguments && typeof params.arguments === 'object' ? params.arguments : {};
          if (!(await ask({ kind: 'tools/call', name, args }))) throw new RpcError(-32000, `You denied the call to "${name}"`);
          const out = await post<CallOutcome>(serverPath(latest.current.server.name, 'call'), { name, arguments: args });
          if (out.error) throw new RpcError(out.error.code ?? -32603, out.error.message);
          if (out.task) throw new RpcError(-32603, `The server runs "${name}" as a task (${out.task.taskId}): follow it in the Tasks panel`);
          return out.result ?? {};
        },
        readResource: async (params) => {
          if (typeof params.uri !== 'string') throw new RpcError(-32602, 'resources/read needs a uri');
          const r = await post<{ result?: Record<string, unknown>; error?: { code?: number; message: string } }>(
            serverPath(latest.current.server.name, 'read'),
            {
              uri: params.uri,
            },
          );
          if (r.error) throw new RpcError(r.error.code ?? -32603, r.error.message);
          return r.result ?? {};
        },
        openLink: async (url) => {
          if (!/^https?:\/\//i.test(url)) throw new RpcError(-32602, 'Only http(s) links are opened');
          if (!(await ask({ kind: 'ui/open-link', url }))) return { isError: true };
          return {};
        },
        sample: async (params) => {
          const r = await post<{ result?: Record<string, unknown>; error?: { code?: number; message: string } }>(
            serverPath(latest.current.server.name, 'apps/sample'),
            { params },
          );
          if (r.error) throw new RpcError(r.error.code ?? -1, r.error.message);
          return r.result ?? {};
        },
        downloadFile: async (params) => {
          let files: ViewFile[];
          try {
            files = filesOf(params);
          } catch (err) {
            throw new RpcError(-32602, (err as Error).message);
          }
          if (!(await ask({ kind: 'ui/download-file', files }))) return { isError: true };
          await saveFiles(files, async (uri) => {
            const r = await post<{ result?: { contents?: Array<{ text?: string; blob?: string; mimeType?: string }> }; error?: { message: string } }>(
              serverPath(latest.current.server.name, 'read'),
              { uri },
            );
            if (r.error) throw new RpcError(-32603, r.error.message);
            return r.result?.contents ?? [];
          });
          return {};
        },
        message: async (params) => {
          setMessages((m) => [...m.slice(-19), params]);
          return {};
        },
        updateModelContext: async (params) => {
          setContext(params);
          return {};
        },
        displayMode: (want, offered) => {
          const ok = (want === 'inline' || want === 'fullscreen') && (!offered || offered.includes(want));
          const next = ok ? want : modeNow.current;
          setMode(next);
          return next;
        },
        size: (_w, h) => {
          if (h === undefined) return;
          height.current = Math.min(h, MAX_HEIGHT);
          if (frame.current && !frame.current.classList.contains('fullscreen')) frame.current.style.height = `${height.current}px`;
        },
        teardownRequested: () => void close(),
        log: (e) => {
          if (e.dir === 'ignored') setIgnored((n) => n + 1);
          if (e.dir === 'from view' && e.method === 'ui/notifications/initialized') setReady(true);
          setLog((l) => [...l.slice(-199), e]);
        },
      },
    );
    bridge.current = b;
    if (p.args) b.toolInput(p.args);
    iframe.style.width = `${DEVICES[p.presets.device].width}px`;
    iframe.style.height = `${height.current}px`;
    // The bridge listens before the document can speak.
    iframe.src = `/apps/view/${p.view.id}`;
    box.appendChild(iframe);
    return () => {
      b.close();
      iframe.remove();
    };
  }, [p.view.id]);

  // Presets changed: the frame is resized and the view told.
  useEffect(() => {
    const iframe = frame.current;
    if (iframe) iframe.style.width = mode === 'fullscreen' ? '100%' : `${DEVICES[p.presets.device].width}px`;
    bridge.current?.setContext(contextOf(p.presets, mode));
  }, [p.presets.theme, p.presets.device, p.presets.locale]);

  const firstMode = useRef(true);
  useEffect(() => {
    const iframe = frame.current;
    if (!iframe) return;
    if (firstMode.current) firstMode.current = false;
    else bridge.current?.setContext({ displayMode: mode, containerDimensions: contextOf(p.presets, mode).containerDimensions });
    iframe.classList.toggle('fullscreen', mode === 'fullscreen');
    iframe.style.width = mode === 'fullscreen' ? '100%' : `${DEVICES[p.presets.device].width}px`;
    iframe.style.height = mode === 'fullscreen' ? '' : `${height.current}px`;
    root.current?.classList.toggle('fullscreen', mode === 'fullscreen');
  }, [mode]);

  // The call's outcome, once it comes (a task's, once it is over).
  const task = useStudio(useCallback((s) => (p.outcome?.task ? s.tasks[taskKey(p.outcome.task.server, p.outcome.task.taskId)] : undefined), [p.outcome]));
  useEffect(() => {
    const b = bridge.current;
    if (!b || !p.outcome) return;
    if (p.outcome.result) b.toolResult(p.outcome.result);
    else if (p.outcome.error) b.toolCancelled(p.outcome.error.message);
  }, [p.outcome]);
  useEffect(() => {
    const b = bridge.current;
    if (!b || !task || task.following) return;
    if (task.result) b.toolResult(task.result);
    else b.toolCancelled(task.error?.message ?? `the task ended ${task.status}`);
  }, [task?.following]);

  const close = async () => {
    await bridge.current?.teardown('closed in the studio');
    latest.current.onClose();
  };
  if (p.teardown) p.teardown.current = () => bridge.current?.teardown('replaced by another view') ?? Promise.resolve();
  const prefersBorder = (p.view.ui as { prefersBorder?: boolean }).prefersBorder;

  return (
    <div class="app-view" ref={root}>
      <div class="app-view-head">
        <span class={`badge ${ready ? 'good' : ''}`} data-testid="view-state">
          {ready ? 'view initialized' : 'loading the view…'}
        </span>
        <span class="muted small-print">
          {DEVICES[p.presets.device].label} · {p.presets.theme} · {p.presets.locale} · {mode}
        </span>
        <span class="spacer" />
        {mode === 'fullscreen' ? (
          <button type="button" class="small" onClick={() => setMode('inline')}>
            Exit fullscreen
          </button>
        ) : null}
        <button type="button" class="small" onClick={() => void close()}>
          Close the view
        </button>
      </div>
      {asks.map((a) => (
        <div key={a.id} class="approval" role="alertdialog" aria-label="The view asks" data-ask={a.kind}>
          {a.kind === 'tools/call' ? (
            <>
              <div>
                The view asks to call <strong data-testid="ask-tool">{a.name}</strong> on {p.server.name}: nothing is sent until you allow it.
              </div>
              <Json value={a.args} />
            </>
          ) : a.kind === 'ui/download-file' ? (
            <div>
              The view asks to save {a.files?.length === 1 ? 'a file' : `${a.files?.length} files`}:{' '}
              {a.files?.map((f, i) => (
                <span key={i} data-testid="download-file">
                  {i > 0 ? ', ' : ''}
                  <code>{f.name}</code> ({f.mimeType}
                  {f.size !== undefined ? `, ${f.size} bytes` : `, read from ${f.link}`})
                </span>
              ))}
            </div>
          ) : (
            <div>
              The view asks to open <code>{a.url}</code>
            </div>
          )}
          <div class="actions">
            {a.kind === 'tools/call' || a.kind === 'ui/download-file' ? (
              <button type="button" class="primary" onClick={() => a.decide(true)}>
                {a.kind === 'tools/call' ? 'Allow' : 'Save'}
              </button>
            ) : (
              <a class="button primary" href={a.url} target="_blank" rel="noopener noreferrer" onClick={() => a.decide(true)}>
                Open
              </a>
            )}
            <button type="button" onClick={() => a.decide(false)}>
              {a.kind === 'tools/call' ? 'Deny' : 'Dismiss'}
            </button>
          </div>
        </div>
      ))}
      <div ref={stage} class={`app-stage${prefersBorder === false ? ' borderless' : ''}`} data-device={p.presets.device} />
      <AppSaid messages={messages} context={context} server={p.server.name} />
      <details class="app-log">
        <summary>
          Messages with the view: {log.length} <span class="muted">· ignored (not from this view): </span>
          <span data-testid="ignored-count">{ignored}</span>
        </summary>
        <ol>
          {log.map((e, i) => (
            <li key={i} class={`log-${e.dir.replace(' ', '-')}`}>
              <span class="badge">{e.dir}</span> <code>{e.method ?? (e.id !== undefined ? `answer #${e.id}` : '')}</code>{' '}
              {e.text ? <span class="muted">{e.text}</span> : null}
            </li>
          ))}
        </ol>
      </details>
    </div>
  );
}
