import type { HttpRequestView, HttpResponder } from './exchange.js';
import { checkOriginAndHost, type OriginPolicy } from './security.js';

// What a browser page must be able to read of an MCP response, and send in a request.
const EXPOSED = 'mcp-session-id, mcp-protocol-version, www-authenticate, dpop-nonce';
const ALLOWED_HEADERS = 'content-type, accept, authorization, dpop, mcp-session-id, mcp-protocol-version, mcp-method, mcp-name, last-event-id, x-api-key';

/**
 * CORS for the MCP endpoint: a browser page from an origin the policy accepts (`allowedOrigins`,
 * by default loopback origins) may read the responses, and its preflight is answered before any
 * authentication (a preflight carries no credentials). Other origins get no CORS headers, so
 * the browser hides the 403 they get anyway. Returns true when the request was a preflight.
 */
export function applyCors(req: HttpRequestView, res: HttpResponder, policy: OriginPolicy, methods: string): boolean {
  const origin = req.header('origin');
  if (origin === undefined || checkOriginAndHost(req, policy) !== undefined) return false;
  if (req.method === 'OPTIONS') {
    const asked = req.header('access-control-request-headers');
    // `Mcp-Param-*` names depend on the tools, so what the browser asks for is echoed when every
    // name is a plain header token.
    const headers = asked !== undefined && /^[\w-]+(\s*,\s*[\w-]+)*$/.test(asked.trim()) ? asked : ALLOWED_HEADERS;
    res.send(204, {
      'access-control-allow-origin': origin,
      'access-control-allow-methods': methods,
      'access-control-allow-headers': headers,
      'access-control-max-age': '600',
      vary: 'Origin',
    });
    return true;
  }
  res.setHeader?.('access-control-allow-origin', origin);
  res.setHeader?.('access-control-expose-headers', EXPOSED);
  res.setHeader?.('vary', 'Origin');
  return false;
}
