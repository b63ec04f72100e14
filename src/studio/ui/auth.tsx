// The OAuth sign-in of one server, step by step: the 401 and its challenge, the two metadata
// documents, the client (pre-registered, metadata document, or registered), PKCE and the
// authorization in the browser (a link to open; the authorization server sends the browser back
// to the studio), the redirect back, the token, each refresh. Every HTTP exchange can be opened:
// request and answer, headers and bodies, with tokens, codes and secrets masked by the studio.
import { useEffect, useReducer, useState } from 'preact/hooks';
import type { ServerView } from '../api-types.js';
import type { Exchange, OAuthStep, OAuthView } from '../oauth-steps.js';
import { get, post, serverPath } from './api.js';
import { Json } from './content.js';
import { eventListeners } from './store.js';

const views = new Map<string, OAuthView>();
const subs = new Set<() => void>();
const tell = () => {
  for (const s of [...subs]) s();
};
eventListeners.add((event, data) => {
  if (event !== 'oauth') return;
  const v = data as OAuthView;
  views.set(v.server, v);
  tell();
});

function useView(server: string): OAuthView | undefined {
  const [, bump] = useReducer((n: number) => n + 1, 0);
  useEffect(() => {
    subs.add(bump as () => void);
    get<OAuthView>(serverPath(server, 'oauth'))
      .then((v) => {
        views.set(server, v);
        tell();
      })
      .catch(() => {});
    return () => void subs.delete(bump as () => void);
  }, [server]);
  return views.get(server);
}

const safeLink = (u: string) => /^https?:\/\//i.test(u);

export function AuthPanel({ server }: { server: ServerView }) {
  const view = useView(server.name);
  const [error, setError] = useState<string | undefined>();
  if (!view) return <p class="muted">Loading…</p>;
  if (!view.enabled) {
    return (
      <div class="auth-panel">
        <h2>Sign-in</h2>
        <p class="muted">
          {server.target?.kind === 'stdio'
            ? 'A stdio server: it needs no sign-in (its credentials, if any, are in its environment).'
            : 'This server is reached with credentials given to the studio (an Authorization header), or OAuth was turned off (--no-oauth).'}
        </p>
      </div>
    );
  }
  return (
    <div class="auth-panel">
      <div class="overview-head">
        <h2>
          Sign-in{' '}
          <span class={`badge ${view.signedIn ? 'good' : ''}`} data-testid="auth-state">
            {view.signedIn ? 'signed in' : view.waiting ? 'waiting for you' : 'not signed in'}
          </span>
        </h2>
        {view.signedIn ? (
          <div class="actions">
            <button type="button" onClick={() => void post(serverPath(server.name, 'oauth/sign-out')).catch((e: Error) => setError(e.message))}>
              Sign out
            </button>
          </div>
        ) : null}
      </div>
      <dl class="facts">
        {view.issuer ? (
          <>
            <dt>Authorization server</dt>
            <dd>
              <code>{view.issuer}</code>
            </dd>
          </>
        ) : null}
        {view.registration ? (
          <>
            <dt>Client</dt>
            <dd data-testid="auth-registration">{view.registration}</dd>
          </>
        ) : null}
        <dt>Redirect URI</dt>
        <dd>
          <code>{view.redirectUri}</code>
        </dd>
      </dl>
      {error ? <div class="error-text">{error}</div> : null}
      {view.waiting ? (
        <div class="card-box sign-in-now">
          <strong>Sign in at {view.waiting.issuer}</strong>
          <p class="muted small-print">
            Opens in a new tab. When you are done there, the authorization server sends your browser back to this studio, and the steps below go on.
          </p>
          <div class="actions">
            {safeLink(view.waiting.url) ? (
              <a class="button-link primary" href={view.waiting.url} target="_blank" rel="noopener noreferrer" data-testid="sign-in-link">
                Open the sign-in page
              </a>
            ) : (
              <span class="error-text">The authorization URL is not http(s): not offered.</span>
            )}
            <button type="button" onClick={() => void post(serverPath(server.name, 'oauth/cancel')).catch((e: Error) => setError(e.message))}>
              Cancel the sign-in
            </button>
          </div>
        </div>
      ) : null}
      {view.steps.length === 0 ? <p class="muted">No sign-in yet: the server has not asked for authorization.</p> : null}
      <ol class="auth-steps">
        {view.steps.map((s) => (
          <Step key={s.n} step={s} />
        ))}
      </ol>
    </div>
  );
}

function Step({ step }: { step: OAuthStep }) {
  const [open, setOpen] = useState(false);
  return (
    <li class={`auth-step ${step.status}`} data-step={step.kind} data-status={step.status}>
      <div class="call-head">
        <span class={`badge ${step.status === 'ok' ? 'good' : step.status === 'failed' ? 'bad' : step.status === 'waiting' ? 'warn' : ''}`}>{step.status}</span>
        <strong>{step.title}</strong>
        {step.exchange ? (
          <button type="button" class="link" onClick={() => setOpen(!open)}>
            {open ? 'hide the exchange' : `${step.exchange.method} ${step.exchange.status ?? ''}`.trim()}
          </button>
        ) : null}
      </div>
      {step.detail ? <div class="muted">{step.detail}</div> : null}
      {step.facts ? (
        <table class="changes facts-table">
          <tbody>
            {Object.entries(step.facts).map(([k, v]) => (
              <tr key={k} data-fact={k}>
                <td>
                  <code>{k}</code>
                </td>
                <td class="fact-value">{v}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {open && step.exchange ? <ExchangeView x={step.exchange} /> : null}
    </li>
  );
}

function ExchangeView({ x }: { x: Exchange }) {
  return (
    <div class="exchange">
      <div class="section-title">
        {x.method} {x.url}
      </div>
      <Json value={x.requestHeaders} />
      {x.requestBody !== undefined ? <Json value={x.requestBody} /> : null}
      <div class="section-title">
        {x.error ? `No answer: ${x.error}` : `${x.status}`} {x.durationMs !== undefined ? <span class="muted">{Math.round(x.durationMs)} ms</span> : null}
      </div>
      {x.responseHeaders ? <Json value={x.responseHeaders} /> : null}
      {x.responseBody !== undefined ? <Json value={x.responseBody} /> : null}
    </div>
  );
}
