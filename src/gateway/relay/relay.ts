// The relay core: the method handlers of one low-level Server that answer with the items of its
// lanes (tools, prompts, resources and templates, subscriptions, completions), in whichever era
// the client speaks (the Server decides that). Under the gateway (namespaced, with a policy and a
// lane per client for per-client backends), mount() (its lane writes into an McpServer instead)
// and both bridges (one lane, names as the backend wrote them).
//
// Every name or URI a client sends is put in its one form first (naming), looked up once in each
// of the caller's lanes (a map lookup), and judged on that same value by the policy: `visible`
// for every list and before a call, `admit` before a call is forwarded, `record` after it settles.
// A backend's question during a call goes to that call's client only (the lane's router).
import { ErrorCode, McpError } from '../../jsonrpc/errors.js';
import type { JsonObject } from '../../jsonrpc/messages.js';
import type { Root } from '../../protocol/types.js';
import type { RequestContext, Session } from '../../server/context.js';
import type { Server } from '../../server/server.js';
import type { CallerIdentity, GatewayItem, GatewayPolicy } from '../policy-types.js';
import { backUris, callTool, forwarder, type Reword } from './forward.js';
import type { Lane } from './lane.js';
import type { RelayNaming, RelayedUri } from './naming.js';
import { Owners } from './owners.js';

/** What a relay needs to know of a request to find its lanes. */
export type LaneRequest = Pick<RequestContext, 'session' | 'authInfo'>;

export interface RelayOptions {
  naming: RelayNaming;
  policy: GatewayPolicy;
  /** The caller's lanes, in order: a name is looked up in each, and the first that has it serves it. */
  lanes(request: LaneRequest, who: CallerIdentity): readonly Lane[] | Promise<readonly Lane[]>;
  /** Whose requests are whose (a session is one client); made here when not given. */
  owners?: Owners;
  /**
   * Backends ask the clients for roots (a bridge): clients' `roots/list_changed` is passed on, and
   * `askRoots` reaches the handshake-era session that last showed it has roots.
   */
  roots?: boolean;
  /** Words a failure of a forwarded request otherwise (a bridge: its server exited). */
  reword?: Reword;
}

export interface Relay {
  /** A backend asks for roots outside any call: the client that last showed it has some is asked. */
  askRoots(signal: AbortSignal): Promise<Root[]>;
}

