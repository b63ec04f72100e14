// Code mode in front of the gateway (`codeMode`, `mcpkit gateway --code-mode`): its clients are
// offered two tools, search_api and run_code, instead of the backends' tools, so any MCP client
// gets code mode. Installed after the relay (front.ts), it takes over tools/list and tools/call;
// prompts, resources and the rest stay the relay's.
//
// The API a caller's programs see is made of the tools that caller may see (the policy's
// `visible`, as tools/list would list them), so search_api never shows another caller's tools.
// Every call a program makes takes the relay's own call path with the run_code request's context
// and the caller's identity: found by name in the caller's lanes, judged by `visible`, admitted
// by the policy's limits (per call: a program's third call counts as a client's third), routed
// for a backend's questions to this client, recorded in the call log, traced under the run_code
// request's span. A refusal or failure is an Error the program can catch, at the line of the call.
//
// search_api and run_code are calls too: each is admitted by the policy's limits (a rule without
// `items` counts it as it counts any call; `items: ["run_code"]` limits programs) and recorded in
// the call log (its item has no server: it is the gateway's own tool), run_code's line after the
// lines of the calls its program made.
//
// `configure` turns code mode on, off, or to other limits while the gateway runs (a config
// reload): off, tools/list and tools/call go back to the relay's handlers.
import { CodeMode, type CodeModeOptions, RUN_CODE, SEARCH_API } from '../codemode/code-mode.js';
import { SandboxCallError } from '../codemode/limits.js';
import { ErrorCode, McpError } from '../jsonrpc/errors.js';
import type { JsonObject } from '../jsonrpc/messages.js';
import type { CallToolResult } from '../protocol/params.js';
import type { Server } from '../server/server.js';
import type { Backends } from './backends.js';
import type { RequestContext } from '../server/context.js';
import { admitsAll, recordsNothing } from './allow-all.js';
import type { CallerIdentity, CallRecord, GatewayItem, GatewayPolicy } from './policy-types.js';
import { callTool, forwarder, GATEWAY_REFUSED, recordCall } from './relay/forward.js';
import type { Lane, ToolEntry } from './relay/lane.js';

export interface CodeFrontOptions {
  backends: Backends;
  policy: GatewayPolicy;
  /** The sandbox's limits, search options... (`rank`, `index` and `limits` of CodeModeOptions); undefined: off, the relay answers. */
  code: CodeModeOptions | undefined;
}

/** Code mode in front of a gateway, switchable while it runs. */
export interface CodeFront {
  /** Code mode on with these options, or off (undefined). Returns whether what clients are offered changed. */
  configure(code: CodeModeOptions | undefined): boolean;
  readonly enabled: boolean;
}

/** APIs kept (one per distinct set of visible tools, most recently used last). */
const KEPT_APIS = 32;

