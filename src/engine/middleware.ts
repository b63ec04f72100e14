import type { JsonRpcMessage } from '../jsonrpc/messages.js';

export type Next = (message: JsonRpcMessage) => Promise<void>;

/**
 * Message-level middleware: sees every JSON-RPC message crossing the connection in one
 * direction. Call `next` (possibly with a changed message) to pass it on; skip it to drop.
 */
export interface MessageMiddleware {
  incoming?(message: JsonRpcMessage, next: Next): Promise<void>;
  outgoing?(message: JsonRpcMessage, next: Next): Promise<void>;
}

/** Builds the onion once, so a message costs one call per middleware and nothing when there are none. */
export function compose(
  middleware: readonly MessageMiddleware[],
  direction: 'incoming' | 'outgoing',
  last: Next,
): Next {
  let next = last;
  for (let i = middleware.length - 1; i >= 0; i--) {
    const fn = middleware[i][direction];
    if (!fn) continue;
    const inner = next;
    const mw = middleware[i];
    next = (m) => fn.call(mw, m, inner);
  }
  return next;
}
