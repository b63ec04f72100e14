// Resource URIs behind a gateway: two backends may both serve `file:///README.md`, so each URI is
// rewritten into the gateway's own scheme with the backend's name in front, and read back from it.
// The backend's URI is kept as it is after the slash (readable, and URI templates still expand).
// Reading one back goes through canonical.ts, as the gateway's routing and policy do.
import { GATEWAY_SCHEME, parseGatewayUri } from './canonical.js';

export { GATEWAY_SCHEME };

/** `mcpgw://<server>/<the backend's URI>`. */
export function toGatewayUri(server: string, uri: string): string {
  return `${GATEWAY_SCHEME}://${encodeURIComponent(server)}/${uri}`;
}

/**
 * The backend and its URI behind a gateway URI, both canonical (docs/gateway.md, "How resource
 * rules match"), or undefined when `uri` is not one or has no canonical form.
 */
export function fromGatewayUri(uri: string): { server: string; uri: string } | undefined {
  const r = parseGatewayUri(uri);
  return r && { server: r.server, uri: r.uri };
}