export function installRelay(server: Server, o: RelayOptions): Relay {
  const { naming, policy } = o;
  const owners = o.owners ?? new Owners();
  const caps = server.capabilities;
  const lanesOf = (request: LaneRequest, who: CallerIdentity) => o.lanes(request, who);
  /** Where a backend is: the first of the caller's lanes that has it connected. */
  const laneWith = (lanes: readonly Lane[], backend: string) => lanes.find((l) => l.pool.client(backend) !== undefined);
  let rootsSession: Session | undefined;

  const forward = forwarder(
    policy,
    owners,
    (ctx) => {
      if (o.roots && ctx.session?.clientCapabilities.roots) rootsSession = ctx.session;
    },
    o.reword,
  );

  /** The item behind a URI a client sent, where the caller may see it; undefined otherwise. */
  const resourceOf = async (ctx: LaneRequest, who: CallerIdentity, uri: unknown) => {
    // Routing, visibility, limits and the call log all read this one canonical value, and the
    // backend is sent its canonical URI: no other spelling of the URI goes any further.
    const target = typeof uri === 'string' ? naming.parse(uri) : undefined;
    const lane = target && laneWith(await lanesOf(ctx, who), target.server);
    if (!target || !lane) return undefined;
    const item: GatewayItem = { kind: 'resource', name: target.name, server: target.server, original: target.uri };
    return policy.visible(who, item) ? { target, lane, item } : undefined;
  };
  const notFound = (uri: unknown) => new McpError(ErrorCode.ResourceNotFound, `Resource not found: ${String(uri)}`, { uri: String(uri) });

  if (caps.tools) {
    // What the HTTP core checks `Mcp-Param-*` headers against: the schema of the tool this caller's
    // call would be routed to (its lanes: per-client ones are its own), as it was listed to it.
    server.serveToolSchemas(async (name, authInfo) => {
      const wanted = naming.name(name);
      if (wanted === undefined) return undefined;
      const who = policy.identify(authInfo);
      for (const lane of await lanesOf({ session: undefined, authInfo }, who)) {
        const e = lane.tool(wanted);
        if (e) return policy.visible(who, e.item) ? (e.tool.tool.inputSchema as object) : undefined;
      }
      return undefined;
    });

    server.setRequestHandler('tools/list', async (_params, ctx) => {
      const who = policy.identify(ctx.authInfo);
      const tools: JsonObject[] = [];
      for (const lane of await lanesOf(ctx, who))
        for (const e of lane.toolList()) if (policy.visible(who, e.item)) tools.push(e.value as unknown as JsonObject);
      return { tools };
    });

    server.setRequestHandler('tools/call', (params, ctx) => {
      const who = policy.identify(ctx.authInfo);
      // Usually an array already (the shared lane): no promise of ours then, only the call's.
      const got = lanesOf(ctx, who);
      return got instanceof Promise ? got.then((lanes) => callOn(lanes, who, params, ctx)) : callOn(got, who, params, ctx);
    });
    const callOn = (lanes: readonly Lane[], who: CallerIdentity, params: JsonObject | undefined, ctx: RequestContext) => {
      const sent = typeof params?.name === 'string' ? params.name : '';
      // Found by its exact canonical name; the call is routed by the name of the item the policy judged.
      const name = naming.name(sent);
      let lane: Lane | undefined;
      let e: ReturnType<Lane['tool']>;
      for (let i = 0; name !== undefined && i < lanes.length && e === undefined; i++) e = (lane = lanes[i]).tool(name);
      if (!e || !lane || !policy.visible(who, e.item)) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${sent}`);
      const args = (params?.arguments ?? {}) as Record<string, unknown>;
      const found = lane;
      const tool = e;
      return forward(ctx, who, lane, e.item, args, (signal) => callTool(found, tool, args, ctx, signal, sent, o.reword, ctx.era === 'modern'));
    };
  }

  if (caps.prompts) {
    server.setRequestHandler('prompts/list', async (_params, ctx) => {
      const who = policy.identify(ctx.authInfo);
      const prompts: JsonObject[] = [];
      for (const lane of await lanesOf(ctx, who))
        for (const e of lane.promptList()) if (policy.visible(who, e.item)) prompts.push(e.value as unknown as JsonObject);
      return { prompts };
    });

    server.setRequestHandler('prompts/get', async (params, ctx) => {
      const who = policy.identify(ctx.authInfo);
      const sent = typeof params?.name === 'string' ? params.name : '';
      const found = promptOf(await lanesOf(ctx, who), naming.name(sent));
      if (!found || !policy.visible(who, found.e.item)) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${sent}`);
      const { lane, e } = found;
      const args = (params?.arguments ?? {}) as JsonObject;
      return forward(ctx, who, lane, e.item, args, (signal) =>
        clientOf(lane, e.item.server).request('prompts/get', { name: e.item.original, arguments: args }, { signal }),
      );
    });
  }

  if (caps.resources) {
    server.setRequestHandler('resources/list', async (_params, ctx) => {
      const who = policy.identify(ctx.authInfo);
      const resources: JsonObject[] = [];
      for (const lane of await lanesOf(ctx, who))
        for (const e of lane.resourceList()) if (policy.visible(who, e.item)) resources.push(e.value as unknown as JsonObject);
      return { resources };
    });

    server.setRequestHandler('resources/templates/list', async (_params, ctx) => {
      const who = policy.identify(ctx.authInfo);
      const resourceTemplates: JsonObject[] = [];
      for (const lane of await lanesOf(ctx, who))
        for (const e of lane.templateList()) if (policy.visible(who, e.item)) resourceTemplates.push(e.value as unknown as JsonObject);
      return { resourceTemplates };
    });

    server.setRequestHandler('resources/read', async (params, ctx) => {
      const who = policy.identify(ctx.authInfo);
      const found = await resourceOf(ctx, who, params?.uri);
      if (!found) throw notFound(params?.uri);
      const { target, lane, item } = found;
      const result: JsonObject = await forward(ctx, who, lane, item, undefined, (signal) =>
        clientOf(lane, target.server).request('resources/read', { uri: target.uri }, { signal }),
      );
      return backUris(naming, result, target.server);
    });
  }

  if (caps.resources?.subscribe) {
    const held = new WeakMap<Session, Set<Lane>>();
    server.setRequestHandler('resources/subscribe', async (params, ctx) => {
      const who = policy.identify(ctx.authInfo);
      const found = await resourceOf(ctx, who, params?.uri);
      if (!found) throw notFound(params?.uri);
      // A 2026-07-28 client subscribes on its listen stream (below): this request holds nothing.
      const session = ctx.session;
      if (!session) return {};
      await found.lane.subscriptions.hold(found.target.server, found.target.uri, session);
      session.subscriptions.add(found.target.name);
      let lanes = held.get(session);
      if (!lanes) {
        held.set(session, (lanes = new Set()));
        const mine = lanes;
        session.onClose(() => {
          for (const l of mine) l.subscriptions.releaseAll(session);
        });
      }
      lanes.add(found.lane);
      return {};
    });
    server.setRequestHandler('resources/unsubscribe', async (params, ctx) => {
      const who = policy.identify(ctx.authInfo);
      const found = await resourceOf(ctx, who, params?.uri);
      if (found && ctx.session) {
        found.lane.subscriptions.release(found.target.server, found.target.uri, ctx.session);
        ctx.session.subscriptions.delete(found.target.name);
      }
      return {};
    });
    // 2026-07-28: the resources a listen stream asks for are held while it is open, and
    // acknowledged in their canonical form (the URI their updates carry).
    server.install({
      name: 'mcpkit/relay-subscriptions',
      setup: () => ({
        listen: async (want, request) => {
          if (!Array.isArray(want.resourceSubscriptions)) return undefined;
          const who = policy.identify(request.authInfo);
          const holder = {};
          const accepted: string[] = [];
          const holding: Array<{ lane: Lane; target: RelayedUri }> = [];
          for (const uri of want.resourceSubscriptions) {
            const found = await resourceOf({ session: undefined, authInfo: request.authInfo }, who, uri);
            if (!found) continue;
            try {
              await found.lane.subscriptions.hold(found.target.server, found.target.uri, holder);
            } catch {
              continue; // the backend cannot: not acknowledged
            }
            holding.push(found);
            accepted.push(found.target.name);
          }
          const release = () => {
            for (const { lane, target } of holding) lane.subscriptions.release(target.server, target.uri, holder);
          };
          if (request.signal.aborted) release();
          else request.signal.addEventListener('abort', release, { once: true });
          return { resourceSubscriptions: accepted };
        },
      }),
    });
  }

  if (caps.completions) {
    server.setRequestHandler('completion/complete', async (params, ctx) => {
      const who = policy.identify(ctx.authInfo);
      const ref = params?.ref as { type?: unknown; name?: unknown; uri?: unknown } | undefined;
      const lanes = await lanesOf(ctx, who);
      let lane: Lane | undefined;
      let item: GatewayItem | undefined;
      if (ref?.type === 'ref/prompt') {
        const found = promptOf(lanes, typeof ref.name === 'string' ? naming.name(ref.name) : undefined);
        if (found)
          ({
            lane,
            e: { item },
          } = found);
      } else if (ref?.type === 'ref/resource' && typeof ref.uri === 'string') {
        // A template as listed, or a URI: judged as each is listed.
        for (let i = 0; i < lanes.length && item === undefined; i++) item = (lane = lanes[i]).template(ref.uri)?.item;
        if (item === undefined) {
          const found = await resourceOf(ctx, who, ref.uri);
          if (found) ({ lane, item } = found);
        }
      } else throw new McpError(ErrorCode.InvalidParams, 'Invalid params: "ref" must be ref/prompt {name} or ref/resource {uri}');
      if (!lane || !item || !policy.visible(who, item)) {
        throw new McpError(
          ErrorCode.InvalidParams,
          ref.type === 'ref/prompt' ? `Unknown prompt: ${String(ref.name)}` : `Unknown resource template: ${String(ref.uri)}`,
        );
      }
      const client = clientOf(lane, item.server);
      // A backend that completes nothing offers no values, as a server with no completer does.
      if (!client.serverCapabilities?.completions) return { completion: { values: [], total: 0, hasMore: false } };
      const upstream = ref.type === 'ref/prompt' ? { type: 'ref/prompt', name: item.original } : { type: 'ref/resource', uri: item.original };
      const sent: JsonObject = { ref: upstream, argument: params?.argument as JsonObject };
      if (params?.context !== undefined) sent.context = params.context;
      return client.request('completion/complete', sent, { signal: ctx.signal });
    });
  }

  if (o.roots) {
    server.setNotificationHandler('notifications/roots/list_changed', async (_params, session) => {
      if (session.clientCapabilities.roots) rootsSession = session;
      const lanes = await lanesOf({ session, authInfo: undefined }, policy.identify(undefined));
      for (const lane of lanes)
        for (const name of lane.pool.names())
          lane.pool
            .client(name)
            ?.notify('notifications/roots/list_changed')
            .catch(() => {});
    });
  }

  return {
    async askRoots(signal) {
      const session = rootsSession && server.sessions.has(rootsSession as never) ? rootsSession : undefined;
      if (!session) throw new McpError(ErrorCode.InternalError, 'No client that has roots is connected to ask');
      const r = await session.request('roots/list', undefined, { signal });
      return (r.roots ?? []) as unknown as Root[];
    },
  };
}

/** The first of `lanes` with a prompt of that name. */
function promptOf(lanes: readonly Lane[], name: string | undefined) {
  if (name === undefined) return undefined;
  for (const lane of lanes) {
    const e = lane.prompt(name);
    if (e) return { lane, e };
  }
  return undefined;
}

function clientOf(lane: Lane, backend: string) {
  const c = lane.pool.client(backend);
  if (!c) throw new McpError(ErrorCode.InternalError, `Server "${backend}" is not connected`);
  return c;
}
