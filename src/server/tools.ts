import { ErrorCode, McpError } from '../jsonrpc/errors.js';
import type { JsonObject } from '../jsonrpc/messages.js';
import type { CallToolResult, ContentBlock, Icon, Tool, ToolAnnotations } from '../protocol/types.js';
import { features } from '../protocol/versions.js';
import { compileSchema, type CompiledSchema, type SchemaInput } from '../schema/compile.js';
import type { ValidationResult } from '../schema/format.js';
import type { RequestContext } from './context.js';
import { InputRequiredSignal } from './mrtr.js';
import { paginate, Registry, type Registered } from './registry.js';
import type { TaskSupport } from '../protocol/tasks.js';
import type { TaskManager, ToolTaskOptions } from '../extensions/tasks/manager.js';
import { usesLegacyTasks } from '../extensions/tasks/legacy.js';

/** What a tool handler may return; plain values are turned into a CallToolResult. */
export type ToolReturn = CallToolResult | string | ContentBlock[] | Record<string, unknown> | unknown[] | void;

export type ToolHandler<A = Record<string, unknown>> = (args: A, ctx: RequestContext) => ToolReturn | Promise<ToolReturn>;

export interface ToolConfig {
  title?: string;
  description?: string;
  /** Standard Schema (zod, valibot, arktype...), a shape of them, or a JSON Schema. */
  input?: SchemaInput;
  /** When set, results are validated and sent as `structuredContent` plus a text copy. */
  output?: SchemaInput;
  annotations?: ToolAnnotations;
  icons?: Icon[];
  _meta?: Record<string, unknown>;
  /**
   * Tasks extension (2026-07-28): the tool may (`'optional'`) or must (`'required'`) run as a
   * task for clients that declare `io.modelcontextprotocol/tasks`. Without the extension an
   * optional tool runs as usual and a required one is refused with -32021. Handshake sessions
   * at 2025-11-25 see it as `execution.taskSupport` (core tasks: the client augments the call
   * with `task`; a plain call to a required tool is -32601); older revisions run it as an
   * ordinary tool. The object form picks who creates the task (see
   * ToolTaskOptions). An `McpError` thrown by a task tool is a protocol error (a failed task,
   * or a JSON-RPC error when run synchronously), not an `isError` result.
   */
  task?: TaskSupport | ToolTaskOptions;
}

/** What `update` on a tool's handle accepts: any config field, and a new handler. */
export type ToolUpdate = Partial<ToolConfig> & { handler?: ToolHandler<never> };

export interface ToolDefinition {
  name: string;
  config: ToolConfig;
  handler: ToolHandler<never>;
  input: CompiledSchema;
  output: CompiledSchema | undefined;
  /** The `Tool` object sent in tools/list, built once. */
  wire: Tool;
  /** `wire` with `execution.taskSupport`, for 2025-11-25 sessions (task tools only). */
  legacyWire: Tool | undefined;
  /** The tasks extension settings, normalized; undefined for an ordinary tool. */
  task: Required<ToolTaskOptions> | undefined;
}

/** Errors a tool may raise that the spec defines as JSON-RPC errors, not `isError` results. */
const PROTOCOL_SIGNALS: ReadonlySet<number> = new Set([ErrorCode.UrlElicitationRequired, ErrorCode.MissingRequiredClientCapability]);

const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

export function compileTool(name: string, config: ToolConfig, handler: ToolHandler<never>, warn: (m: string) => void): ToolDefinition {
  if (!TOOL_NAME.test(name)) {
    warn(`Tool name "${name}" should be 1-128 characters of A-Z a-z 0-9 _ - . (MCP 2025-11-25); some clients reject it`);
  }
  const input = compileSchema(config.input, { role: 'input' });
  const output = config.output === undefined ? undefined : compileSchema(config.output, { role: 'output' });
  const wire: Tool = { name, inputSchema: input.jsonSchema as Tool['inputSchema'] };
  if (config.title !== undefined) wire.title = config.title;
  if (config.description !== undefined) wire.description = config.description;
  if (output) wire.outputSchema = output.jsonSchema as Tool['outputSchema'];
  if (config.annotations) wire.annotations = config.annotations;
  if (config.icons) wire.icons = config.icons;
  if (config._meta) wire._meta = config._meta;
  const task = taskOptions(name, config.task);
  const legacyWire = task === undefined ? undefined : { ...wire, execution: { taskSupport: task.support } };
  return { name, config, handler, input, output, wire, legacyWire, task };
}

