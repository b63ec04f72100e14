// The studio's JSON API: each route a call on the hub or on one server's client. Reached only
// through the gate in http.ts. Errors a server answered come back as `{ error }` with status 200
// (they are results to show); mistakes in the request itself get a 4xx and a sentence.
import { LocalError } from '../jsonrpc/errors.js';
import type { JsonObject } from '../jsonrpc/messages.js';
import type { McpClient } from '../client/client.js';
import { compileJsonSchema } from '../schema/json-schema.js';
import type { Root, Tool } from '../protocol/types.js';
import type { CallToolResult } from '../protocol/params.js';
import type { CallOptions } from '../client/calls.js';
import { features } from '../protocol/versions.js';
import type { CallOutcome, TaskView } from './api-types.js';
import { StudioRequestError } from './confirm.js';
import { errorOf } from './errors.js';
import type { StudioHub } from './hub.js';
import { extensionRoutes } from './api-ext.js';
import { badRequest, object, route, S, text, type ApiHelpers, type Route, type RouteContext } from './api-route.js';
import { sessionRoutes } from './api-sessions.js';
import { chatRoutes } from './api-chat.js';
import { authRoutes } from './api-auth.js';
import { cardRoutes } from './api-card.js';

const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];
const bad = badRequest;

export { errorOf };
export type { Route, RouteContext };

export class StudioApi implements ApiHelpers {
  /** Tool calls under way, by the id the page gave them (for cancel). */
  private readonly calls = new Map<string, AbortController>();
  /** The tools as last listed per server, to check structured results against their outputSchema. */
  private readonly tools = new Map<string, Map<string, Tool>>();
  private readonly routes: Route[];

  constructor(private readonly hub: StudioHub) {
    const r = route;
    this.routes = [
      r('GET', '/api/state', async () => this.hub.state()),
      r('GET', '/api/timeline', async (c) => this.hub.timeline.since(Number(c.query.get('after') ?? 0) || 0)),
      r('GET', '/api/timeline/(\\d+)', async (c) => {
        const e = this.hub.timeline.get(Number(c.params[0]));
        if (!e) throw new StudioRequestError(404, 'That message is no longer kept');
        return e;
      }),
      r('POST', '/api/targets', async (c) => {
        if (this.hub.options.canAdd === false)
          throw new StudioRequestError(403, 'This studio was started with --no-add: servers are added on its command line only');
        return this.hub.targets.request(c.body.target, c.body.name, (n) => this.hub.has(n));
      }),
      r('POST', '/api/targets/([^/]+)/confirm', async (c) => {
        const { name, target } = this.hub.targets.confirm(c.params[0], c.body.nonce);
        if (this.hub.has(name)) throw new StudioRequestError(409, `A server is already named "${name}"`);
        await this.hub.addConfirmed(name, target);
        return this.hub.view(name);
      }),
      r('POST', '/api/targets/([^/]+)/reject', async (c) => ({ rejected: this.hub.targets.reject(c.params[0]) })),
      r('POST', '/api/inputs/([^/]+)', async (c) => {
        const ok =
          c.body.refuse !== undefined
            ? this.hub.inputs.refuse(c.params[0], String(c.body.refuse || 'refused by the user'))
            : this.hub.inputs.answer(c.params[0], object(c.body.result, 'result'));
        if (!ok) throw new StudioRequestError(404, 'That request no longer waits for an answer');
        return { ok };
      }),
      r('POST', '/api/roots', async (c) => this.setRoots(c.body.roots)),
      r('POST', '/api/validate', async (c) => {
        const schema = object(c.body.schema, 'schema');
        try {
          const r = compileJsonSchema(schema, 'input')(c.body.value);
          return r.ok ? { ok: true } : { ok: false, message: r.message };
        } catch (err) {
          return { ok: false, message: `The schema itself cannot be used: ${err instanceof Error ? err.message : String(err)}` };
        }
      }),
      r('POST', '/api/calls/([^/]+)/cancel', async (c) => {
        const ctl = this.calls.get(c.params[0]);
        ctl?.abort(new LocalError('aborted', 'Cancelled in the studio'));
        return { cancelled: ctl !== undefined };
      }),
      r('POST', `${S}/reconnect`, async (c) => {
        this.known(c.params[0]);
        await this.hub.reconnect(c.params[0]);
        return this.hub.view(c.params[0]);
      }),
      r('POST', `${S}/remove`, async (c) => {
        this.known(c.params[0]);
        await this.hub.remove(c.params[0]);
        return { removed: true };
      }),
      r('POST', `${S}/list`, async (c) => this.list(c)),
      r('POST', `${S}/call`, async (c) => this.call(c)),
      r('POST', `${S}/read`, async (c) => this.answer(() => this.connected(c).readResource(text(c.body.uri, 'uri'), { signal: c.signal }))),
      r('POST', `${S}/subscribe`, async (c) => {
        const client = this.connected(c);
        await this.hub.subscribe(c.params[0], client, text(c.body.uri, 'uri'), c.body.on !== false);
        return this.hub.view(c.params[0]);
      }),
      r('POST', `${S}/complete`, async (c) => {
        const ref = object(c.body.ref, 'ref');
        const argument = object(c.body.argument, 'argument');
        const params = { ref, argument, ...(c.body.context ? { context: object(c.body.context, 'context') } : {}) };
        return this.answer(() => this.connected(c).complete(params as never, { signal: c.signal }));
      }),
      r('POST', `${S}/prompt`, async (c) => {
        const args = object(c.body.arguments, 'arguments') as Record<string, string>;
        return this.answer(() => this.connected(c).getPrompt(text(c.body.name, 'name'), args, { signal: c.signal }));
      }),
      r('POST', `${S}/log-level`, async (c) => {
        const level = text(c.body.level, 'level');
        if (!LOG_LEVELS.includes(level)) throw bad(`level must be one of ${LOG_LEVELS.join(', ')}`);
        const client = this.connected(c);
        return this.answer(async () => {
          await this.hub.setLogLevel(c.params[0], client, level);
          return {};
        });
      }),
      r('POST', `${S}/ping`, async (c) => this.answer(() => this.connected(c).ping({ signal: c.signal }))),
      r('POST', `${S}/replay`, async (c) => this.replay(c)),
      ...extensionRoutes(hub, this),
      ...sessionRoutes(hub),
      ...chatRoutes(hub.chat, hub.inputs),
      ...authRoutes(hub),
      ...cardRoutes(hub),
    ];
  }

