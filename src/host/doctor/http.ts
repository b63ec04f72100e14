// Diagnosing an HTTP server: DNS, TCP, TLS, the CORS preflight when a page will connect, then
// the first POST (server/discover), read as it came: a redirect, a 401, a status that says
// "wrong URL", a page or an API that is not MCP, or an MCP answer that decides the era.
import { MODERN_VERSIONS } from '../../protocol/versions.js';
import { authSteps } from './auth.js';
import { corsProblems, corsStep, preflightStep, type CorsProblem } from './cors.js';
import { explainAnswer, explainNetwork, findEndpoints, wrongPath } from './http-explain.js';
import { ACCEPT, exchange, statusLine, type HttpOutcome, type Posted } from './http-post.js';
import { continueHandshake, continueModern, handshakeHeaders, merge, postAnswer } from './http-session.js';
import { sseWalk, trySse } from './http-sse.js';
import { connectStep, dnsStep, speaksTls, tlsStep } from './net.js';
import { discoverStep, initializeParams, modernParams, settledModern, type Settled } from './protocol.js';
import { duration, quote, type Walk } from './walk.js';

export interface HttpSpec {
  url: string;
  headers: Record<string, string>;
}

export interface HttpResult {
  transport: 'streamable-http' | 'sse' | 'http';
  server?: Settled;
}

/** How many redirects are followed (each one is reported). */
const MAX_HOPS = 3;

export async function diagnoseHttp(walk: Walk, spec: HttpSpec, hops = 0): Promise<HttpResult> {
  const url = new URL(spec.url);
  const addresses = await dnsStep(walk, url);
  if (!addresses) return { transport: 'http' };
  const address = await connectStep(walk, url, addresses);
  if (!address) return { transport: 'http' };
  if (url.protocol === 'https:' && !(await tlsStep(walk, url, address))) return { transport: 'http' };
  return firstContact(walk, url, spec.headers, address, hops);
}

function modernHeaders(user: Record<string, string>, method: string): Record<string, string> {
  return merge(user, { accept: ACCEPT, 'mcp-protocol-version': MODERN_VERSIONS[0], 'mcp-method': method });
}

async function firstContact(walk: Walk, url: URL, headers: Record<string, string>, address: string, hops: number): Promise<HttpResult> {
  const { origin } = walk.ctx;
  if (origin) await preflightStep(walk, url, headers, origin);
  const cors: CorsProblem[] = [];
  let answered = 0;
  const since = walk.now();
  const post = async (method: string, params: Record<string, unknown>, h: Record<string, string>): Promise<HttpOutcome> => {
    const r = await exchange(walk, {
      method: 'POST',
      url,
      headers: h,
      message: { jsonrpc: '2.0', id: method === 'initialize' ? 2 : 1, method, params },
      waiting: { step: 'post', method },
    });
    if (origin && r.kind === 'answered') {
      answered++;
      cors.push(...corsProblems(r, origin, `POST ${method}`));
    }
    return r;
  };
  const finish = (result: HttpResult): HttpResult => {
    // Only answers tell what a page could read: after silence there is nothing to judge.
    if (origin && answered > 0) corsStep(walk, since, origin, cors);
    return result;
  };
  const d = await post('server/discover', modernParams(), modernHeaders(headers, 'server/discover'));
  if (d.kind !== 'answered') {
    await unanswered(walk, since, url, address, 'server/discover', d);
    return finish({ transport: 'http' });
  }
  const location = d.status >= 300 && d.status < 400 ? d.headers.get('location') : null;
  if (location) return finish(await redirected(walk, since, url, d, location, headers, address, hops));
  if (d.status === 401) {
    walk.pass('post', since, `POST server/discover: ${statusLine(d)}`);
    await authSteps(walk, url, d.headers.get('www-authenticate'), headers);
    return finish({ transport: 'streamable-http' });
  }
  if (d.status === 403) {
    forbidden(walk, since, d);
    return finish({ transport: 'streamable-http' });
  }
  const firstMs = d.at - since;
  const slow = firstMs > walk.ctx.slowMs;
  const passPost = (detail: string) => {
    if (slow) {
      walk.fail(
        'post',
        since,
        'slow-start',
        `the server took ${duration(firstMs)} to answer its first request (${detail})`,
        `clients give up on a server this slow to answer (many wait ${duration(walk.ctx.slowMs)} or less): keep slow work (warming caches, connecting to databases) out of the request path, or keep the server warm`,
      );
    } else walk.pass('post', since, detail);
  };
  if (mcpAnswer(d)) {
    passPost(`POST server/discover: ${statusLine(d)} with a JSON-RPC answer`);
    const verdict = discoverStep(walk, since, postAnswer(d, since));
    if (verdict.era === 'none') return finish({ transport: 'streamable-http' });
    if (verdict.era === 'modern')
      return finish({ transport: 'streamable-http', server: await continueModern(walk, url, headers, settledModern(verdict.result)) });
    return finish({ transport: 'streamable-http', server: await continueHandshake(walk, url, headers, undefined, cors) });
  }
  // No JSON-RPC answer to server/discover: a handshake-era server may answer unknown methods
  // oddly; initialize tells it apart from a URL that is not an MCP endpoint at all.
  const iSince = walk.now();
  const i = await post('initialize', initializeParams(), handshakeHeaders(headers, undefined));
  if (i.kind === 'answered' && mcpAnswer(i)) {
    passPost(`POST initialize: ${statusLine(i)} with a JSON-RPC answer (server/discover got ${statusLine(d)})`);
    walk.pass('discover', since, `no 2026-07-28 era (server/discover answered ${statusLine(d)}): a handshake-era server`);
    return finish({ transport: 'streamable-http', server: await continueHandshake(walk, url, headers, { answer: i, since: iSince }, cors) });
  }
  if (i.kind === 'answered' && i.status === 401) {
    walk.pass('post', since, `POST initialize: ${statusLine(i)}`);
    await authSteps(walk, url, i.headers.get('www-authenticate'), headers);
    return finish({ transport: 'streamable-http' });
  }
  if ([400, 404, 405].includes(d.status) && (await trySse(walk, url, headers))) {
    return finish({ transport: 'sse', server: await sseWalk(walk, url, headers, since) });
  }
  const bad = i.kind === 'answered' ? i : d;
  const found = wrongPath(bad) ? await findEndpoints(walk, url, headers) : [];
  const method = i.kind !== 'answered' ? 'server/discover' : i.status === d.status ? 'server/discover and initialize' : 'initialize';
  const e = explainAnswer(bad, method, url, found);
  walk.fail('post', since, e.code, e.detail, e.fix);
  return finish({ transport: 'http' });
}

