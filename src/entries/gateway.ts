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
// Policies from config: who calls, what they see, how often, the call log (docs/gateway.md#policies).
export { createPolicy, type Policy, type PolicyOptions } from '../gateway/policy/create.js';
export {
  checkPolicyConfig,
  PolicyConfigError,
  type ApiKeyEntry,
  type AuthConfig,
  type CallerMatch,
  type CallLogConfig,
  type ItemKind,
  type LimitRule,
  type LimitsConfig,
  type OAuthConfig,
  type PolicyConfig,
  type RedisLimitStore,
  type VisibilityConfig,
  type VisibilityRule,
} from '../gateway/policy/config.js';
export type { FrontAuth } from '../gateway/policy/identity.js';
export { MemoryCounter, type LimitCounter, type LimitDecision, type LimitSpec } from '../gateway/policy/limits.js';
export { RedisCounter, type RedisCounterOptions } from '../gateway/policy/redis-counter.js';
