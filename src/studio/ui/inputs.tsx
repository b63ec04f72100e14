// Questions servers wait on, answered by hand: elicitation as a form generated from its
// requestedSchema or as a URL to visit, and sampling with you as the model, or drafted by the
// studio's model (when it has one) for you to check, edit and send. Both eras arrive here
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
  const hasModel = useStudio(useCallback((s) => s.state?.model !== undefined, []));
  const era = useStudio(useCallback((s) => s.state?.servers.find((x) => x.name === input?.server)?.era, [input?.server]));
  useEffect(() => {
    box.current?.querySelector<HTMLElement>('input, textarea, select, button')?.focus();
  }, [input?.id]);
  if (!input) return null;
  return (
    <div class="overlay">
      <div class="dialog" role="dialog" aria-modal="true" aria-labelledby="input-title" ref={box} data-input-kind={input.kind}>
        <h2 id="input-title">
          {input.kind === 'elicitation'
            ? 'The server asks you'
            : `${input.from === 'view' ? 'An app view' : 'The server'} asks the model${hasModel ? '' : ' (you)'}`}{' '}
          <span class="muted">· {input.server}</span>
        </h2>
        <div class="muted small-print">
          {input.from === 'view'
            ? 'asked by an MCP App view of this server (sampling/createMessage): the view gets your answer, the server does not'
            : era === 'modern'
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

interface Draft {
  result: { role?: string; content?: unknown; model?: string; stopReason?: string };
  usage?: { inputTokens: number; outputTokens: number };
}

function Sampling({ input }: { input: PendingInput }) {
  const p = input.params as {
    messages?: Array<{ role: string; content: unknown }>;
    systemPrompt?: string;
    maxTokens?: number;
    modelPreferences?: { hints?: Array<{ name?: string }> };
    tools?: unknown[];
  };
  const configured = useStudio(useCallback((s) => s.state?.model, []));
  const [text, setText] = useState('');
  const [model, setModel] = useState(p.modelPreferences?.hints?.[0]?.name ?? 'studio-user');
  const [stopReason, setStopReason] = useState('endTurn');
  // A draft that is not one text block (tool uses, several blocks) is edited as JSON.
  const [raw, setRaw] = useState<string | undefined>();
  const [drafted, setDrafted] = useState<Draft | undefined>();
  const [drafting, setDrafting] = useState<AbortController | undefined>();
  const [error, setError] = useState<string | undefined>();
  // The dialog goes (answered elsewhere, withdrawn): a draft under way is stopped.
  const current = useRef<AbortController | undefined>(undefined);
  current.current = drafting;
  useEffect(() => () => current.current?.abort(), []);
  const send = (body: unknown) => answer(input.id, body).catch((e: Error) => setError(e.message));
  const draft = async () => {
    const ctl = new AbortController();
    setDrafting(ctl);
    setError(undefined);
    try {
      const d = await post<Draft>(`/api/inputs/${encodeURIComponent(input.id)}/model`, {}, ctl.signal);
      const c = d.result.content;
      const one = (Array.isArray(c) && c.length === 1 ? c[0] : c) as { type?: string; text?: string } | undefined;
      if (one?.type === 'text' && typeof one.text === 'string') {
        setText(one.text);
        setRaw(undefined);
      } else setRaw(JSON.stringify(d.result, null, 2));
      setModel(d.result.model ?? model);
      setStopReason(d.result.stopReason ?? 'endTurn');
      setDrafted(d);
    } catch (e) {
      if (!ctl.signal.aborted) setError((e as Error).message);
    } finally {
      setDrafting(undefined);
    }
  };
  const sendAnswer = () => {
    if (raw === undefined) return void send({ result: { role: 'assistant', content: { type: 'text', text }, model: model || 'studio-user', stopReason } });
    try {
      void send({ result: JSON.parse(raw) });
    } catch (e) {
      setError(`The answer is not valid JSON: ${(e as Error).message}`);
    }
  };
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
      {configured ? (
        <div class="sampling-model" data-testid="sampling-model">
          {drafting ? (
            <>
              <span class="muted">{configured.model} is answering…</span>{' '}
              <button type="button" onClick={() => drafting.abort()}>
                Stop
              </button>
            </>
          ) : (
            <button type="button" onClick={() => void draft()}>
              {drafted ? 'Ask the model again' : `Answer with the model (${configured.model})`}
            </button>
          )}
          {drafted ? (
            <div class="muted small-print" data-testid="sampling-drafted">
              Drafted by {drafted.result.model ?? configured.model}
              {drafted.usage ? ` (${drafted.usage.inputTokens} tokens in, ${drafted.usage.outputTokens} out)` : ''}, stop reason{' '}
              {drafted.result.stopReason ?? '—'}: nothing is sent to the server until you send it. Edit it as you like.
            </div>
          ) : (
            <div class="muted small-print">The model's answer comes back here for you to check and edit; the server gets it only when you send it.</div>
          )}
        </div>
      ) : null}
      {raw !== undefined ? (
        <div class="field">
          <label for="sampling-json">The answer (a sampling result, JSON)</label>
          <textarea id="sampling-json" name="sampling-json" rows={10} value={raw} onInput={(e) => setRaw((e.currentTarget as HTMLTextAreaElement).value)} />
        </div>
      ) : (
        <>
          <div class="field">
            <label for="sampling-text">{drafted ? "The model's answer" : 'Your answer, as the model'}</label>
            <textarea id="sampling-text" name="sampling-text" rows={4} value={text} onInput={(e) => setText((e.currentTarget as HTMLTextAreaElement).value)} />
          </div>
          <div class="field">
            <label for="sampling-model">Model name to report</label>
            <input id="sampling-model" name="sampling-model" value={model} onInput={(e) => setModel((e.currentTarget as HTMLInputElement).value)} />
          </div>
        </>
      )}
      {error ? <div class="error-text">{error}</div> : null}
      <div class="actions">
        <button type="button" class="primary" disabled={drafting !== undefined} onClick={sendAnswer}>
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
