// The seam between the runtime-neutral authorization server and the one GET it cannot make
// neutrally: a metadata document's, fetched with the host name resolved once, every address
// checked, and the connection pinned to the checked address (cimd-fetch.ts, node:dns and
// node:http(s)). No fetch API can pin an address, so the Node part installs its GET here when it
// loads (mcpkit/oauth-server's node module does); a runtime without one fetches no documents.
import type { Clock } from '../../engine/clock.js';

/** A resolver: every address a host name has (node:dns `lookup` with `all: true` by default). */
export type HostLookup = (hostname: string) => Promise<readonly { address: string; family: number }[]>;

export interface GuardedGetOptions {
  /** Default: the system resolver. */
  lookup: HostLookup | undefined;
  clock: Clock;
  timeoutMs: number;
  maxBytes: number;
  /** Connect to loopback and private addresses too (tests, local development). */
  allowPrivate: boolean;
}

export interface GuardedAnswer {
  text: string;
  cacheControl: string | undefined;
}

/** GETs a URL under the rules above; rejects with the detail (for the server's log only). */
export type GuardedGet = (url: URL, options: GuardedGetOptions) => Promise<GuardedAnswer>;

let installed: GuardedGet | undefined;

/** Called by the Node part at load. The first one installed stays. */
export function installGuardedGet(get: GuardedGet): void {
  installed ??= get;
}

export function guardedGetOrFail(): GuardedGet {
  if (installed) return installed;
  throw new Error(
    'client ID metadata documents are fetched only where the address can be pinned (Node, through mcpkit/oauth-server); this runtime has no such GET',
  );
}
