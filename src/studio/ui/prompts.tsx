// The Prompts panel: the server's prompts; for one, its arguments with the server's completions,
// and the messages prompts/get returns.
import { useCallback, useMemo, useState } from 'preact/hooks';
import type { ServerView } from '../api-types.js';
import { post, serverPath } from './api.js';
import { ContentBlock, Json } from './content.js';
import { CompletingInput } from './resources.js';
import { useStudio } from './store.js';
import { matches, useList } from './tools.js';
import { VirtualList } from './virtual-list.js';

interface PromptDef {
  name: string;
  title?: string;
  description?: string;
  arguments?: Array<{ name: string; description?: string; required?: boolean }>;
}

export function PromptsPanel({ server }: { server: ServerView }) {
  const version = useStudio(useCallback((s) => s.lists[server.name]?.prompts ?? 0, [server.name]));
  const { items, error } = useList<PromptDef>(server, 'prompts', version);
  const [filter, setFilter] = useState('');
  const [chosen, setChosen] = useState<string | undefined>();
  const shown = useMemo(() => (items ?? []).filter((p) => matches(filter, p.name, p.title, p.description)), [items, filter]);
  const index = shown.findIndex((p) => p.name === chosen);
  const prompt = items?.find((p) => p.name === chosen);
  if (server.state !== 'connected') return <p class="muted">Not connected.</p>;
  return (
    <div class="split">
      <div class="list-pane">
        <input
          type="search"
          class="filter"
          aria-label="Filter prompts"
          placeholder={`Filter ${items?.length ?? 0} prompts`}
          value={filter}
          onInput={(e) => setFilter((e.currentTarget as HTMLInputElement).value)}
        />
        {error ? <div class="error-text">{error}</div> : null}
        <VirtualList
          label="Prompts"
          items={shown}
          rowHeight={46}
          keyOf={(p) => p.name}
          selected={index}
          onSelect={(i) => setChosen(shown[i]?.name)}
          render={(p) => (
            <div class="row-text">
              <div class="row-title">{p.name}</div>
              <div class="row-sub">{p.title ?? p.description ?? ''}</div>
            </div>
          )}
        />
      </div>
      <div class="detail-pane">{prompt ? <PromptDetail key={prompt.name} server={server} prompt={prompt} /> : <p class="muted">Choose a prompt.</p>}</div>
    </div>
  );
}

function PromptDetail({ server, prompt }: { server: ServerView; prompt: PromptDef }) {
  const [args, setArgs] = useState<Record<string, string>>({});
  const [out, setOut] = useState<{ result?: Record<string, unknown>; error?: { message: string; code?: number } } | undefined>();
  const [busy, setBusy] = useState(false);
  const get = async () => {
    setBusy(true);
    try {
      const filled = Object.fromEntries(Object.entries(args).filter(([, v]) => v !== ''));
      setOut(await post(serverPath(server.name, 'prompt'), { name: prompt.name, arguments: filled }));
    } catch (e) {
      setOut({ error: { message: (e as Error).message } });
    } finally {
      setBusy(false);
    }
  };
  const messages = (out?.result?.messages ?? []) as Array<{ role: string; content: Record<string, unknown> }>;
  return (
    <div>
      <h2>
        {prompt.name} {prompt.title ? <span class="muted">{prompt.title}</span> : null}
      </h2>
      {prompt.description ? <p class="desc">{prompt.description}</p> : null}
      <div class="schema-form">
        {(prompt.arguments ?? []).map((a) => (
          <CompletingInput
            key={a.name}
            server={server}
            name={a.name}
            description={a.description}
            required={a.required}
            value={args[a.name] ?? ''}
            refObj={{ type: 'ref/prompt', name: prompt.name }}
            context={args}
            onChange={(v) => setArgs({ ...args, [a.name]: v })}
          />
        ))}
        {(prompt.arguments ?? []).length === 0 ? <p class="muted">No arguments.</p> : null}
      </div>
      <div class="actions">
        <button type="button" class="primary" disabled={busy} onClick={() => void get()}>
          Get prompt
        </button>
      </div>
      {out?.error ? (
        <div class="outcome error">
          <div class="error-text">
            {out.error.code !== undefined ? `${out.error.code} ` : ''}
            {out.error.message}
          </div>
        </div>
      ) : null}
      {out?.result ? (
        <div class="outcome">
          {typeof out.result.description === 'string' ? <p class="desc">{out.result.description}</p> : null}
          {messages.map((m, i) => (
            <div class="message" key={i}>
              <span class="badge">{m.role}</span>
              {Array.isArray(m.content) ? m.content.map((b, j) => <ContentBlock key={j} block={b as never} />) : <ContentBlock block={m.content} />}
            </div>
          ))}
          {messages.length === 0 ? <Json value={out.result} /> : null}
        </div>
      ) : null}
    </div>
  );
}
