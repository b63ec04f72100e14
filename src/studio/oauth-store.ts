// The OAuth store of the studio's sign-ins (`--oauth-file`), watched: when the client finds tokens
// kept from an earlier run, the Sign-in panel gets a step saying so (with what a person debugging
// needs: issuer, resource, type, expiry, scope, a JWT's claims; never a token), since no sign-in
// follows to show where the token came from.
import type { OAuthStore } from '../client/auth/store.js';
import { jwtClaims, type OAuthStep } from './oauth-steps.js';

export function keptTokensShown(store: OAuthStore, onKept: (issuer: string, step: Omit<OAuthStep, 'n' | 'at'>) => void, where = 'the OAuth file'): OAuthStore {
  return {
    getClient: (issuer) => store.getClient(issuer),
    saveClient: (issuer, client) => store.saveClient(issuer, client),
    saveTokens: (issuer, resource, tokens) => store.saveTokens(issuer, resource, tokens),
    clear: (issuer, resource, client) => store.clear(issuer, resource, client),
    getTokens: async (issuer, resource) => {
      const kept = await store.getTokens(issuer, resource);
      if (!kept) return kept;
      const t = kept.tokens;
      const facts: Record<string, string> = { issuer, resource, token_type: t.token_type };
      if (t.expires_at !== undefined) facts.expires = new Date(t.expires_at).toISOString();
      if (t.scope) facts.scope = t.scope;
      facts.refresh_token = t.refresh_token ? 'kept' : 'none';
      if (kept.dpopJkt) facts['DPoP key thumbprint'] = kept.dpopJkt;
      const claims = jwtClaims(t.access_token);
      if (claims) facts['access token (JWT) claims'] = JSON.stringify((claims as { claims: unknown }).claims);
      onKept(issuer, {
        kind: 'token',
        title: 'Tokens kept from an earlier run',
        detail: `Found in ${where}: the request is sent again with them, without a sign-in (a refresh, or a sign-in, follows only if the server refuses them).`,
        status: 'ok',
        facts,
      });
      return kept;
    },
  };
}
