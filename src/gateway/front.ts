// The gateway's face to its clients: the method handlers of one low-level Server, answering in
// whichever era the client speaks (the Server decides that) with the backends' tools, prompts and
// resources under namespaced names. Every list goes through the policy's `visible`, every call
// through `admit` before it is forwarded and `record` after it settles.
import { LocalError, McpError, ErrorCode } from '../jsonrpc/errors.js';
import type { JsonObject } from '../jsonrpc/messages.js';
import { UnknownToolError } from '../pool/errors.js';
import { assignNames, entryKey } from '../pool/names.js';
import type { Prompt, Resource, ResourceTemplate } from '../protocol/types.js';
import type { RequestContext } from '../server/context.js';
import type { Server } from '../server/server.js';
import type { Backends, Lane } from './backends.js';
import type { CallerIdentity, CallRecord, GatewayItem, GatewayPolicy } from './policy-types.js';
import { canonicalName, gatewayResource, parseGatewayUri } from './canonical.js';
import { toGatewayUri } from './uris.js';

/** The JSON-RPC error code of a call the policy refused (rate limit, quota); `data.retryAfterMs` says when to try again. */
export const GATEWAY_REFUSED = -32029;

export interface FrontOptions {
  backends: Backends;
  policy: GatewayPolicy;
  separator: string | undefined;
}

interface Named<T> {
  item: GatewayItem;
  lane: Lane;
  value: T;
}

