import type { OAuthClientAuth } from './auth/oauth.js';
import type { OAuthOptions } from './auth/options.js';
import { McpClient, type ClientOptions } from './client.js';
import { eraCache, eraOf, httpEraKey } from './era.js';
import { HttpStatusError, type HeadersOption } from '../transports/http/client/http-common.js';
import { SseClientTransport } from '../transports/http/client/sse-legacy.js';
import { StreamableHttpClientTransport, type StreamableHttpClientTransportOptions } from '../transports/http/client/streamable.js';

/** Transport options for {@link connectHttp}; `headers` and `fetch` apply to both transports. */
export type ConnectHttpTransportOptions = Omit<StreamableHttpClientTransportOptions, 'url'> & {
  headers?: HeadersOption;
  /** How long the HTTP+SSE fallback waits for the server's `endpoint` event (ms). */
  endpointTimeoutMs?: number;
  /** Told when the initialize POST was refused and the HTTP+SSE fallback is tried (to say so). */
  onfallback?: (refused: HttpStatusError) => void;
  /**
   * OAuth 2.1 as the MCP authorization spec describes: the options, or an OAuthClientAuth to
   * share one sign-in between clients. Every request then carries the access token, and a 401
   * or 403 insufficient_scope signs in (again) and retries.
   */
  auth?: OAuthOptions | OAuthClientAuth;
};

/**
 * The transport options with `auth` turned into a fetch that carries the tokens. The OAuth
 * client is loaded only here, when asked for: most connections never sign in.
 */
async function withAuth(url: string | URL, options: ConnectHttpTransportOptions): Promise<Omit<ConnectHttpTransportOptions, 'auth'>> {
  const { auth, ...rest } = options;
  if (!auth) return rest;
  const oauth = isOAuthClientAuth(auth) ? auth : new (await import('./auth/oauth.js')).OAuthClientAuth(url, auth);
  if (rest.fetch) oauth.wrap(rest.fetch);
  return { ...rest, fetch: oauth.fetch };
}

/** An OAuthClientAuth, told from OAuthOptions without loading its class (options have no `wrap`). */
function isOAuthClientAuth(auth: OAuthOptions | OAuthClientAuth): auth is OAuthClientAuth {
  return typeof (auth as { wrap?: unknown }).wrap === 'function';
}

export interface ConnectHttpResult {
  client: McpClient;
  transport: 'streamable-http' | 'sse';
}

/** Statuses that mean "no Streamable HTTP endpoint here" when they answer the initialize POST. */
const FALLBACK_STATUSES = new Set([400, 404, 405]);

/**
 * Connects to an MCP server over HTTP, as the spec's backwards-compatibility sections describe.
 * With `era: 'auto'` a 2026-07-28 `server/discover` POST goes first: a
 * DiscoverResult, or a recognised modern error in a 400/404/405 body, means the stateless era.
 * Otherwise the handshake era: an `initialize` POST; if that is refused with 400, 404 or 405,
 * the URL is taken to be a deprecated HTTP+SSE endpoint (GET for the `endpoint` event, then
 * POSTs). A 401/403 or a network failure is thrown as is, as is any other failure of the
 * initialize POST. Under 'auto' the outcome is remembered per origin + path; a remembered
 * answer that no longer works is forgotten and detection runs once more.
 */
export async function connectHttp(
  url: string | URL,
  clientOptions: Partial<ClientOptions> = {},
  transportOptions: ConnectHttpTransportOptions = {},
): Promise<ConnectHttpResult> {
  transportOptions = await withAuth(url, transportOptions);
  const auto = eraOf(clientOptions) === 'auto';
  const key = httpEraKey(url);
  const remembered = auto ? eraCache.get(key) : undefined;
  try {
    return await attempt(url, clientOptions, transportOptions, remembered === 'sse');
  } catch (err) {
    // An authentication failure says nothing about the era: detecting again would only repeat it.
    if (remembered === undefined || (err instanceof HttpStatusError && (err.status === 401 || err.status === 403))) throw err;
    eraCache.delete(key);
    return attempt(url, clientOptions, transportOptions, false);
  }
}

async function attempt(
  url: string | URL,
  clientOptions: Partial<ClientOptions>,
  transportOptions: ConnectHttpTransportOptions,
  sseFirst: boolean,
): Promise<ConnectHttpResult> {
  const { endpointTimeoutMs, onfallback, ...streamableOptions } = transportOptions;
  const make = () => new McpClient({ name: 'mcpkit-client', version: '0.1.0', ...clientOptions });
  const sse = async (): Promise<ConnectHttpResult> => {
    const transport = new SseClientTransport({ url, headers: transportOptions.headers, fetch: transportOptions.fetch, endpointTimeoutMs });
    const client = make();
    try {
      await client.connect(transport);
    } catch (err) {
      await transport.close().catch(() => {});
      throw err;
    }
    if (eraOf(clientOptions) === 'auto') eraCache.set(httpEraKey(url), 'sse');
    return { client, transport: 'sse' };
  };
  if (sseFirst) return sse();
  const streamable = new StreamableHttpClientTransport({ ...streamableOptions, url });
  const client = make();
  try {
    await client.connect(streamable);
    return { client, transport: 'streamable-http' };
  } catch (err) {
    // Only a refused initialize means "another transport": once the server has answered it,
    // the endpoint speaks Streamable HTTP and later failures are real ones.
    if (!(err instanceof HttpStatusError) || !FALLBACK_STATUSES.has(err.status) || streamable.protocolVersion !== undefined) throw err;
    onfallback?.(err);
    try {
      return await sse();
    } catch (sseErr) {
      throw new AggregateError(
        [err, sseErr],
        `Could not connect to ${String(url)}: Streamable HTTP was refused (${err.message}) and the HTTP+SSE fallback failed (${(sseErr as Error).message})`,
      );
    }
  }
}
