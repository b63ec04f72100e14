import type { ClientRegistration } from './token-endpoint.js';
import type { OAuthStore, PendingAuthorization, StoredTokens } from './store.js';

/** What is used of the Web Storage API (`sessionStorage`, `localStorage`). */
export interface WebStorageLike {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
  readonly length: number;
  key(index: number): string | null;
}

/**
 * An OAuthStore over Web Storage, for browser apps: registrations, tokens and the authorization
 * under way survive the full-page redirect to the authorization server and back. Give it
 * `sessionStorage` (per tab, gone with it: the usual choice) or `localStorage` (tokens readable
 * by any script of the origin for as long as they live).
 */
export class WebStorageOAuthStore implements OAuthStore {
  constructor(
    private readonly storage: WebStorageLike,
    private readonly prefix = 'mcpkit.oauth.',
  ) {}

  private read<T>(key: string): T | undefined {
    const raw = this.storage.getItem(this.prefix + key);
    if (raw === null) return undefined;
    try {
      return JSON.parse(raw) as T;
    } catch {
      return undefined; // written by something else: as good as absent
    }
  }

  private write(key: string, value: unknown): void {
    this.storage.setItem(this.prefix + key, JSON.stringify(value));
  }

  getClient(issuer: string): ClientRegistration | undefined {
    return this.read(`client ${issuer}`);
  }

  saveClient(issuer: string, client: ClientRegistration): void {
    this.write(`client ${issuer}`, client);
  }

  getTokens(issuer: string, resource: string): StoredTokens | undefined {
    return this.read(`tokens ${issuer} ${resource}`);
  }

  saveTokens(issuer: string, resource: string, tokens: StoredTokens): void {
    this.write(`tokens ${issuer} ${resource}`, tokens);
  }

  clear(issuer: string, resource?: string, client?: boolean): void {
    const s = this.storage;
    if (resource !== undefined) s.removeItem(`${this.prefix}tokens ${issuer} ${resource}`);
    else {
      const mine = `${this.prefix}tokens ${issuer} `;
      const keys: string[] = [];
      for (let i = 0; i < s.length; i++) {
        const k = s.key(i);
        if (k?.startsWith(mine)) keys.push(k);
      }
      for (const k of keys) s.removeItem(k);
    }
    if (client) s.removeItem(`${this.prefix}client ${issuer}`);
  }

  savePending(state: string, pending: PendingAuthorization): void {
    this.write(`pending ${state}`, pending);
  }

  takePending(state: string): PendingAuthorization | undefined {
    const pending = this.read<PendingAuthorization>(`pending ${state}`);
    this.storage.removeItem(`${this.prefix}pending ${state}`);
    return pending;
  }
}
