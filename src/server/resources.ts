import { ErrorCode, McpError } from '../jsonrpc/errors.js';
import type { JsonObject } from '../jsonrpc/messages.js';
import type { Annotations, Icon, Resource, ResourceContents, ResourceTemplate } from '../protocol/types.js';
import type { ReadResourceResult } from '../protocol/params.js';
import { bytesToBase64 } from '../protocol/encoding.js';
import { features } from '../protocol/versions.js';
import type { RequestContext } from './context.js';
import type { ExtensionResources } from './extension.js';
import { ownCompleter, paginate, Registry, type Registered } from './registry.js';
import { UriTemplate, type UriVariables } from './uri-template.js';

/** What a resource handler may return; plain values become `contents`. */
export type ResourceReturn =
  | ReadResourceResult
  | ResourceContents[]
  | string
  | Uint8Array
  | { text: string; mimeType?: string }
  | { blob: string | Uint8Array; mimeType?: string };

export interface ResourceConfig {
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  annotations?: Annotations;
  icons?: Icon[];
  _meta?: Record<string, unknown>;
}

export type Completer = (value: string, context: { arguments: Record<string, string> }, ctx: RequestContext) => string[] | Promise<string[]>;

export interface TemplateConfig extends Omit<ResourceConfig, 'size'> {
  /** Concrete resources of this template to show in resources/list. */
  list?: (ctx: RequestContext) => Resource[] | Promise<Resource[]>;
  /** Value completion for template variables (completion/complete with ref/resource). */
  complete?: Record<string, Completer>;
}

export type ResourceHandler = (uri: string, ctx: RequestContext) => ResourceReturn | Promise<ResourceReturn>;
/** `V`: the template's variables; `McpServer.resourceTemplate` reads them off the template string. */
export type TemplateHandler<V = UriVariables> = (uri: string, vars: V, ctx: RequestContext) => ResourceReturn | Promise<ResourceReturn>;

/** What `update` on a resource's handle accepts: any config field, and a new handler. */
export type ResourceUpdate = Partial<ResourceConfig> & { handler?: ResourceHandler };
export type TemplateUpdate<V = UriVariables> = Partial<TemplateConfig> & { handler?: TemplateHandler<V> };

interface StaticDef {
  wire: Resource;
  config: ResourceConfig;
  handler: ResourceHandler;
}
interface TemplateDef {
  wire: ResourceTemplate;
  template: UriTemplate;
  config: TemplateConfig;
  handler: TemplateHandler;
}

function staticDef(name: string, uri: string, config: ResourceConfig, handler: ResourceHandler): StaticDef {
  return { wire: { uri, name, ...config } as Resource, config, handler };
}

function templateDef(name: string, template: UriTemplate, config: TemplateConfig, handler: TemplateHandler): TemplateDef {
  // Callbacks are server-side only; `size` describes one resource, never a template.
  const { list: _l, complete: _c, size: _s, ...shown } = config as TemplateConfig & { size?: number };
  const wire = { uriTemplate: template.template, name, ...shown } as ResourceTemplate;
  return { wire, template, config, handler };
}

export class ResourceRegistry {
  readonly statics: Registry<StaticDef, ResourceUpdate>;
  readonly templates: Registry<TemplateDef, TemplateUpdate>;

  constructor(
    onChange: () => void,
    private readonly pageSize: () => number,
    /** Extensions' resources, consulted after the registered ones. */
    private readonly extensions: () => readonly ExtensionResources[] = () => [],
  ) {
    // Updates rebuild the advertised object from the merged config (a shallow merge would
    // leave tools/list-style wire objects stale).
    this.statics = new Registry<StaticDef, ResourceUpdate>('Resource', onChange, (def, { handler, ...changes }) =>
      staticDef(def.wire.name, def.wire.uri, { ...def.config, ...changes }, handler ?? def.handler),
    );
    this.templates = new Registry<TemplateDef, TemplateUpdate>('Resource template', onChange, (def, { handler, ...changes }) =>
      templateDef(def.wire.name, def.template, { ...def.config, ...changes }, handler ?? def.handler),
    );
  }

