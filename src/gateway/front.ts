// The gateway's face to its clients: the relay core (relay/relay.ts) over the gateway's lanes
// (backends.ts), with every name namespaced and every list and call put to the gateway's policy.
import type { Server } from '../server/server.js';
import type { Backends } from './backends.js';
import type { GatewayPolicy } from './policy-types.js';
import type { RelayNaming } from './relay/naming.js';
import { installRelay, type Relay } from './relay/relay.js';

export { GATEWAY_REFUSED } from './relay/forward.js';

export interface FrontOptions {
  backends: Backends;
  policy: GatewayPolicy;
  naming: RelayNaming;
}

export function installFront(server: Server, o: FrontOptions): Relay {
  const { backends } = o;
  return installRelay(server, { naming: o.naming, policy: o.policy, lanes: (request, who) => backends.lanesFor(request, who), owners: backends.owners });
}
