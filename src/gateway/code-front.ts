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
import { CodeMode, type CodeModeOptions, RUN_CODE, SEARCH_API } from '../codemode/code-mode.js';
import { SandboxCallError } from '../codemode/limits.js';
import { ErrorCode, McpError } from '../jsonrpc/errors.js';
import type { JsonObject } from '../jsonrpc/messages.js';
import type { CallToolResult } from '../protocol/params.js';
import type { Server } from '../server/server.js';
import type { Backends } from './backends.js';
import type { CallerIdentity, GatewayPolicy } from './policy-types.js';
import { callTool, forwarder, GATEWAY_REFUSED } from './relay/forward.js';
import type { Lane, ToolEntry } from './relay/lane.js';

export interface CodeFrontOptions {
  backends: Backends;
  policy: GatewayPolicy;
  /** The sandbox's limits, search options... (`rank`, `index` and `limits` of CodeModeOptions). */
  code: CodeModeOptions;
}

/** APIs kept (one per distinct set of visible tools, most recently used last). */
const KEPT_APIS = 32;

export function installCodeFront(server: Server, o: CodeFrontOptions): void {
  const { backends, policy } = o;
  const forward = forwarder(policy, backends.owners);
  const modes = new Map<string, { entries: readonly ToolEntry[]; mode: CodeMode }>();

  /** The caller's API: its visible tools, made into a CodeMode once per distinct set. */
  const modeFor = (lanes: readonly Lane[], who: CallerIdentity): CodeMode => {
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
      o.code.rank || o.code.index ? o.code : { ...o.code, index: { instructions } },
    );
    modes.set(key, { entries, mode });
    if (modes.size > KEPT_APIS) modes.delete(modes.keys().next().value as string);
    return mode;
  };

  const schemas = new Map(new CodeMode([]).tools().map((t) => [t.name, t.inputSchema]));
  server.serveToolSchemas((name) => schemas.get(name));

  server.setRequestHandler('tools/list', async (_params, ctx) => {
    const who = policy.identify(ctx.authInfo);
    const mode = modeFor(await backends.lanesFor(ctx, who), who);
    return { tools: mode.tools() as unknown as JsonObject[] };
  });

  server.setRequestHandler('tools/call', async (params, ctx) => {
    const who = policy.identify(ctx.authInfo);
    const name = typeof params?.name === 'string' ? params.name : '';
    const args = (params?.arguments ?? {}) as Record<string, unknown>;
    if (name !== SEARCH_API && name !== RUN_CODE)
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name} (code mode offers ${SEARCH_API} and ${RUN_CODE})`);
    const lanes = await backends.lanesFor(ctx, who);
    const mode = modeFor(lanes, who);
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
