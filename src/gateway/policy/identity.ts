// Who is calling. The front half plugs into the gateway's HTTP server: an `authenticate` hook for
// API keys, or `oauth` options (mcpkit's resource-server guard with JWT access tokens) that also
// take API keys as bearer tokens. The back half, `identify`, turns the AuthInfo that front made
// into the CallerIdentity the rules, limits and the call log read.
//
// API keys never appear in the config or a log: the config names an environment variable or the
// key's SHA-256 digest, and a presented key is hashed and compared with every known digest in
// constant time, so neither the answer's timing nor its content says how close a guess came.
import * as crypto from 'node:crypto';
import type { Clock } from '../../engine/clock.js';
import type { AuthInfo } from '../../engine/transport.js';
import { jwtAccessTokens } from '../../serving/http/jwt-access-token.js';
import type { OAuthResourceOptions } from '../../serving/http/oauth-resource.js';
import type { Authenticate } from '../../serving/http/security.js';
import type { HttpRequestView } from '../../serving/http/exchange.js';
import type { CallerIdentity } from '../policy-types.js';
import { PolicyConfigError, type ApiKeyEntry, type AuthConfig } from './config.js';

/** Marks the AuthInfo the front hands out for a request without a credential, when anonymous callers are let in. */
const ANONYMOUS_MARK = 'mcpkitGatewayAnonymous';

export const ANONYMOUS_ID = 'anonymous';

// crypto.hash (Node 20.12+) is the one-shot digest: no Hash object per request.
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: 'buffer') => Buffer }).hash;
const sha256 = (text: string): Buffer => (oneShot ? oneShot('sha256', text, 'buffer') : crypto.createHash('sha256').update(text, 'utf8').digest());

/** Equal-length digests compared in time independent of where they differ. */
export function sameDigest(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}

interface KnownKey {
  digest: Buffer;
  entry: ApiKeyEntry;
  /** Built once: every request with this key shares it, and so the CallerIdentity made from it. */
  auth: AuthInfo;
}

/** The configured API keys, resolved to digests once. */
export class ApiKeyTable {
  private readonly keys: KnownKey[] = [];

  /** `compare` is for tests that count comparisons; it must be constant-time like the default. */
  constructor(
    apiKeys: Readonly<Record<string, ApiKeyEntry>>,
    env: Readonly<Record<string, string | undefined>>,
    private readonly compare: (a: Uint8Array, b: Uint8Array) => boolean = sameDigest,
  ) {
    for (const [ref, entry] of Object.entries(apiKeys)) {
      if (ref.startsWith('sha256:')) {
        this.keys.push({ digest: Buffer.from(ref.slice(7), 'hex'), entry, auth: apiKeyAuthInfo(entry) });
        continue;
      }
      const name = ref.slice(4);
      const value = env[name];
      if (value === undefined || value.length === 0) {
        throw new PolicyConfigError(`policy.auth.apiKeys: the key of "${entry.id}" is read from the environment variable ${name}, which is not set`);
      }
      this.keys.push({ digest: sha256(value), entry, auth: apiKeyAuthInfo(entry) });
    }
  }

  get size(): number {
    return this.keys.length;
  }

  /** The entry of a presented key, or undefined. Every known key is compared, hit or miss. */
  lookup(presented: string): ApiKeyEntry | undefined {
    return this.find(presented)?.entry;
  }

  /** The AuthInfo of a presented key (one frozen object per key), or undefined. */
  authOf(presented: string): AuthInfo | undefined {
    return this.find(presented)?.auth;
  }

  private find(presented: string): KnownKey | undefined {
    const digest = sha256(presented);
    let found: KnownKey | undefined;
    for (const k of this.keys) if (this.compare(k.digest, digest) && found === undefined) found = k;
    return found;
  }
}

/**
 * The key from `Authorization: Bearer` or `X-API-Key`. Not from the query string, as the
 * generic API key guard also allows: a key in a URL ends up in proxies' and servers' access logs.
 */
export function presentedKey(req: HttpRequestView): string | undefined {
  const auth = req.header('authorization');
  if (auth !== undefined && /^bearer +/i.test(auth)) return auth.replace(/^bearer +/i, '').trim() || undefined;
  return req.header('x-api-key') || undefined;
}

