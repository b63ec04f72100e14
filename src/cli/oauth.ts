// OAuth sign-in for the client commands' URL targets: a loopback redirect listener, the
// browser opened without a shell, and tokens (with the DPoP key they may be bound to) kept in a
// user-only file so the next command does not sign in again.
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { loopbackAuthorization } from '../client/auth/loopback.js';
import { parseAuthChallenge } from '../client/auth/challenge.js';
import { OAuthFlowError } from '../client/auth/errors.js';
import { fetchResourceMetadata, fetchServerMetadata, resourceCovers, type DiscoveryContext } from '../client/auth/metadata.js';
import type { OAuthOptions } from '../client/auth/options.js';
import type { OAuthStore, StoredTokens } from '../client/auth/store.js';
import type { ClientRegistration } from '../client/auth/token-endpoint.js';
import { flag, str, UsageError } from './args.js';
import type { StatusLine } from './term.js';
import type { CliIo } from './io.js';

type Values = Parameters<typeof str>[0];

interface FileShape {
  clients: Record<string, ClientRegistration>;
  tokens: Record<string, StoredTokens>;
  /**
   * The DPoP private key (a P-256 JWK). DPoP-bound tokens, refresh tokens included, work only
   * with the key that obtained them, so it is kept next to them. Absent in files written before
   * it existed and in files that never held a bound token.
   */
  dpopKey?: JsonWebKey;
}

const P256 = { name: 'ECDSA', namedCurve: 'P-256' } as const;