  addStatic(name: string, uri: string, config: ResourceConfig, handler: ResourceHandler): Registered<ResourceUpdate> {
    if (!URL.canParse(uri)) throw new TypeError(`Resource "${name}": "${uri}" is not an absolute URI`);
    return this.statics.add(uri, staticDef(name, uri, config, handler), name);
  }

  addTemplate(name: string, uriTemplate: string, config: TemplateConfig, handler: TemplateHandler): Registered<TemplateUpdate> {
    return this.templates.add(name, templateDef(name, new UriTemplate(uriTemplate), config, handler));
  }

  async list(params: JsonObject | undefined, ctx: RequestContext): Promise<JsonObject> {
    let items: Resource[] = this.statics.list().map((s) => s.wire);
    const listers = this.templates.list().filter((t) => t.config.list);
    const more = this.extensions();
    if (listers.length > 0 || more.length > 0) {
      items = [...items];
      for (const t of listers) items.push(...(await t.config.list!(ctx)));
      for (const e of more) if (e.list) items.push(...(await e.list(ctx)));
    }
    const { page, nextCursor } = paginate(items, params?.cursor, this.pageSize());
    return nextCursor === undefined ? { resources: page } : { resources: page, nextCursor };
  }

  listTemplates(params: JsonObject | undefined): JsonObject {
    const { page, nextCursor } = paginate(
      this.templates.list().map((t) => t.wire),
      params?.cursor,
      this.pageSize(),
    );
    return nextCursor === undefined ? { resourceTemplates: page } : { resourceTemplates: page, nextCursor };
  }

  async read(params: JsonObject | undefined, ctx: RequestContext): Promise<JsonObject> {
    const uri = params?.uri;
    if (typeof uri !== 'string' || uri === '') throw new McpError(ErrorCode.InvalidParams, 'Invalid params: resources/read needs "uri" (a string)');
    const s = this.statics.get(uri);
    if (s) return normalize(await s.handler(uri, ctx), uri, s.wire.mimeType) as unknown as JsonObject;
    for (const t of this.templates.list()) {
      const vars = t.template.match(uri);
      if (vars) return normalize(await t.handler(uri, vars, ctx), uri, t.wire.mimeType) as unknown as JsonObject;
    }
    for (const e of this.extensions()) {
      const r = await e.read(uri, ctx);
      if (r !== undefined) return r as unknown as JsonObject;
    }
    throw resourceNotFound(uri, ctx.protocolVersion);
  }

  /** Completion for a `ref/resource`: the template's completer for that variable. */
  completer(uriOrTemplate: string, argument: string): Completer | undefined {
    for (const t of this.templates.list()) {
      if (t.wire.uriTemplate === uriOrTemplate) return ownCompleter(t.config.complete, argument);
    }
    return undefined;
  }

  hasTemplate(uriTemplate: string): boolean {
    return this.templates.list().some((t) => t.wire.uriTemplate === uriTemplate);
  }
}

/** -32002 in the handshake era, -32602 from 2026-07-28 on (SEP-2164). */
export function resourceNotFound(uri: string, version: string): McpError {
  const code = features.modern(version) ? ErrorCode.InvalidParams : ErrorCode.ResourceNotFound;
  return new McpError(code, `Resource not found: ${uri}`, { uri });
}

function toBase64(b: string | Uint8Array): string {
  return typeof b === 'string' ? b : bytesToBase64(b);
}

function normalize(value: ResourceReturn, uri: string, mimeType: string | undefined): ReadResourceResult {
  const withMime = <T extends object>(c: T, m?: string): T => ((m ?? mimeType) === undefined ? c : { ...c, mimeType: m ?? mimeType });
  if (typeof value === 'string') return { contents: [withMime({ uri, text: value })] };
  if (value instanceof Uint8Array) return { contents: [withMime({ uri, blob: toBase64(value) })] };
  if (Array.isArray(value)) return { contents: value };
  if ('contents' in value && Array.isArray(value.contents)) return value;
  if ('text' in value && typeof value.text === 'string') return { contents: [withMime({ uri, text: value.text }, value.mimeType)] };
  if ('blob' in value) return { contents: [withMime({ uri, blob: toBase64(value.blob) }, value.mimeType)] };
  throw new Error(`Resource handler for ${uri} returned neither contents, text nor blob`);
}