/** Errors a 2026-07-28 server answers with at 404 (an unknown method, a header or version it refuses). */
const MODERN_404 = new Set([-32601, -32020, -32021, -32022]);

/**
 * Whether an answer is the endpoint speaking MCP. A JSON-RPC error at 404 is that only when it
 * is one a 2026-07-28 server sends; any other is a server's generic "no such endpoint" written
 * as JSON-RPC (mcpkit servers do that for a wrong path).
 */
function mcpAnswer(p: Posted): boolean {
  if (!p.response) return false;
  return !(p.status === 404 && p.response.error && !MODERN_404.has(p.response.error.code));
}

/** A request that got no HTTP answer at all: silence, or a connection dropped or garbled. */
async function unanswered(walk: Walk, since: number, url: URL, address: string, method: string, r: Exclude<HttpOutcome, Posted>): Promise<void> {
  if (r.kind === 'aborted') return;
  if (r.kind === 'timeout') {
    walk.fail(
      'post',
      since,
      'no-answer',
      `POST ${method} to ${url.href}: the connection was accepted, but nothing answered within ${duration(walk.ctx.timeoutMs)}`,
      'the server is up but stuck (or still starting): check its log; a proxy in front of it may be waiting on a backend that is down',
    );
    return;
  }
  if (url.protocol === 'http:' && (await speaksTls(walk, url, address))) {
    const https = new URL(url.href);
    https.protocol = 'https:';
    walk.fail('post', since, 'tls', `${url.host} speaks TLS (HTTPS) on this port, and the request was plain HTTP`, `use ${https.href}`);
    return;
  }
  const e = explainNetwork(r.error, url);
  walk.fail('post', since, e.code, e.detail, e.fix);
}

async function redirected(
  walk: Walk,
  since: number,
  url: URL,
  d: Posted,
  location: string,
  headers: Record<string, string>,
  address: string,
  hops: number,
): Promise<HttpResult> {
  let target: URL;
  try {
    target = new URL(location, url);
  } catch {
    walk.fail(
      'post',
      since,
      'redirect',
      `POST server/discover to ${url.href} answered ${statusLine(d)}, a redirect to an invalid URL "${quote(location, 100)}"`,
      'fix the redirect, or use the final URL',
    );
    return { transport: 'http' };
  }
  const step = walk.fail(
    'post',
    since,
    'redirect',
    `POST server/discover to ${url.href} answered ${statusLine(d)}, a redirect to ${target.href}`,
    `use ${target.href} as the URL: not every client follows a redirect of a POST (after a 301 or 302 the POST becomes a GET), and credentials are not sent to another origin`,
  );
  if (hops >= MAX_HOPS || target.href === url.href) return { transport: 'http' };
  const before = walk.steps.length;
  const sameOrigin = target.origin === url.origin;
  // Credentials stay with the origin they were given for.
  const result = sameOrigin
    ? await firstContact(walk, target, headers, address, hops + 1)
    : await diagnoseHttp(walk, { url: target.href, headers: {} }, hops + 1);
  const after = walk.steps.slice(before);
  if (after.length && after.every((s) => s.ok))
    step.fix = `use ${target.href} as the URL: it answers MCP, while ${url.href} only redirects (not every client follows a redirect of a POST)`;
  if (!sameOrigin && Object.keys(headers).length) step.fix += `; the headers given were not sent to ${target.origin}`;
  return result;
}

function forbidden(walk: Walk, since: number, d: Posted): void {
  const { origin } = walk.ctx;
  const body = quote(d.text.replace(/<[^>]*>/g, ' '), 140);
  if (origin && /origin/i.test(body)) {
    walk.fail(
      'post',
      since,
      'cors',
      `the server refuses requests from origin ${origin} (HTTP 403: "${body}")`,
      `allow ${origin} on the server (mcpkit servers: the allowedOrigins option; servers checking Origin against DNS rebinding keep a list of allowed origins)`,
    );
    return;
  }
  const scope = /insufficient_scope/.test(d.headers.get('www-authenticate') ?? '');
  walk.fail(
    'post',
    since,
    'forbidden',
    `the server refused access (HTTP 403${body ? `: "${body}"` : ''})`,
    scope
      ? 'the token is valid but lacks a scope this server wants (WWW-Authenticate names it): sign in again asking for it'
      : 'the credentials are accepted but not allowed here: check their permissions',
  );
}
