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

/**
 * Builds the onion once, so a message costs one call per middleware and nothing when there are
 * none. The first middleware in the list is the outermost layer, the one nearest the wire, in
 * both directions: it sees an incoming message first and an outgoing message last. So a
 * recorder listed first records messages exactly as they cross the wire, even when later
 * middleware changes them.
 */
export function compose(middleware: readonly MessageMiddleware[], direction: 'incoming' | 'outgoing', last: Next): Next {
  const n = middleware.length;
  let next = last;
  // Wrap from the innermost layer outwards: incoming, the innermost is the last in the list;
  // outgoing, the first.
  for (let k = 0; k < n; k++) {
    const mw = direction === 'incoming' ? middleware[n - 1 - k] : middleware[k];
    const fn = mw[direction];
    if (!fn) continue;
    const inner = next;
    next = (m) => fn.call(mw, m, inner);
  }
  return next;
}
