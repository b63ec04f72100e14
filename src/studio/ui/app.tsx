// The studio's page: servers on the left, the chosen server's panels on the right, the questions
// servers wait on over everything, a command palette on Ctrl-K, light and dark.
import { useCallback, useEffect, useState } from 'preact/hooks';
import { AppsPanel } from './apps.js';
import { AddServer, PendingTargets, ServerList } from './connections.js';
import { InputDialog } from './inputs.js';
import { Overview, Roots } from './overview.js';
import { Palette, type Command } from './palette.js';
import { PromptsPanel } from './prompts.js';
import { ResourcesPanel } from './resources.js';
import { SkillsPanel } from './skills.js';
import { SessionsPanel } from './sessions.js';
import { ChatPanel } from './chat.js';
import { AuthPanel } from './auth.js';
import { CardPanel } from './card.js';
import { useStudio } from './store.js';
import { TasksPanel } from './tasks.js';
import { TimelinePanel } from './timeline.js';
import { ToolsPanel } from './tools.js';

export const TABS = ['overview', 'tools', 'resources', 'prompts', 'apps', 'tasks', 'skills', 'timeline', 'sessions', 'chat', 'auth', 'card', 'roots'] as const;
export type Tab = (typeof TABS)[number];
const TAB_LABEL: Record<Tab, string> = {
  overview: 'Overview',
  tools: 'Tools',
  resources: 'Resources',
  prompts: 'Prompts',
  apps: 'Apps',
  tasks: 'Tasks',
  skills: 'Skills',
  timeline: 'Timeline',
  sessions: 'Sessions',
  chat: 'Chat',
  auth: 'Sign-in',
  card: 'Card',
  roots: 'Roots',
};

/** `#server/tab`: the place survives a reload. */
function readHash(): { server?: string; tab: Tab } {
  const [s, t] = location.hash.slice(1).split('/').map(decodeURIComponent);
  return { server: s || undefined, tab: (TABS as readonly string[]).includes(t) ? (t as Tab) : 'overview' };
}

type Theme = 'light' | 'dark';
function initialTheme(): Theme {
  const saved = localStorage.getItem('mcpkit-studio-theme');
  if (saved === 'light' || saved === 'dark') return saved;
  return matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

export function App() {
  const state = useStudio(useCallback((s) => s.state, []));
  const up = useStudio(useCallback((s) => s.up, []));
  const why = useStudio(useCallback((s) => s.why, []));
  const [place, setPlace] = useState(readHash);
  const [theme, setTheme] = useState<Theme>(initialTheme);
  const [palette, setPalette] = useState(false);

  useEffect(() => {
    document.documentElement.dataset.theme = theme;
    localStorage.setItem('mcpkit-studio-theme', theme);
  }, [theme]);
  useEffect(() => {
    history.replaceState(null, '', `#${encodeURIComponent(place.server ?? '')}/${place.tab}`);
  }, [place]);
  // A link to `#server/tab` inside a panel (a task's "open in Tasks") moves there.
  useEffect(() => {
    const onHash = () => setPlace(readHash());
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'k') {
        e.preventDefault();
        setPalette((open) => !open);
      }
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, []);

  const servers = state?.servers ?? [];
  const server = servers.find((s) => s.name === place.server) ?? servers[0];
  const go = (tab: Tab, name = server?.name) => setPlace({ server: name, tab });

  const commands: Command[] = [
    ...TABS.map((t) => ({ id: `tab:${t}`, label: `Go to ${TAB_LABEL[t]}`, run: () => go(t) })),
    ...servers.map((s) => ({ id: `server:${s.name}`, label: `Server: ${s.name}`, hint: s.state, run: () => go(place.tab, s.name) })),
    { id: 'theme', label: `Switch to ${theme === 'dark' ? 'light' : 'dark'} theme`, run: () => setTheme(theme === 'dark' ? 'light' : 'dark') },
  ];

  return (
    <div class="app">
      <header class="topbar">
        <h1>mcpkit studio</h1>
        <span class={`conn ${up ? 'up' : 'down'}`} role="status">
          {up ? 'live' : `offline${why ? `: ${why}` : ''}`}
        </span>
        <span class="spacer" />
        <button type="button" class="small" onClick={() => setPalette(true)} aria-keyshortcuts="Control+K">
          Commands <kbd>Ctrl K</kbd>
        </button>
        <button type="button" class="small" aria-label="Switch theme" onClick={() => setTheme(theme === 'dark' ? 'light' : 'dark')}>
          {theme === 'dark' ? '☀ Light' : '☾ Dark'}
        </button>
      </header>
      <aside class="sidebar">
        <ServerList servers={servers} selected={server?.name} onSelect={(name) => go(place.tab, name)} />
        <PendingTargets pending={state?.pendingTargets ?? []} />
        <AddServer canAdd={state?.canAdd ?? false} />
        {state ? <div class="muted small-print version">mcpkit {state.version}</div> : null}
      </aside>
      <main class="main">
        <div class="tabs" role="tablist" aria-label="Panels">
          {TABS.map((t) => (
            <button key={t} type="button" role="tab" aria-selected={place.tab === t} data-tab={t} onClick={() => go(t)}>
              {TAB_LABEL[t]}
            </button>
          ))}
        </div>
        <div class="panel" role="tabpanel">
          {!state ? (
            <p class="muted">Connecting to the studio…</p>
          ) : place.tab === 'timeline' ? (
            <TimelinePanel />
          ) : place.tab === 'chat' ? (
            <ChatPanel />
          ) : place.tab === 'sessions' ? (
            <SessionsPanel server={server?.name} />
          ) : place.tab === 'roots' ? (
            <Roots state={state} />
          ) : place.tab === 'tasks' ? (
            <TasksPanel server={server} />
          ) : !server ? (
            <p class="muted">Add a server to begin (left), or start the studio with one: mcpkit studio http://127.0.0.1:3000/mcp</p>
          ) : place.tab === 'overview' ? (
            <Overview server={server} />
          ) : place.tab === 'auth' ? (
            <AuthPanel key={server.name} server={server} />
          ) : place.tab === 'card' ? (
            <CardPanel key={server.name} server={server} />
          ) : place.tab === 'tools' ? (
            <ToolsPanel key={server.name} server={server} />
          ) : place.tab === 'resources' ? (
            <ResourcesPanel key={server.name} server={server} />
          ) : place.tab === 'apps' ? (
            <AppsPanel key={server.name} server={server} theme={theme} />
          ) : place.tab === 'skills' ? (
            <SkillsPanel key={server.name} server={server} />
          ) : (
            <PromptsPanel key={server.name} server={server} />
          )}
        </div>
      </main>
      {state && state.inputs.length > 0 ? <InputDialog inputs={state.inputs} /> : null}
      {palette ? <Palette commands={commands} onClose={() => setPalette(false)} /> : null}
    </div>
  );
}
