// Roots for `mcpkit bridge --http`: the stdio server's roots/list requests are answered by the
// HTTP clients, asked when the request arrives.
//
// McpClient answers roots/list from a fixed list (the `roots` option), but behind the bridge the
// answer belongs to whichever HTTP client the child is working for, and it may change between
// requests. So the request is taken off the wire before the client sees it (message middleware,
// nearest the wire) and answered straight on the child's transport once the HTTP side replied.
import { ErrorCode, LocalError, McpError } from '../jsonrpc/errors.js';
import type { JsonObject, JsonRpcMessage, RequestId } from '../jsonrpc/messages.js';
import type { MessageMiddleware } from '../engine/middleware.js';
import type { Root } from '../protocol/types.js';

/** Gets the roots from the HTTP side; rejects when there is nobody to ask. */
export type AskRoots = (signal: AbortSignal) => Promise<Root[]>;

/**
 * Middleware for the bridge's client to the child. `reply` sends a message to the child
 * directly (past the client's own middleware and bookkeeping: the client never saw the request).
 */
export function rootsRelay(reply: (m: JsonRpcMessage) => Promise<void>, ask: AskRoots): MessageMiddleware {
  const pending = new Map<RequestId, AbortController>();
  const answer = async (id: RequestId): Promise<void> => {
    const ac = new AbortController();
    pending.set(id, ac);
    let out: JsonRpcMessage;
    try {
      const roots = await ask(ac.signal);
      out = { jsonrpc: '2.0', id, result: { roots: roots as unknown as JsonObject[] } };
    } catch (err) {
      out = { jsonrpc: '2.0', id, error: errorFor(err) };
    } finally {
      pending.delete(id);
    }
    // A cancelled request gets no answer (the spec: the receiver should not respond).
    if (!ac.signal.aborted) await reply(out).catch(() => {});
  };
  return {
    incoming(m, next) {
      if ('method' in m && m.method === 'roots/list' && 'id' in m && m.id !== null && m.id !== undefined) {
        void answer(m.id);
        return Promise.resolve();
      }
      if ('method' in m && m.method === 'notifications/cancelled') {
        const id = (m.params as { requestId?: RequestId } | undefined)?.requestId;
        const ac = id === undefined ? undefined : pending.get(id);
        if (ac) {
          ac.abort(new LocalError('aborted', 'the stdio server cancelled its roots/list request'));
          return Promise.resolve();
        }
      }
      return next(m);
    },
  };
}

function errorFor(err: unknown): { code: number; message: string; data?: unknown } {
  if (err instanceof McpError) return err.toJSON();
  const message = err instanceof Error ? err.message : String(err);
  // "This client has no roots" is what -32601 means for roots/list.
  if (err instanceof LocalError && err.kind === 'capability') return { code: ErrorCode.MethodNotFound, message: `Method not found: roots/list (${message})` };
  return { code: ErrorCode.InternalError, message };
}
