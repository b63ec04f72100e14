/** What every endpoint of the authorization server works with, resolved once from the options. */
import type { Clock } from '../../engine/clock.js';
import type { ClientDirectory } from './clients.js';
import type { ConsentSettings } from './consent.js';
import type { Grants } from './grants.js';
import { OAuthError } from './http.js';
import type { Login } from './options.js';
import type { RegistrationPolicy } from './registration.js';
import type { AuthorizationStore } from './store.js';
import type { Upstream } from './upstream.js';
import { audienceKey } from '../http/oauth-resource.js';

export interface ServerContext {
  store: AuthorizationStore;
  clients: ClientDirectory;
  grants: Grants;
  clock: Clock;
  fetch: typeof globalThis.fetch;
  login: Login | undefined;
  upstream: Upstream | undefined;
  /** Proxy mode's consent step (set with `upstream`). */
  consent: ConsentSettings | undefined;
  scopesSupported: readonly string[] | undefined;
  defaultScopes: readonly string[];
  resources: readonly string[] | undefined;
  defaultResource: string | undefined;
  requireResource: boolean;
  refreshTokens: boolean;
  /** Dynamic registration's gate and limits; undefined when it is off. */
  registration: RegistrationPolicy | undefined;
  onError(error: Error): void;
}

/** Scopes asked for, checked against `scopes_supported` (the default ones when none are named). */
export function checkScopes(ctx: ServerContext, asked: string[]): string[] {
  if (asked.length === 0) return [...ctx.defaultScopes];
  const supported = ctx.scopesSupported;
  if (supported) {
    const unknown = asked.filter((s) => !supported.includes(s));
    if (unknown.length) throw new OAuthError('invalid_scope', `unknown scope ${unknown.join(' ')} (supported: ${supported.join(' ')})`);
  }
  return asked;
}

/** RFC 8707 §2: absolute URIs without a fragment, and (when configured) resources this server issues tokens for. */
export function checkResources(ctx: ServerContext, asked: string[]): string[] {
  const out: string[] = [];
  for (const r of asked) {
    let u: URL;
    try {
      u = new URL(r);
    } catch {
      throw new OAuthError('invalid_target', `the resource ${JSON.stringify(r)} is not an absolute URI`);
    }
    if (u.hash || r.includes('#')) throw new OAuthError('invalid_target', `the resource ${r} must not have a fragment`);
    if (ctx.resources && !ctx.resources.some((k) => audienceKey(k) === audienceKey(r)))
      throw new OAuthError('invalid_target', `this authorization server does not issue tokens for ${r}`);
    if (!out.includes(r)) out.push(r);
  }
  return out;
}

/** The audience of a token when the grant named no resource. */
export function fallbackAudience(ctx: ServerContext, issuer: string): string {
  return ctx.defaultResource ?? (ctx.resources?.length === 1 ? ctx.resources[0]! : issuer);
}
