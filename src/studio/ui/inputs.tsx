// Questions servers wait on, answered by hand: elicitation as a form generated from its
// requestedSchema or as a URL to visit, and sampling with you as the model. Both eras arrive here
// alike (a server request, or an input request of a 2026-07-28 `input_required` round).
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { PendingInput } from '../api-types.js';
import { post } from './api.js';
import { ContentBlock, Json } from './content.js';
import { initialValue, type Schema } from './schema.js';
import { SchemaForm } from './schema-form.js';
import { useStudio } from './store.js';

export function InputDialog({ inputs }: { inputs: PendingInput[] }) {
  const input = inputs[0];
  const box = useRef<HTMLDivElement>(null);
  const era = useStudio(useCallback((s) => s.state?.servers.find((x) => x.name === input?.server)?.era, [input?.server]));
  useEffect(() => {
    box.current?.querySelector<HTMLElement>('input, textarea, select, button')?.focus();
  }, [input?.id]);
  if (!input) return null;
  return (
    <div class="overlay">
      <div class="dialog" role="dialog" aria-modal="true" aria-labelledby="input-title" ref={box} data-input-kind={input.kind}>
        <h2 id="input-title">
          {input.kind === 'elicitation' ? 'The server asks you' : 'The server asks the model (you)'} <span class="muted">· {input.server}</span>
        </h2>
        <div class="muted small-print">
          {era === 'modern'
            ? 'asked in a 2026-07-28 input_required round: the call resumes with your answer'
            : era === 'handshake'
              ? 'asked by a server request (handshake era)'
              : ''}
        </div>
        {inputs.length > 1 ? <div class="muted">{inputs.length - 1} more waiting</div> : null}
        {input.kind === 'elicitation' ? <Elicitation key={input.id} input={input} /> : <Sampling key={input.id} input={input} />}
      </div>
    </div>
  );
}

const answer = (id: string, body: unknown) => post(`/api/inputs/${encodeURIComponent(id)}`, body);

function Elicitation({ input }: { input: PendingInput }) {
  const p = input.params as { mode?: string; message?: string; requestedSchema?: Schema; url?: string; elicitationId?: string };
  const schema = p.requestedSchema ?? { type: 'object', properties: {} };
  const [value, setValue] = useState<Record<string, unknown>>(() => (initialValue(schema, schema, true) as Record<string, unknown>) ?? {});
  const [error, setError] = useState<string | undefined>();
  const send = (result: Record<string, unknown>) => answer(input.id, { result }).catch((e: Error) => setError(e.message));
  const url = p.mode === 'url' && typeof p.url === 'string' ? p.url : undefined;
  const safeUrl = url && /^https?:\/\//i.test(url) ? url : undefined;
  return (
    <div>
      <p class="question">{p.message}</p>
      {url ? (
        <div class="url-elicitation">
          {safeUrl ? (
            <a href={safeUrl} target="_blank" rel="noopener noreferrer">
              {safeUrl}
            </a>
          ) : (
            <div class="error-text">The server gave a URL that is not http(s): {url}</div>
          )}
          <p class="muted">Open it, do what it asks, then accept. The studio never opens it by itself.</p>
        </div>
      ) : (
        <SchemaForm schema={schema} value={value} onChange={setValue} />
      )}
      {error ? <div class="error-text">{error}</div> : null}
      <div class="actions">
        <button type="button" class="primary" onClick={() => void send(url ? { action: 'accept' } : { action: 'accept', content: value })}>
          Accept
        </button>
        <button type="button" onClick={() => void send({ action: 'decline' })}>
          Decline
        </button>
        <button type="button" onClick={() => void send({ action: 'cancel' })}>
          Cancel
        </button>
      </div>
      <details>
        <summary>Request</summary>
        <Json value={input.params} />
      </details>
    </div>
  );
}

function Sampling({ input }: { input: PendingInput }) {
  const p = input.params as {
    messages?: Array<{ role: string; content: unknown }>;
    systemPrompt?: string;
    maxTokens?: number;
    modelPreferences?: { hints?: Array<{ name?: string }> };
    tools?: unknown[];
  };
  const [text, setText] = useState('');
  const [model, setModel] = useState(p.modelPreferences?.hints?.[0]?.name ?? 'studio-user');
  const [error, setError] = useState<string | undefined>();
  const send = (body: unknown) => answer(input.id, body).catch((e: Error) => setError(e.message));
  return (
    <div>
      {p.systemPrompt ? (
        <div class="message">
          <span class="badge">system</span> <pre class="text-block">{p.systemPrompt}</pre>
        </div>
      ) : null}
      {(p.messages ?? []).map((m, i) => (
        <div class="message" key={i}>
          <span class="badge">{m.role}</span>
          {(Array.isArray(m.content) ? m.content : [m.content]).map((b, j) => (
            <ContentBlock key={j} block={(b ?? {}) as never} />
          ))}
        </div>
      ))}
      <div class="muted">
        maxTokens {p.maxTokens ?? '—'}
        {p.tools ? ` · ${p.tools.length} tools offered` : ''}
      </div>
      <div class="field">
        <label for="sampling-text">Your answer, as the model</label>
        <textarea id="sampling-text" name="sampling-text" rows={4} value={text} onInput={(e) => setText((e.currentTarget as HTMLTextAreaElement).value)} />
      </div>
      <div class="field">
        <label for="sampling-model">Model name to report</label>
        <input id="sampling-model" name="sampling-model" value={model} onInput={(e) => setModel((e.currentTarget as HTMLInputElement).value)} />
      </div>
      {error ? <div class="error-text">{error}</div> : null}
      <div class="actions">
        <button
          type="button"
          class="primary"
          onClick={() => void send({ result: { role: 'assistant', content: { type: 'text', text }, model: model || 'studio-user', stopReason: 'endTurn' } })}
        >
          Send answer
        </button>
        <button type="button" onClick={() => void send({ refuse: 'The user refused the sampling request' })}>
          Refuse
        </button>
      </div>
      <details>
        <summary>Request</summary>
        <Json value={input.params} />
      </details>
    </div>
  );
}
