// CORS, as a browser client (a web studio, an in-page agent) meets it: the preflight before the
// first POST, then on every answer the Access-Control-Allow-Origin it needs to read the response
// and the exposed headers it needs to read the session id and the authorization challenge.
import { exchange, type Posted } from './http-post.js';
import { quote, type Walk } from './walk.js';

/** Request headers a page may send without asking (the CORS-safelisted ones MCP uses). */
const SAFELISTED = new Set(['accept', 'accept-language', 'content-language']);

/** The request headers an MCP client in a page sends, besides the user's own. */
const MCP_REQUEST_HEADERS = ['content-type', 'mcp-protocol-version', 'mcp-method', 'mcp-session-id'];

function list(v: string | null): string[] {
  return (v ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
}

function allowsOrigin(headers: Headers, origin: string): string | undefined {
  const acao = headers.get('access-control-allow-origin');
  if (acao === null) return 'no Access-Control-Allow-Origin header';
  if (acao.trim() !== '*' && acao.trim() !== origin) return `Access-Control-Allow-Origin is "${quote(acao, 80)}", not "${origin}"`;
  return undefined;
}

const FIX_HEADERS = (origin: string) =>
  `answer requests from ${origin} with Access-Control-Allow-Origin: ${origin} (or *), answer the OPTIONS preflight with 204 and Access-Control-Allow-Headers naming ${MCP_REQUEST_HEADERS.join(', ')} and any credential header, and expose Mcp-Session-Id and WWW-Authenticate with Access-Control-Expose-Headers (mcpkit servers: the allowedOrigins option)`;

/** The preflight a browser sends before the first POST; records `preflight`. */
export async function preflightStep(walk: Walk, url: URL, userHeaders: Record<string, string>, origin: string): Promise<void> {
  const since = walk.now();
  const wanted = [...new Set([...MCP_REQUEST_HEADERS, ...Object.keys(userHeaders).map((h) => h.toLowerCase())])].filter((h) => !SAFELISTED.has(h)).sort();
  const r = await exchange(walk, {
    method: 'OPTIONS',
    url,
    headers: { 'access-control-request-method': 'POST', 'access-control-request-headers': wanted.join(',') },
  });
  if (r.kind !== 'answered') {
    if (r.kind === 'aborted') return;
    walk.fail(
      'preflight',
      since,
      'cors',
      `the CORS preflight (OPTIONS from ${origin}) got no answer${r.kind === 'network' ? `: ${r.error.message}` : ''}`,
      FIX_HEADERS(origin),
    );
    return;
  }
  const problems: string[] = [];
  if (r.status < 200 || r.status >= 300) problems.push(`it answered ${r.status}${r.statusText ? ` ${r.statusText}` : ''} instead of 2xx`);
  const originProblem = allowsOrigin(r.headers, origin);
  if (originProblem) problems.push(originProblem);
  const allowed = list(r.headers.get('access-control-allow-headers'));
  // "*" allows every header but Authorization (Fetch standard, CORS-protocol).
  const missing = wanted.filter((h) => !allowed.includes(h) && !(allowed.includes('*') && h !== 'authorization'));
  if (missing.length) problems.push(`Access-Control-Allow-Headers does not allow ${missing.join(', ')}`);
  if (problems.length) {
    walk.fail(
      'preflight',
      since,
      'cors',
      `a browser at ${origin} could not POST to ${url.href}: the CORS preflight fails (${problems.join('; ')})`,
      FIX_HEADERS(origin),
    );
  } else walk.pass('preflight', since, `the CORS preflight allows ${origin} to POST with ${wanted.join(', ')}`);
}

/** A problem a page would have reading one answer, and which answer. */
export interface CorsProblem {
  problem: string;
  what: string;
}

/**
 * What a page could not read of an answer: the answer itself without a matching
 * Access-Control-Allow-Origin, and the headers it needs when they are not exposed.
 */
export function corsProblems(p: Posted, origin: string, what: string): CorsProblem[] {
  const originProblem = allowsOrigin(p.headers, origin);
  if (originProblem) return [{ problem: `${originProblem}, so the page cannot read them`, what }];
  const exposed = list(p.headers.get('access-control-expose-headers'));
  const need: string[] = [];
  if (p.headers.get('mcp-session-id') !== null) need.push('mcp-session-id');
  if (p.status === 401 && p.headers.get('www-authenticate') !== null) need.push('www-authenticate');
  const hidden = need.filter((h) => !exposed.includes(h) && !exposed.includes('*'));
  if (hidden.length === 0) return [];
  return [
    { problem: `do not expose ${hidden.join(', ')} (Access-Control-Expose-Headers), so the page cannot read ${hidden.length > 1 ? 'them' : 'it'}`, what },
  ];
}

/** Records the `cors` step from the problems found on the answers (one sentence per problem). */
export function corsStep(walk: Walk, since: number, origin: string, problems: CorsProblem[]): void {
  if (problems.length === 0) {
    walk.pass('cors', since, `the answers allow ${origin} to read them`);
    return;
  }
  const byProblem = new Map<string, string[]>();
  for (const p of problems) byProblem.set(p.problem, [...(byProblem.get(p.problem) ?? []), p.what]);
  const said = [...byProblem].map(([problem, whats]) => `the answers to ${whats.join(', ')} have ${problem}`.replace(' have do not', ' do not'));
  walk.fail('cors', since, 'cors', `a browser at ${origin} would be blocked: ${said.join('; ')}`, FIX_HEADERS(origin));
}
