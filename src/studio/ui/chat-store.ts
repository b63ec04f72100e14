// The chat's transcript in the page, built from the studio's chat events as they stream in (the
// model's text delta by delta, each tool call from proposed to answered), or from a
// conversation's history when the page is opened on one already under way.
import { useEffect, useReducer } from 'preact/hooks';
import type { ChatApproval, ChatEvent, ChatHistoryItem, ChatInfo } from '../chat-types.js';
import { eventListeners } from './store.js';

export type ToolState = 'proposed' | 'asking' | 'running' | 'done' | 'error' | 'denied' | 'host';

export type Item =
  | { kind: 'user'; text: string }
  | { kind: 'assistant'; text: string; streaming: boolean }
  | {
      kind: 'tool';
      id: string;
      name: string;
      server?: string;
      tool?: string;
      arguments?: unknown;
      state: ToolState;
      approval?: ChatApproval;
      by?: string;
      result?: Record<string, unknown>;
      text?: string;
      error?: string;
      progress?: { progress: number; total?: number; message?: string };
      durationMs?: number;
    }
  | { kind: 'note'; text: string; bad?: boolean };

interface ChatState {
  info: ChatInfo | undefined;
  items: Item[];
  busy: boolean;
}

export const CONVERSATION = 'main';
export const chat: ChatState = { info: undefined, items: [], busy: false };
const subs = new Set<() => void>();
let scheduled = false;

function changed(): void {
  if (scheduled) return;
  scheduled = true;
  requestAnimationFrame(() => {
    scheduled = false;
    for (const s of [...subs]) s();
  });
}

export function useChat(): ChatState {
  const [, bump] = useReducer((n: number) => n + 1, 0);
  useEffect(() => {
    const s = () => bump(0);
    subs.add(s);
    return () => void subs.delete(s);
  }, []);
  return chat;
}

function tool(id: string): Extract<Item, { kind: 'tool' }> | undefined {
  for (let i = chat.items.length - 1; i >= 0; i--) {
    const it = chat.items[i];
    if (it.kind === 'tool' && it.id === id) return it;
  }
  return undefined;
}

function lastAssistant(): Extract<Item, { kind: 'assistant' }> | undefined {
  const it = chat.items.at(-1);
  return it?.kind === 'assistant' ? it : undefined;
}

export function setInfo(info: ChatInfo): void {
  chat.info = info;
  const conv = info.conversations.find((c) => c.id === CONVERSATION);
  chat.busy = conv?.busy ?? false;
  // A page opened on a conversation under way: its history stands in for the events it missed.
  if (chat.items.length === 0 && conv) chat.items = fromHistory(conv.history, info.pending);
  changed();
}

function fromHistory(history: ChatHistoryItem[], pending: ChatApproval[]): Item[] {
  const items: Item[] = [];
  for (const h of history) {
    if (h.role === 'user') items.push({ kind: 'user', text: h.text });
    else if (h.role === 'assistant') {
      if (h.text) items.push({ kind: 'assistant', text: h.text, streaming: false });
      for (const c of h.toolCalls ?? []) items.push({ kind: 'tool', id: c.id, name: c.name, arguments: c.arguments, state: 'proposed' });
    } else {
      const t = items.findLast((x): x is Extract<Item, { kind: 'tool' }> => x.kind === 'tool' && x.id === h.id);
      if (t) {
        t.state = h.isError ? 'error' : 'done';
        t.text = h.text;
      }
    }
  }
  for (const p of pending) {
    const t = items.findLast((x): x is Extract<Item, { kind: 'tool' }> => x.kind === 'tool' && x.id === p.id);
    if (t) Object.assign(t, { state: 'asking', approval: p, server: p.server, tool: p.tool, arguments: p.arguments });
  }
  return items;
}

function onEvent(e: ChatEvent): void {
  switch (e.type) {
    case 'user':
      chat.items.push({ kind: 'user', text: e.text });
      chat.busy = true;
      break;
    case 'model_start':
      // The loop's own tools (search_tools, read_full_result) report no call: the next step is their answer.
      for (const it of chat.items) if (it.kind === 'tool' && it.state === 'proposed') it.state = 'host';
      chat.items.push({ kind: 'assistant', text: '', streaming: true });
      break;
    case 'text': {
      const a = lastAssistant();
      if (a) a.text += e.delta;
      else chat.items.push({ kind: 'assistant', text: e.delta, streaming: true });
      break;
    }
    case 'model_end': {
      const a = lastAssistant();
      if (a) {
        a.text = e.text;
        a.streaming = false;
        if (!a.text) chat.items.pop();
      }
      for (const c of e.toolCalls) chat.items.push({ kind: 'tool', id: c.id, name: c.name, arguments: safeParse(c.arguments), state: 'proposed' });
      break;
    }
    case 'tool_call': {
      const t = tool(e.id);
      if (t) Object.assign(t, { server: e.server, tool: e.tool, arguments: e.arguments, state: 'running' });
      break;
    }
    case 'approval_request': {
      const t = tool(e.approval.id);
      if (t) Object.assign(t, { state: 'asking', approval: e.approval });
      break;
    }
    case 'approval': {
      const t = tool(e.id);
      if (t) Object.assign(t, { state: e.approved ? 'running' : 'denied', by: e.by, approval: undefined });
      break;
    }
    case 'tool_progress': {
      const t = tool(e.id);
      if (t) t.progress = { progress: e.progress, total: e.total, message: e.message };
      break;
    }
    case 'tool_result': {
      const t = tool(e.id);
      if (t) Object.assign(t, { state: e.isError ? 'error' : 'done', result: e.result, durationMs: e.durationMs });
      break;
    }
    case 'tool_error': {
      const t = tool(e.id);
      if (t) Object.assign(t, { state: t.state === 'denied' ? 'denied' : 'error', error: e.message });
      break;
    }
    case 'done':
      chat.busy = false;
      for (const it of chat.items) if (it.kind === 'tool' && it.state === 'proposed') it.state = 'host';
      chat.items.push({
        kind: 'note',
        text: `${e.steps} step${e.steps === 1 ? '' : 's'} · ${e.stopReason}${e.usage ? ` · ${e.usage.inputTokens} tokens in, ${e.usage.outputTokens} out` : ''}`,
      });
      break;
    case 'failed':
      chat.busy = false;
      for (const it of chat.items) if (it.kind === 'assistant') it.streaming = false;
      chat.items.push({ kind: 'note', text: e.message, bad: true });
      break;
    case 'reset':
      chat.items = [];
      break;
    case 'answer':
      break;
  }
  changed();
}

function safeParse(raw: string): unknown {
  try {
    return raw.trim() === '' ? {} : JSON.parse(raw);
  } catch {
    return raw;
  }
}

eventListeners.add((event, data) => {
  if (event !== 'chat') return;
  const m = data as { conversation: string; event: ChatEvent };
  if (m.conversation === CONVERSATION || m.event.type === 'approval_request') onEvent(m.event);
});
