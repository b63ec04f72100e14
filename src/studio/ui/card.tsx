// The server card of an HTTP server beside the live server: the card as served, the differences
// the client's check finds (name, version, title, description, website, the remote for this
// endpoint, protocol versions, and capabilities or tool names where the card has them), and when
// the card lists tools, prompts or resources, those lists diffed against the live ones.
import { useEffect, useState } from 'preact/hooks';
import type { ServerView } from '../api-types.js';
import type { CatalogDiff } from '../diff.js';
import { post, serverPath } from './api.js';
import { Json } from './content.js';
import { brief } from '../diff.js';
import { CatalogDiffView } from './diff-view.js';

interface CardAnswer {
  url: string;
  card?: Record<string, unknown>;
  error?: string;
  check?: { matches: boolean; source: string; differences: Array<{ field: string; card: unknown; server: unknown; message: string }> };
  lists?: CatalogDiff;
}

export function CardPanel({ server }: { server: ServerView }) {
  const [answer, setAnswer] = useState<CardAnswer | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const fetchCard = () => {
    setBusy(true);
    setError(undefined);
    post<CardAnswer>(serverPath(server.name, 'card'))
      .then(setAnswer, (e: Error) => setError(e.message))
      .finally(() => setBusy(false));
  };
  const http = server.target?.kind === 'http';
  useEffect(() => {
    if (http) fetchCard();
  }, [server.name]);
  if (!http) return <p class="muted">A server card is served next to an HTTP endpoint; this server is reached over stdio.</p>;
  return (
    <div class="card-panel">
      <div class="overview-head">
        <h2>
          Server card{' '}
          {answer?.check ? (
            <span class={`badge ${answer.check.matches ? 'good' : 'warn'}`} data-testid="card-verdict">
              {answer.check.matches ? 'matches the server' : `${answer.check.differences.length} difference${answer.check.differences.length === 1 ? '' : 's'}`}
            </span>
          ) : null}
        </h2>
        <div class="actions">
          <button type="button" onClick={fetchCard} disabled={busy}>
            {busy ? 'Fetching…' : 'Fetch again'}
          </button>
        </div>
      </div>
      {error ? <div class="error-text">{error}</div> : null}
      {answer?.error ? (
        <div class="error-text" data-testid="card-error">
          {answer.error}
        </div>
      ) : null}
      {answer?.check ? (
        <section class="card-box">
          <h3>Card vs live ({answer.check.source})</h3>
          {answer.check.differences.length === 0 ? <p class="muted">The card says what the server says.</p> : null}
          <table class="changes card-differences">
            <tbody>
              {answer.check.differences.map((d) => (
                <tr key={d.field} data-field={d.field}>
                  <td>
                    <code>{d.field}</code>
                  </td>
                  <td>
                    <code class="before">{brief(d.card)}</code> → <code class="after">{brief(d.server)}</code>
                  </td>
                  <td class="muted">{d.message}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      ) : null}
      {answer?.card ? (
        <section class="card-box">
          <h3>Tools, prompts and resources</h3>
          {answer.lists ? (
            <CatalogDiffView diff={answer.lists} labels={['The card', 'The live server']} />
          ) : (
            <p class="muted">
              The card lists no tools, prompts or resources (a v1 card leaves them to the connection): only what it says about the server is compared.
            </p>
          )}
        </section>
      ) : null}
      {answer?.card ? (
        <section class="card-box">
          <h3>The card</h3>
          <div class="muted small-print">from {answer.url}/server-card (or /.well-known/mcp/server-card.json)</div>
          <Json value={answer.card} />
        </section>
      ) : null}
    </div>
  );
}