/** The AuthInfo of an API key: its id and attributes, and no token (the key must not travel to backends). */
export function apiKeyAuthInfo(entry: ApiKeyEntry): AuthInfo {
  const claims: Record<string, unknown> = { ...entry.claims };
  if (entry.groups) claims.groups = Object.freeze([...entry.groups]);
  // Frozen: one object serves every request made with the key, so nothing may change it.
  return Object.freeze({
    principal: entry.id,
    scopes: Object.freeze([...(entry.scopes ?? [])]) as string[],
    extra: Object.freeze({ claims: Object.freeze(claims), apiKey: true }),
  });
}

export interface FrontAuthOptions {
  /** Where `env:` key references are read (default process.env). */
  env?: Readonly<Record<string, string | undefined>>;
  /** For the token verifier's time checks and key cache (tests pass a ManualClock). */
  clock?: Clock;
  /** For the issuer metadata and JWKS requests (default globalThis.fetch). */
  fetch?: typeof globalThis.fetch;
}

/**
 * What to spread into the gateway's HTTP server options: `authenticate` (API keys, with or
 * without anonymous callers), `oauth` (tokens, and API keys sent as bearer tokens), or nothing
 * when the gateway is open.
 */
export interface FrontAuth {
  authenticate?: Authenticate;
  oauth?: OAuthResourceOptions;
}

/** Whether callers without a credential get in: as configured, else only when no credential is configured. */
export function anonymousAllowed(auth: AuthConfig | undefined): boolean {
  return auth?.anonymous ?? (auth?.apiKeys === undefined && auth?.oauth === undefined);
}

/** The front authentication for an `auth` section. */
export function frontAuth(auth: AuthConfig | undefined, options: FrontAuthOptions = {}): FrontAuth {
  const table = auth?.apiKeys ? new ApiKeyTable(auth.apiKeys, options.env ?? process.env) : undefined;
  const anonymous = anonymousAllowed(auth);
  const oauth = auth?.oauth;
  if (oauth) {
    if (auth?.anonymous === true) {
      throw new PolicyConfigError(
        'policy.auth: "anonymous": true cannot be combined with "oauth" (the OAuth guard answers every request without a token with 401)',
      );
    }
    const jwt = jwtAccessTokens({
      issuer: oauth.issuer,
      ...(oauth.audience !== undefined && { audience: oauth.audience }),
      ...(oauth.jwksUri !== undefined && { jwksUri: oauth.jwksUri }),
      ...(options.clock && { clock: options.clock }),
      ...(options.fetch && { fetch: options.fetch }),
    });
    return {
      oauth: {
        authorizationServers: [oauth.issuer],
        ...(oauth.resource !== undefined && { resource: oauth.resource }),
        ...(oauth.requiredScopes && { requiredScopes: oauth.requiredScopes }),
        ...(oauth.scopesSupported && { scopesSupported: oauth.scopesSupported }),
        // An API key is not a JWT: looking it up first costs a hash, and spares a parse.
        verifyToken: (token, req, resource) => table?.authOf(token) ?? jwt(token, req, resource),
      },
    };
  }
  if (!table) {
    if (!anonymous) throw new PolicyConfigError('policy.auth: "anonymous" is false, and neither "apiKeys" nor "oauth" is configured: nobody could call');
    return {};
  }
  return {
    authenticate: (req) => {
      const key = presentedKey(req);
      if (key === undefined) return anonymous ? { principal: ANONYMOUS_ID, extra: { [ANONYMOUS_MARK]: true } } : undefined;
      return table.authOf(key);
    },
  };
}

const EMPTY: Readonly<Record<string, unknown>> = Object.freeze({});

/** The anonymous caller: no credential, no scopes, no claims. */
export const ANONYMOUS: CallerIdentity = Object.freeze({ id: ANONYMOUS_ID, scopes: Object.freeze([]), claims: EMPTY, auth: undefined });

/** AuthInfo → CallerIdentity, remembered per AuthInfo object (sessions reuse theirs). */
export class Identifier {
  private readonly seen = new WeakMap<AuthInfo, CallerIdentity>();

  identify(auth: AuthInfo | undefined): CallerIdentity {
    if (auth === undefined || auth.extra?.[ANONYMOUS_MARK] === true) return ANONYMOUS;
    let caller = this.seen.get(auth);
    if (!caller) {
      const claims = auth.extra?.claims;
      caller = Object.freeze({
        id: auth.principal,
        scopes: Object.freeze([...(auth.scopes ?? [])]),
        claims: claims !== null && typeof claims === 'object' && !Array.isArray(claims) ? (claims as Record<string, unknown>) : EMPTY,
        auth,
      });
      this.seen.set(auth, caller);
    }
    return caller;
  }
}
