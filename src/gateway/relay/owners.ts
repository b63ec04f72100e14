// Whose request is whose, for routing a backend's question and for the call log. A handshake-era
// session is one client (`session:N`); a stateless 2026-07-28 request is its own (`request:N`):
// two such clients may share an identity, even `anonymous`, so none is guessed between them.
import type { RequestContext, Session } from '../../server/context.js';

export class Owners {
  private readonly ids = new WeakMap<Session, string>();
  private sessions = 0;
  private requests = 0;

  /** `closed` hears of a session's end with its key (the gateway then closes its own lane). */
  constructor(private readonly closed?: (key: string) => void) {}

  /** A session's key, the same for all its requests. */
  session(s: Session): string {
    let id = this.ids.get(s);
    if (id === undefined) {
      id = `session:${++this.sessions}`;
      this.ids.set(s, id);
      const key = id;
      const closed = this.closed;
      if (closed) s.onClose(() => closed(key));
    }
    return id;
  }

  /** The client a request comes from, as a question is routed. */
  of(ctx: Pick<RequestContext, 'session'>): string {
    return ctx.session ? this.session(ctx.session) : `request:${++this.requests}`;
  }
}
