// What the chat panel is told: the model it talks to (never its key), the tools it offers, the
// conversations, the tool calls waiting for the user's approval, and the events of a message as
// it is answered. Types only, shared by the studio (chat.ts) and the page (ui/chat.tsx).

/** Which tool calls run without asking: none, the read-only ones, all. */
export type ApprovalMode = 'ask' | 'writes' | 'auto';
/** `search_tools` instead of every definition: past 64 tools, always, never. */
export type ToolSearchMode = 'auto' | 'always' | 'off';

export interface ChatApproval {
  /** The call's id (the model's). */
  id: string;
  conversation: string;
  name: string;
  server: string;
  tool: string;
  arguments: Record<string, unknown>;
  reason: string;
  readOnly: boolean;
}

export interface ChatTool {
  name: string;
  server: string;
  tool: string;
  description?: string;
  readOnly: boolean;
}

/** A message of a conversation's history, as the page draws it. */
export type ChatHistoryItem =
  | { role: 'user'; text: string }
  | { role: 'assistant'; text: string; toolCalls?: Array<{ id: string; name: string; arguments: string }> }
  | { role: 'tool'; id: string; name: string; text: string; isError: boolean };

export interface ChatInfo {
  /** False when the studio was started without a model (then `why` says how to give one). */
  configured: boolean;
  why?: string;
  provider?: string;
  model?: string;
  /** The endpoint's origin and path (no credentials, no query). */
  endpoint?: string;
  approval: ApprovalMode;
  toolSearch: ToolSearchMode;
  tools: ChatTool[];
  conversations: Array<{ id: string; busy: boolean; history: ChatHistoryItem[] }>;
  pending: ChatApproval[];
}

export type ChatEvent =
  | { type: 'user'; text: string }
  | { type: 'model_start'; step: number }
  | { type: 'text'; delta: string }
  | {
      type: 'model_end';
      step: number;
      text: string;
      toolCalls: Array<{ id: string; name: string; arguments: string }>;
      stopReason: string;
      usage?: { inputTokens: number; outputTokens: number };
      model?: string;
    }
  | { type: 'tool_call'; id: string; name: string; server: string; tool: string; arguments: Record<string, unknown> }
  | { type: 'approval_request'; approval: ChatApproval }
  /** `by`: `mode` when the approval mode decided, `user` when you did in the page. */
  | { type: 'approval'; id: string; name: string; approved: boolean; by: 'mode' | 'user' | 'policy' | 'nobody' }
  | { type: 'tool_progress'; id: string; progress: number; total?: number; message?: string }
  | { type: 'tool_result'; id: string; name: string; server: string; result: Record<string, unknown>; isError: boolean; truncated: boolean; durationMs: number }
  | { type: 'tool_error'; id: string; name: string; message: string }
  | { type: 'answer'; text: string }
  | { type: 'done'; stopReason: string; steps: number; usage?: { inputTokens: number; outputTokens: number } }
  | { type: 'failed'; message: string }
  | { type: 'reset' };

/** The `chat` event of the studio's event stream. */
export interface ChatMessage {
  conversation: string;
  event: ChatEvent;
}
