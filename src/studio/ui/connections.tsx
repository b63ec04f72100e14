// The servers: their state at a glance, adding one (a request the studio holds until you confirm
// it here, seeing exactly what would run), and the confirmations waiting.
import { useState } from 'preact/hooks';
import type { PendingTarget, ServerView } from '../api-types.js';
import { post } from './api.js';

const STATE_LABEL: Record<ServerView['state'], string> = { connecting: 'connecting', connected: 'connected', failed: 'failed', closed: 'closed' };

export function ServerList(p: { servers: ServerView[]; selected: string | undefined; onSelect: (name: string) => void }) {
  return (
    <nav aria-label="Servers">
      <ul class="servers">
        {p.servers.map((s) => (
          <li key={s.name}>
            <button
              type="button"
              class={`server-item${s.name === p.selected ? ' selected' : ''}`}
              aria-current={s.name === p.selected ? 'true' : undefined}
              data-server={s.name}
              data-state={s.state}
              onClick={() => p.onSelect(s.name)}
            >
              <span class={`dot ${s.state}`} aria-hidden="true" />
              <span class="server-name">{s.name}</span>
              <span class="server-state">
                {s.state === 'connected' ? (s.era === 'modern' ? '2026-07-28' : (s.protocolVersion ?? '')) : STATE_LABEL[s.state]}
              </span>
            </button>
          </li>
        ))}
      </ul>
      {p.servers.length === 0 ? <p class="muted">No servers yet.</p> : null}
    </nav>
  );
}

export function AddServer({ canAdd }: { canAdd: boolean }) {
  const [open, setOpen] = useState(false);
  const [target, setTarget] = useState('');
  const [name, setName] = useState('');
  const [error, setError] = useState<string | undefined>();
  if (!canAdd) return <p class="muted small-print">Started with --no-add: servers come from the command line only.</p>;
  if (!open) {
    return (
      <button type="button" class="add-server" onClick={() => setOpen(true)}>
        + Add a server
      </button>
    );
  }
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(undefined);
    try {
      await post('/api/targets', { target, name: name || undefined });
      setTarget('');
      setName('');
      setOpen(false);
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <form class="add-form" onSubmit={submit}>
      <label for="add-target">URL or command line</label>
      <input
        id="add-target"
        name="add-target"
        placeholder="http://127.0.0.1:3000/mcp or npx some-server"
        value={target}
        onInput={(e) => setTarget((e.currentTarget as HTMLInputElement).value)}
      />
      <label for="add-name">Name (optional)</label>
      <input id="add-name" name="add-name" value={name} onInput={(e) => setName((e.currentTarget as HTMLInputElement).value)} />
      {error ? <div class="error-text">{error}</div> : null}
      <div class="actions">
        <button type="submit" class="primary">
          Ask to add
        </button>
        <button type="button" onClick={() => setOpen(false)}>
          Close
        </button>
      </div>
      <p class="muted small-print">Nothing starts until you confirm it in the next step.</p>
    </form>
  );
}

/** Requests to add a server, each shown as it would run, with Run / Reject. */
export function PendingTargets({ pending }: { pending: PendingTarget[] }) {
  const [error, setError] = useState<string | undefined>();
  if (pending.length === 0) return null;
  const act = async (p: PendingTarget, confirm: boolean) => {
    setError(undefined);
    try {
      if (confirm) await post(`/api/targets/${encodeURIComponent(p.id)}/confirm`, { nonce: p.nonce });
      else await post(`/api/targets/${encodeURIComponent(p.id)}/reject`);
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <section class="pending" aria-label="Servers waiting for your confirmation">
      {pending.map((p) => (
        <div class="confirm-card" key={p.id} role="alertdialog" aria-labelledby={`pt-${p.id}`}>
          <div id={`pt-${p.id}`} class="section-title">
            {p.target.kind === 'stdio' ? 'Run this command?' : 'Connect to this address?'}
          </div>
          <pre class="command">{p.target.text}</pre>
          {p.target.envNames?.length ? <div class="muted">environment: {p.target.envNames.join(', ')}</div> : null}
          {p.target.cwd ? <div class="muted">in {p.target.cwd}</div> : null}
          <div class="warn-text">{p.warning}</div>
          <div class="muted">as server “{p.name}”</div>
          <div class="actions">
            <button type="button" class="danger-button" onClick={() => void act(p, true)}>
              {p.target.kind === 'stdio' ? 'Run it' : 'Connect'}
            </button>
            <button type="button" onClick={() => void act(p, false)}>
              Reject
            </button>
          </div>
        </div>
      ))}
      {error ? <div class="error-text">{error}</div> : null}
    </section>
  );
}
