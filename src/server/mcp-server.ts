import type { StandardSchemaV1 } from '@standard-schema/spec';
import { ErrorCode, McpError } from '../jsonrpc/errors.js';
import type { JsonObject } from '../jsonrpc/messages.js';
import type { MessageMiddleware } from '../engine/middleware.js';
import type { LoggingLevel, PromptArgument } from '../protocol/types.js';
import type { SchemaInput } from '../schema/compile.js';
import type { Transport } from '../engine/transport.js';
import type { RequestContext } from './context.js';
import { flattenExtensions, type ExtensionResources, type ServerExtension } from './extension.js';
import { PromptRegistry, type PromptConfig, type PromptHandler, type PromptUpdate } from './prompts.js';
import type { Registered } from './registry.js';
import {
  ResourceRegistry,
  type Completer,
  type ResourceConfig,
  type ResourceHandler,
  type ResourceUpdate,
  type TemplateConfig,
  type TemplateHandler,
  type TemplateUpdate,
} from './resources.js';
import type { TemplateVariables } from './template-variables.js';
import { Server, type RequestMiddleware, type ServerOptions } from './server.js';
import type { ServerSession } from './session.js';
import { ToolRegistry, type ToolConfig, type ToolHandler, type ToolReturnFor, type ToolUpdate } from './tools.js';
import { UriTemplate } from './uri-template.js';

/** The argument type a handler receives for a given input schema. */
export type InferArgs<S> = S extends StandardSchemaV1
  ? StandardSchemaV1.InferOutput<S>
  : S extends { readonly [k: string]: StandardSchemaV1 }
    ? { [K in keyof S]: StandardSchemaV1.InferOutput<S[K]> }
    : Record<string, unknown>;

type ListKind = 'tools' | 'resources' | 'prompts';

export interface McpServerOptions extends ServerOptions {
  /** Items per page in list results. Default 1000. */
  pageSize?: number;
}

/**
 * The high-level server: register tools, resources and prompts; serve them over any number of
 * transports and both eras. Registration compiles schemas once; a request costs a context object.
 */
export class McpServer {
  /** The low-level server underneath (raw handlers, sessions). */
  readonly server: Server;
  private readonly tools: ToolRegistry;
  private readonly resources: ResourceRegistry;
  private readonly prompts: PromptRegistry;
  private readonly pageSize: number;

  constructor(options: McpServerOptions) {
    const { pageSize, ...rest } = options;
    this.pageSize = pageSize ?? 1000;
    this.server = new Server(rest);
    this.server.registerCapabilities({ logging: {} });
    const size = () => this.pageSize;
    this.tools = new ToolRegistry(
      () => this.listChanged('tools'),
      this.server.warn,
      size,
      () => this.server.extensionHooks(),
    );
    this.resources = new ResourceRegistry(
      () => this.listChanged('resources'),
      size,
      () => this.extensionResources,
    );
    this.prompts = new PromptRegistry(() => this.listChanged('prompts'), size);
    this.adoptExtensionResources();
  }

  /** Extensions' resources (skill files), served after the registered ones. */
  private extensionResources: ExtensionResources[] = [];

  private adoptExtensionResources(): void {
    this.extensionResources = [];
    for (const h of this.server.extensionHooks()) if (h.resources) this.extensionResources.push(h.resources);
    if (this.extensionResources.length > 0) this.enableResources();
  }

  /**
   * Installs an extension (or several, as `tasks()` returns). Install before registering tools:
   * an extension takes part in the tools registered after it.
   */
  install(extension: ServerExtension | readonly ServerExtension[]): this {
    if (this.tools.registry.size > 0) throw new TypeError('Install extensions before registering tools (or pass them as McpServer options: extensions)');
    for (const e of flattenExtensions([extension])) this.server.install(e);
    this.adoptExtensionResources();
    return this;
  }

  // ------------------------------------------------------------------ tools