  /** The route for a method and path, with its captured parts; undefined when none matches. */
  match(method: string, path: string): { route: Route; params: string[] } | undefined {
    for (const route of this.routes) {
      if (route.method !== method) continue;
      const m = route.path.exec(path);
      if (m) return { route, params: m.slice(1).map(decodeURIComponent) };
    }
    return undefined;
  }

  tool(server: string, name: string): Tool | undefined {
    return this.tools.get(server)?.get(name);
  }

  /** Whether a path is an API path at all (so a wrong method is a 405, not a 404). */
  knowsPath(path: string): boolean {
    return this.routes.some((r) => r.path.test(path));
  }

  private known(name: string): void {
    if (!this.hub.has(name)) throw new StudioRequestError(404, `No server is named "${name}"`);
  }

  connected(c: RouteContext): McpClient {
    const name = c.params[0];
    this.known(name);
    const client = this.hub.client(name);
    if (!client) {
      const v = this.hub.view(name);
      throw new StudioRequestError(409, `Server "${name}" is not connected (${v?.state ?? 'unknown'}${v?.error ? `: ${v.error}` : ''})`);
    }
    return client;
  }

  /** Runs a request to the server; its error (an answer, not a failure of the studio) becomes `{ error }`. */
  async answer(run: () => Promise<unknown>): Promise<unknown> {
    const started = performance.now();
    try {
      const result = await run();
      return { result, durationMs: performance.now() - started };
    } catch (err) {
      if (err instanceof StudioRequestError) throw err;
      return { error: errorOf(err), durationMs: performance.now() - started };
    }
  }

  private async list(c: RouteContext): Promise<unknown> {
    const client = this.connected(c);
    const kind = c.body.kind;
    return this.answer(async () => {
      switch (kind) {
        case 'tools': {
          const tools = await client.listAllTools({ signal: c.signal });
          this.tools.set(c.params[0], new Map(tools.map((t) => [t.name, t])));
          return tools;
        }
        case 'resources':
          return client.listAllResources({ signal: c.signal });
        case 'templates':
          return client.listAllResourceTemplates({ signal: c.signal });
        case 'prompts':
          return client.listAllPrompts({ signal: c.signal });
        default:
          throw bad('kind must be tools, resources, templates or prompts');
      }
    });
  }

  private async call(c: RouteContext): Promise<CallOutcome> {
    const client = this.connected(c);
    const server = c.params[0];
    const name = text(c.body.name, 'name');
    const args = object(c.body.arguments, 'arguments');
    const callId = typeof c.body.callId === 'string' && c.body.callId.length <= 100 ? c.body.callId : undefined;
    const meta = c.body.meta === undefined ? undefined : object(c.body.meta, 'meta');
    const ctl = new AbortController();
    const onGone = () => ctl.abort(new LocalError('aborted', 'The page went away'));
    c.signal.addEventListener('abort', onGone, { once: true });
    if (callId) this.calls.set(callId, ctl);
    const started = performance.now();
    const options = {
      signal: ctl.signal,
      timeoutMs: typeof c.body.timeoutMs === 'number' && c.body.timeoutMs > 0 ? c.body.timeoutMs : undefined,
      resetTimeoutOnProgress: true,
      onprogress: (p: { progress: number; total?: number; message?: string }) => {
        if (callId) this.hub.emit('progress', { callId, progress: p.progress, total: p.total, message: p.message });
      },
    };
    try {
      const run = await this.startCall(server, client, { name, args, meta, asTask: c.body.task === true }, options);
      if ('task' in run) return { task: run.task, durationMs: performance.now() - started };
      const result = run.result;
      const outcome: CallOutcome = { result: result as unknown as Record<string, unknown>, durationMs: performance.now() - started };
      const check = this.checkOutput(server, name, result);
      if (check) outcome.outputCheck = check;
      return outcome;
    } catch (err) {
      return { error: errorOf(err), durationMs: performance.now() - started, cancelled: ctl.signal.aborted };
    } finally {
      c.signal.removeEventListener('abort', onGone);
      if (callId) this.calls.delete(callId);
    }
  }