function taskOptions(name: string, task: ToolConfig['task']): Required<ToolTaskOptions> | undefined {
  if (task === undefined) return undefined;
  const o: ToolTaskOptions = typeof task === 'string' ? { support: task } : task;
  if (o.support !== 'optional' && o.support !== 'required') throw new TypeError(`Tool "${name}": task support must be 'optional' or 'required'`);
  const start = o.start ?? 'request';
  if (start !== 'request' && start !== 'handler') throw new TypeError(`Tool "${name}": task start must be 'request' or 'handler'`);
  return { support: o.support, start };
}

/** Owns tools/list and tools/call for an McpServer. */
export class ToolRegistry {
  readonly registry: Registry<ToolDefinition, ToolUpdate>;

  /**
   * @param tasks the server's task manager, made on first use: only task tools need one
   */
  constructor(
    onChange: () => void,
    private readonly warn: (m: string) => void,
    private readonly pageSize: () => number,
    private readonly tasks: () => TaskManager,
  ) {
    this.registry = new Registry<ToolDefinition, ToolUpdate>('Tool', onChange, (def, { handler, ...changes }) =>
      this.compile(def.name, { ...def.config, ...changes }, handler ?? def.handler),
    );
  }

  add(name: string, config: ToolConfig, handler: ToolHandler<never>): Registered<ToolUpdate> {
    return this.registry.add(name, this.compile(name, config, handler));
  }

  private compile(name: string, config: ToolConfig, handler: ToolHandler<never>): ToolDefinition {
    const def = compileTool(name, config, handler, this.warn);
    // A task tool turns the extension on (server/discover advertises it, tasks/* answer).
    if (def.task !== undefined) this.tasks();
    return def;
  }

  list(params: JsonObject | undefined, ctx: RequestContext): JsonObject {
    const { page, nextCursor } = paginate(this.registry.list(), params?.cursor, this.pageSize());
    // `execution` is a 2025-11-25 field (absent: forbidden); 2026-07-28 dropped it.
    const tools = usesLegacyTasks(ctx) ? page.map((t) => t.legacyWire ?? t.wire) : page.map((t) => t.wire);
    return nextCursor === undefined ? { tools } : { tools, nextCursor };
  }

