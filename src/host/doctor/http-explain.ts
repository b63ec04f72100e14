// Why an HTTP answer is not an MCP answer, in words, and where the MCP endpoint probably is:
// the usual paths are tried (/mcp, /sse, /) and the fix names the one that answered.
import { initializeParams } from './protocol.js';
import { ACCEPT, exchange, statusLine, type Posted } from './http-post.js';
import type { DoctorCode } from './types.js';
import { quote, type Walk } from './walk.js';

export interface Explained {
  code: DoctorCode;
  detail: string;
  fix: string;
}

/** Paths MCP endpoints are usually served at, most likely first. */
const USUAL_PATHS = ['/mcp', '/sse', '/', '/mcp/', '/api/mcp'];

/** The usual endpoints on the target's origin that answer MCP, as "URL (what)". */
export async function findEndpoints(walk: Walk, url: URL, headers: Record<string, string>): Promise<string[]> {
  const found: string[] = [];
  const timeoutMs = Math.min(walk.ctx.slowMs, walk.ctx.timeoutMs);
  for (const path of USUAL_PATHS) {
    const at = new URL(path, url.origin);
    if (at.pathname === url.pathname) continue;
    const post = await exchange(walk, {
      method: 'POST',
      url: at,
      headers: { ...headers, accept: ACCEPT, 'mcp-protocol-version': '2025-11-25' },
      message: { jsonrpc: '2.0', id: 'doctor-alt', method: 'initialize', params: initializeParams() },
      timeoutMs,
    });
    // An initialize result, not just any JSON-RPC: a server's "no such endpoint" may be JSON-RPC too.
    if (post.kind === 'answered' && post.response?.result && typeof post.response.result.protocolVersion === 'string') {
      found.push(`${at.href} (Streamable HTTP)`);
      const sid = post.headers.get('mcp-session-id');
      // The probe opened a session: end it, as a client would.
      if (sid) void exchange(walk, { method: 'DELETE', url: at, headers: { ...headers, 'mcp-session-id': sid }, timeoutMs });
      continue;
    }
    const get = await exchange(walk, { method: 'GET', url: at, headers: { ...headers, accept: 'text/event-stream' }, timeoutMs });
    if (get.kind === 'answered' && get.type === 'text/event-stream' && /event: endpoint/.test(get.text))
      found.push(`${at.href} (HTTP+SSE, the 2024-11-05 transport)`);
  }
  return found;
}

function elsewhere(found: string[], fallback: string): string {
  if (found.length === 0) return fallback;
  return `${found[0]} answers MCP: use that URL${found.length > 1 ? ` (also: ${found.slice(1).join(', ')})` : ''}`;
}

/** A body's gist for a message: its JSON `error`/`message`, or its text without tags. */
function gist(p: Posted): string {
  const j = p.json as Record<string, unknown> | undefined;
  const rpc = j && typeof j === 'object' && j.error && typeof j.error === 'object' ? (j.error as { message?: unknown }).message : undefined;
  const said = j && typeof j === 'object' ? (rpc ?? j.error_description ?? j.message ?? j.error ?? j.detail) : undefined;
  const text = said !== undefined ? (typeof said === 'string' ? said : JSON.stringify(said)) : p.text.replace(/<[^>]*>/g, ' ');
  const q = quote(text, 160);
  return q ? `: "${q}"` : '';
}

/**
 * Explains an answer that carried no JSON-RPC response. `found` lists the endpoints that did
 * answer MCP on the same origin (looked for only when the answer suggests a wrong path).
 */
export function explainAnswer(p: Posted, method: string, url: URL, found: string[]): Explained {
  const what = `POST ${method} to ${url.href} answered ${statusLine(p)}`;
  const usual = 'MCP endpoints are usually at /mcp (Streamable HTTP) or /sse (the older HTTP+SSE)';
  const none = `${usual}, and neither answers MCP on this server: check the path in its documentation`;
  switch (p.status) {
    case 404:
      return {
        code: 'http-404',
        detail: `${what}${gist(p) || ': no such endpoint'}`,
        fix: `${usual}. ${elsewhere(found, `None of ${new URL('/mcp', url).href}, /sse or / answers MCP here: check the path in the server's documentation`)}`,
      };
    case 405: {
      const allow = p.headers.get('allow');
      return {
        code: 'http-405',
        detail: `${what}${allow ? ` (Allow: ${allow})` : ''}: the URL does not take POST, so it is not a Streamable HTTP endpoint`,
        fix: elsewhere(found, none),
      };
    }
    case 406:
      return {
        code: 'http-406',
        detail: `${what}${gist(p)}, although the request said Accept: ${ACCEPT}`,
        fix: `the server wants Accept: ${ACCEPT} on every POST; something between (a proxy, a gateway) may be rewriting Accept, or the endpoint wants only one of them, which MCP clients do not send`,
      };
    case 415:
      return {
        code: 'http-415',
        detail: `${what}${gist(p)} to a Content-Type: application/json body`,
        fix: 'MCP messages are POSTed as application/json: the endpoint does not take JSON (not an MCP endpoint, or a proxy rewriting Content-Type)',
      };
  }
  if (p.status >= 500) {
    return { code: 'server-error', detail: `${what}${gist(p)}`, fix: 'the server failed while answering: its log says why' };
  }
  if (p.status >= 400) {
    return {
      code: 'http-error',
      detail: `${what}${gist(p)}`,
      fix: `${p.status === 400 ? 'the server refused the request as malformed, and not with a JSON-RPC error: ' : ''}${elsewhere(found, none)}`,
    };
  }
  if (p.type === 'text/html') {
    return { code: 'not-mcp', detail: `${what}: a web page, not an MCP endpoint`, fix: elsewhere(found, none) };
  }
  if (p.json !== undefined) {
    return {
      code: 'not-mcp',
      detail: `${what} with JSON that is not JSON-RPC (${quote(p.text, 100)}): a JSON API, not an MCP endpoint`,
      fix: elsewhere(
        found,
        `${none}. To offer a REST API to MCP clients, put an MCP server in front of it (mcpkit serves OpenAPI operations as tools: docs/openapi.md)`,
      ),
    };
  }
  if (p.type === 'text/event-stream') {
    return {
      code: 'no-answer',
      detail: `${what} but the event stream ended without the response`,
      fix: 'the server must send the JSON-RPC response on the stream before closing it',
    };
  }
  if (p.status === 202 || p.status === 204) {
    return {
      code: 'invalid-response',
      detail: `${what} without a body: the request got no response`,
      fix: 'a POSTed request is answered with application/json or a text/event-stream carrying the response',
    };
  }
  return {
    code: 'not-mcp',
    detail: `${what}${p.type ? '' : ' without a content type'}${gist(p)}`,
    fix: `MCP endpoints answer application/json or text/event-stream. ${elsewhere(found, none)}`,
  };
}

/** Whether an answer suggests the URL has the wrong path (worth looking for the endpoint). */
export function wrongPath(p: Posted): boolean {
  return p.status === 404 || p.status === 405 || (p.status < 300 && !p.response) || (p.status === 400 && !p.response);
}

/** A network failure of a request whose connection was fine a moment ago. */
export function explainNetwork(error: Error, url: URL): Explained {
  const cause = (error.cause ?? {}) as { code?: string; message?: string };
  const why = [error.message, cause.message].filter(Boolean).join(': ');
  return {
    code: 'unreachable',
    detail: `POST ${url.href} failed: ${why}${cause.code ? ` (${cause.code})` : ''}`,
    fix: 'the server (or something in front of it) dropped the connection: check its log, and any proxy between',
  };
}
