// The conformance "everything server" (conformance/server.ts) as a workerd module, for
// `npm run conformance -- --server-only --runtime=workerd`; bundled by scripts/conformance.mjs,
// which stands in for its two Node-only imports: mcpkit/node (`skillDirectory` returns the
// skills that the real one read from conformance/skills/ at bundle time; `serve` is never
// called) and node:url.
//
// Every request goes to one Durable Object: the handshake era's sessions, and the tasks a
// scenario polls from request to request, live in its memory. The server and its handler are
// built while the module loads, the one time workerd lets ajv generate validators for plain JSON
// Schemas (the stateful handler arms its sweep timer at its first request: workerd refuses
// timers at the top level).
import { createConformanceServer } from '../../../conformance/server.js';
import { toFetchHandler } from '../../../src/entries/http.js';

interface Env {
  SESSIONS: { idFromName(name: string): unknown; get(id: unknown): { fetch(request: Request): Promise<Response> } };
}

const handler = toFetchHandler(createConformanceServer());

export class ConformanceSessions {
  fetch(request: Request): Promise<Response> {
    return handler(request);
  }
}

export default {
  fetch(request: Request, env: Env): Promise<Response> {
    return env.SESSIONS.get(env.SESSIONS.idFromName('conformance')).fetch(request);
  },
};
