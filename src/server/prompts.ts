import { ErrorCode, McpError } from '../jsonrpc/errors.js';
import type { JsonObject } from '../jsonrpc/messages.js';
import type { Icon, Prompt, PromptArgument, PromptMessage } from '../protocol/types.js';
import type { GetPromptResult } from '../protocol/params.js';
import { compileSchema, type CompiledSchema, type SchemaInput } from '../schema/compile.js';
import type { RequestContext } from './context.js';
import type { Completer } from './resources.js';
import { ownCompleter, paginate, Registry, type Registered } from './registry.js';

export type PromptReturn = GetPromptResult | PromptMessage[] | string;
export type PromptHandler<A = Record<string, string>> = (args: A, ctx: RequestContext) => PromptReturn | Promise<PromptReturn>;

export interface PromptConfig {
  title?: string;
  description?: string;
  /**
   * Arguments: a Standard Schema shape / object schema (validated, descriptions taken from it)
   * or a plain list of PromptArgument (only `required` is checked).
   */
  args?: SchemaInput | PromptArgument[];
  /** Value completion per argument (completion/complete with ref/prompt). */
  complete?: Record<string, Completer>;
  icons?: Icon[];
  _meta?: Record<string, unknown>;
}

/** What `update` on a prompt's handle accepts: any config field, and a new handler. */
export type PromptUpdate = Partial<PromptConfig> & { handler?: PromptHandler<never> };

interface PromptDef {
  wire: Prompt;
  config: PromptConfig;
  schema: CompiledSchema | undefined;
  handler: PromptHandler<never>;
}

function compilePrompt(name: string, config: PromptConfig, handler: PromptHandler<never>): PromptDef {
  const { list, schema } = argumentsFrom(config);
  const wire: Prompt = { name };
  if (config.title !== undefined) wire.title = config.title;
  if (config.description !== undefined) wire.description = config.description;
  if (list.length > 0) wire.arguments = list;
  if (config.icons) wire.icons = config.icons;
  if (config._meta) wire._meta = config._meta;
  return { wire, config, schema, handler };
}

function argumentsFrom(config: PromptConfig): { list: PromptArgument[]; schema?: CompiledSchema } {
  if (config.args === undefined) return { list: [] };
  if (Array.isArray(config.args)) return { list: config.args as PromptArgument[] };
  const schema = compileSchema(config.args, { role: 'input' });
  const props = (schema.jsonSchema.properties ?? {}) as Record<string, { description?: string; title?: string }>;
  const required = new Set((schema.jsonSchema.required as string[] | undefined) ?? []);
  const list = Object.entries(props).map(([name, p]) => {
    const a: PromptArgument = { name };
    if (p?.title !== undefined) a.title = p.title;
    if (p?.description !== undefined) a.description = p.description;
    if (required.has(name)) a.required = true;
    return a;
  });
  return { list, schema };
}

export class PromptRegistry {
  readonly registry: Registry<PromptDef, PromptUpdate>;

  constructor(
    onChange: () => void,
    private readonly pageSize: () => number,
  ) {
    this.registry = new Registry<PromptDef, PromptUpdate>('Prompt', onChange, (def, { handler, ...changes }) =>
      compilePrompt(def.wire.name, { ...def.config, ...changes }, handler ?? def.handler),
    );
  }

  add(name: string, config: PromptConfig, handler: PromptHandler<never>): Registered<PromptUpdate> {
    return this.registry.add(name, compilePrompt(name, config, handler));
  }

  list(params: JsonObject | undefined): JsonObject {
    const { page, nextCursor } = paginate(
      this.registry.list().map((p) => p.wire),
      params?.cursor,
      this.pageSize(),
    );
    return nextCursor === undefined ? { prompts: page } : { prompts: page, nextCursor };
  }

  async get(params: JsonObject | undefined, ctx: RequestContext): Promise<JsonObject> {
    const name = params?.name;
    if (typeof name !== 'string') throw new McpError(ErrorCode.InvalidParams, 'Invalid params: prompts/get needs "name" (a string)');
    const prompt = this.registry.get(name);
    if (!prompt) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${name}`);
    const raw = params?.arguments ?? {};
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
      throw new McpError(ErrorCode.InvalidParams, 'Invalid params: prompt "arguments" must be an object of strings');
    }
    const args = raw as Record<string, unknown>;
    const missing = (prompt.wire.arguments ?? []).filter((a) => a.required && args[a.name] === undefined).map((a) => a.name);
    if (missing.length > 0) {
      throw new McpError(ErrorCode.InvalidParams, `Missing required argument${missing.length > 1 ? 's' : ''} for prompt "${name}": ${missing.join(', ')}`);
    }
    let value: unknown = args;
    if (prompt.schema) {
      const checked = await prompt.schema.validate(args);
      if (!checked.ok) throw new McpError(ErrorCode.InvalidParams, `${checked.message} (prompt "${name}")`);
      value = checked.value;
    }
    const out = await (prompt.handler as PromptHandler<unknown>)(value, ctx);
    return normalize(out, prompt.wire.description) as unknown as JsonObject;
  }

  completer(name: string, argument: string): Completer | undefined {
    const p = this.registry.get(name);
    if (!p) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${name}`);
    return ownCompleter(p.config.complete, argument);
  }
}

function normalize(v: PromptReturn, description: string | undefined): GetPromptResult {
  if (typeof v === 'string') {
    const r: GetPromptResult = { messages: [{ role: 'user', content: { type: 'text', text: v } }] };
    if (description !== undefined) r.description = description;
    return r;
  }
  if (Array.isArray(v)) {
    const r: GetPromptResult = { messages: v };
    if (description !== undefined) r.description = description;
    return r;
  }
  return v;
}
