// The policy a gateway has when it is given none: everyone may see and call everything, nothing
// is counted, and the call log goes nowhere.
import type { AuthInfo } from '../engine/transport.js';
import type { Admission, CallerIdentity, GatewayPolicy } from './policy-types.js';

const ADMITTED: Admission = { ok: true };
const ADMIT_ALL = (): Promise<Admission> => Promise.resolve(ADMITTED);
/** A `record` that keeps nothing: a policy without a call log uses it, and calls then build no record. */
export const RECORD_NOTHING = (): void => {};

/**
 * Whether `policy`'s `admit` lets everything through and its `record` keeps nothing (the
 * allow-all policy's own, also when spread into another): a call then skips asking and recording.
 */
export function admitsAll(policy: GatewayPolicy): boolean {
  return policy.admit === ADMIT_ALL;
}
export function recordsNothing(policy: GatewayPolicy): boolean {
  return policy.record === RECORD_NOTHING;
}

export function allowAllPolicy(): GatewayPolicy {
  return {
    identify: (auth: AuthInfo | undefined): CallerIdentity => ({
      id: auth?.principal ?? 'anonymous',
      scopes: auth?.scopes ?? [],
      claims: auth?.extra ?? {},
      auth,
    }),
    visible: () => true,
    admit: ADMIT_ALL,
    record: RECORD_NOTHING,
  };
}
