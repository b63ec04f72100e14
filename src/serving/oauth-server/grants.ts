/**
 * Codes and tokens: authorization codes (one use, short-lived, bound to the client, the redirect
 * URI and the PKCE challenge), JWT access tokens, and refresh tokens in families. Every refresh
 * rotates the token; presenting a rotated one again is taken as theft (OAuth 2.1 §4.3.1, the
 * refresh token reuse detection of the Security BCP) and revokes the whole family, so whichever of
 * the thief and the client comes second is signed out. A code redeemed twice revokes the tokens
 * the first redemption got (RFC 6749 §4.1.2).
 *
 * Concurrency is what makes this hold or not: the store's atomic `take` is the one commit point
 * of a code or a refresh token, so of N simultaneous uses exactly one gets it. Each token is
 * issued with a marker naming its family (written before the token exists, kept as long as the
 * token could live), so every use that finds the token gone, even a microsecond after the winner
 * took it, knows it is a reuse and revokes the family. Revocation leaves a tombstone that the
 * winner's own writes cannot undo: its new refresh token dies with the family.
 */
import { base64url, randomToken } from '../../client/auth/encoding.js';
import type { Clock } from '../../engine/clock.js';
import { OAuthError } from './http.js';
import type { SigningKeys } from './signing.js';
import { digest, type AuthorizationStore } from './store.js';

/** What one sign-in granted: carried from the code to every token of its family. */
export interface Grant {
  clientId: string;
  subject: string;
  scopes: string[];
  /** The resources (audiences) granted; empty when the client named none. */
  resources: string[];
  claims?: Record<string, unknown>;
  /** When the user signed in, seconds since the epoch (`auth_time`). */
  authTime: number;
}

interface CodeRecord extends Grant {
  redirectUri: string;
  challenge: string;
  expiresAt: number;
  refresh: boolean;
  /** The family its tokens will have, chosen at issuance so that a concurrent reuse can revoke it. */
  family?: string;
}

interface RefreshRecord extends Grant {
  family: string;
  /** Set on tokens issued with a reuse marker (tokens of earlier versions have none). */
  marked?: true;
}

/** Where a code or refresh token is remembered after use: enough to revoke what it led to. */
interface UseMarker {
  family?: string;
}

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope?: string;
  refresh_token?: string;
}

export interface GrantsOptions {
  store: AuthorizationStore;
  keys: SigningKeys;
  clock: Clock;
  accessTtlSec: number;
  refreshTtlSec: number;
  codeTtlSec: number;
}

/** RFC 7636 §4.1: 43 to 128 unreserved characters. */
const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
/** Registered and RFC 9068 claims a login step cannot override. */
const RESERVED = new Set(['iss', 'sub', 'aud', 'exp', 'iat', 'nbf', 'jti', 'client_id', 'scope', 'auth_time', 'cnf']);
/** How long a redeemed code or a rotated refresh token is remembered, to catch a replay. */
const REPLAY_MEMORY_MS = 10 * 60_000;

async function s256(verifier: string): Promise<string> {
  return base64url(new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))));
}

export class Grants {
  constructor(private readonly o: GrantsOptions) {}

  /** A new authorization code for `grant`. */
  async issueCode(grant: Grant, redirectUri: string, challenge: string, refresh: boolean): Promise<string> {
    const code = randomToken(32);
    const h = await digest(code);
    const family = randomToken(16);
    const record: CodeRecord = { ...grant, redirectUri, challenge, refresh, family, expiresAt: this.o.clock.now() + this.o.codeTtlSec * 1000 };
    // Kept a minute past expiry so that a late redemption hears "expired", not "unknown". The
    // marker goes first and lives as long: while the code can be taken, a miss means it was.
    const ttl = this.o.codeTtlSec * 1000 + 60_000;
    await this.o.store.put(`codemark:${h}`, { family } satisfies UseMarker, ttl);
    await this.o.store.put(`code:${h}`, record, ttl);
    return code;
  }

  /** The code grant: checks the code's binding to this client, redirect URI and PKCE verifier. */
  async redeemCode(clientId: string, code: string, redirectUri: string | undefined, verifier: string | undefined): Promise<CodeRecord & { family: string }> {
    const h = await digest(code);
    const record = (await this.o.store.take(`code:${h}`)) as CodeRecord | undefined;
    if (!record) {
      const used = await this.marker(`usedcode:${h}`, `codemark:${h}`);
      if (used?.family) {
        await this.revokeFamily(used.family);
        throw new OAuthError('invalid_grant', 'the authorization code was already used; the tokens issued for it are revoked');
      }
      throw new OAuthError('invalid_grant', 'unknown or expired authorization code');
    }
    const family = record.family ?? randomToken(16);
    // The marker of issuance expires with the code; replays are caught for longer than that.
    await this.o.store.put(`usedcode:${h}`, { family } satisfies UseMarker, REPLAY_MEMORY_MS);
    if (record.clientId !== clientId) throw new OAuthError('invalid_grant', 'the authorization code was issued to another client');
    if (record.expiresAt <= this.o.clock.now()) throw new OAuthError('invalid_grant', 'the authorization code has expired');
    if (redirectUri !== record.redirectUri) throw new OAuthError('invalid_grant', 'redirect_uri differs from the one in the authorization request');
    if (verifier === undefined) throw new OAuthError('invalid_grant', 'code_verifier is required (PKCE)');
    if (!VERIFIER.test(verifier)) throw new OAuthError('invalid_grant', 'code_verifier must be 43 to 128 unreserved characters (RFC 7636)');
    if ((await s256(verifier)) !== record.challenge)
      throw new OAuthError('invalid_grant', 'PKCE verification failed: code_verifier does not match the code_challenge');
    return { ...record, family };
  }