export function installFront(server: Server, o: FrontOptions): void {
  const { backends, policy } = o;
  let requests = 0;
  const caller = (ctx: RequestContext) => policy.identify(ctx.authInfo);
  const lanesOf = (ctx: RequestContext, who: CallerIdentity) => backends.lanesFor(ctx, who);

  const tools = async (ctx: RequestContext, who: CallerIdentity): Promise<Named<JsonObject>[]> =>
    (await lanesOf(ctx, who)).flatMap((lane) =>
      lane.pool.tools().map((t) => ({
        lane,
        item: { kind: 'tool', name: t.name, server: t.server, original: t.tool.name } as GatewayItem,
        value: { ...t.tool, name: t.name },
      })),
    );

  /** Every prompt of every connected backend of the caller's lanes, named like tools are. */
  const prompts = async (ctx: RequestContext, who: CallerIdentity): Promise<Named<Prompt>[]> => {
    const out: Named<Prompt>[] = [];
    for (const lane of await lanesOf(ctx, who)) {
      const found = await fromEach(lane, 'prompts', (c) => c.listAllPrompts({ signal: ctx.signal }));
      const names = assignNames(
        found.map(({ server, value }) => ({ server, name: value.name })),
        { prefix: 'always', separator: o.separator },
      );
      for (const { server, value } of found) {
        const name = names.get(entryKey({ server, name: value.name }))!;
        out.push({ lane, item: { kind: 'prompt', name, server, original: value.name }, value: { ...value, name } });
      }
    }
    return out;
  };

  /**
   * Every resource (or template) of the caller's lanes. `named` gives an item its gateway name
   * and the URI the backend is sent, or undefined to leave it out (a URI that could not be read back).
   */
  const resources = async <T>(
    ctx: RequestContext,
    who: CallerIdentity,
    list: (l: Lane, s: string) => Promise<T[]>,
    named: (server: string, t: T) => { name: string; original: string } | undefined,
  ) => {
    const out: Named<T>[] = [];
    for (const lane of await lanesOf(ctx, who)) {
      for (const s of lane.pool.servers()) {
        if (!lane.pool.client(s.name)?.serverCapabilities?.resources) continue;
        for (const value of await list(lane, s.name).catch(() => [] as T[])) {
          const n = named(s.name, value);
          if (n) out.push({ lane, item: { kind: 'resource', name: n.name, server: s.name, original: n.original }, value });
        }
      }
    }
    return out;
  };

  /** Admits, forwards and records one call on an item. */
  const forward = async <R extends JsonObject>(
    ctx: RequestContext,
    who: CallerIdentity,
    named: Named<unknown>,
    args: Record<string, unknown> | undefined,
    run: (signal: AbortSignal) => Promise<R>,
  ) => {
    const started = performance.now();
    const log = (outcome: CallRecord['outcome'], error?: string) => {
      const entry: CallRecord = {
        time: new Date().toISOString(),
        caller: who.id,
        method: ctx.method,
        item: named.item,
        durationMs: performance.now() - started,
        outcome,
        ...(ctx.session ? { session: backends.ownerOf(ctx, who.id) } : {}),
        // For a call log configured to keep them; policies leave them out by default.
        ...(args !== undefined && { arguments: args }),
      };
      try {
        policy.record(error === undefined ? entry : { ...entry, error });
      } catch {
        // The call log must never change the answer.
      }
    };
    const admission = await policy.admit(who, named.item);
    if (!admission.ok) {
      log('refused', admission.reason);
      throw new McpError(GATEWAY_REFUSED, admission.reason, { reason: admission.reason, retryAfterMs: admission.retryAfterMs });
    }
    // Whose question it may be: a session is one client; stateless requests are each their own
    // (two 2026-07-28 clients may share an identity, even `anonymous`), so none is guessed between.
    const owner = ctx.session ? backends.ownerOf(ctx, who.id) : `request:${++requests}`;
    const flight = named.lane.router.begin(named.item.server, ctx, owner);
    try {
      const result = await run(flight.signal);
      log(result.isError === true ? 'tool_error' : 'ok');
      return result;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      log(ctx.signal.aborted ? 'cancelled' : 'error', message);
      throw err;
    } finally {
      flight.end();
    }
  };

  // What the HTTP core checks `Mcp-Param-*` headers against: the schema of the tool this caller's
  // call would be routed to (its lanes: per-client ones are its own), as it was listed to it.
  server.toolInputSchema = async (name, authInfo) => {
    const wanted = canonicalName(name);
    if (wanted === undefined) return undefined;
    const lanes = await backends.lanesFor({ session: undefined, authInfo }, policy.identify(authInfo));
    for (const lane of lanes) {
      const tool = lane.pool.resolve(wanted);
      if (tool) return tool.tool.inputSchema as object;
    }
    return undefined;
  };

  server.setRequestHandler('tools/list', async (_params, ctx) => {
    const who = caller(ctx);
    return { tools: (await tools(ctx, who)).filter((t) => policy.visible(who, t.item)).map((t) => t.value) };
  });

  server.setRequestHandler('tools/call', async (params, ctx) => {
    const who = caller(ctx);
    const name = typeof params?.name === 'string' ? params.name : '';
    // Found by its exact canonical name; the call is routed by the name of the item the policy judged.
    const wanted = canonicalName(name);
    const named = wanted === undefined ? undefined : (await tools(ctx, who)).find((t) => t.item.name === wanted);
    if (!named || !policy.visible(who, named.item)) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    const args = (params?.arguments ?? {}) as Record<string, unknown>;
    return forward(ctx, who, named, args, async (signal) => {
      try {
        return (await named.lane.pool.call(named.item.name, args, {
          signal,
          onprogress: (p) => void ctx.progress(p.progress, p.total, p.message),
        })) as JsonObject;
      } catch (err) {
        if (err instanceof UnknownToolError) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
        if (err instanceof McpError || (err instanceof LocalError && err.kind === 'aborted')) throw err;
        // The backend is down or timed out: the model reads why, as it reads a tool's own failure.
        return { content: [{ type: 'text', text: err instanceof Error ? err.message : String(err) }], isError: true };
      }
    });
  });

  server.setRequestHandler('prompts/list', async (_params, ctx) => {
    const who = caller(ctx);
    return { prompts: (await prompts(ctx, who)).filter((p) => policy.visible(who, p.item)).map((p) => p.value) as unknown as JsonObject[] };
  });

  server.setRequestHandler('prompts/get', async (params, ctx) => {
    const who = caller(ctx);
    const name = typeof params?.name === 'string' ? params.name : '';
    const wanted = canonicalName(name);
    const named = wanted === undefined ? undefined : (await prompts(ctx, who)).find((p) => p.item.name === wanted);
    if (!named || !policy.visible(who, named.item)) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${name}`);
    const args = (params?.arguments ?? {}) as JsonObject;
    return forward(ctx, who, named, args, (signal) => clientOf(named).request('prompts/get', { name: named.item.original, arguments: args }, { signal }));
  });

  server.setRequestHandler('resources/list', async (_params, ctx) => {
    const who = caller(ctx);
    // Listed under their canonical URIs: what a client reads back is what the rules were asked about.
    const found = await resources<Resource>(
      ctx,
      who,
      (l, s) => l.pool.client(s)!.listAllResources({ signal: ctx.signal }),
      (server, r) => {
        const c = gatewayResource(server, r.uri);
        return c && { name: c.name, original: c.uri };
      },
    );
    return { resources: found.filter((r) => policy.visible(who, r.item)).map((r) => ({ ...r.value, uri: r.item.name })) as unknown as JsonObject[] };
  });

  server.setRequestHandler('resources/templates/list', async (_params, ctx) => {
    const who = caller(ctx);
    const found = await resources<ResourceTemplate>(
      ctx,
      who,
      (l, s) => l.pool.client(s)!.listAllResourceTemplates({ signal: ctx.signal }),
      // A template is no URI; what a client expands from it is read (and judged) canonically.
      (server, r) => ({ name: toGatewayUri(server, r.uriTemplate), original: r.uriTemplate }),
    );
    const visible = found.filter((r) => policy.visible(who, r.item));
    return { resourceTemplates: visible.map((r) => ({ ...r.value, uriTemplate: r.item.name })) as unknown as JsonObject[] };
  });

  server.setRequestHandler('resources/read', async (params, ctx) => {
    const who = caller(ctx);
    const uri = typeof params?.uri === 'string' ? params.uri : '';
    // Routing, visibility, limits and the call log all read this one canonical value, and the
    // backend is sent its canonical URI: no other spelling of the URI goes any further.
    const target = parseGatewayUri(uri);
    const lanes = target && (await lanesOf(ctx, who)).filter((l) => l.pool.client(target.server) !== undefined);
    if (!target || !lanes || lanes.length === 0) throw new McpError(ErrorCode.ResourceNotFound, `Resource not found: ${uri}`, { uri });
    const named: Named<unknown> = {
      lane: lanes[0],
      item: { kind: 'resource', name: target.name, server: target.server, original: target.uri },
      value: undefined,
    };
    if (!policy.visible(who, named.item)) throw new McpError(ErrorCode.ResourceNotFound, `Resource not found: ${uri}`, { uri });
    const result: JsonObject = await forward(ctx, who, named, undefined, (signal) =>
      clientOf(named).request('resources/read', { uri: target.uri }, { signal }),
    );
    const contents = Array.isArray(result.contents) ? (result.contents as JsonObject[]) : [];
    const back = (u: string) => gatewayResource(target.server, u)?.name ?? toGatewayUri(target.server, u);
    return { ...result, contents: contents.map((c) => (typeof c.uri === 'string' ? { ...c, uri: back(c.uri) } : c)) };
  });
}

function clientOf(named: Named<unknown>) {
  const c = named.lane.pool.client(named.item.server);
  if (!c) throw new McpError(ErrorCode.InternalError, `Server "${named.item.server}" is not connected`);
  return c;
}

/** `list` of every connected backend of a lane that declares `capability`; a backend that fails is left out. */
async function fromEach<T>(
  lane: Lane,
  capability: 'prompts' | 'resources',
  list: (client: NonNullable<ReturnType<Lane['pool']['client']>>) => Promise<T[]>,
): Promise<Array<{ server: string; value: T }>> {
  const out: Array<{ server: string; value: T }> = [];
  const per = await Promise.all(
    lane.pool.servers().map(async (s) => {
      const c = lane.pool.client(s.name);
      if (!c?.serverCapabilities?.[capability]) return [];
      return (await list(c).catch(() => [] as T[])).map((value) => ({ server: s.name, value }));
    }),
  );
  for (const p of per) out.push(...p);
  return out;
}
