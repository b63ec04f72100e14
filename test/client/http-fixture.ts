// OUR McpServer served over HTTP by OUR serve(), for the client-against-our-server tests
// (not a test file itself).
import { z } from 'zod';
import { McpClient, type ClientOptions } from '../../src/client/client.js';
import { McpServer } from '../../src/server/mcp-server.js';
import { StreamableHttpClientTransport, type StreamableHttpClientTransportOptions } from '../../src/transports/http/client/streamable.js';
import { serve, type RunningServer, type ServeOptions } from '../../src/serving/node.js';

export const text = (r: { content: Array<{ type: string; text?: string }> }) => r.content[0]?.text;

export interface OurServer {
  mcp: McpServer;
  running: RunningServer;
  url: string;
  /** Every JSON-RPC method the server received, in order (all sessions). */
  methods: string[];
  /** How many `initialize` requests reached the server. */
  inits(): number;
  close(): Promise<void>;
}

export async function startOurServer(options: ServeOptions = {}): Promise<OurServer> {
  const mcp = new McpServer({ name: 'our-http', version: '1.0.0' });
  const methods: string[] = [];
  mcp.use({
    incoming: async (m, next) => {
      if ('method' in m) methods.push(m.method);
      await next(m);
    },
  });
  mcp.tool('echo', { input: { text: z.string() } }, ({ text }) => text);
  mcp.tool('progress', { input: { steps: z.number().int() } }, async ({ steps }, ctx) => {
    for (let i = 1; i <= steps; i++) {
      // No pause between steps: notifications and the result may share one read, and the client
      // must still deliver every step before the result.
      await ctx.progress(i, steps, `step ${i}`);
    }
    return `did ${steps}`;
  });
  mcp.tool('ask', async (_args, ctx) => {
    const r = await ctx.elicit({ message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
    return r.action === 'accept' ? `hello ${String(r.content?.name)}` : r.action;
  });
  const running = await serve(mcp, { port: 0, host: '127.0.0.1', ...options });
  return {
    mcp,
    running,
    url: running.url,
    methods,
    inits: () => methods.filter((m) => m === 'initialize').length,
    close: () => running.close(),
  };
}

/** A client over our Streamable HTTP transport (kept at hand for its session id). */
export async function openClient(
  url: string,
  transportOptions: Partial<StreamableHttpClientTransportOptions> = {},
  clientOptions: Partial<ClientOptions> = {},
): Promise<{ client: McpClient; transport: StreamableHttpClientTransport; errors: Error[] }> {
  const errors: Error[] = [];
  const transport = new StreamableHttpClientTransport({ url, reconnect: { initialDelayMs: 10 }, ...transportOptions });
  const client = new McpClient({ name: 'our-client', version: '1.0.0', onerror: (e) => errors.push(e), ...clientOptions });
  await client.connect(transport);
  return { client, transport, errors };
}

/** Ends a session from outside, as another party (or an admin) would: a raw DELETE. */
export async function deleteSession(url: string, sessionId: string): Promise<void> {
  const res = await fetch(url, { method: 'DELETE', headers: { 'mcp-session-id': sessionId } });
  await res.body?.cancel();
  if (res.status !== 200) throw new Error(`DELETE answered ${res.status}`);
}
