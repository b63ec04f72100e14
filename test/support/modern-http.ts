/**
 * The headers of a 2026-07-28 `tools/call` POST: JSON body, either answer type, the version
 * header and the routing headers the era requires (Mcp-Method, Mcp-Name mirroring the body).
 */
export function modernToolCallHeaders(tool: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': 'tools/call',
    'mcp-name': tool,
  };
}
