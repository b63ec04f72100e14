// One tool call of the model, from its raw form to the tool message the model reads next:
// arguments parsed, the tool found (or the loop's own search_tools / read_full_result), the
// approval policy applied, the server called with a timeout that progress keeps alive, and the
// result mapped and cut. Whatever goes wrong short of cancellation becomes an error message the
// model can act on, never an exception.
import { LocalError, McpError } from '../../jsonrpc/errors.js';
import type { ModelMessage, ModelToolCall } from '../model.js';
import type { HostTool } from '../../pool/tool-source.js';
import type { PolicyVerdict } from './approval.js';
import type { LoopContext } from './context.js';
import { type CutResults, READ_FULL_RESULT, resultToModel } from './results.js';
import { SEARCH_TOOLS } from './search.js';
import type { HostEvent, ToolCallRecord } from './types.js';

/** What one step's calls share. */
export interface StepEnv {
  ctx: LoopContext;
  policy: (tool: HostTool) => PolicyVerdict;
  signal: AbortSignal;
  emit: (event: HostEvent) => void;
  cut: CutResults | undefined;
  /** Names of the tools sent to the model in this step. */
  offered: ReadonlySet<string>;
  /** Names sent in any step of the conversation: a call to one that went is not the model's mistake. */
  known: ReadonlySet<string>;
  /** Runs a search_tools call (only when it was offered). */
  search: (args: Record<string, unknown>) => Promise<{ text: string; isError: boolean }>;
  /** Code mode's tools (code.ts), when it is on. */
  code?: LoopCodeMode;
}

/** Tools of the loop that run asynchronously and may make tool calls of their own (code mode's). */
export interface LoopCodeMode {
  readonly names: ReadonlySet<string>;
  run(call: ModelToolCall, args: Record<string, unknown>, env: StepEnv): Promise<{ text: string; isError: boolean; records?: ToolCallRecord[] }>;
}

export interface CallOutcome {
  message: Extract<ModelMessage, { role: 'tool' }>;
  record: ToolCallRecord;
  /** Why the call was malformed (bad JSON arguments, a name no tool had): the model must do better. */
  malformed?: string;
  /** The tool calls this one made (a code-mode program's), in the order they were made. */
  inner?: ToolCallRecord[];
}

