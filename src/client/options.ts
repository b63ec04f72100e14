import type { MessageMiddleware } from '../engine/middleware.js';
import type { Clock } from '../engine/clock.js';
import type { ClientCapabilities, Implementation, Root } from '../protocol/types.js';
import type { SessionExpiredError } from '../transports/http/client/http-common.js';
import type { EraOption } from './era.js';
import type { HandshakeOutcome } from './handshake.js';
import type { ElicitationHandler, RootsHandler, SamplingHandler } from './inputs.js';
import type { TaskOptions } from './tasks.js';
import type { CallOptions } from './calls.js';

export interface ClientOptions extends Implementation {
  /** Extra capabilities; sampling/elicitation/roots are declared from the handlers given. */
  capabilities?: ClientCapabilities;
  /**
   * Which protocol era to speak:
   * - `'auto'` (the default): probe with `server/discover` and speak 2026-07-28 if the server
   *   does (a DiscoverResult, or a 2026-07-28 error such as -32022), else fall back to
   *   `initialize` on the same connection. On Streamable HTTP the probe is a plain POST judged
   *   by status and body (message middleware does not see it). The outcome is remembered per
   *   server (stdio command line, HTTP origin + path) for later connections in this process,
   *   and forgotten when connecting with it fails. HTTP+SSE always uses the handshake.
   * - `'modern'`: the stateless era only; no probe, no fallback.
   * - `'handshake'`: `initialize` and a session, as before 2026-07-28; no probe. Pin it for
   *   servers known to be handshake-era: it saves the probe's round trip (and, on stdio, the
   *   `probeTimeoutMs` wait for servers that never answer unknown requests).
   *
   * Test kits: `createTestPair` (mcpkit/testing) defaults to `'auto'` too.
   */
  era?: EraOption;
  /**
   * Pin the protocol revision instead of asking for the latest. A handshake-era revision
   * (e.g. '2025-06-18') implies `era: 'handshake'` under 'auto'; a 2026-07-28-or-later one is
   * sent in the per-request envelope, and a server answering -32022 switches the client to a
   * revision both sides support.
   */
  protocolVersion?: string;
  /**
   * How long the 'auto' probe waits on stdio before also sending `initialize` (ms). Default 3000.
   * A server that was only slow to start answers in order, the probe first: when that answer
   * arrives before initialize's, the client speaks 2026-07-28 and drops the handshake; a legacy
   * server that ignores the probe answers initialize. Over HTTP a legacy server answers with a status, never with silence, so
   * the probe waits under `requestTimeoutMs` instead and no answer is a timeout error.
   */
  probeTimeoutMs?: number;
  /** 2026-07-28: rounds of `input_required` answered for one call before giving up. Default 8. */
  maxInputRounds?: number;
  /**
   * 2026-07-28: declare the tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) with
   * every request, which lets the server answer a tools/call with a task. `callTool` then
   * drives such a task to its end (polls, answers its input requests, cancels it on abort)
   * and returns the final result; `startToolCall` hands the task over instead. Default off:
   * a client that cannot poll must not be given tasks. Declaring the extension yourself under
   * `capabilities.extensions` counts as `true`. In the handshake era at 2025-11-25 (core
   * tasks, SEP-1686) nothing is declared: `callTool` always runs tools whose
   * `execution.taskSupport` is `'required'` as tasks, and with this option on, `'optional'`
   * ones too (see {@link CallOptions.task}); the poll settings do not apply there.
   */
  tasks?: boolean | TaskOptions;
  /**
   * Declare MCP Apps (`io.modelcontextprotocol/ui`, SEP-1865) with `mimeTypes:
   * ["text/html;profile=mcp-app"]`, at `initialize` and in every 2026-07-28 request: servers
   * then list their app tools with `_meta.ui` and their `ui://` resources. Only for a host that
   * renders them (see mcpkit/client `modelTools`, `readAppResource`). Default off. Declaring the
   * extension yourself under `capabilities.extensions` works the same.
   */
  apps?: boolean;
  /**
   * 2026-07-28: keep list and resources/read results for as long as their `ttlMs`/`cacheScope`
   * hints allow (private ones per credential). Default true; false always asks the server.
   */
  cache?: boolean;
  /** Default timeout (ms) for requests. Default 60 000. */
  requestTimeoutMs?: number;
  /** Where request timeouts and the waits between task polls read the time and arm their timers (default the system clock; tests pass a ManualClock). */
  clock?: Clock;
  /**
   * Refuse, locally, calls to capabilities the server did not declare (the spec's MUST).
   * Default true; turn off for servers that under-declare.
   */
  strictCapabilities?: boolean;
  sampling?: SamplingHandler;
  elicitation?: ElicitationHandler;
  /** Elicitation modes to declare (default: form, plus url when `elicitationUrl` is true). */
  elicitationUrl?: boolean;
  /**
   * Roots to offer; `setRoots` changes them later (and, in the handshake era, notifies the
   * server). A function is asked each time the server asks (a relay passing the question on).
   */
  roots?: Root[] | RootsHandler;
  middleware?: MessageMiddleware[];
  onerror?: (error: Error) => void;
  /**
   * When the server says the session is gone (Streamable HTTP: a 404 for a request carrying
   * the session id, surfaced as {@link SessionExpiredError}), start a new session as the spec
   * requires: run the handshake again over the same transport, then retry the refused request
   * once with a new id. Requests failing together share one re-initialization; requests made
   * meanwhile wait for it. If it fails, those requests reject with a LocalError of kind
   * 'closed' that explains why (the next request tries once more). Server-side state tied to
   * the old session (subscriptions, log level) is not restored. Default true; false makes the
   * request reject with the SessionExpiredError itself.
   */
  reinitializeOnExpiry?: boolean;
  /** Called after a transparent re-initialization, with the new handshake outcome and its cause. */
  onreinitialize?: (event: ReinitializeEvent) => void;
}

/** What {@link ClientOptions.onreinitialize} receives. */
export interface ReinitializeEvent {
  /** The new session's handshake outcome (also what `serverInfo`, `protocolVersion`... now show). */
  outcome: HandshakeOutcome;
  /** The refusal that showed the old session had ended. */
  cause: SessionExpiredError;
}
