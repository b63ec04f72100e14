// The chat panel: a conversation with the configured model, which can call the connected servers'
// tools. The answer streams in; each tool call shows its server, arguments, approval (Allow or
// Deny here when the approval mode asks) and result. Beside it: the model, the approval mode, tool
// search (search_tools instead of every definition) and the tools offered, searchable as the model
// searches them.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ApprovalMode, ChatInfo, ChatTool, ToolSearchMode } from '../chat-types.js';
import { get, post } from './api.js';
import { CONVERSATION, chat, setInfo, useChat, type Item } from './chat-store.js';
import { ContentBlock, Json } from './content.js';

const refresh = () => get<ChatInfo>('/api/chat').then(setInfo);

export function ChatPanel() {
  const c = useChat();
  const [text, setText] = useState('');
  const [error, setError] = useState<string | undefined>();
  const end = useRef<HTMLDivElement>(null);
  useEffect(() => void refresh().catch((e: Error) => setError(e.message)), []);
  useEffect(() => end.current?.scrollIntoView({ block: 'end' }), [c.items.length, c.items.at(-1)]);
  const info = c.info;
  const send = () => {
    const t = text.trim();
    if (!t || c.busy) return;
    setText('');
    setError(undefined);
    chat.busy = true;
    post('/api/chat/send', { conversation: CONVERSATION, text: t })
      .catch((e: Error) => setError(e.message))
      .finally(() => void refresh().catch(() => {}));
  };
  if (info && !info.configured) {
    return (
      <div class="chat-panel">
        <h2>Chat</h2>
        <p class="muted" data-testid="chat-unconfigured">
          {info.why}
        </p>
      </div>
    );
  }
  return (
    <div class="chat-panel chat-layout">
      <div class="chat-main">
        <div class="transcript" aria-live="polite">
          {c.items.length === 0 ? <p class="muted">Ask something; the model can use the tools on the right.</p> : null}
          {c.items.map((it, i) => (
            <ItemView key={i} item={it} />
          ))}
          <div ref={end} />
        </div>
        {error ? <div class="error-text">{error}</div> : null}
        <div class="chat-input">
          <textarea
            name="chat-text"
            aria-label="Message to the model"
            rows={3}
            placeholder="Message (Ctrl+Enter sends)"
            value={text}
            onInput={(e) => setText((e.currentTarget as HTMLTextAreaElement).value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
                e.preventDefault();
                send();
              }
            }}
          />
          <div class="actions">
            {c.busy ? (
              <button type="button" onClick={() => void post('/api/chat/cancel', { conversation: CONVERSATION }).catch((e: Error) => setError(e.message))}>
                Stop
              </button>
            ) : (
              <button type="button" class="primary" onClick={send} disabled={!text.trim()}>
                Send
              </button>
            )}
            <button
              type="button"
              class="link"
              disabled={c.busy}
              onClick={() => void post('/api/chat/reset', { conversation: CONVERSATION }).catch((e: Error) => setError(e.message))}
            >
              Clear the conversation
            </button>
          </div>
        </div>
      </div>
      {info ? <ChatSide info={info} onError={setError} /> : null}
    </div>
  );
}

function ItemView({ item }: { item: Item }) {
  if (item.kind === 'user') return <div class="chat-msg user">{item.text}</div>;
  if (item.kind === 'assistant') return <div class={`chat-msg assistant${item.streaming ? ' streaming' : ''}`}>{item.text}</div>;
  if (item.kind === 'note') return <div class={`chat-note ${item.bad ? 'error-text' : 'muted'}`}>{item.text}</div>;
  return <ToolView item={item} />;
}

const STATE_LABEL: Record<string, string> = {
  proposed: 'proposed',
  asking: 'waiting for you',
  running: 'running',
  done: 'done',
  error: 'error',
  denied: 'denied',
  host: "answered by the studio's host",
};

