/**
 * Codes and tokens: authorization codes (one use, short-lived, bound to the client, the redirect
 * URI and the PKCE challenge), JWT access tokens, and refresh tokens in families. Every refresh
 * rotates the token; presenting a rotated one again is taken as theft (OAuth 2.1 §4.3.1, the
 * refresh token reuse detection of the Security BCP) and revokes the whole family, so whichever of
 * the thief and the client comes second is signed out. A code redeemed twice revokes the tokens
 * the first redemption got (RFC 6749 §4.1.2).
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
}

interface RefreshRecord extends Grant {
  family: string;
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
    const record: CodeRecord = { ...grant, redirectUri, challenge, refresh, expiresAt: this.o.clock.now() + this.o.codeTtlSec * 1000 };
    // Kept a minute past expiry so that a late redemption hears "expired", not "unknown".
    await this.o.store.put(`code:${await digest(code)}`, record, this.o.codeTtlSec * 1000 + 60_000);
    return code;
  }

  /** The code grant: checks the code's binding to this client, redirect URI and PKCE verifier. */
  async redeemCode(clientId: string, code: string, redirectUri: string | undefined, verifier: string | undefined): Promise<CodeRecord & { family: string }> {
    const h = await digest(code);
    const record = (await this.o.store.take(`code:${h}`)) as CodeRecord | undefined;
    if (!record) {
      const used = (await this.o.store.get(`usedcode:${h}`)) as { family?: string } | undefined;
      if (used?.family) {
        await this.o.store.delete(`family:${used.family}`);
        throw new OAuthError('invalid_grant', 'the authorization code was already used; the tokens issued for it are revoked');
      }
      throw new OAuthError('invalid_grant', 'unknown or expired authorization code');
    }
    const family = randomToken(16);
    await this.o.store.put(`usedcode:${h}`, { family }, REPLAY_MEMORY_MS);
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
   * `validate` judges the request against the grant (scopes, resources) before the token is
   * spent: a refused request leaves it usable, or a client's mistake would look like theft on
   * its next try.
   */
  async redeemRefresh<T>(clientId: string, token: string, validate: (grant: RefreshRecord) => T): Promise<{ record: RefreshRecord; result: T }> {
    const h = await digest(token);
    const record = (await this.o.store.take(`refresh:${h}`)) as RefreshRecord | undefined;
    if (!record) {
      const used = (await this.o.store.get(`usedrefresh:${h}`)) as { family?: string } | undefined;
      if (used?.family) {
        await this.o.store.delete(`family:${used.family}`);
        throw new OAuthError('invalid_grant', 'the refresh token was already used (possible theft); every token of this sign-in is revoked');
      }
      throw new OAuthError('invalid_grant', 'unknown, expired or revoked refresh token');
    }
    if (!(await this.o.store.get(`family:${record.family}`))) throw new OAuthError('invalid_grant', 'the refresh token was revoked');
    if (record.clientId !== clientId) {
      // Someone else's token: not theirs to use, and no longer safe for its owner either.
      await this.o.store.delete(`family:${record.family}`);
      throw new OAuthError('invalid_grant', 'the refresh token was issued to another client');
    }
    let result: T;
    try {
      result = validate(record);
    } catch (err) {
      await this.o.store.put(`refresh:${h}`, record, this.o.refreshTtlSec * 1000);
      throw err;
    }
    await this.o.store.put(`usedrefresh:${h}`, { family: record.family }, this.o.refreshTtlSec * 1000);
    return { record, result };
  }

  /** Revokes the sign-in a refresh token belongs to (RFC 7009); unknown tokens are ignored, as the RFC asks. */
  async revokeRefresh(clientId: string, token: string): Promise<void> {
    const h = await digest(token);
    const record = ((await this.o.store.get(`refresh:${h}`)) ?? undefined) as RefreshRecord | undefined;
    if (!record || record.clientId !== clientId) return;
    await this.o.store.delete(`refresh:${h}`);
    await this.o.store.delete(`family:${record.family}`);
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
      const ttl = this.o.refreshTtlSec * 1000;
      const record: RefreshRecord = { ...grant, family };
      await this.o.store.put(`family:${family}`, { clientId: grant.clientId }, ttl);
      await this.o.store.put(`refresh:${await digest(refresh)}`, record, ttl);
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