  tool(name: string, handler: ToolHandler<Record<string, unknown>>): Registered<ToolUpdate>;
  /**
   * A tool whose arguments are typed by its `input` schema and, when `output` is a Standard
   * Schema, whose return is too: the value that schema accepts (see {@link ToolReturnFor}).
   */
  tool<S extends SchemaInput | undefined = undefined, O extends SchemaInput | undefined = undefined>(
    name: string,
    config: ToolConfig & { input?: S; output?: O },
    handler: ToolHandler<InferArgs<S>, ToolReturnFor<O>>,
  ): Registered<ToolUpdate>;
  tool(name: string, a: ToolConfig | ToolHandler<never, unknown>, b?: ToolHandler<never, unknown>): Registered<ToolUpdate> {
    const [config, handler] = typeof a === 'function' ? [{}, a] : [a, b!];
    this.enableTools();
    // The output schema checks what the handler returns at run time, whatever its static type.
    return this.tools.add(name, config, handler as ToolHandler<never>);
  }

  private enableTools(): void {
    if (this.server.hasRequestHandler('tools/list')) return;
    this.server.registerCapabilities({ tools: { listChanged: true } });
    this.server.setRequestHandler('tools/list', (p, ctx) => this.tools.list(p, ctx));
    this.server.setRequestHandler('tools/call', (p, ctx) => this.tools.call(p, ctx));
    this.server.serveToolSchemas((name) => this.tools.registry.get(name)?.wire.inputSchema);
  }

  // -------------------------------------------------------------- resources

  /**
   * A resource at a fixed URI, or, when `uri` contains `{...}`, an RFC 6570 template whose
   * handler receives the matched variables.
   */
  resource(name: string, uri: string, handler: ResourceHandler): Registered<ResourceUpdate>;
  resource(name: string, uri: string, config: ResourceConfig, handler: ResourceHandler): Registered<ResourceUpdate>;
  resource(name: string, uri: string, a: ResourceConfig | ResourceHandler, b?: ResourceHandler): Registered<ResourceUpdate> {
    const [config, handler] = typeof a === 'function' ? [{}, a] : [a, b!];
    if (UriTemplate.isTemplate(uri)) {
      // A template behind a static-style handler: its handle must adapt new handlers too,
      // or an update would store a (uri, ctx) function where (uri, vars, ctx) is called.
      const adapt =
        (h: ResourceHandler): TemplateHandler =>
        (u, _v, ctx) =>
          h(u, ctx);
      const inner = this.resourceTemplate(name, uri, config, adapt(handler));
      return {
        name: inner.name,
        get enabled() {
          return inner.enabled;
        },
        enable: () => inner.enable(),
        disable: () => inner.disable(),
        remove: () => inner.remove(),
        update: ({ handler: h, ...changes }) => inner.update(h ? { ...changes, handler: adapt(h) } : changes),
      };
    }
    this.enableResources();
    return this.resources.addStatic(name, uri, config, handler);
  }

  /**
   * A resource template (RFC 6570). The handler's variables are typed from the template when it
   * is a string literal: `'users://{id}{?tags*}'` gives `{ id: string; tags?: string[] }`.
   */
  resourceTemplate<T extends string>(
    name: string,
    uriTemplate: T,
    config: TemplateConfig,
    handler: TemplateHandler<TemplateVariables<T>>,
  ): Registered<TemplateUpdate<TemplateVariables<T>>> {
    this.enableResources();
    if (config.complete) this.enableCompletions();
    // The matcher produces what TemplateVariables<T> describes; the registry stores handlers untyped.
    const handle = this.resources.addTemplate(name, uriTemplate, config, handler as TemplateHandler);
    return this.completable(handle) as Registered<TemplateUpdate<TemplateVariables<T>>>;
  }

  private enableResources(): void {
    if (this.server.hasRequestHandler('resources/list')) return;
    this.server.registerCapabilities({ resources: { subscribe: true, listChanged: true } });
    const s = this.server;
    s.setRequestHandler('resources/list', (p, ctx) => this.resources.list(p, ctx));
    s.setRequestHandler('resources/templates/list', (p) => this.resources.listTemplates(p));
    s.setRequestHandler('resources/read', (p, ctx) => this.resources.read(p, ctx));
    s.setRequestHandler('resources/subscribe', (p, ctx) => {
      ctx.session?.subscriptions.add(requireUri(p));
      return {};
    });
    s.setRequestHandler('resources/unsubscribe', (p, ctx) => {
      ctx.session?.subscriptions.delete(requireUri(p));
      return {};
    });
  }

  /** Tells every session subscribed to `uri` that it changed. */
  resourceUpdated(uri: string): void {
    // Filtered by subscription where it is delivered (here, and on other instances via a bus).
    this.server.broadcast('notifications/resources/updated', { uri });
  }

  // ---------------------------------------------------------------- prompts