  /**
   * The refresh grant: rotates the token; a rotated one presented again revokes its family.
   * Everything is checked before the token is spent (`validate` judges the request against the
   * grant: scopes, resources), so a refused request leaves it usable, or a client's mistake
   * would look like theft on its next try. Then `take` spends it: a request that loses that race
   * to a concurrent one is a reuse like any other.
   */
  async redeemRefresh<T>(clientId: string, token: string, validate: (grant: RefreshRecord) => T): Promise<{ record: RefreshRecord; result: T }> {
    const h = await digest(token);
    const record = (await this.o.store.get(`refresh:${h}`)) as RefreshRecord | undefined;
    if (!record) {
      const used = await this.marker(`refreshmark:${h}`, `usedrefresh:${h}`);
      if (used?.family) await this.reused(used.family);
      throw new OAuthError('invalid_grant', 'unknown, expired or revoked refresh token');
    }
    if (!(await this.alive(record.family))) throw new OAuthError('invalid_grant', 'the refresh token was revoked');
    if (record.clientId !== clientId) {
      // Someone else's token: not theirs to use, and no longer safe for its owner either.
      await this.revokeFamily(record.family);
      throw new OAuthError('invalid_grant', 'the refresh token was issued to another client');
    }
    const result = validate(record);
    if (!(await this.o.store.take(`refresh:${h}`))) await this.reused(record.family);
    // A token from before markers existed gets one now, for a reuse that comes later.
    if (!record.marked) await this.o.store.put(`refreshmark:${h}`, { family: record.family } satisfies UseMarker, this.o.refreshTtlSec * 1000);
    return { record, result };
  }

  /** Revokes the sign-in a refresh token belongs to (RFC 7009); unknown tokens are ignored, as the RFC asks. */
  async revokeRefresh(clientId: string, token: string): Promise<void> {
    const h = await digest(token);
    const record = ((await this.o.store.get(`refresh:${h}`)) ?? undefined) as RefreshRecord | undefined;
    if (!record || record.clientId !== clientId) return;
    await this.o.store.delete(`refresh:${h}`);
    await this.revokeFamily(record.family);
  }

  private async reused(family: string): Promise<never> {
    await this.revokeFamily(family);
    throw new OAuthError('invalid_grant', 'the refresh token was already used (possible theft) or revoked; every token of this sign-in is revoked');
  }

  /** The first of `keys` that holds a marker. */
  private async marker(...keys: string[]): Promise<UseMarker | undefined> {
    for (const k of keys) {
      const m = (await this.o.store.get(k)) as UseMarker | undefined;
      if (m && typeof m === 'object') return m;
    }
    return undefined;
  }

  /** A family is alive while its record lasts (each rotation extends it) and no revocation has marked it. */
  private async alive(family: string): Promise<boolean> {
    return Boolean(await this.o.store.get(`family:${family}`)) && !(await this.o.store.get(`revoked:${family}`));
  }

  /**
   * Revokes every refresh token of a family: a tombstone as long-lived as any token of it (which
   * a concurrent rotation's write of the family record cannot undo), and the record goes.
   */
  private async revokeFamily(family: string): Promise<void> {
    await this.o.store.put(`revoked:${family}`, { at: this.o.clock.now() }, this.o.refreshTtlSec * 1000);
    await this.o.store.delete(`family:${family}`);
  }

  /**
   * An access token for `audience` with `scopes`, and (with `family`) a new refresh token of that
   * family carrying the whole grant.
   */
  async issueTokens(grant: Grant, issuer: string, audience: string[], scopes: string[], family: string | undefined): Promise<TokenResponse> {
    const now = Math.floor(this.o.clock.now() / 1000);
    const claims: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(grant.claims ?? {})) if (!RESERVED.has(k)) claims[k] = v;
    Object.assign(claims, {
      iss: issuer,
      sub: grant.subject,
      aud: audience.length === 1 ? audience[0] : audience,
      client_id: grant.clientId,
      iat: now,
      exp: now + this.o.accessTtlSec,
      jti: randomToken(16),
      auth_time: grant.authTime,
    });
    if (scopes.length) claims.scope = scopes.join(' ');
    const body: TokenResponse = { access_token: await this.o.keys.sign(claims), token_type: 'Bearer', expires_in: this.o.accessTtlSec };
    if (scopes.length) body.scope = scopes.join(' ');
    if (family !== undefined) {
      const refresh = randomToken(32);
      const h = await digest(refresh);
      const ttl = this.o.refreshTtlSec * 1000;
      const record: RefreshRecord = { ...grant, family, marked: true };
      await this.o.store.put(`family:${family}`, { clientId: grant.clientId }, ttl);
      // The marker first: from the moment the token can be taken, a miss is known for a reuse.
      await this.o.store.put(`refreshmark:${h}`, { family } satisfies UseMarker, ttl);
      await this.o.store.put(`refresh:${h}`, record, ttl);
      // A reuse detected meanwhile (the code or the previous token sent twice at once) revoked
      // the family before this token existed: it is born dead. Any later revocation's tombstone
      // outlives it.
      if (await this.o.store.get(`revoked:${family}`)) await this.o.store.delete(`refresh:${h}`);
      body.refresh_token = refresh;
    }
    return body;
  }
}

/** A Grant with exactly the fields of one (a stored record carries more). */
export function grantOf(r: Grant): Grant {
  const g: Grant = { clientId: r.clientId, subject: r.subject, scopes: r.scopes, resources: r.resources, authTime: r.authTime };
  if (r.claims) g.claims = r.claims;
  return g;
}