  /**
   * Sends the call: its result, or the task the server made of it, which the studio follows from
   * then on. 2026-07-28: the server decides (the studio declares the tasks extension), with or
   * without a request `_meta`. 2025-11-25 (core tasks):
   * the studio decides, as a client must: a tool that requires tasks is always called as one, an
   * optional one when the page asks.
   */
  private async startCall(
    server: string,
    client: McpClient,
    call: { name: string; args: Record<string, unknown>; meta: Record<string, unknown> | undefined; asTask: boolean },
    options: CallOptions,
  ): Promise<{ result: CallToolResult } | { task: TaskView }> {
    const { name, args, meta } = call;
    const origin = { tool: name, arguments: args };
    const params = { name, arguments: args, ...(meta ? { _meta: meta } : {}) } as unknown as JsonObject;
    if (client.era === 'modern') {
      const r = (await client.startToolCall(name, args, options, meta)) as unknown as Record<string, unknown>;
      if (r.resultType === 'task') return { task: this.hub.tasks.adopt(server, r, 'extension', origin) };
      return { result: r as unknown as CallToolResult };
    }
    const support = this.tool(server, name)?.execution?.taskSupport;
    const version = client.protocolVersion;
    const core = version !== undefined && features.coreTasks(version) && !!client.serverCapabilities?.tasks?.requests?.tools?.call;
    if (core && (support === 'required' || (support === 'optional' && call.asTask))) {
      // Progress of a task outlives this request: not asked for here.
      const created = await client.request('tools/call', { ...params, task: {} }, { signal: options.signal, timeoutMs: options.timeoutMs });
      const task = created.task;
      if (task && typeof task === 'object' && !Array.isArray(task))
        return { task: this.hub.tasks.adopt(server, task as Record<string, unknown>, 'core', origin) };
      return { result: created as unknown as CallToolResult };
    }
    // Plainly: the client would otherwise make tasks of optional tools (its tasks option is on).
    if (meta === undefined) return { result: await client.callTool(name, args, { ...options, task: false }) };
    return { result: (await client.request('tools/call', params, options)) as unknown as CallToolResult };
  }

  /** A tool with an outputSchema must return structuredContent that matches it (unless it reports an error). */
  private checkOutput(server: string, tool: string, result: CallToolResult): CallOutcome['outputCheck'] {
    const schema = this.tools.get(server)?.get(tool)?.outputSchema as Record<string, unknown> | undefined;
    if (!schema || result.isError) return undefined;
    if (result.structuredContent === undefined) return { ok: false, message: 'The tool declares an outputSchema but returned no structuredContent' };
    try {
      const r = compileJsonSchema(schema, 'output')(result.structuredContent);
      return r.ok ? { ok: true } : { ok: false, message: r.message };
    } catch (err) {
      return { ok: false, message: `Its outputSchema cannot be used: ${err instanceof Error ? err.message : String(err)}` };
    }
  }

  private async setRoots(v: unknown): Promise<unknown> {
    if (!Array.isArray(v) || v.length > 100) throw bad('roots must be a list (at most 100)');
    const roots: Root[] = v.map((r, i) => {
      const o = object(r, `roots[${i}]`);
      const uri = text(o.uri, `roots[${i}].uri`);
      if (!uri.startsWith('file://') || !URL.canParse(uri)) throw bad(`roots[${i}].uri must be a file:// URI`);
      return { uri, ...(typeof o.name === 'string' && o.name ? { name: o.name } : {}) };
    });
    await this.hub.setRoots(roots);
    return { roots };
  }

  /** Sends one recorded message again: a request gets a new id (and its answer), a notification goes as is. */
  private async replay(c: RouteContext): Promise<unknown> {
    const client = this.connected(c);
    const m = object(c.body.message, 'message');
    const method = text(m.method, 'message.method');
    const params = m.params === undefined ? undefined : (object(m.params, 'message.params') as JsonObject);
    if (m.id === undefined) {
      return this.answer(async () => {
        await client.notify(method, params);
        return { sent: true };
      });
    }
    return this.answer(() => client.request(method, params, { signal: c.signal }));
  }
}
