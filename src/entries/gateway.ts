// mcpkit/gateway: many MCP servers behind one endpoint (`createGateway`, what `mcpkit gateway`
// runs), and `mount` for putting another server's tools into an McpServer. Node only (stdio
// backends, config file watching). See docs/gateway.md.

export { createGateway, type Gateway, type GatewayEvent, type GatewayOptions } from '../gateway/gateway.js';
export { mount, type MountOptions, type Mounted } from '../gateway/mount.js';
export { GATEWAY_REFUSED } from '../gateway/front.js';
export { allowAllPolicy } from '../gateway/allow-all.js';
export { GATEWAY_SCHEME, fromGatewayUri, toGatewayUri } from '../gateway/uris.js';
export { readGatewayConfig, type BackendDef, type GatewayConfig, type SessionMode } from '../gateway/config.js';
export type { Admission, CallRecord, CallerIdentity, GatewayItem, GatewayPolicy } from '../gateway/policy-types.js';
