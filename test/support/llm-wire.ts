// The wire-level pieces shared by the scripted model endpoints (llm.ts is the entry point and
// explains them): what a turn replies, and how the streams are cut into small writes.
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';

/** What a scripted endpoint received. */
export interface ScriptedRequest {
  method: string;
  /** Path with query (`/v1/chat/completions`). */
  path: string;
  headers: IncomingHttpHeaders;
  body: any;
  /** The turn index this request consumed (0-based). */
  turn: number;
}

/** A tool call the scripted model makes. `arguments`: an object (sent as JSON) or raw text (sent as it is, even invalid JSON). */
export interface ScriptedToolCall {
  /** Default `call_<turn>_<i>` (OpenAI) or `toolu_<turn>_<i>` (Anthropic). */
  id?: string;
  name: string;
  arguments?: Record<string, unknown> | string;
}

/** What the scripted model answers. */
export type TurnReply =
  | {
      kind: 'answer';
      text?: string;
      toolCalls?: ScriptedToolCall[];
      /** Wire stop reason; default: tool calls -> `tool_calls`/`tool_use`, else `stop`/`end_turn`. */
      stopReason?: string;
      usage?: { input: number; output: number };
      /** Characters per text or arguments delta (default 3). */
      chunkSize?: number;
      /** OpenAI: interleave the argument fragments of parallel calls (round robin) instead of one call after another. */
      interleave?: boolean;
      /** The `model` the answer names (default: the requested model). */
      model?: string;
      /**
       * Anthropic: content blocks of the API's own sent before the text and tool calls, e.g. a
       * tool search (`server_tool_use`, streamed with its input as input_json_delta, then
       * `tool_search_tool_result`, streamed whole in its content_block_start).
       */
      blocks?: Array<Record<string, unknown>>;
    }
  /** An HTTP error: `body` default is the provider's error JSON with `message`. */
  | { kind: 'error'; status: number; message?: string; body?: unknown; headers?: Record<string, string>; param?: string }
  /** Streams `text`, then a data line that is not JSON (`raw`), then ends the response. */
  | { kind: 'malformed'; text?: string; raw: string }
  /** Streams `text`, then ends the response without finishing the turn (no finish reason, no [DONE] / message_stop). */
  | { kind: 'truncated'; text?: string }
  /** Streams `text`, then an error event (OpenAI `data: {"error":...}`, Anthropic `event: error`). */
  | { kind: 'stream-error'; text?: string; type?: string; message: string }
  /** Sends the headers and `text`, then nothing until the client goes away (`llm.disconnected` counts it). */
  | { kind: 'hang'; text?: string };

export type Flavor = 'openai' | 'anthropic';

/** Writes one SSE event in two pieces, so a reader sees a line split across reads. */
export function writeSplit(res: ServerResponse, text: string): void {
  const mid = Math.max(1, Math.floor(text.length / 2));
  res.write(text.slice(0, mid));
  res.write(text.slice(mid));
}

/** `text` cut into `size`-character pieces (at least one piece, possibly empty). */
export function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += Math.max(1, size)) out.push(text.slice(i, i + Math.max(1, size)));
  return out;
}