/** Arguments as an object, or why not. Empty text is `{}` (some models send it for no arguments). */
export function parseArguments(raw: string): { ok: true; value: Record<string, unknown> } | { ok: false; why: string } {
  if (raw.trim() === '') return { ok: true, value: {} };
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (err) {
    return { ok: false, why: `they are not valid JSON (${err instanceof Error ? err.message : String(err)})` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { ok: false, why: 'they are not a JSON object' };
  return { ok: true, value: value as Record<string, unknown> };
}

/** Says what went wrong with a call in words for the model (and the user reading events). */
function describeFailure(err: unknown, tool: string, timeoutMs: number | undefined): string {
  if (err instanceof LocalError && err.kind === 'timeout') {
    return `The call to ${tool} timed out${timeoutMs === undefined ? '' : ` after ${timeoutMs} ms without progress`}.`;
  }
  if (err instanceof McpError) return `The server refused the call to ${tool}: ${err.message} (error ${err.code}).`;
  return `The call to ${tool} failed: ${err instanceof Error ? err.message : String(err)}`;
}

/** Waits for `promise`, or rejects with the signal's reason when it is aborted first. */
function abortable<T>(promise: Promise<T> | T, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    Promise.resolve(promise).then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

/**
 * Runs one call. Resolves with the tool message in every case but cancellation (it rejects when
 * `env.signal` was aborted, after the server was told).
 */
export async function runCall(env: StepEnv, call: ModelToolCall): Promise<CallOutcome> {
  const { ctx, emit } = env;
  const record: ToolCallRecord = { id: call.id, name: call.name, server: undefined, tool: undefined, arguments: {} };
  const fail = (text: string, malformed?: string): CallOutcome => {
    record.error = text;
    emit({ type: 'tool_error', id: call.id, name: call.name, message: text });
    return { message: { role: 'tool', toolCallId: call.id, name: call.name, content: [{ type: 'text', text }], isError: true }, record, malformed };
  };
  const loopTool = (result: { text: string; isError: boolean }): CallOutcome => {
    const content = [{ type: 'text' as const, text: result.text }];
    if (result.isError) record.error = result.text;
    else record.result = { content };
    return { message: { role: 'tool', toolCallId: call.id, name: call.name, content, ...(result.isError ? { isError: true } : {}) }, record };
  };

  const parsed = parseArguments(call.arguments);
  if (!parsed.ok) {
    const why = `The arguments of the call to ${call.name} could not be read: ${parsed.why}. Call it again with a JSON object matching its parameters.`;
    return fail(why, `arguments of ${call.name}: ${parsed.why}`);
  }
  const args = parsed.value;
  record.arguments = args;
  if (env.offered.has(call.name) && call.name === SEARCH_TOOLS) return loopTool(await env.search(args));
  if (env.offered.has(call.name) && call.name === READ_FULL_RESULT && env.cut) return loopTool(env.cut.read(args));
  if (env.code && env.offered.has(call.name) && env.code.names.has(call.name)) {
    const out = await env.code.run(call, args, env);
    return { ...loopTool(out), ...(out.records && out.records.length > 0 ? { inner: out.records } : {}) };
  }

  const tool = ctx.tools.resolve(call.name);
  if (!tool) {
    if (env.offered.has(call.name) || env.known.has(call.name)) {
      return fail(`The tool ${call.name} is no longer available (its server's tools changed, or the server went away). Use the tools offered now.`);
    }
    const names = [...env.offered];
    const list = names.length > 40 ? `${names.slice(0, 40).join(', ')}, ...` : names.join(', ');
    return fail(`There is no tool named ${JSON.stringify(call.name)}. The tools are: ${list || 'none'}.`, `no tool is named ${JSON.stringify(call.name)}`);
  }
  record.server = tool.server;
  record.tool = tool.tool.name;
  emit({ type: 'tool_call', id: call.id, name: call.name, server: tool.server, tool: tool.tool.name, arguments: args });

  const verdict = env.policy(tool);
  if (verdict.decision === 'deny') {
    emit({ type: 'approval', id: call.id, name: call.name, approved: false, by: 'policy' });
    return fail(`Calling ${call.name} is not allowed here (${verdict.reason}).`);
  }
  if (verdict.decision === 'ask') {
    const approve = ctx.interaction.approve;
    if (!approve) {
      emit({ type: 'approval', id: call.id, name: call.name, approved: false, by: 'nobody' });
      return fail(`Calling ${call.name} needs the user's approval (${verdict.reason}), and there is no way to ask for it here.`);
    }
    const request = {
      callId: call.id,
      name: call.name,
      server: tool.server,
      tool: tool.tool.name,
      arguments: args,
      annotations: tool.tool.annotations,
      reason: verdict.reason,
    };
    const ask = async () => (await abortable(approve.call(ctx.interaction, request, env.signal), env.signal)) === true;
    const observe = ctx.options.observer?.approval;
    const info = { id: call.id, name: call.name, server: tool.server, tool: tool.tool.name, arguments: args, reason: verdict.reason, signal: env.signal };
    const approved = observe ? await observe.call(ctx.options.observer, info, ask) : await ask();
    emit({ type: 'approval', id: call.id, name: call.name, approved, by: 'user' });
    if (!approved) return fail(`The user did not allow calling ${call.name}.`);
  } else {
    emit({ type: 'approval', id: call.id, name: call.name, approved: true, by: 'policy' });
  }

  const meta = ctx.options.meta?.({ id: call.id, name: call.name, server: tool.server, tool: tool.tool.name, arguments: args });
  const timeoutMs = ctx.options.toolTimeoutMs;
  const started = ctx.clock.now();
  try {
    // Raced against the signal too: a call waiting on something that ignores it (a dialog the
    // server's input request opened) must not hold the cancelled message.
    const run = () => {
      const pending = ctx.tools.call(call.name, args, {
        signal: env.signal,
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
        ...(meta === undefined ? {} : { meta }),
        onprogress: (p) => emit({ type: 'tool_progress', id: call.id, ...p }),
      });
      return abortable(pending, env.signal);
    };
    const observe = ctx.options.observer?.toolCall;
    const info = { id: call.id, name: call.name, server: tool.server, tool: tool.tool.name, arguments: args, signal: env.signal };
    const result = observe ? await observe.call(ctx.options.observer, info, run) : await run();
    const mapped = resultToModel(result);
    const { content, truncated } = env.cut ? env.cut.limit(call.id, mapped) : { content: mapped, truncated: false };
    const isError = result.isError === true;
    record.result = result;
    emit({ type: 'tool_result', id: call.id, name: call.name, server: tool.server, result, isError, truncated, durationMs: ctx.clock.now() - started });
    return { message: { role: 'tool', toolCallId: call.id, name: call.name, content, ...(isError ? { isError: true } : {}) }, record };
  } catch (err) {
    if (env.signal.aborted) throw env.signal.reason;
    return fail(describeFailure(err, call.name, timeoutMs));
  }
}
