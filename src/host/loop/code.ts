// Code mode in the host loop: the model is offered `search_api` and `run_code` (../../codemode)
// instead of the servers' tools, and every call a program makes is made by runCall, the very
// function that makes the model's direct calls: the same name resolution, approval policy and
// user approval, the same HostEvents, the same observer spans and the same timeouts. A call's
// record joins the message's Answer.toolCalls.
import { CodeMode, type CodeModeOptions, RUN_CODE, SEARCH_API } from '../../codemode/code-mode.js';
import { SandboxCallError } from '../../codemode/sandbox.js';
import type { ModelTool, ModelToolCall } from '../model.js';
import type { HostTool } from '../../pool/tool-source.js';
import { type LoopCodeMode, runCall, type StepEnv } from './calls.js';
import type { LoopContext } from './context.js';
import { READ_FULL_RESULT } from './results.js';
import { SEARCH_TOOLS } from './search.js';
import type { ToolCallRecord } from './types.js';

export { RUN_CODE, SEARCH_API };

/** Names of the loop's own tools: a program cannot reach them, only servers' tools. */
const LOOP_TOOLS = new Set([SEARCH_TOOLS, READ_FULL_RESULT, SEARCH_API, RUN_CODE]);

/** One conversation's code mode: the API made anew whenever the pool's tools change. */
export class HostCodeMode implements LoopCodeMode {
  readonly names: ReadonlySet<string> = new Set([SEARCH_API, RUN_CODE]);
  private mode: CodeMode | undefined;
  private tools: readonly HostTool[] | undefined;

  private readonly options: CodeModeOptions;

  constructor(
    private readonly ctx: LoopContext,
    options: CodeModeOptions,
  ) {
    // A program's output is bounded like a tool result: by resultLimit.maxChars when it is set.
    const limit = ctx.options.resultLimit;
    const maxChars = limit === false ? undefined : limit?.maxChars;
    const bounded =
      maxChars !== undefined && options.limits?.outputChars === undefined ? { ...options, limits: { ...options.limits, outputChars: maxChars } } : options;
    // search_api ranks as search_tools does: server instructions weighed in, the same ranker fused.
    const defer = ctx.options.deferTools || undefined;
    this.options =
      bounded.rank || bounded.index
        ? bounded
        : {
            ...bounded,
            index: {
              instructions: (server) => ctx.tools.instructions?.(server),
              ...(defer?.ranker ? { ranker: defer.ranker } : {}),
              ...(defer?.onRankerError ? { onRankerError: defer.onRankerError } : {}),
            },
          };
  }

  private current(): CodeMode {
    const all = this.ctx.tools.tools();
    if (!this.mode || this.tools !== all) {
      this.tools = all;
      this.mode = new CodeMode(
        all.map((t) => ({ key: t.name, server: t.server, tool: t.tool })),
        this.options,
      );
    }
    return this.mode;
  }

  /** The two tools for this step. */
  definitions(): ModelTool[] {
    return this.current().tools();
  }

  async run(call: ModelToolCall, args: Record<string, unknown>, env: StepEnv): Promise<{ text: string; isError: boolean; records?: ToolCallRecord[] }> {
    const mode = this.current();
    if (call.name === SEARCH_API) {
      const { text, isError } = await mode.searchAsync(args, env.signal);
      return { text, isError };
    }
    const records: Array<{ index: number; record: ToolCallRecord }> = [];
    // The program may call any function of its API, and nothing else: the names a call resolves.
    const names = new Set(mode.api.functions.map((f) => f.key).filter((n) => !LOOP_TOOLS.has(n)));
    const code = typeof args.code === 'string' ? args.code : '';
    const started = this.ctx.clock.now();
    env.emit({ type: 'code_run', id: call.id, code });
    const outcome = await mode.run(args, {
      clock: this.ctx.clock,
      signal: env.signal,
      call: async (fn, callArgs, info) => {
        const id = `${call.id}.${info.index}`;
        const inner: StepEnv = { ...env, signal: info.signal, cut: undefined, offered: names, known: names, code: undefined };
        try {
          const out = await runCall(inner, { id, name: fn.key, arguments: JSON.stringify(callArgs) });
          records.push({ index: info.index, record: out.record });
          if (out.record.error !== undefined) throw new SandboxCallError(`${fn.path}: ${out.record.error}`);
          return out.record.result!;
        } catch (err) {
          if (err instanceof SandboxCallError) throw err;
          // runCall rejects only when its signal was aborted: the run was stopped (or the message cancelled).
          const message = `Cancelled: ${err instanceof Error ? err.message : String(err)}`;
          env.emit({ type: 'tool_error', id, name: fn.key, message });
          records.push({ index: info.index, record: { id, name: fn.key, server: fn.server, tool: fn.tool.name, arguments: callArgs, error: message } });
          throw new SandboxCallError(`${fn.path}: ${message}`);
        }
      },
    });
    if (env.signal.aborted) throw env.signal.reason;
    const r = outcome.result;
    env.emit({ type: 'code_result', id: call.id, text: outcome.text, isError: outcome.isError, calls: r.calls, durationMs: this.ctx.clock.now() - started });
    return { text: outcome.text, isError: outcome.isError, records: records.sort((a, b) => a.index - b.index).map((r) => r.record) };
  }
}
