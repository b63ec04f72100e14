// One call forwarded on a lane, the same for every face of the relay (the gateway's handlers,
// mount()'s registered items, the bridges): the policy admits it, the lane's router knows it while
// it is out (a backend's question during it goes to its client, its cancellation to the backend,
// its progress and log lines ahead of its result), and the policy records it when it settles.
import { ErrorCode, LocalError, McpError } from '../../jsonrpc/errors.js';
import type { JsonObject } from '../../jsonrpc/messages.js';
import { UnknownToolError } from '../../pool/errors.js';
import type { RequestContext } from '../../server/context.js';
import { InputRequiredSignal } from '../../server/mrtr.js';
import { admitsAll, recordsNothing } from '../allow-all.js';
import type { CallerIdentity, CallRecord, GatewayItem, GatewayPolicy } from '../policy-types.js';
import type { Lane, ToolEntry } from './lane.js';
import type { RelayNaming } from './naming.js';
import type { Owners } from './owners.js';

/** The JSON-RPC error code of a call the policy refused (rate limit, quota); `data.retryAfterMs` says when to try again. */
export const GATEWAY_REFUSED = -32029;

/** One call forwarded on a lane: admitted, routed for its questions, recorded. */
export type Forward = <R extends JsonObject>(
  ctx: RequestContext,
  who: CallerIdentity,
  lane: Lane,
  item: GatewayItem,
  args: Record<string, unknown> | undefined,
  run: (signal: AbortSignal) => Promise<R>,
) => Promise<R>;

/**
 * One line of the call log for a call that settled (or was refused), as the gateway's forwarded
 * calls and its own tools (code mode's search_api and run_code) write it. `started` is
 * `performance.now()` when the call came in.
 */
export function recordCall(
  policy: GatewayPolicy,
  ctx: RequestContext,
  who: CallerIdentity,
  item: GatewayItem,
  args: Record<string, unknown> | undefined,
  started: number,
  outcome: CallRecord['outcome'],
  error: string | undefined,
  session: string | undefined,
): void {
  const entry: CallRecord = {
    time: new Date().toISOString(),
    caller: who.id,
    method: ctx.method,
    item,
    durationMs: performance.now() - started,
    outcome,
    ...(session !== undefined ? { session } : {}),
    // For a call log configured to keep them; policies leave them out by default.
    ...(args !== undefined && { arguments: args }),
  };
  try {
    policy.record(error === undefined ? entry : { ...entry, error });
  } catch {
    // The call log must never change the answer.
  }
}

/**
 * Forwards calls: the policy admits each, the lane's router knows it while it is out (a backend's
 * question during it goes to its client, and its cancellation to the backend), the policy records
 * it when it settles. `onCall` sees each admitted request first.
 */
