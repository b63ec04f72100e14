// One server at a glance: how it is reached, its state (and, when it failed, the diagnosis: the
// step that failed and what to do), who it says it is, its capabilities and instructions, its
// stderr, its log messages with the level to ask for, and the roots every server is offered.
import { useCallback, useState } from 'preact/hooks';
import type { ServerView, StudioState } from '../api-types.js';
import { post, serverPath } from './api.js';
import { Json } from './content.js';
import { useStudio } from './store.js';

const ORIGIN: Record<ServerView['origin'], string> = {
  'command-line': 'named on the command line',
  config: 'from a config file',
  page: 'added in the page, confirmed by you',
};

const LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

export function Overview({ server }: { server: ServerView }) {
  const [error, setError] = useState<string | undefined>();
  const run = (what: string) => post(serverPath(server.name, what)).catch((e: Error) => setError(e.message));
  const info = server.serverInfo;
  return (
    <div class="overview">
      <div class="overview-head">
        <h2>
          {info?.title ?? info?.name ?? server.name}{' '}
          {info ? (
            <span class="muted">
              {info.name} {info.version}
            </span>
          ) : null}
        </h2>
        <div class="actions">
          <button type="button" onClick={() => void run('reconnect')}>
            Reconnect
          </button>
          {server.state === 'connected' && server.era === 'handshake' ? (
            <button type="button" onClick={() => void run('ping')}>
              Ping
            </button>
          ) : null}
          <button type="button" class="link danger" onClick={() => void run('remove')}>
            Remove
          </button>
        </div>
      </div>
      {error ? <div class="error-text">{error}</div> : null}
      <dl class="facts">
        <dt>State</dt>
        <dd data-testid="server-state">
          <span class={`dot ${server.state}`} /> {server.state}
          {server.retryInMs !== undefined ? <span class="muted"> · retrying in {Math.round(server.retryInMs / 1000)} s</span> : null}
        </dd>
        <dt>Reached by</dt>
        <dd>
          <code>{server.target?.text}</code>{' '}
          <span class="muted">
            ({server.target?.kind}, {ORIGIN[server.origin]})
          </span>
          {server.target?.headerNames?.length ? <div class="muted">headers: {server.target.headerNames.join(', ')}</div> : null}
          {server.target?.envNames?.length ? <div class="muted">environment: {server.target.envNames.join(', ')}</div> : null}
        </dd>
        {server.era ? (
          <>
            <dt>Era</dt>
            <dd>
              {server.era === 'modern'
                ? `2026-07-28 (stateless)${server.protocolVersion ? ` · ${server.protocolVersion}` : ''}`
                : `handshake · ${server.protocolVersion ?? ''}`}
            </dd>
          </>
        ) : null}
        {server.pid !== undefined ? (
          <>
            <dt>Process</dt>
            <dd>pid {server.pid}</dd>
          </>
        ) : null}
      </dl>
      {server.state !== 'connected' && (server.error || server.diagnosis) ? <Diagnosis server={server} /> : null}
      {server.instructions ? (
        <section>
          <div class="section-title">Instructions</div>
          <pre class="text-block">{server.instructions}</pre>
        </section>
      ) : null}
      {server.capabilities ? (
        <section>
          <div class="section-title">Capabilities</div>
          <div class="badges">
            {Object.keys(server.capabilities).map((k) => (
              <span class="badge" key={k}>
                {k}
              </span>
            ))}
          </div>
          <details>
            <summary>as sent</summary>
            <Json value={server.capabilities} />
          </details>
        </section>
      ) : null}
      {server.state === 'connected' && server.capabilities?.logging ? <LogLevel server={server} /> : null}
      <Logs server={server.name} />
      {server.stderr.length > 0 ? (
        <section>
          <div class="section-title">stderr</div>
          <pre class="text-block stderr">{server.stderr.join('\n')}</pre>
        </section>
      ) : null}
    </div>
  );
}

function Diagnosis({ server }: { server: ServerView }) {
  const d = server.diagnosis;
  return (
    <section class="diagnosis" role="alert">
      <div class="section-title">Why it failed</div>
      {d ? (
        <>
          <div>
            <strong>Step:</strong> {d.step}
          </div>
          <div>{d.problem}</div>
          {d.fix ? (
            <div class="fix">
              <strong>Fix:</strong> {d.fix}
            </div>
          ) : null}
          {d.evidence?.length ? <pre class="text-block stderr">{d.evidence.join('\n')}</pre> : null}
          <div class="muted small-print">
            {d.by === 'doctor' ? 'diagnosed by the connection doctor' : 'read from the error (the connection doctor can probe further)'}
          </div>
        </>
      ) : (
        <div>{server.error}</div>
      )}
    </section>
  );
}

function LogLevel({ server }: { server: ServerView }) {
  const [error, setError] = useState<string | undefined>();
  return (
    <section>
      <div class="section-title">Logging</div>
      <label>
        Level asked of the server{' '}
        <select
          name="log-level"
          value={server.logLevel ?? ''}
          onChange={(e) => {
            const level = (e.currentTarget as HTMLSelectElement).value;
            post<{ error?: { message: string } }>(serverPath(server.name, 'log-level'), { level })
              .then((r) => setError(r.error?.message))
              .catch((err: Error) => setError(err.message));
          }}
        >
          <option value="">(server default)</option>
          {LEVELS.map((l) => (
            <option key={l} value={l}>
              {l}
            </option>
          ))}
        </select>
      </label>
      {error ? <div class="error-text">{error}</div> : null}
    </section>
  );
}

function Logs({ server }: { server: string }) {
  const logs = useStudio(useCallback((s) => s.logs, []));
  const mine = logs.filter((l) => l.server === server);
  if (mine.length === 0) return null;
  return (
    <section>
      <div class="section-title">Log messages</div>
      <div class="logs">
        {mine.slice(-100).map((l, i) => (
          <div key={i} class={`log ${l.level}`}>
            <span class="badge">{l.level}</span> {l.logger ? <span class="muted">{l.logger}</span> : null}{' '}
            {typeof l.data === 'string' ? l.data : JSON.stringify(l.data)}
          </div>
        ))}
      </div>
    </section>
  );
}

/** The roots every server is offered (file:// URIs). */
export function Roots({ state }: { state: StudioState }) {
  const [text, setText] = useState(state.roots.map((r) => r.uri).join('\n'));
  const [error, setError] = useState<string | undefined>();
  const [saved, setSaved] = useState(false);
  const save = async () => {
    setSaved(false);
    const roots = text
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean)
      .map((uri) => ({ uri }));
    try {
      await post('/api/roots', { roots });
      setError(undefined);
      setSaved(true);
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return (
    <section class="roots">
      <h2>Roots</h2>
      <p class="muted">The folders servers may work in, one file:// URI a line, offered to every server (handshake-era servers are told when they change).</p>
      <textarea
        class="code"
        rows={4}
        name="roots"
        aria-label="Roots, one file:// URI a line"
        value={text}
        onInput={(e) => setText((e.currentTarget as HTMLTextAreaElement).value)}
      />
      {error ? <div class="error-text">{error}</div> : null}
      <div class="actions">
        <button type="button" onClick={() => void save()}>
          Save roots
        </button>
        {saved ? <span class="badge good">saved</span> : null}
      </div>
    </section>
  );
}
