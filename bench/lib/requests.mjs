// The requests every implementation receives, identical byte for byte within a scenario.
import { CALLED } from '../servers/tools.mjs';

export const PROTOCOL = '2025-11-25';
export const MODERN = '2026-07-28';

export const ECHO_CALL = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { message: 'hello' } } });
/** Unique ids (autocannon idReplacement) where ids must not collide: sessions. */
export const ECHO_CALL_UNIQUE = JSON.stringify({
  jsonrpc: '2.0',
  id: '[<id>]',
  method: 'tools/call',
  params: { name: 'echo', arguments: { message: 'hello' } },
});
export const TOOLS50_CALL = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: CALLED.name, arguments: CALLED.args } });
export const MODERN_CALL = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: {
    name: 'echo',
    arguments: { message: 'hello' },
    _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} },
  },
});

export const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'bench', version: '1.0.0' } },
});
export const INITIALIZED = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' });

const ACCEPT_BOTH = 'application/json, text/event-stream';

export function headers(extra = {}) {
  return { 'content-type': 'application/json', accept: ACCEPT_BOTH, 'mcp-protocol-version': PROTOCOL, ...extra };
}
export const MODERN_HEADERS = {
  'content-type': 'application/json',
  accept: ACCEPT_BOTH,
  'mcp-protocol-version': MODERN,
  'mcp-method': 'tools/call',
  'mcp-name': 'echo',
};

/** The text a correct answer carries, to check every server before measuring it. */
export function expectedText(body) {
  const m = JSON.parse(body);
  if (m.params.name === 'echo') return m.params.arguments.message;
  return `found 3 issues in ${m.params.arguments.repo}`;
}

/** Extracts the JSON-RPC response from a JSON or SSE body. */
export function parseResponse(text, contentType) {
  if (contentType?.includes('text/event-stream')) {
    const datas = text
      .split(/\n\n/)
      .map((ev) =>
        ev
          .split('\n')
          .filter((l) => l.startsWith('data:'))
          .map((l) => l.slice(5).trimStart())
          .join('\n'),
      )
      .filter((d) => d);
    const msgs = datas.map((d) => {
      try {
        return JSON.parse(d);
      } catch {
        return undefined;
      }
    });
    return msgs.find((m) => m && ('result' in m || 'error' in m));
  }
  return JSON.parse(text);
}