  /**
   * Synchronous whenever validation and the handler are: a tool that returns a value costs no
   * promise here. Errors are thrown or rejected; dispatch's callers take both.
   */
  call(params: JsonObject | undefined, ctx: RequestContext): Promise<JsonObject> | JsonObject {
    const name = params?.name;
    if (typeof name !== 'string') throw new McpError(ErrorCode.InvalidParams, 'Invalid params: tools/call needs "name" (a string)');
    const tool = this.registry.get(name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    // The common case, in every era: an ordinary tool called plainly.
    if (tool.task === undefined && params?.task === undefined) return invoke(tool, params, ctx);
    if (usesLegacyTasks(ctx)) {
      // 2025-11-25 core tasks: the client decides by augmenting, within what the tool allows.
      const legacy = ctx.session.server.tasks?.legacy;
      const augmented = params?.task !== undefined;
      if (legacy !== undefined && augmented) {
        if (tool.task === undefined) throw new McpError(ErrorCode.MethodNotFound, `Tool "${name}" does not support task-augmented calls`);
        return legacy.create(ctx, params?.task, (c) => invoke(tool, params, c));
      }
      if (tool.task?.support === 'required') throw new McpError(ErrorCode.MethodNotFound, `Tool "${name}" must be called as a task (params.task)`);
      return invoke(tool, params, ctx);
    }
    if (tool.task !== undefined) return this.tasks().callTool(tool.task, ctx, () => invoke(tool, params, ctx));
    return invoke(tool, params, ctx);
  }
}

/** Checks the arguments, runs the handler and turns what it returns into a CallToolResult. */
function invoke(tool: ToolDefinition, params: JsonObject | undefined, ctx: RequestContext): Promise<JsonObject> | JsonObject {
  const rawArgs = params?.arguments;
  if (rawArgs !== undefined && (rawArgs === null || typeof rawArgs !== 'object' || Array.isArray(rawArgs))) {
    return errorResult('Invalid arguments: "arguments" must be an object');
  }
  const checked = tool.input.validate(rawArgs ?? {});
  return isThenable(checked) ? Promise.resolve(checked).then((c) => run(tool, c, ctx)) : run(tool, checked, ctx);
}

/** Runs the handler on checked arguments and turns what it returns into a CallToolResult. */
function run(tool: ToolDefinition, checked: ValidationResult, ctx: RequestContext): Promise<JsonObject> | JsonObject {
  // Argument problems are tool errors (SEP-1303): the model reads them and corrects its call.
  if (!checked.ok) return errorResult(checked.message);
  let value: ToolReturn | Promise<ToolReturn>;
  try {
    value = (tool.handler as ToolHandler<unknown>)(checked.value, ctx);
  } catch (err) {
    return failed(err, tool, ctx);
  }
  if (isThenable(value)) {
    return Promise.resolve(value as PromiseLike<ToolReturn>).then(
      (v) => toCallToolResult(v, tool, ctx.protocolVersion),
      (err: unknown) => failed(err, tool, ctx),
    );
  }
  return toCallToolResult(value, tool, ctx.protocolVersion);
}

/** A handler's failure as an `isError` result, unless it is a protocol signal. */
function failed(err: unknown, tool: ToolDefinition, ctx: RequestContext): JsonObject {
  // Protocol signals are not tool failures: they must reach the client as such. A task tool's
  // McpError is one too: a task fails only on a JSON-RPC error (SEP-2663), and the same tool
  // run synchronously must answer the same way.
  if (err instanceof InputRequiredSignal) throw err;
  if (err instanceof McpError && (PROTOCOL_SIGNALS.has(err.code) || tool.task !== undefined)) throw err;
  if (ctx.signal.aborted) throw err;
  return errorResult(err instanceof Error ? err.message || err.name : String(err));
}

function isThenable(v: unknown): v is PromiseLike<unknown> {
  return v !== null && typeof v === 'object' && typeof (v as { then?: unknown }).then === 'function';
}

export function errorResult(text: string): JsonObject {
  return { content: [{ type: 'text', text }], isError: true };
}

function isContentArray(v: unknown): v is ContentBlock[] {
  return Array.isArray(v) && v.every((b) => b !== null && typeof b === 'object' && typeof (b as { type?: unknown }).type === 'string');
}

function toCallToolResult(value: ToolReturn, tool: ToolDefinition, version: string): Promise<JsonObject> | JsonObject {
  if (value === undefined || value === null) {
    if (tool.output) return errorResult(`Tool "${tool.name}" declares an output schema but returned nothing`);
    return { content: [] };
  }
  // With an output schema an array is the structured value (2026-07-28 allows arrays), even an
  // empty one, which would otherwise pass for an empty content list.
  if (typeof value === 'string' || (isContentArray(value) && !(tool.output && value.length === 0))) {
    // A declared outputSchema is a promise of structuredContent (spec: MUST), so text alone breaks it.
    if (tool.output) return errorResult(`Tool "${tool.name}" declares an output schema but returned no structuredContent`);
    return { content: typeof value === 'string' ? [{ type: 'text', text: value }] : (value as unknown as JsonObject[]) };
  }
  const obj = value as Record<string, unknown>;
  const isResult = !Array.isArray(value) && Array.isArray(obj.content) && isContentArray(obj.content);
  if (isResult) {
    const result = value as unknown as JsonObject;
    if (!tool.output || (value as CallToolResult).isError) return result;
    const structured = (value as CallToolResult).structuredContent;
    if (structured === undefined) return errorResult(`Tool "${tool.name}" declares an output schema but returned no structuredContent`);
    return afterOutputCheck(tool, tool.output.validate(structured), () => result);
  }
  // A plain value: the structured result, with a text copy for clients that predate it.
  if (!tool.output) return plainResult(value, version);
  return afterOutputCheck(tool, tool.output.validate(value), (checked) => plainResult(checked, version));
}

/** Continues with the output schema's verdict, without a microtask when it is synchronous. */
function afterOutputCheck(
  tool: ToolDefinition,
  checked: ValidationResult | Promise<ValidationResult>,
  then: (value: unknown) => JsonObject,
): Promise<JsonObject> | JsonObject {
  const verdict = (c: ValidationResult): JsonObject =>
    c.ok ? then(c.value) : errorResult(`Tool "${tool.name}" returned ${lowerFirst(c.message)}`);
  return isThenable(checked) ? Promise.resolve(checked).then(verdict) : verdict(checked);
}

function plainResult(structured: unknown, version: string): JsonObject {
  const result: CallToolResult = { content: [{ type: 'text', text: JSON.stringify(structured) }] };
  if (features.structuredOutput(version) && (features.modern(version) || !Array.isArray(structured))) {
    result.structuredContent = structured as CallToolResult['structuredContent'];
  }
  return result as unknown as JsonObject;
}

function lowerFirst(s: string): string {
  return s.charAt(0).toLowerCase() + s.slice(1);
}