export function installCodeFront(server: Server, o: CodeFrontOptions): CodeFront {
  const { backends, policy } = o;
  const forward = forwarder(policy, backends.owners);
  const modes = new Map<string, { entries: readonly ToolEntry[]; mode: CodeMode }>();
  let code = o.code;
  // What answered before code mode took over (the relay): it answers again while code mode is off.
  const relay = {
    list: server.requestHandler('tools/list'),
    call: server.requestHandler('tools/call'),
    schemas: server.toolSchemaSource,
  };

  /** The caller's API: its visible tools, made into a CodeMode once per distinct set. */
  const modeFor = (lanes: readonly Lane[], who: CallerIdentity, options: CodeModeOptions): CodeMode => {
    const entries: ToolEntry[] = [];
    for (const lane of lanes) for (const e of lane.toolList()) if (policy.visible(who, e.item)) entries.push(e);
    const key = entries.map((e) => e.item.name).join('\n');
    const held = modes.get(key);
    if (held && held.entries.length === entries.length && held.entries.every((e, i) => e === entries[i])) {
      modes.delete(key);
      modes.set(key, held);
      return held.mode;
    }
    const instructions = (name: string) => lanes.find((l) => l.pool.client(name) !== undefined)?.pool.instructions(name);
    const mode = new CodeMode(
      entries.map((e) => ({ key: e.item.name, server: e.item.server, tool: e.tool.tool })),
      options.rank || options.index ? options : { ...options, index: { instructions } },
    );
    modes.set(key, { entries, mode });
    if (modes.size > KEPT_APIS) modes.delete(modes.keys().next().value as string);
    return mode;
  };

  let schemas: Map<string, object> | undefined;
  server.serveToolSchemas((name, authInfo) => {
    if (!code) return relay.schemas?.(name, authInfo);
    schemas ??= new Map(new CodeMode([]).tools().map((t) => [t.name, t.inputSchema as object]));
    return schemas.get(name);
  });

  // Not async themselves: without code mode a request goes straight to the relay (no promise more per call).
  server.setRequestHandler('tools/list', (params, ctx) => (code ? codeList(code, ctx) : relayed(relay.list, params, ctx)));
  const codeList = async (options: CodeModeOptions, ctx: RequestContext) => {
    const who = policy.identify(ctx.authInfo);
    const mode = modeFor(await backends.lanesFor(ctx, who), who, options);
    return { tools: mode.tools() as unknown as JsonObject[] };
  };

  const guard = ownCalls(policy, backends.owners.session.bind(backends.owners));

  server.setRequestHandler('tools/call', (params, ctx) => (code ? codeCall(code, params, ctx) : relayed(relay.call, params, ctx)));
  const codeCall = async (options: CodeModeOptions, params: JsonObject | undefined, ctx: RequestContext) => {
    const who = policy.identify(ctx.authInfo);
    const name = typeof params?.name === 'string' ? params.name : '';
    const args = (params?.arguments ?? {}) as Record<string, unknown>;
    if (name !== SEARCH_API && name !== RUN_CODE)
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name} (code mode offers ${SEARCH_API} and ${RUN_CODE})`);
    return guard(ctx, who, name, args, async () => {
      const lanes = await backends.lanesFor(ctx, who);
      const mode = modeFor(lanes, who, options);
      if (name === SEARCH_API) return answer(await mode.searchAsync(args, ctx.signal));
      const outcome = await mode.run(args, {
        signal: ctx.signal,
        call: async (fn, callArgs, info) => {
          // Looked up again now: the tool, or the caller's right to it, may have gone since the API was made.
          const current = await backends.lanesFor(ctx, who);
          let lane: Lane | undefined;
          let e: ToolEntry | undefined;
          for (let i = 0; i < current.length && e === undefined; i++) e = (lane = current[i]).tool(fn.key);
          if (!e || !lane || !policy.visible(who, e.item)) throw new SandboxCallError(`${fn.path}: no such tool is available to you`);
          const found = lane;
          const tool = e;
          try {
            const result = await forward(ctx, who, found, tool.item, callArgs, (signal) =>
              callTool(found, tool, callArgs, ctx, either(signal, info.signal), fn.key),
            );
            return result as unknown as CallToolResult;
          } catch (err) {
            throw new SandboxCallError(`${fn.path}: ${refusal(err)}`);
          }
        },
      });
      if (outcome.result.error?.kind === 'cancelled' && ctx.signal.aborted) throw ctx.signal.reason;
      return answer(outcome);
    });
  };

  return {
    get enabled() {
      return code !== undefined;
    },
    configure(next) {
      const before = code === undefined ? undefined : JSON.stringify(code.limits ?? {});
      const after = next === undefined ? undefined : JSON.stringify(next.limits ?? {});
      code = next;
      // APIs made with the old options (their run_code describes its limits) are made again.
      modes.clear();
      return before !== after;
    },
  };
}

type Handler = NonNullable<ReturnType<Server['requestHandler']>>;

function relayed(handler: Handler | undefined, params: Parameters<Handler>[0], ctx: Parameters<Handler>[1]) {
  if (!handler) throw new McpError(ErrorCode.MethodNotFound, 'Method not found');
  return handler(params, ctx);
}

/**
 * search_api and run_code as calls of the gateway's own tools: admitted by the policy's limits
 * (refused as a forwarded call is, with GATEWAY_REFUSED), recorded in the call log when they end.
 */
function ownCalls(policy: GatewayPolicy, sessionOf: (s: NonNullable<RequestContext['session']>) => string) {
  const admitting = !admitsAll(policy);
  const recording = !recordsNothing(policy);
  return async (ctx: RequestContext, who: CallerIdentity, name: string, args: Record<string, unknown>, run: () => Promise<JsonObject>) => {
    const item: GatewayItem = { kind: 'tool', name, server: '', original: name };
    const started = recording ? performance.now() : 0;
    const log = (outcome: CallRecord['outcome'], error?: string) => {
      if (recording) recordCall(policy, ctx, who, item, args, started, outcome, error, ctx.session ? sessionOf(ctx.session) : undefined);
    };
    const admission = admitting ? await policy.admit(who, item) : undefined;
    if (admission && !admission.ok) {
      log('refused', admission.reason);
      throw new McpError(GATEWAY_REFUSED, admission.reason, { reason: admission.reason, retryAfterMs: admission.retryAfterMs });
    }
    try {
      const result = await run();
      log(result.isError === true ? 'tool_error' : 'ok');
      return result;
    } catch (err) {
      log(ctx.signal.aborted ? 'cancelled' : 'error', err instanceof Error ? err.message : String(err));
      throw err;
    }
  };
}

function answer(a: { text: string; isError: boolean }): JsonObject {
  return { content: [{ type: 'text', text: a.text }], ...(a.isError ? { isError: true } : {}) };
}

/** Why a forwarded call failed, in words for the program's Error. */
function refusal(err: unknown): string {
  if (err instanceof McpError && err.code === GATEWAY_REFUSED) return `refused by the gateway: ${err.message}`;
  if (err instanceof McpError) return `${err.message} (error ${err.code})`;
  return err instanceof Error ? err.message : String(err);
}

/** Aborted when either is (AbortSignal.any is not in every Node 20). */
function either(a: AbortSignal, b: AbortSignal): AbortSignal {
  if (a.aborted) return a;
  if (b.aborted) return b;
  const both = new AbortController();
  const onA = () => both.abort(a.reason);
  const onB = () => both.abort(b.reason);
  a.addEventListener('abort', onA, { once: true });
  b.addEventListener('abort', onB, { once: true });
  both.signal.addEventListener('abort', () => {
    a.removeEventListener('abort', onA);
    b.removeEventListener('abort', onB);
  });
  return both.signal;
}
