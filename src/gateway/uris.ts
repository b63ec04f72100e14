// Resource URIs behind a gateway: two backends may both serve `file:///README.md`, so each URI is
// rewritten into the gateway's own scheme with the backend's name in front, and read back from it.
// The backend's URI is kept as it is after the slash (readable, and URI templates still expand).

/** The scheme of gateway resource URIs. */
export const GATEWAY_SCHEME = 'mcpgw';

/** `mcpgw://<server>/<the backend's URI>`. */
export function toGatewayUri(server: string, uri: string): string {
  return `${GATEWAY_SCHEME}://${encodeURIComponent(server)}/${uri}`;
}

/** The backend and its URI behind a gateway URI, or undefined when `uri` is not one. */
export function fromGatewayUri(uri: string): { server: string; uri: string } | undefined {
  const prefix = `${GATEWAY_SCHEME}://`;
  if (!uri.startsWith(prefix)) return undefined;
  const rest = uri.slice(prefix.length);
  const slash = rest.indexOf('/');
  if (slash <= 0 || slash === rest.length - 1) return undefined;
  try {
    return { server: decodeURIComponent(rest.slice(0, slash)), uri: rest.slice(slash + 1) };
  } catch {
    return undefined;
  }
}
