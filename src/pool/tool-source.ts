// The seam between the servers a host is connected to (pool.ts: connections, reconnects, one
// registry of collision-free names) and whoever uses their tools: the host loop (../host/loop) and the
// gateway (../gateway). Both see tools by their model-facing name only.
import type { ProgressInfo } from '../engine/peer.js';
import type { Tool } from '../protocol/types.js';
import type { CallToolResult } from '../protocol/params.js';

/** One tool of one server, under the name the model (or a gateway's client) sees. */
export interface HostTool {
  /** Model-facing name: unique across servers, within the provider's characters and length, stable. */
  readonly name: string;
  /** The server's name (its key in the `mcpServers` config, or the name it was added under). */
  readonly server: string;
  /** The tool as the server listed it (its own name, schema, annotations, `_meta`). */
  readonly tool: Tool;
}

export interface HostCallOptions {
  /** Aborting sends `notifications/cancelled` to the server (or cancels its task). */
  signal?: AbortSignal;
  /** Per-call timeout (ms); progress notifications from the server keep the call alive. */
  timeoutMs?: number;
  /** Merged into the request's `params._meta` (trace context, the caller's identity...). */
  meta?: Record<string, unknown>;
  onprogress?: (progress: ProgressInfo) => void;
  /** The result as a 2026-07-28 server sent it (see the client's `CallOptions.asSent`): a relay's same-era pass-through. */
  asSent?: boolean;
}

/** Tools from many servers behind one name space. */
export interface ToolSource {
  /** Every tool currently offered, after allow/deny filters, in a stable order. */
  tools(): readonly HostTool[];
  /** The tool behind a model-facing name, or undefined. */
  resolve(name: string): HostTool | undefined;
  /** A server's instructions from initialize, if it gave any (tool search weighs them in). */
  instructions?(server: string): string | undefined;
  /**
   * Calls a tool by its model-facing name on its server. Resolves with the server's result
   * (an `isError` result included); rejects when the call could not be made or answered
   * (unknown name, server down and not reconnectable, timeout, cancelled).
   */
  call(name: string, args: Record<string, unknown>, options?: HostCallOptions): Promise<CallToolResult>;
  /** Called after the set of tools changed (a server's `list_changed`, a reconnect, a server added or lost). */
  onChange(listener: () => void): () => void;
}