/** Default token file: $MCPKIT_OAUTH_FILE, else $XDG_CONFIG_HOME/mcpkit/oauth.json, else ~/.config/mcpkit/oauth.json. */
export function defaultTokenFile(env: Record<string, string | undefined> = process.env): string {
  if (env.MCPKIT_OAUTH_FILE) return env.MCPKIT_OAUTH_FILE;
  return join(env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config'), 'mcpkit', 'oauth.json');
}

/**
 * An OAuthStore in one JSON file, readable by the user only. Read on every access and written
 * whole through a rename, so two commands running at once do not leave a torn file.
 */
export class FileOAuthStore implements OAuthStore {
  /** A key made by this process that the file does not hold yet. */
  private unsaved: JsonWebKey | undefined;
  /** The `d` of the file's key when it would not import: the new key may replace it. */
  private unusable: string | undefined;

  constructor(readonly file: string) {}

  private read(): FileShape {
    try {
      const v = JSON.parse(readFileSync(this.file, 'utf8')) as Partial<FileShape>;
      return { clients: v.clients ?? {}, tokens: v.tokens ?? {}, ...(v.dpopKey === undefined ? {} : { dpopKey: v.dpopKey }) };
    } catch {
      return { clients: {}, tokens: {} };
    }
  }

  private write(data: FileShape): void {
    mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
    const tmp = `${this.file}.${process.pid}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600 });
    chmodSync(tmp, 0o600);
    renameSync(tmp, this.file);
  }

  getClient(issuer: string): ClientRegistration | undefined {
    return this.read().clients[issuer];
  }

  saveClient(issuer: string, client: ClientRegistration): void {
    const data = this.read();
    data.clients[issuer] = client;
    this.write(data);
  }

  getTokens(issuer: string, resource: string): StoredTokens | undefined {
    return this.read().tokens[`${issuer} ${resource}`];
  }

  saveTokens(issuer: string, resource: string, tokens: StoredTokens): void {
    const data = this.read();
    data.tokens[`${issuer} ${resource}`] = tokens;
    // The key is written with the first tokens bound to it, so a server without DPoP (or
    // without OAuth) never puts a key in the file. When another command stored its own key in
    // the meantime, that one stays: these tokens then only cost a sign-in next time, while
    // replacing it would strand the other command's tokens the same way.
    if (tokens.dpopJkt !== undefined && this.unsaved && (!isP256PrivateJwk(data.dpopKey) || data.dpopKey.d === this.unusable)) {
      data.dpopKey = this.unsaved;
      this.unsaved = undefined;
    }
    this.write(data);
  }

  /**
   * The DPoP key pair: the file's, else a new one (kept in memory until tokens are bound to
   * it). The private key is not extractable once loaded.
   */
  async dpopKeyPair(): Promise<CryptoKeyPair> {
    const stored = this.read().dpopKey;
    if (isP256PrivateJwk(stored)) {
      try {
        return await importKeyPair(stored);
      } catch {
        // Not a point on the curve (an edited file): a new key, as if there were none.
        this.unusable = stored.d;
      }
    }
    const subtle = globalThis.crypto.subtle;
    const generated = await subtle.generateKey(P256, true, ['sign', 'verify']);
    const { kty, crv, x, y, d } = await subtle.exportKey('jwk', generated.privateKey);
    this.unsaved = { kty, crv, x, y, d };
    // Re-imported: a new key is used exactly like one loaded from the file (not extractable).
    return importKeyPair(this.unsaved);
  }

  /** Whether tokens are kept for `url` (for a resource that is its URL or a parent of it). */
  hasTokensFor(url: string): boolean {
    return Object.keys(this.read().tokens).some((k) => resourceCovers(k.slice(k.indexOf(' ') + 1), url));
  }

  clear(issuer: string, resource?: string, client?: boolean): void {
    const data = this.read();
    for (const k of Object.keys(data.tokens)) if (resource !== undefined ? k === `${issuer} ${resource}` : k.startsWith(`${issuer} `)) delete data.tokens[k];
    if (client) delete data.clients[issuer];
    this.write(data);
  }
}

function isP256PrivateJwk(jwk: JsonWebKey | undefined): jwk is JsonWebKey {
  const b64 = (v: unknown) => typeof v === 'string' && /^[A-Za-z0-9_-]{43}$/.test(v);
  return typeof jwk === 'object' && jwk !== null && jwk.kty === 'EC' && jwk.crv === 'P-256' && b64(jwk.x) && b64(jwk.y) && b64(jwk.d);
}

async function importKeyPair(jwk: JsonWebKey): Promise<CryptoKeyPair> {
  const { kty, crv, x, y, d } = jwk;
  const subtle = globalThis.crypto.subtle;
  return {
    privateKey: await subtle.importKey('jwk', { kty, crv, x, y, d }, P256, false, ['sign']),
    // Extractable: proofs carry the public key as a JWK.
    publicKey: await subtle.importKey('jwk', { kty, crv, x, y }, P256, true, ['verify']),
  };
}

/** Opens a URL in the desktop browser: the program is run directly, never through a shell. */
export function openBrowser(url: string): void {
  const [cmd, args] =
    process.platform === 'darwin' ? ['open', [url]] : process.platform === 'win32' ? ['rundll32', ['url.dll,FileProtocolHandler', url]] : ['xdg-open', [url]];
  try {
    const child = spawn(cmd, args, { stdio: 'ignore', detached: true });
    child.on('error', () => {});
    child.unref();
  } catch {
    // No browser here: the URL printed on stderr is the way.
  }
}

/**
 * The OAuth options for a URL target, or undefined with --no-oauth. Signing in needs a person:
 * it is offered when stderr is a terminal (or with --oauth); otherwise only stored tokens and
 * client credentials are used, and a server that wants a sign-in fails fast with its 401.
 */
export async function cliOAuth(
  target: string,
  values: Values,
  status: StatusLine,
  io: CliIo,
): Promise<{ auth: OAuthOptions; close(): Promise<void> } | undefined> {
  if (flag(values, 'no-oauth')) {
    if (flag(values, 'oauth')) throw new UsageError('--oauth and --no-oauth contradict each other');
    return undefined;
  }
  const clientId = str(values, 'client-id');
  const clientSecret = str(values, 'client-secret') ?? io.env.MCPKIT_CLIENT_SECRET;
  const interactive = flag(values, 'oauth') || (!!io.stderr.isTTY && !flag(values, 'client-credentials'));
  const store = new FileOAuthStore(str(values, 'oauth-file') ?? defaultTokenFile(io.env));
  const auth = async (rest: Partial<OAuthOptions>): Promise<OAuthOptions> => ({
    clientId,
    clientSecret,
    scope: str(values, 'scope'),
    store,
    clientMetadata: { client_name: 'mcpkit CLI' },
    // The file's key, so tokens an authorization server binds to it (DPoP) outlive the process.
    dpop: { keyPair: await store.dpopKeyPair() },
    ...rest,
  });
  if (flag(values, 'client-credentials')) {
    if (!clientId) throw new UsageError('--client-credentials needs --client-id (and --client-secret or MCPKIT_CLIENT_SECRET)');
    return { auth: await auth({ grant: 'client_credentials' }), close: async () => {} };
  }
  // Without a person to sign in, only tokens kept from an earlier sign-in can help; without
  // those, a 401 is reported as it is instead of starting a sign-in nobody can finish.
  if (!interactive) return store.hasTokensFor(target) ? { auth: await auth({ grant: 'authorization_code' }), close: async () => {} } : undefined;
  const options = await auth({ grant: 'authorization_code' });
  const port = str(values, 'redirect-port');
  const loopback = await loopbackAuthorization({
    port: port === undefined ? 0 : Number(port),
    open: (url, request) => {
      status.print(`Sign in to ${request.issuer} in your browser. If it does not open, visit:\n  ${url}`);
      if (!flag(values, 'no-browser')) openBrowser(url);
    },
  });
  return { auth: { ...options, authorize: loopback.authorize, redirectUri: loopback.redirectUri }, close: () => loopback.close() };
}

/** How long the 401 hint waits for each metadata document it looks for. */
const PROBE_MS = 5000;

/**
 * What to say about a 401 from a URL target. A sign-in is offered only to a server that
 * advertises OAuth: to an API-key server it is a dead end. `sent`: the headers the request had.
 */
export async function explainUnauthorized(
  url: string,
  wwwAuthenticate: string | null,
  sent: Record<string, string> | undefined,
  values: Values,
): Promise<string> {
  const credential = Object.keys(sent ?? {}).find((k) => /^(authorization|x-api-key)$/i.test(k));
  const refused = credential ? `${url} refused the credentials it was sent (HTTP 401): check the ${credential} header` : undefined;
  if (!(await advertisesOAuth(url, wwwAuthenticate))) {
    return refused ?? `${url} wants credentials (HTTP 401) and offers no OAuth sign-in: pass them with -H, e.g. -H "Authorization: Bearer KEY"`;
  }
  const ways = `${flag(values, 'no-oauth') ? 'drop --no-oauth to sign in' : 'sign in from a terminal or with --oauth (the sign-in URL is printed)'}, or use --client-credentials with --client-id/--client-secret`;
  if (refused) return `${refused}; the server also signs in with OAuth: ${ways}`;
  return `${url} needs authorization (HTTP 401) and signs in with OAuth: ${ways}; or pass a token with -H "Authorization: Bearer TOKEN"`;
}

/**
 * Whether the server signs in with OAuth: its challenge names its resource metadata, or that
 * document (or, for 2025-03-26 servers, authorization server metadata at its origin) is there.
 */
async function advertisesOAuth(url: string, wwwAuthenticate: string | null): Promise<boolean> {
  if (parseAuthChallenge(wwwAuthenticate)?.resourceMetadata) return true;
  const ctx: DiscoveryContext = {
    fetch: (input, init) => fetch(input, { ...init, signal: AbortSignal.timeout(PROBE_MS) }),
    checkUrl: (u) => new URL(u),
  };
  try {
    return (await fetchResourceMetadata(ctx, url)) !== undefined || (await fetchServerMetadata(ctx, new URL(url).origin, true)) !== undefined;
  } catch (err) {
    // Metadata that is there but names another resource or issuer is still OAuth; a document
    // that could not be fetched at all (the error has the network's cause) tells nothing.
    return err instanceof OAuthFlowError && err.cause === undefined;
  }
}

export const OAUTH_HELP = `OAuth (URL targets whose server asks for authorization):
  --oauth                sign in even without a terminal (the URL is printed on stderr)
  --no-oauth             never sign in; send only what -H gives
  --client-id ID         a client registered with the authorization server (default:
                         dynamic registration, or a client ID metadata document)
  --client-secret S      its secret (or MCPKIT_CLIENT_SECRET)
  --client-credentials   machine-to-machine: the client_credentials grant, no browser
  --scope "A B"          scopes to ask for (default: what the server's challenge names)
  --oauth-file FILE      where tokens and the DPoP key are kept (default
                         ~/.config/mcpkit/oauth.json, mode 600)
  --redirect-port N      fixed port for the 127.0.0.1 redirect listener (default: any)
  --no-browser           print the sign-in URL without opening a browser
`;
