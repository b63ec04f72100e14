// An MCP server behind bearer auth (the "resource server") for the OAuth client tests, not a test
// file itself: it serves Protected Resource Metadata, answers /mcp without a valid token (checked
// with the mock authorization server) with 401 + WWW-Authenticate, answers 403
// insufficient_scope for chosen methods or tools, and otherwise forwards to mcpkit's real
// server handler; with `dpop`, bound tokens must come as `DPoP` with a valid proof of their key.
// Every request it gets is recorded.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { OAuthClientAuth } from '../../../src/client/auth/oauth.js';
import type { AuthorizationRequest, OAuthOptions } from '../../../src/client/auth/options.js';
import { McpServer } from '../../../src/server/mcp-server.js';
import { toNodeHandler } from '../../../src/serving/node.js';
import { startMockAs, type MockAs, type MockAsOptions } from '../../fixtures/oauth/authorization-server.js';
import { checkProof } from '../../fixtures/oauth/dpop.js';

export interface RsOptions {
  /**
   * Where the PRM is served: path-based (/.well-known/oauth-protected-resource/mcp), at the root,
   * both, at /custom/metadata/location.json, or nowhere. Default 'path'.
   */
  prm?: 'path' | 'root' | 'both' | 'custom' | 'none';
  /** The PRM's `resource`. Default `<origin>/mcp` (the origin itself when the PRM is at the root only). */
  resource?: string | ((origin: string) => string);
  /** The PRM's authorization_servers. Default [the mock AS issuer]. */
  authorizationServers?: string[];
  scopesSupported?: string[];
  /** Put resource_metadata in WWW-Authenticate. Default true (unless prm is 'none'). */
  advertise?: boolean;
  /** The scope each JSON-RPC method needs; keys are methods or `tools/call:<tool>`. */
  scopes?: Record<string, string>;
  /** A `scope` for every 401 challenge (else the scope the method needs, if any). */
  challengeScope?: string;
  /** JSON-RPC methods (or HTTP methods, for GET and DELETE) answered without a token. */
  publicMethods?: string[];
  /** The status for a token lacking a needed scope: 403 insufficient_scope (default), or 401 with the scope. */
  insufficientStatus?: 401 | 403;
  /** Every request with a valid token gets 403 insufficient_scope with this scope. */
  forbidAll?: string;
  stateful?: boolean;
  /**
   * A 2025-03-26 server: the MCP origin is its own authorization server. Its metadata,
   * /authorize, /token and /register are proxied to this mock (origin rewritten).
   */
  legacyAs?: MockAs;
  /**
   * DPoP (RFC 9449): challenges use the DPoP scheme, and a bound token counts only with a valid
   * proof of its key. `nonce`: proofs must carry the RS's nonce (`rotate`: a new one, sent in
   * DPoP-Nonce, after every accepted request).
   */
  dpop?: boolean | { nonce: 'static' | 'rotate' };
  /**
   * A 2026-07-28-only server: `initialize` (never behind auth, as in the conformance mock) gets
   * 400 + -32022 naming 2026-07-28 as the one supported version.
   */
  modernOnly?: boolean;
  /**
   * An authorization server migration in the middle of a connection (the conformance scenario
   * auth/authorization-server-migration): the first request with a valid token is served, and
   * from then on the PRM names this AS and only its tokens are taken.
   */
  migrateTo?: MockAs;
}

export interface RsRequest {
  method: string;
  path: string;
  authorization?: string;
  protocolVersionHeader?: string;
  rpc?: string;
  tool?: string;
  status?: number;
  /** The `resource` the accepted token was issued for. */
  tokenResource?: string;
  /** The DPoP header, and why the proof was refused if it was. */
  dpop?: string;
  dpopError?: string;
}

export interface Rs {
  url: string;
  origin: string;
  mcp: McpServer;
  requests: RsRequest[];
  /** Requests to /mcp only. */
  mcpRequests(): RsRequest[];
  /** From now on, PRM names `as` and only its tokens are taken (an authorization server migration). */
  useAuthorizationServer(as: MockAs): void;
  close(): Promise<void>;
}

