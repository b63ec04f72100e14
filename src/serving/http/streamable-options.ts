// The options of the Streamable HTTP server core (streamable.ts), apart from the code they steer.
import type { ResponseMode } from './channel.js';
import type { EventStore } from '../../state/event-store.js';
import type { OAuthResourceOptions } from './oauth-resource.js';
import type { Authenticate, OriginPolicy } from './security.js';
import type { SessionStore } from '../../state/session-store.js';
import type { Clock } from '../../engine/clock.js';

export interface StreamableHttpOptions extends OriginPolicy {
  /** Path of the MCP endpoint. Default '/mcp'. */
  endpoint?: string;
  /** Sessions with `Mcp-Session-Id` (default true). False: stateless, every POST stands alone. */
  stateful?: boolean;
  /**
   * 'auto' (default): JSON unless something must be sent before the result, then SSE.
   * 'json': always JSON. 'sse': always SSE (when the client accepts it).
   */
  responseMode?: ResponseMode;
  /** Idle time after which a session is closed and freed. Default 60 minutes. */
  sessionIdleMs?: number;
  /** Event log for resumability. Default: bounded in-memory store. `false` disables resumption. */
  eventStore?: EventStore | false;
  /** Interval of `: keepalive` comments on open streams. Default 15 s; 0 disables. */
  keepAliveMs?: number;
  /** `retry:` advice sent with the priming event. Default 1000 ms. */
  retryMs?: number;
  /** Largest accepted POST body in bytes. Default 4 MiB. */
  maxBodyBytes?: number;
  /** Decides who is calling; undefined → 401. */
  authenticate?: Authenticate;
  /**
   * Be an OAuth 2.1 resource server, as the MCP authorization spec asks: Protected Resource
   * Metadata at the well-known paths, bearer tokens checked on every request, scope challenges.
   * Replaces `authenticate` (setting both is an error).
   */
  oauth?: OAuthResourceOptions;
  /**
   * Shares handshake-era sessions between instances (see SessionStore). Without it, sessions live
   * in this process only.
   */
  sessionStore?: SessionStore;
  /**
   * With a `sessionStore`: the least time between two checks of a session held here against the
   * store (`touch`, or `get`). A check pushes the record's expiry back, and finds a session deleted
   * on another instance (this one then answers 404); between checks requests cost no round trip.
   * Default: a tenth of `sessionIdleMs`, at most 10 s. 0 checks on every request.
   */
  sessionCheckMs?: number;
  /** Where session idle time, store checks and OAuth token expiry read the time, and the sweep is armed (default the system clock). */
  clock?: Clock;
  /**
   * Most handshake-era sessions this handler holds at once. An initialize beyond it is answered
   * 503 with Retry-After (sessions already open are never evicted for a newcomer): without a bound,
   * a flood of initialize requests would keep memory growing until idle sessions expire. Default
   * 10,000.
   */
  maxSessions?: number;
}
