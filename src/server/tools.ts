import { ErrorCode, McpError } from '../jsonrpc/errors.js';
import type { JsonObject } from '../jsonrpc/messages.js';
import type { ContentBlock, Icon, Tool, ToolAnnotations } from '../protocol/types.js';
import type { CallToolResult } from '../protocol/params.js';
import { features } from '../protocol/versions.js';
import type { StandardSchemaV1 } from '@standard-schema/spec';
import { compileSchema, type CompiledSchema, type SchemaInput } from '../schema/compile.js';
import type { ValidationResult } from '../schema/format.js';
import type { InferSchemaInput, StandardSchemaShape } from '../schema/standard.js';
import type { RequestContext } from './context.js';
import type { ExtensionHooks, ToolHook } from './extension.js';
import { InputRequiredSignal } from './mrtr.js';
import { paginate, Registry, type Registered } from './registry.js';

/** What a tool handler may return; plain values are turned into a CallToolResult. */
export type ToolReturn = CallToolResult | string | ContentBlock[] | Record<string, unknown> | unknown[] | void;

/**
 * What a handler returns for a given `output` schema. For a Standard Schema: the value the
 * schema accepts (sent as `structuredContent` with a JSON text copy), a `CallToolResult` carrying
 * it, or an error result. Otherwise {@link ToolReturn} (a raw JSON Schema is not inferred). Spelled as one union
 * rather than one conditional so that the `content` of a returned result keeps its contextual
 * type (`type: 'text'` stays a literal) while the schema is still being inferred.
 */
export type ToolReturnFor<O> =
  | (O extends StandardSchemaV1 | StandardSchemaShape ? InferSchemaInput<O> : ToolReturn)
  | (Omit<CallToolResult, 'structuredContent'> & { structuredContent: O extends StandardSchemaV1 | StandardSchemaShape ? InferSchemaInput<O> : unknown })
  | (CallToolResult & { isError: true });

export type ToolHandler<A = Record<string, unknown>, R = ToolReturn> = (args: A, ctx: RequestContext) => R | Promise<R>;

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
  // Installed extensions add their own keys to this interface (declaration merging): the tasks
  // extensions add `task`. A key no installed extension reads is refused at registration.
}

/** The keys the core reads; any other key of a ToolConfig belongs to an extension. */
const CORE_KEYS: ReadonlySet<string> = new Set(['title', 'description', 'input', 'output', 'annotations', 'icons', '_meta']);

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
  /** Installed extensions' parts in this tool (empty for most tools). */
  hooks: ToolHook[];
  /** The hooks' `call`s composed around the tool; undefined: the tool is called directly. */
  call: ((params: JsonObject | undefined, ctx: RequestContext) => Promise<JsonObject> | JsonObject) | undefined;
  /** Some hook wants the handler's McpErrors as protocol errors. */
  protocolErrors: boolean;
}

/** Errors a tool may raise that the spec defines as JSON-RPC errors, not `isError` results. */
const PROTOCOL_SIGNALS: ReadonlySet<number> = new Set([ErrorCode.UrlElicitationRequired, ErrorCode.MissingRequiredClientCapability]);

const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

export function compileTool(
  name: string,
  config: ToolConfig,
  handler: ToolHandler<never>,
  warn: (m: string) => void,
  extensions: Iterable<ExtensionHooks> = [],
): ToolDefinition {
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
  const hooks: ToolHook[] = [];
  const read = new Set<string>(CORE_KEYS);
  for (const ext of extensions) {
    for (const k of ext.toolOptions ?? []) read.add(k);
    const h = ext.tool?.(name, config as Readonly<Record<string, unknown>>);
    if (h !== undefined) hooks.push(h);
  }
  for (const k of Object.keys(config)) {
    // A misspelt or uninstalled option silently ignored is a trap: say so at registration.
    if (!read.has(k) && (config as Record<string, unknown>)[k] !== undefined) {
      throw new TypeError(
        `Tool "${name}": unknown option "${k}": no installed extension reads it (install the extension that adds it: new McpServer({ ..., extensions: [...] }))`,
      );
    }
  }
  const def: ToolDefinition = { name, config, handler, input, output, wire, hooks, call: undefined, protocolErrors: hooks.some((h) => h.protocolErrors) };
  // Composed once: the first extension installed is the outermost.
  let call: ToolDefinition['call'];
  for (let i = hooks.length - 1; i >= 0; i--) {
    const hook = hooks[i].call;
    if (hook === undefined) continue;
    const inner = call ?? ((p: JsonObject | undefined, c: RequestContext) => invoke(def, p, c));
    call = (p, c) => hook(p, c, (c2) => inner(p, c2));
  }
  def.call = call;
  return def;
}

/** Owns tools/list and tools/call for an McpServer. */
export class ToolRegistry {
  readonly registry: Registry<ToolDefinition, ToolUpdate>;

  /**
   * @param extensions the installed extensions' hooks, read at each registration
   */
  constructor(
    onChange: () => void,
    private readonly warn: (m: string) => void,
    private readonly pageSize: () => number,
    private readonly extensions: () => Iterable<ExtensionHooks>,
  ) {
    this.registry = new Registry<ToolDefinition, ToolUpdate>('Tool', onChange, (def, { handler, ...changes }) =>
      this.compile(def.name, { ...def.config, ...changes }, handler ?? def.handler),
    );
  }

  add(name: string, config: ToolConfig, handler: ToolHandler<never>): Registered<ToolUpdate> {
    return this.registry.add(name, this.compile(name, config, handler));
  }

  private compile(name: string, config: ToolConfig, handler: ToolHandler<never>): ToolDefinition {
    return compileTool(name, config, handler, this.warn, this.extensions());
  }

  list(params: JsonObject | undefined, ctx: RequestContext): JsonObject {
    const { page, nextCursor } = paginate(this.registry.list(), params?.cursor, this.pageSize());
    const tools: Tool[] = [];
    for (const t of page) {
      const wire = listed(t, ctx);
      if (wire !== undefined) tools.push(wire);
    }
    // A page may come out shorter than the page size: the cursor still points past it.
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
    // The common case: no extension takes part in this tool.
    return tool.call === undefined ? invoke(tool, params, ctx) : tool.call(params, ctx);
  }
}

/** The tool as tools/list shows it to this request (extensions may add fields per era, or hide it). */
function listed(tool: ToolDefinition, ctx: RequestContext): Tool | undefined {
  let wire: Tool | undefined = tool.wire;
  for (const h of tool.hooks) {
    if (h.list === undefined) continue;
    wire = h.list(wire, ctx);
    if (wire === undefined) return undefined;
  }
  return wire;
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
  // Protocol signals are not tool failures: they must reach the client as such. An extension
  // may ask for every McpError (a task fails only on a JSON-RPC error, SEP-2663, and the same
  // tool run synchronously must answer the same way).
  if (err instanceof InputRequiredSignal) throw err;
  if (err instanceof McpError && (PROTOCOL_SIGNALS.has(err.code) || tool.protocolErrors)) throw err;
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
  const verdict = (c: ValidationResult): JsonObject => (c.ok ? then(c.value) : errorResult(`Tool "${tool.name}" returned ${lowerFirst(c.message)}`));
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
