/** Where an OAuth client keeps what it obtained: client registrations per issuer, tokens per issuer and resource. */
import type { ClientRegistration, OAuthTokens } from './token-endpoint.js';

/** Tokens for one resource, with the scope that was asked for (the base of a later step-up). */
export interface StoredTokens {
  tokens: OAuthTokens;
  /** The scope requested when these tokens were obtained (space-separated), if any. */
  requestedScope?: string;
  /**
   * For DPoP-bound tokens: the JWK thumbprint (RFC 7638) of the key they are bound to. Tokens
   * bound to another key than the client's are not used.
   */
  dpopJkt?: string;
}

/**
 * Storage for OAuth state. Client credentials are kept by authorization server issuer and never
 * used with another one (the MCP spec binds them to the issuer); tokens by issuer and resource.
 * Implement it over a keychain or a file to keep logins across runs; the default keeps them in
 * memory for the life of the client.
 */
export interface OAuthStore {
  getClient(issuer: string): ClientRegistration | undefined | Promise<ClientRegistration | undefined>;
  saveClient(issuer: string, client: ClientRegistration): void | Promise<void>;
  getTokens(issuer: string, resource: string): StoredTokens | undefined | Promise<StoredTokens | undefined>;
  saveTokens(issuer: string, resource: string, tokens: StoredTokens): void | Promise<void>;
  /** Forgets the tokens (and, with `client`, the registration too): a logout, or credentials the AS rejected. */
  clear(issuer: string, resource?: string, client?: boolean): void | Promise<void>;
  /**
   * Optional, for sign-in by full-page redirect: keeps an authorization under way (its PKCE
   * verifier) across the navigation to the authorization server and back, by its `state`.
   */
  savePending?(state: string, pending: PendingAuthorization): void | Promise<void>;
  /** Returns and forgets the authorization saved under `state`. */
  takePending?(state: string): PendingAuthorization | undefined | Promise<PendingAuthorization | undefined>;
}

/** An authorization request sent, its answer not yet exchanged. */
export interface PendingAuthorization {
  verifier: string;
  issuer: string;
  resource: string;
  redirectUri: string;
}

/** The default store: a Map, gone with the process. */
export class MemoryOAuthStore implements OAuthStore {
  private readonly clients = new Map<string, ClientRegistration>();
  private readonly tokens = new Map<string, StoredTokens>();

  getClient(issuer: string): ClientRegistration | undefined {
    return this.clients.get(issuer);
  }

  saveClient(issuer: string, client: ClientRegistration): void {
    this.clients.set(issuer, client);
  }

  getTokens(issuer: string, resource: string): StoredTokens | undefined {
    return this.tokens.get(`${issuer}\n${resource}`);
  }

  saveTokens(issuer: string, resource: string, tokens: StoredTokens): void {
    this.tokens.set(`${issuer}\n${resource}`, tokens);
  }

  clear(issuer: string, resource?: string, client?: boolean): void {
    if (resource !== undefined) this.tokens.delete(`${issuer}\n${resource}`);
    else for (const k of [...this.tokens.keys()]) if (k.startsWith(`${issuer}\n`)) this.tokens.delete(k);
    if (client) this.clients.delete(issuer);
  }
}