const covers = (granted: string | undefined, wanted: string) => {
  const have = new Set(granted?.split(' ') ?? []);
  return wanted.split(' ').every((s) => have.has(s));
};

export async function startRs(as: MockAs | undefined, options: RsOptions = {}): Promise<Rs> {
  const mcp = new McpServer({ name: 'protected', version: '1.0.0' });
  mcp.tool('echo', { input: { text: z.string() } }, ({ text }) => text);
  mcp.tool('admin', () => 'admin done');
  const handler = toNodeHandler(mcp, { stateful: options.stateful ?? false });
  const requests: RsRequest[] = [];
  let origin = '';
  let rsNonce = 1;
  let servers = options.authorizationServers;
  const jtis = new Set<string>();
  const prmKind = options.prm ?? 'path';
  const prmPaths: string[] = (
    {
      path: ['/.well-known/oauth-protected-resource/mcp'],
      root: ['/.well-known/oauth-protected-resource'],
      both: ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource'],
      custom: ['/custom/metadata/location.json'],
      none: [],
    } as Record<string, string[]>
  )[prmKind]!;
  const prmUrl = () => `${origin}${prmPaths[0]}`;
  const prm = () => ({
    resource: typeof options.resource === 'function' ? options.resource(origin) : (options.resource ?? (prmKind === 'root' ? origin : `${origin}/mcp`)),
    authorization_servers: servers ?? (as ? [as.issuer] : []),
    ...(options.scopesSupported ? { scopes_supported: options.scopesSupported } : {}),
    bearer_methods_supported: ['header'],
  });
  const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));

  const proxy = async (req: IncomingMessage, res: ServerResponse, target: MockAs, raw: string) => {
    const headers: Record<string, string> = {};
    for (const h of ['content-type', 'authorization', 'accept']) if (typeof req.headers[h] === 'string') headers[h] = req.headers[h] as string;
    const r = await fetch(`${target.origin}${req.url}`, { method: req.method, headers, body: req.method === 'POST' ? raw : undefined, redirect: 'manual' });
    let body = await r.text();
    if (req.url?.startsWith('/.well-known/')) body = body.split(target.origin).join(origin);
    const out: Record<string, string> = { 'content-type': r.headers.get('content-type') ?? 'text/plain' };
    if (r.headers.get('location')) out['location'] = r.headers.get('location')!;
    res.writeHead(r.status, out).end(body);
  };

  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', origin);
    const rec: RsRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      authorization: req.headers.authorization,
      protocolVersionHeader: req.headers['mcp-protocol-version'] as string | undefined,
      dpop: req.headers.dpop as string | undefined,
    };
    requests.push(rec);
    let raw = '';
    if (req.method === 'POST') {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      raw = Buffer.concat(chunks).toString();
    }
    const finish = (status: number) => (rec.status = status);
    if (prmPaths.includes(url.pathname)) {
      finish(200);
      return json(res, 200, prm());
    }
    if (options.legacyAs && /^\/(\.well-known\/(oauth-authorization-server|openid-configuration)|(oauth\/)?(authorize|token|register))$/.test(url.pathname)) {
      return proxy(req, res, options.legacyAs, raw).then(() => finish(res.statusCode));
    }
    if (url.pathname !== '/mcp') {
      finish(404);
      return json(res, 404, { error: 'not_found' });
    }
    if (raw) {
      try {
        const m = JSON.parse(raw) as { method?: string; params?: { name?: string } } | Array<{ method?: string }>;
        const first = Array.isArray(m) ? m[0] : m;
        rec.rpc = first?.method;
        if (!Array.isArray(m) && m.method === 'tools/call') rec.tool = m.params?.name;
      } catch {
        // not JSON: the MCP handler answers it
      }
    }
    if (options.modernOnly && rec.rpc === 'initialize') {
      finish(400);
      const error = {
        code: -32022,
        message: 'Unsupported protocol version',
        data: { supported: ['2026-07-28'], requested: rec.protocolVersionHeader ?? null },
      };
      return json(res, 400, { jsonrpc: '2.0', id: null, error });
    }
    const auth = req.headers.authorization;
    const scheme = auth?.slice(0, auth.indexOf(' ')).toLowerCase();
    const token = scheme === 'bearer' || scheme === 'dpop' ? auth!.slice(auth!.indexOf(' ') + 1) : undefined;
    let info = token && as ? as.check(token) : undefined;
    const nonce = typeof options.dpop === 'object' ? `rs-nonce-${rsNonce}` : undefined;
    let refusal = 'invalid_token';
    if (info && (info.jkt !== undefined || scheme === 'dpop')) {
      const check =
        scheme === 'dpop' && info.jkt
          ? checkProof(rec.dpop, rec.method, `${origin}${url.pathname}`, { accessToken: token, jkt: info.jkt, nonce, seen: jtis })
          : { ok: false as const, error: `a ${info.jkt ? 'bound' : 'Bearer'} token as ${scheme}` };
      if (!check.ok) {
        rec.dpopError = check.error;
        if (check.error === 'use_dpop_nonce') refusal = 'use_dpop_nonce';
        info = undefined;
      }
    }
    const challengeScheme = options.dpop ? 'DPoP' : 'Bearer';
    const needed = (rec.tool && options.scopes?.[`tools/call:${rec.tool}`]) || (rec.rpc && options.scopes?.[rec.rpc]) || undefined;
    if (!info && !(token === undefined && options.publicMethods?.includes(rec.rpc ?? rec.method))) {
      const params = [];
      if (options.advertise ?? prmKind !== 'none') params.push(`resource_metadata="${prmUrl()}"`);
      const scope = options.challengeScope ?? needed;
      if (scope) params.push(`scope="${scope}"`);
      if (token) params.push(`error="${refusal}"`);
      if (options.dpop) params.push('algs="ES256"');
      finish(401);
      return json(
        res,
        401,
        { error: 'unauthorized' },
        {
          'www-authenticate': `${challengeScheme}${params.length ? ` ${params.join(', ')}` : ''}`,
          ...(refusal === 'use_dpop_nonce' ? { 'dpop-nonce': nonce! } : {}),
        },
      );
    }
    if (info && typeof options.dpop === 'object' && options.dpop.nonce === 'rotate') res.setHeader('dpop-nonce', `rs-nonce-${++rsNonce}`);
    if (info) {
      rec.tokenResource = info.resource;
      const missing = options.forbidAll ?? (needed && !covers(info.scope, needed) ? needed : undefined);
      if (missing && options.insufficientStatus === 401) {
        finish(401);
        return json(res, 401, { error: 'unauthorized' }, { 'www-authenticate': `${challengeScheme} scope="${missing}", resource_metadata="${prmUrl()}"` });
      }
      if (missing) {
        finish(403);
        return json(
          res,
          403,
          { error: 'forbidden' },
          { 'www-authenticate': `${challengeScheme} error="insufficient_scope", scope="${missing}", resource_metadata="${prmUrl()}"` },
        );
      }
    }
    if (info && options.migrateTo && as !== options.migrateTo) {
      as = options.migrateTo;
      servers = [as.issuer];
    }
    // Hand the body over already read (NodeExchange takes req.body when the stream is consumed).
    if (req.method === 'POST') (req as IncomingMessage & { body?: unknown }).body = raw;
    res.on('finish', () => finish(res.statusCode));
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${origin}/mcp`,
    origin,
    mcp,
    requests,
    mcpRequests: () => requests.filter((r) => r.path === '/mcp'),
    useAuthorizationServer(next) {
      as = next;
      servers = [next.issuer];
    },
    async close() {
      await handler.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export const REDIRECT_URI = 'http://localhost:3000/callback';

/** A headless "browser": GETs the authorization URL, reads the 302's Location (conformance.md §b.2). */
export function browser(rewrite?: (callback: URL, request: AuthorizationRequest) => void) {
  const calls: AuthorizationRequest[] = [];
  const authorize = async (req: AuthorizationRequest): Promise<string> => {
    calls.push(req);
    const r = await fetch(req.url, { redirect: 'manual' });
    await r.body?.cancel();
    const location = r.headers.get('location');
    if (!location) throw new Error(`the authorization endpoint answered ${r.status} without a redirect`);
    const back = new URL(location, req.url);
    rewrite?.(back, req);
    return back.href;
  };
  return { authorize, calls };
}

export interface Setup {
  as: MockAs;
  rs: Rs;
  close(): Promise<void>;
}

/** The mock AS and a resource server using it. */
export async function setup(asOptions: MockAsOptions = {}, rsOptions: RsOptions = {}): Promise<Setup> {
  const as = await startMockAs(asOptions);
  const rs = await startRs(as, rsOptions);
  return { as, rs, close: async () => void (await Promise.all([rs.close(), as.close()])) };
}

/** The /authorize requests the AS received. */
/** A fresh AS + resource server for one test body, closed afterwards. */
export async function withSetup(asOptions: MockAsOptions, rsOptions: RsOptions, body: (s: Setup) => Promise<void>): Promise<void> {
  const s = await setup(asOptions, rsOptions);
  try {
    await body(s);
  } finally {
    await s.close();
  }
}

/** The same, with an OAuthClientAuth for the resource server that signs in through `browser()`. */
export function withAuth(
  asOptions: MockAsOptions,
  rsOptions: RsOptions,
  options: Partial<OAuthOptions>,
  body: (s: Setup, auth: OAuthClientAuth) => Promise<void>,
): Promise<void> {
  return withSetup(asOptions, rsOptions, (s) =>
    body(s, new OAuthClientAuth(s.rs.url, { authorize: browser().authorize, redirectUri: REDIRECT_URI, ...options })),
  );
}

/** The HTTP status of one JSON-RPC request sent through `f`. */
export async function status(f: typeof fetch, url: string, method = 'tools/list', params: Record<string, unknown> = {}): Promise<number> {
  const res = await rpc(f, url, method, params);
  await res.body?.cancel();
  return res.status;
}

export const authorizations = (as: MockAs) => as.requests.filter((r) => r.path.endsWith('/authorize'));
/** The /token requests the AS received. */
export const tokenRequests = (as: MockAs) => as.requests.filter((r) => r.path.endsWith('/token'));

/** A JSON-RPC POST through an auth fetch (the resource server decides 401/403 before MCP sees it). */
export function rpc(f: typeof fetch, url: string, method: string, params: Record<string, unknown> = {}): Promise<Response> {
  return f(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
}

/** Whether `err` (or one of its causes) is an instance of `type`; the transports wrap fetch failures. */
export function causedBy(err: unknown, type: new (...args: never[]) => Error): boolean {
  for (let e = err; e; e = (e as { cause?: unknown }).cause) {
    if (e instanceof type) return true;
    if (e instanceof AggregateError && e.errors.some((x) => causedBy(x, type))) return true;
  }
  return false;
}

export type Route = (req: Request) => Response | unknown | Promise<Response | unknown>;

/**
 * A network in a function, for hosts that cannot be listened on (public names, private ranges):
 * routes are keyed by origin + path; a route's non-Response value is sent as JSON; anything else
 * is a 404. `seen` lists "METHOD url" for every request.
 */
export function fakeNet(routes: Record<string, Route>): { fetch: typeof fetch; seen: string[] } {
  const seen: string[] = [];
  const f = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const req = new Request(input, init);
    const u = new URL(req.url);
    seen.push(`${req.method} ${u.href}`);
    const route = routes[`${u.origin}${u.pathname}`];
    if (!route) return Response.json({ error: 'not_found' }, { status: 404 });
    const out = await route(req);
    return out instanceof Response ? out : Response.json(out);
  };
  return { fetch: f as typeof fetch, seen };
}
