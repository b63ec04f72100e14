import { LocalError } from '../jsonrpc/errors.js';
import { REMOVED_IN_MODERN } from '../protocol/modern.js';
import { TASK_METHODS } from '../protocol/tasks.js';
import type { ServerCapabilities } from '../protocol/types.js';
import { features } from '../protocol/versions.js';

// What the client refuses to send, locally and with a sentence that says what to do instead:
// methods the negotiated era does not have, and methods the server did not declare (the spec:
// use only what was negotiated).

const TASK_METHOD_SET: ReadonlySet<string> = new Set(TASK_METHODS);

/** Which server capability each method needs. */
const NEEDS: Record<string, (c: ServerCapabilities, version: string) => boolean> = {
  'tools/list': (c) => !!c.tools,
  'tools/call': (c) => !!c.tools,
  'resources/list': (c) => !!c.resources,
  'resources/templates/list': (c) => !!c.resources,
  'resources/read': (c) => !!c.resources,
  'resources/subscribe': (c) => !!c.resources?.subscribe,
  'resources/unsubscribe': (c) => !!c.resources?.subscribe,
  'prompts/list': (c) => !!c.prompts,
  'prompts/get': (c) => !!c.prompts,
  // 2024-11-05 had completion/complete without a capability flag.
  'completion/complete': (c, v) => !!c.completions || !features.completionsCapability(v),
  'logging/setLevel': (c) => !!c.logging,
};

/** Why a method has no 2026-07-28 counterpart, and what to use instead. */
const GONE_HINT: Record<string, string> = {
  ping: '',
  initialize: ' (connect() uses server/discover in this era)',
  'resources/subscribe': '; use listen({ resourceSubscriptions: [uri] }, ...) instead',
  'resources/unsubscribe': '; close the listen() subscription instead',
};

export interface CallFacts {
  /** The 2026-07-28 revision in use; undefined in the handshake era. */
  modernVersion: string | undefined;
  /** Whether this client declares the tasks extension. */
  tasksDeclared: boolean;
  /** Refuse methods whose capability the server did not declare. */
  strict: boolean;
  serverCapabilities: ServerCapabilities;
  protocolVersion: string;
}

/** Why `method` may not be sent now, or undefined when it may. */
export function callRefusal(method: string, f: CallFacts): LocalError | undefined {
  if (f.modernVersion !== undefined) {
    if (REMOVED_IN_MODERN.has(method)) {
      return new LocalError('capability', `Cannot call "${method}": it does not exist in protocol version ${f.modernVersion}${GONE_HINT[method] ?? ''}`);
    }
    // The server would refuse it (-32021); say what to change instead.
    if (!f.tasksDeclared && TASK_METHOD_SET.has(method)) {
      return new LocalError('capability', `Cannot call "${method}": this client did not declare the tasks extension (set the \`tasks\` client option)`);
    }
  }
  const need = NEEDS[method];
  if (need && f.strict && !need(f.serverCapabilities, f.protocolVersion)) {
    return new LocalError('capability', `Cannot call "${method}": the server did not declare that capability`);
  }
  return undefined;
}