  prompt(name: string, handler: PromptHandler<Record<string, string>>): Registered<PromptUpdate>;
  prompt<S extends SchemaInput | PromptArgument[] | undefined = undefined>(
    name: string,
    config: PromptConfig & { args?: S },
    handler: PromptHandler<S extends PromptArgument[] ? Record<string, string> : InferArgs<S>>,
  ): Registered<PromptUpdate>;
  prompt(name: string, a: PromptConfig | PromptHandler<never>, b?: PromptHandler<never>): Registered<PromptUpdate> {
    const [config, handler] = typeof a === 'function' ? [{}, a] : [a, b!];
    if (!this.server.hasRequestHandler('prompts/list')) {
      this.server.registerCapabilities({ prompts: { listChanged: true } });
      this.server.setRequestHandler('prompts/list', (p) => this.prompts.list(p));
      this.server.setRequestHandler('prompts/get', (p, ctx) => this.prompts.get(p, ctx));
    }
    if (config.complete) this.enableCompletions();
    return this.completable(this.prompts.add(name, config, handler));
  }

  /** A handle whose `update` may add completers later: the capability must follow. */
  private completable<U extends { complete?: unknown }>(handle: Registered<U>): Registered<U> {
    const update = handle.update.bind(handle);
    handle.update = (changes) => {
      if (changes.complete) this.enableCompletions();
      update(changes);
    };
    return handle;
  }

  // ------------------------------------------------------------ completions

  private enableCompletions(): void {
    if (this.server.hasRequestHandler('completion/complete')) return;
    this.server.registerCapabilities({ completions: {} });
    this.server.setRequestHandler('completion/complete', (p, ctx) => this.complete(p, ctx));
  }

  private async complete(params: JsonObject | undefined, ctx: RequestContext): Promise<JsonObject> {
    const ref = params?.ref as { type?: string; name?: string; uri?: string } | undefined;
    const arg = params?.argument as { name?: string; value?: string } | undefined;
    if (!ref || typeof arg?.name !== 'string' || typeof arg.value !== 'string') {
      throw new McpError(ErrorCode.InvalidParams, 'Invalid params: completion/complete needs "ref" and "argument" {name, value}');
    }
    let completer: Completer | undefined;
    if (ref.type === 'ref/prompt' && typeof ref.name === 'string') completer = this.prompts.completer(ref.name, arg.name);
    else if (ref.type === 'ref/resource' && typeof ref.uri === 'string') {
      if (!this.resources.hasTemplate(ref.uri)) throw new McpError(ErrorCode.InvalidParams, `Unknown resource template: ${ref.uri}`);
      completer = this.resources.completer(ref.uri, arg.name);
    } else throw new McpError(ErrorCode.InvalidParams, 'Invalid params: "ref" must be ref/prompt {name} or ref/resource {uri}');
    const context = { arguments: (params?.context as { arguments?: Record<string, string> } | undefined)?.arguments ?? {} };
    const all = completer ? await completer(arg.value, context, ctx) : [];
    const values = all.slice(0, 100);
    return { completion: { values, total: all.length, hasMore: all.length > values.length } };
  }

  // ---------------------------------------------------------------- general

  /** Sends `notifications/message` to every session whose log level lets it through. */
  log(level: LoggingLevel, data: unknown, logger?: string): void {
    const params: JsonObject = logger === undefined ? { level, data } : { level, data, logger };
    // Filtered by each session's level where it is delivered.
    this.server.broadcast('notifications/message', params);
  }

  use(mw: RequestMiddleware | MessageMiddleware): this {
    this.server.use(mw);
    return this;
  }

  connect(transport: Transport): Promise<ServerSession> {
    return this.server.connect(transport);
  }

  get sessions(): ReadonlySet<ServerSession> {
    return this.server.sessions;
  }

  close(): Promise<void> {
    return this.server.close();
  }

  /** Many changes in one tick (start-up, bulk toggles) are one notification per kind: Server.broadcastSoon. */
  private listChanged(kind: ListKind): void {
    this.server.broadcastSoon(`notifications/${kind}/list_changed`);
  }
}

function requireUri(p: JsonObject | undefined): string {
  const uri = p?.uri;
  if (typeof uri !== 'string' || uri === '') throw new McpError(ErrorCode.InvalidParams, 'Invalid params: "uri" (a string) is required');
  return uri;
}