function ToolView({ item }: { item: Extract<Item, { kind: 'tool' }> }) {
  const [raw, setRaw] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const answer = (allow: boolean) => post(`/api/chat/approvals/${encodeURIComponent(item.id)}`, { allow }).catch((e: Error) => setError(e.message));
  const content = Array.isArray(item.result?.content) ? (item.result.content as Array<Record<string, unknown>>) : [];
  return (
    <div class={`chat-tool ${item.state}`} data-tool-call={item.name} data-state={item.state}>
      <div class="call-head">
        <span class={`badge ${item.state === 'done' ? 'good' : item.state === 'error' || item.state === 'denied' ? 'bad' : 'warn'}`}>
          {STATE_LABEL[item.state]}
        </span>
        <code>{item.name}</code>
        {item.server ? (
          <span class="muted">
            {item.server} › {item.tool}
          </span>
        ) : null}
        {item.by ? (
          <span class="muted small-print">{item.by === 'mode' ? 'allowed by the approval mode' : item.by === 'user' ? 'you decided' : item.by}</span>
        ) : null}
        {item.durationMs !== undefined ? <span class="muted small-print">{Math.round(item.durationMs)} ms</span> : null}
      </div>
      <Json value={item.arguments ?? {}} class="args" />
      {item.state === 'asking' && item.approval ? (
        <fieldset class="approval" aria-label={`Approve ${item.name}`}>
          <span>
            The model wants to call <strong>{item.approval.tool}</strong> on <strong>{item.approval.server}</strong> ({item.approval.reason}).
          </span>
          <button type="button" class="primary" onClick={() => void answer(true)}>
            Allow
          </button>
          <button type="button" onClick={() => void answer(false)}>
            Deny
          </button>
        </fieldset>
      ) : null}
      {item.progress ? (
        <div class="muted small-print">
          progress {item.progress.progress}
          {item.progress.total !== undefined ? ` of ${item.progress.total}` : ''} {item.progress.message ?? ''}
        </div>
      ) : null}
      {item.error ? <div class="error-text">{item.error}</div> : null}
      {error ? <div class="error-text">{error}</div> : null}
      {item.result ? (
        <div class="chat-result">
          <button type="button" class="link" onClick={() => setRaw(!raw)}>
            {raw ? 'rendered' : 'raw JSON'}
          </button>
          {raw ? <Json value={item.result} /> : content.map((b, i) => <ContentBlock key={i} block={b} />)}
        </div>
      ) : item.text ? (
        <pre class="text-block">{item.text}</pre>
      ) : null}
    </div>
  );
}

function ChatSide({ info, onError }: { info: ChatInfo; onError: (m: string) => void }) {
  const [q, setQ] = useState('');
  const [found, setFound] = useState<Array<ChatTool & { score: number }> | undefined>();
  const settings = (body: { approval?: ApprovalMode; toolSearch?: ToolSearchMode }) =>
    post<ChatInfo>('/api/chat/settings', body).then(setInfo, (e: Error) => onError(e.message));
  const search = (query: string) => {
    setQ(query);
    if (!query.trim()) return setFound(undefined);
    post<{ tools: Array<ChatTool & { score: number }> }>('/api/chat/search-tools', { query }).then(
      (r) => setFound(r.tools),
      (e: Error) => onError(e.message),
    );
  };
  const tools = found ?? info.tools;
  return (
    <aside class="chat-side">
      <dl class="facts">
        <dt>Model</dt>
        <dd data-testid="chat-model">
          {info.model} <span class="muted">({info.provider === 'anthropic' ? 'Anthropic Messages' : 'OpenAI Chat Completions'})</span>
        </dd>
        <dt>Endpoint</dt>
        <dd>
          <code>{info.endpoint}</code>
        </dd>
      </dl>
      <label class="field-label">
        Approval
        <select
          name="chat-approval"
          value={info.approval}
          onChange={(e) => void settings({ approval: (e.currentTarget as HTMLSelectElement).value as ApprovalMode })}
        >
          <option value="writes">ask, except read-only tools</option>
          <option value="ask">ask for every call</option>
          <option value="auto">run every call</option>
        </select>
      </label>
      <label class="field-label">
        Tool search
        <select
          name="chat-tool-search"
          value={info.toolSearch}
          onChange={(e) => void settings({ toolSearch: (e.currentTarget as HTMLSelectElement).value as ToolSearchMode })}
        >
          <option value="auto">search_tools past 64 tools</option>
          <option value="always">always search_tools</option>
          <option value="off">every definition</option>
        </select>
      </label>
      <div class="section-title">
        Tools ({info.tools.length}){found ? ` · ${found.length} found` : ''}
      </div>
      <input
        type="search"
        aria-label="Search the tools"
        placeholder="Search as the model does…"
        value={q}
        onInput={(e) => search((e.currentTarget as HTMLInputElement).value)}
      />
      <ul class="chat-tools">
        {tools.map((t) => (
          <li key={t.name} data-chat-tool={t.name}>
            <code>{t.name}</code> {t.readOnly ? <span class="badge good">read-only</span> : null}
            <div class="muted small-print">
              {t.server} › {t.tool}
              {t.description ? ` · ${t.description}` : ''}
            </div>
          </li>
        ))}
      </ul>
    </aside>
  );
}
