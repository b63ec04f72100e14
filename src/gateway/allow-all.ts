// The policy a gateway has when it is given none: everyone may see and call everything, nothing
// is counted, and the call log goes nowhere.
import type { AuthInfo } from '../engine/transport.js';
import type { Admission, CallerIdentity, GatewayPolicy } from './policy-types.js';

const ADMITTED: Admission = { ok: true };

export function allowAllPolicy(): GatewayPolicy {
  return {
    identify: (auth: AuthInfo | undefined): CallerIdentity => ({
      id: auth?.principal ?? 'anonymous',
      scopes: auth?.scopes ?? [],
      claims: auth?.extra ?? {},
      auth,
    }),
    visible: () => true,
    admit: () => Promise.resolve(ADMITTED),
    record: () => {},
  };
}
