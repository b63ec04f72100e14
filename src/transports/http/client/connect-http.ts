import { McpClient, type ClientOptions } from '../../../client/client.js';
import { HttpStatusError, type HeadersOption } from './http-common.js';
import { SseClientTransport } from './sse-legacy.js';
import { StreamableHttpClientTransport, type StreamableHttpClientTransportOptions } from './streamable.js';

/** Transport options for {@link connectHttp}; `headers` and `fetch` apply to both transports. */
export type ConnectHttpTransportOptions = Omit<StreamableHttpClientTransportOptions, 'url'> & {
  headers?: HeadersOption;
  /** How long the HTTP+SSE fallback waits for the server's `endpoint` event (ms). */
  endpointTimeoutMs?: number;
};

export interface ConnectHttpResult {
  client: McpClient;
  transport: 'streamable-http' | 'sse';
}

/** Statuses that mean "no Streamable HTTP endpoint here" when they answer the initialize POST. */
const FALLBACK_STATUSES = new Set([400, 404, 405]);

/**
 * Connects to an MCP server over HTTP, as the spec's backwards-compatibility section describes:
 * Streamable HTTP first; if the initialize POST is refused with 400, 404 or 405, the URL is
 * taken to be a deprecated HTTP+SSE endpoint (GET for the `endpoint` event, then POSTs).
 * Any other failure is thrown as is.
 */
export async function connectHttp(
  url: string | URL,
  clientOptions: Partial<ClientOptions> = {},
  transportOptions: ConnectHttpTransportOptions = {},
): Promise<ConnectHttpResult> {
  const { endpointTimeoutMs, ...streamableOptions } = transportOptions;
  const make = () => new McpClient({ name: 'mcpkit-client', version: '0.1.0', ...clientOptions });
  const streamable = new StreamableHttpClientTransport({ ...streamableOptions, url });
  const client = make();
  try {
    await client.connect(streamable);
    return { client, transport: 'streamable-http' };
  } catch (err) {
    // Only a refused initialize means "another transport": once the server has answered it,
    // the endpoint speaks Streamable HTTP and later failures are real ones.
    if (!(err instanceof HttpStatusError) || !FALLBACK_STATUSES.has(err.status) || streamable.protocolVersion !== undefined) throw err;
    const sse = new SseClientTransport({ url, headers: transportOptions.headers, fetch: transportOptions.fetch, endpointTimeoutMs });
    const legacy = make();
    try {
      await legacy.connect(sse);
    } catch (sseErr) {
      await sse.close().catch(() => {});
      throw new AggregateError([err, sseErr], `Could not connect to ${String(url)}: Streamable HTTP was refused (${err.message}) and the HTTP+SSE fallback failed (${(sseErr as Error).message})`);
    }
    return { client: legacy, transport: 'sse' };
  }
}
