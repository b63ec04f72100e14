// After the first contact over Streamable HTTP: the handshake (initialize, the session id,
// notifications/initialized) or the stateless 2026-07-28 requests, then the first list call,
// each POST read raw so a status or a missing header is reported as what it is.
import { MODERN_VERSIONS } from '../../protocol/versions.js';
import { corsProblems, type CorsProblem } from './cors.js';
import { explainAnswer } from './http-explain.js';
import { ACCEPT, exchange, statusLine, type HttpOutcome, type Posted } from './http-post.js';
import { initializeParams, initializeStep, listMethod, listStep, modernParams, type Answer, type Outcome, type Settled } from './protocol.js';
import { duration, type Walk } from './walk.js';

/** The user's headers with the protocol's own on top (compared without case: one of each). */
export function merge(user: Record<string, string>, own: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  const owned = new Set(Object.keys(own).map((k) => k.toLowerCase()));
  for (const [k, v] of Object.entries(user)) if (!owned.has(k.toLowerCase())) out[k] = v;
  return { ...out, ...own };
}

export function handshakeHeaders(user: Record<string, string>, version: string | undefined, session?: string): Record<string, string> {
  return merge(user, { accept: ACCEPT, ...(version ? { 'mcp-protocol-version': version } : {}), ...(session ? { 'mcp-session-id': session } : {}) });
}

/** A POST's JSON-RPC answer as the protocol steps read it. */
export function postAnswer(p: Posted, since: number): Answer {
  const r = p.response!;
  return r.error ? { kind: 'error', error: r.error, ms: p.at - since } : { kind: 'result', result: r.result!, ms: p.at - since };
}

/** An HTTP outcome without a JSON-RPC answer, explained for the step it belongs to. */
function notAnswered(walk: Walk, r: HttpOutcome, url: URL, method: string): Outcome {
  if (r.kind === 'answered' && r.response) return postAnswer(r, 0);
  if (r.kind === 'timeout' || r.kind === 'aborted') {
    return {
      kind: 'failed',
      code: 'no-answer',
      detail: `no answer to ${method} within ${duration(walk.ctx.timeoutMs)}`,
      fix: 'the server hangs on this request: its log may say on what',
    };
  }
  if (r.kind === 'network')
    return {
      kind: 'failed',
      code: 'unreachable',
      detail: `POST ${method} failed: ${r.error.message}`,
      fix: 'the server dropped the connection: check its log',
    };
  if (r.status === 401) {
    return {
      kind: 'failed',
      code: 'unauthorized',
      detail: `${method} was answered 401 after the connection was set up`,
      fix: 'the server asks for authorization only for some requests: sign in (or pass the token) before connecting',
    };
  }
  return { kind: 'failed', ...explainAnswer(r, method, url, []) };
}

/** The first list call, over the era that was settled. */
async function listOver(walk: Walk, url: URL, headers: Record<string, string>, settled: Settled, cors: CorsProblem[] | undefined): Promise<void> {
  const list = listMethod(settled.capabilities);
  const since = walk.now();
  if (!list) {
    walk.pass('list', since, 'the server declares no tools, resources or prompts: nothing to list');
    return;
  }
  const modern = settled.era === 'modern';
  const r = await exchange(walk, {
    method: 'POST',
    url,
    headers: modern ? merge(headers, { accept: ACCEPT, 'mcp-protocol-version': MODERN_VERSIONS[0], 'mcp-method': list.method }) : headers,
    message: { jsonrpc: '2.0', id: 3, method: list.method, params: modern ? modernParams() : {} },
    waiting: { step: 'list', method: list.method },
  });
  if (r.kind === 'aborted') return;
  if (cors && walk.ctx.origin && r.kind === 'answered') cors.push(...corsProblems(r, walk.ctx.origin, `POST ${list.method}`));
  const outcome = r.kind === 'answered' && r.response ? postAnswer(r, since) : notAnswered(walk, r, url, list.method);
  listStep(walk, since, list, outcome);
}

export async function continueModern(walk: Walk, url: URL, headers: Record<string, string>, settled: Settled): Promise<Settled> {
  await listOver(walk, url, headers, settled, undefined);
  return settled;
}

/**
 * The handshake: `initialize` (already answered during the first contact, or sent now), the
 * session it opened, `notifications/initialized`, the list call, and the session ended.
 */
export async function continueHandshake(
  walk: Walk,
  url: URL,
  headers: Record<string, string>,
  first: { answer: Posted; since: number } | undefined,
  cors: CorsProblem[],
): Promise<Settled | undefined> {
  let since = first?.since ?? walk.now();
  let answer = first?.answer;
  const origin = walk.ctx.origin;
  if (!answer) {
    since = walk.now();
    const r = await exchange(walk, {
      method: 'POST',
      url,
      headers: handshakeHeaders(headers, undefined),
      message: { jsonrpc: '2.0', id: 2, method: 'initialize', params: initializeParams() },
      waiting: { step: 'initialize', method: 'initialize' },
    });
    if (r.kind === 'aborted') return undefined;
    if (origin && r.kind === 'answered') cors.push(...corsProblems(r, origin, 'POST initialize'));
    if (r.kind !== 'answered' || !r.response) {
      const o = notAnswered(walk, r, url, 'initialize') as Exclude<Outcome, Answer>;
      walk.fail('initialize', since, o.code, o.detail, o.fix);
      return undefined;
    }
    answer = r;
  }
  const settled = initializeStep(walk, since, postAnswer(answer, since));
  if (!settled) return undefined;
  const session = answer.headers.get('mcp-session-id') ?? undefined;
  const h = handshakeHeaders(headers, settled.protocolVersion, session);
  const nSince = walk.now();
  const n = await exchange(walk, { method: 'POST', url, headers: h, message: { jsonrpc: '2.0', method: 'notifications/initialized' } });
  if (n.kind === 'answered' && n.status >= 400) {
    walk.fail(
      'initialized',
      nSince,
      'invalid-response',
      `notifications/initialized was refused with ${statusLine(n)}${session ? '' : ' (the initialize answer had no Mcp-Session-Id)'}`,
      'a server answers a POSTed notification with 202 Accepted (and, when it keeps sessions, accepts the Mcp-Session-Id it issued)',
    );
    return settled;
  }
  await listOver(walk, url, h, settled, cors);
  // The session was only for the diagnosis: end it, as a client does when it leaves.
  if (session) await exchange(walk, { method: 'DELETE', url, headers: h, timeoutMs: Math.min(walk.ctx.slowMs, walk.ctx.timeoutMs) });
  return settled;
}
