// Shared by the policy tests (not a test file itself): callers and items as the gateway would
// hand them to the policy.
import type { CallerIdentity, GatewayItem } from '../../../src/gateway/policy-types.js';

/** An authenticated caller with the given groups, scopes and claims. */
export function caller(id: string, groups: string[] = [], scopes: string[] = [], claims: Record<string, unknown> = {}): CallerIdentity {
  return { id, scopes, claims: { groups, ...claims }, auth: { principal: id, scopes } };
}

export function tool(name: string, server = name.split('_')[0] ?? 'srv'): GatewayItem {
  return { kind: 'tool', name, server, original: name.slice(server.length + 1) || name };
}

export function item(kind: GatewayItem['kind'], name: string, server = 'srv'): GatewayItem {
  return { kind, name, server, original: name };
}
