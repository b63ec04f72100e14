// Whose request is whose, for routing a backend's question and for the call log. A handshake-era
// session is one client (`session:N` in the call log); a stateless 2026-07-28 request is its own:
// two such clients may share an identity, even `anonymous`, so none is guessed between them.
import type { RequestContext, Session } from '../../server/context.js';

export class Owners {
  private readonly ids = new WeakMap<Session, string>();
  /** Sessions whose end `closed` hears of. */
  private readonly watched = new WeakSet<Session>();
  private sessions = 0;

  /** `closed` hears of a session's end with its key (the gateway then closes its own lane). */
  constructor(private readonly closed?: (key: string) => void) {}

  /** A session's key, the same for all its requests; `closed` hears of its end once `watch` is set. */
  session(s: Session, watch = false): string {
    let id = this.ids.get(s);
    if (id === undefined) {
      id = `session:${++this.sessions}`;
      this.ids.set(s, id);
    }
    if (watch && this.closed && !this.watched.has(s)) {
      this.watched.add(s);
      const key = id;
      const closed = this.closed;
      s.onClose(() => closed(key));
    }
    return id;
  }

  /**
   * The client a request comes from, as a question is routed: its session, or (stateless) the
   * request itself. Compared by identity only, so nothing is made per request.
   */
  of(ctx: Pick<RequestContext, 'session'>): object {
    return ctx.session ?? ctx;
  }
}
