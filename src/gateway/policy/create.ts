// One GatewayPolicy from the `policy` section of a gateway config: identity, visibility, limits
// and the call log, each optional, each from its own file. What is not configured costs nothing:
// no rules means everything is visible, no limits means `admit` answers without a lookup.
import type { Clock } from '../../engine/clock.js';
import type { AuthInfo } from '../../engine/transport.js';
import type { RedisClientLike } from '../../state/redis/client.js';
import type { Admission, CallerIdentity, CallRecord, GatewayItem, GatewayPolicy } from '../policy-types.js';
import { RECORD_NOTHING } from '../allow-all.js';
import { CallLog } from './call-log.js';
import { checkPolicyConfig, type PolicyConfig } from './config.js';
import { anonymousAllowed, frontAuth, Identifier, type FrontAuth } from './identity.js';
import { Limits, MemoryCounter, type LimitCounter } from './limits.js';
import { loadRedis, RedisCounter } from './redis-counter.js';
import { Visibility } from './visibility.js';
import type { Writable } from 'node:stream';

export interface PolicyOptions {
  /** Time for the in-memory limits and the token verifier (tests pass a ManualClock). */
  clock?: Clock;
  /** Where `env:` API key references are read. Default process.env. */
  env?: Readonly<Record<string, string | undefined>>;
  /** A Redis client to count limits with, instead of connecting to `limits.store.redis` (which then only has to be present). */
  redis?: RedisClientLike;
  /** Loads ioredis for `limits.store.redis` (tests pass one that fails). Default `import('ioredis')`. */
  importRedis?: () => Promise<unknown>;
  /** Counts limits here instead of the configured store. */
  counter?: LimitCounter;
  /** Call log lines go here instead of `callLog.to`. */
  callLogStream?: Writable;
  /** For the OAuth issuer's metadata and keys. Default globalThis.fetch. */
  fetch?: typeof globalThis.fetch;
  /** Where the policy's own troubles (Redis outages, a broken log file) are written. Default: standard error. */
  log?: (line: string) => void;
}

/** A GatewayPolicy built from config, with the authentication to put in front of the gateway. */
export interface Policy extends GatewayPolicy {
  /** Spread into the gateway's HTTP server options: `authenticate` or `oauth`, or nothing for an open gateway. */
  readonly front: FrontAuth;
  /** The config it was built from, checked. */
  readonly config: PolicyConfig;
  close(): Promise<void>;
}

const NOT_SIGNED_IN: Admission = { ok: false, reason: 'Authentication required', retryAfterMs: 0 };
const ADMITTED: Admission = { ok: true };

/**
 * Builds the policy. Throws PolicyConfigError (naming the field) for a config that cannot work,
 * and for an `env:` key whose variable is not set.
 */
export function createPolicy(config: unknown, options: PolicyOptions = {}): Policy {
  const checked = checkPolicyConfig(config ?? {});
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const front = frontAuth(checked.auth, { env: options.env, clock: options.clock, fetch: options.fetch });
  const anonymousOk = anonymousAllowed(checked.auth);
  const identifier = new Identifier();
  const visibility = checked.visibility === undefined ? undefined : new Visibility(checked.visibility);

  const closers: Array<() => Promise<void>> = [];
  let limits: Limits | undefined;
  if (checked.limits && checked.limits.rules.length > 0) {
    let counter = options.counter;
    const store = checked.limits.store;
    if (!counter && store !== undefined && store !== 'memory') {
      let client: RedisClientLike | Promise<RedisClientLike>;
      if (options.redis) client = options.redis;
      else {
        const loaded = loadRedis(store.redis, options.importRedis);
        client = loaded.client;
        closers.push(loaded.close);
      }
      counter = new RedisCounter({ client, keyPrefix: store.keyPrefix, onError: store.onError, timeoutMs: store.timeoutMs, log });
    }
    counter ??= new MemoryCounter({ clock: options.clock });
    if (counter.close) closers.push(() => counter.close!());
    limits = new Limits(checked.limits.rules, counter);
  }

  let callLog: CallLog | undefined;
  if (checked.callLog) {
    callLog = new CallLog({ to: checked.callLog.to, arguments: checked.callLog.arguments, stream: options.callLogStream, warn: log });
    closers.push(() => callLog!.close());
  }

  const shut = (caller: CallerIdentity): boolean => !anonymousOk && caller.auth === undefined;

  return {
    front,
    config: checked,
    identify: (auth: AuthInfo | undefined) => identifier.identify(auth),
    visible(caller: CallerIdentity, item: GatewayItem): boolean {
      if (shut(caller)) return false;
      return visibility ? visibility.visible(caller, item) : true;
    },
    admit(caller: CallerIdentity, item: GatewayItem): Admission | Promise<Admission> {
      if (shut(caller)) return NOT_SIGNED_IN;
      return limits ? limits.admit(caller, item) : ADMITTED;
    },
    // Without a call log, the allow-all policy's no-op: the relay then builds no record per call.
    record: callLog ? (entry: CallRecord) => callLog.record(entry) : RECORD_NOTHING,
    async close(): Promise<void> {
      await Promise.allSettled(closers.splice(0).map((close) => close()));
    },
  };
}