export function forwarder(policy: GatewayPolicy, owners: Owners, onCall?: (ctx: RequestContext) => void, reword?: Reword): Forward {
  // The allow-all policy's parts ask nothing and keep nothing: a call skips them (no record, no
  // admission awaited, no closure made per call).
  const admitting = !admitsAll(policy);
  const recording = !recordsNothing(policy);
  const record = (
    ctx: RequestContext,
    who: CallerIdentity,
    item: GatewayItem,
    args: Record<string, unknown> | undefined,
    started: number,
    outcome: CallRecord['outcome'],
    error?: string,
  ) => recordCall(policy, ctx, who, item, args, started, outcome, error, ctx.session ? owners.session(ctx.session) : undefined);
  const forward: Forward = (ctx, who, lane, item, args, run) => {
    const started = recording ? performance.now() : 0;
    /** The call once admitted: out on the lane, known to its router until it settles. */
    const go = () => {
      onCall?.(ctx);
      // Whose question it may be: a session is one client; stateless requests are each their own
      // (two 2026-07-28 clients may share an identity, even `anonymous`), so none is guessed between.
      const flight = lane.router.begin(item.server, ctx, owners.of(ctx));
      const ok = <T extends JsonObject>(result: T): T => {
        if (recording) record(ctx, who, item, args, started, result.isError === true ? 'tool_error' : 'ok');
        flight.end();
        return result;
      };
      const failed = async (thrown: unknown): Promise<never> => {
        try {
          // A question's answer its round could not use: the round answers that, whatever the backend did.
          const reason = flight.signal.reason;
          const err = reason instanceof InputRequiredSignal ? reason : (reword?.(thrown, ctx.method) ?? thrown);
          await flight.relayed();
          if (recording) record(ctx, who, item, args, started, ctx.signal.aborted ? 'cancelled' : 'error', err instanceof Error ? err.message : String(err));
          throw err;
        } finally {
          flight.end();
        }
      };
      let sent: ReturnType<typeof run>;
      try {
        sent = run(flight.signal);
      } catch (err) {
        // Failed before it went out: it still ends as a failed call (recorded, its flight ended).
        sent = Promise.reject(err);
      }
      // Not an async function: the usual call (no progress or log lines to relay first) costs the
      // one promise of this then, not an async frame's two and their hops.
      return sent.then((result) => {
        // Its progress and log lines leave before it (usually there are none).
        const relayed = flight.relayed();
        return relayed === undefined ? ok(result) : relayed.then(() => ok(result), failed);
      }, failed);
    };
    try {
      if (!admitting) return go();
      const admitted = (admission: Awaited<ReturnType<GatewayPolicy['admit']>>) => {
        if (admission.ok) return go();
        if (recording) record(ctx, who, item, args, started, 'refused', admission.reason);
        return Promise.reject(new McpError(GATEWAY_REFUSED, admission.reason, { reason: admission.reason, retryAfterMs: admission.retryAfterMs }));
      };
      const asked = policy.admit(who, item);
      return asked instanceof Promise ? asked.then(admitted) : admitted(asked);
    } catch (err) {
      // Whatever throws before the call is out (the policy, the router) rejects.
      return Promise.reject(err);
    }
  };
  return forward;
}

/** How a relay words a failure of a forwarded request (a bridge: its server exited); undefined keeps it. */
export type Reword = (err: unknown, method: string) => Error | undefined;

/**
 * A tool call on a lane's pool, its failures worded as the relay answers them. `asSent`: the
 * result is the caller's answer as it is, and the caller speaks 2026-07-28 (see below).
 */
export function callTool(
  lane: Lane,
  tool: ToolEntry,
  args: Record<string, unknown>,
  ctx: RequestContext,
  signal: AbortSignal,
  sent: string,
  reword?: Reword,
  asSent = false,
): Promise<JsonObject> {
  const { router } = lane;
  const called = lane.pool.call(tool.tool, args, {
    signal,
    onprogress: (p) => router.relay(signal, ctx.progress(p.progress, p.total, p.message)),
    // Same era both sides: the result goes on as the backend sent it, and the front's server
    // writes its own identity over the backend's (no strip here to restore there). Otherwise
    // (a handshake-era caller, a program in code mode, mount()'s tools) the client gives it in
    // the shape both eras share.
    asSent,
  }) as Promise<unknown> as Promise<JsonObject>;
  // The pool's promise as it is when the call succeeds: only a failure is looked at here.
  return called.catch((err: unknown) => {
    if (err instanceof UnknownToolError) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${sent}`);
    if (err instanceof McpError || (err instanceof LocalError && err.kind === 'aborted')) throw err;
    const worded = reword?.(err, 'tools/call');
    if (worded) throw worded;
    // The backend is down or timed out: the model reads why, as it reads a tool's own failure.
    return { content: [{ type: 'text', text: err instanceof Error ? err.message : String(err) }], isError: true };
  });
}

/** A backend's URIs in a read's contents, given back in the names the client knows. */
export function backUris(naming: RelayNaming, result: JsonObject, server: string): JsonObject {
  const contents = Array.isArray(result.contents) ? (result.contents as JsonObject[]) : [];
  let changed = false;
  const mapped = contents.map((c) => {
    if (typeof c.uri !== 'string') return c;
    const uri = naming.back(server, c.uri);
    if (uri === c.uri) return c;
    changed = true;
    return { ...c, uri };
  });
  return changed ? { ...result, contents: mapped } : result;
}
