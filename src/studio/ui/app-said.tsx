// What a view said for the conversation: its `ui/message`s and its latest model context
// (`ui/update-model-context`). Shown as sent; when the studio has a model, a message can be sent
// to the Chat panel's conversation (with the view's model context beside it) by you, one click
// per message: a view never talks to the model on its own.
import { useCallback, useState } from 'preact/hooks';
import { post } from './api.js';
import { CONVERSATION } from './chat-store.js';
import { Json } from './content.js';
import { useStudio } from './store.js';

type Blocks = { content?: unknown; structuredContent?: unknown };

function textOf(v: unknown): string {
  const content = (v as Blocks | undefined)?.content;
  const blocks = Array.isArray(content) ? content : content ? [content] : [];
  return blocks
    .map((b) => ((b as { type?: string }).type === 'text' ? String((b as { text?: unknown }).text ?? '') : `[${String((b as { type?: string }).type)}]`))
    .join('\n');
}

/** The chat message a view's ui/message becomes: its text, and the view's model context after it. */
export function chatText(message: unknown, context: unknown): string {
  const said = textOf(message);
  if (context === undefined) return said;
  const structured = (context as Blocks).structuredContent;
  const ctx = [textOf(context), structured === undefined ? '' : JSON.stringify(structured)].filter(Boolean).join('\n');
  return ctx ? `${said}\n\n[Context from the app view: ${ctx}]` : said;
}

export function AppSaid({ messages, context, server }: { messages: unknown[]; context: unknown; server: string }) {
  const model = useStudio(useCallback((s) => s.state?.model, []));
  const [sent, setSent] = useState<Record<number, string>>({});
  if (messages.length === 0 && context === undefined) return null;
  const send = async (i: number) => {
    setSent((s) => ({ ...s, [i]: 'sending: the answer streams in the Chat panel' }));
    try {
      const r = await post<{ error?: string; stopReason?: string }>('/api/chat/send', { conversation: CONVERSATION, text: chatText(messages[i], context) });
      setSent((s) => ({ ...s, [i]: r.error ? `the chat failed: ${r.error}` : 'answered in the Chat panel' }));
    } catch (e) {
      setSent((s) => ({ ...s, [i]: `not sent: ${(e as Error).message}` }));
    }
  };
  return (
    <div class="app-said">
      {messages.map((m, i) => (
        <div key={i} data-testid="app-message">
          <span class="badge">ui/message</span>{' '}
          {model ? (
            sent[i] ? (
              <span class="muted" data-testid="app-message-state">
                {sent[i]}
              </span>
            ) : (
              <button type="button" class="link" onClick={() => void send(i)}>
                Send to the Chat ({model.model})
              </button>
            )
          ) : (
            <span class="muted">(the studio has no model: shown here; start it with --model to send it to the Chat)</span>
          )}
          <Json value={m} />
        </div>
      ))}
      {context !== undefined ? (
        <div>
          <span class="badge">model context</span>{' '}
          <span class="muted">
            (the latest ui/update-model-context{model ? ', sent with the messages you send to the Chat' : ''}; from {server})
          </span>
          <Json value={context} />
        </div>
      ) : null}
    </div>
  );
}
