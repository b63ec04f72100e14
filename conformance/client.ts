// The client command the official MCP conformance suite (@modelcontextprotocol/conformance,
// `client` mode) runs against its mock servers:
//
//   npm run --silent conformance:client -- <serverUrl>
//
// The harness appends the server URL as the last argument and names the scenario in
// MCP_CONFORMANCE_SCENARIO. Handled here: the non-auth scenarios `initialize`, `tools_call`,
// `elicitation-sep1034-client-defaults` and `sse-retry` (/work/shared/conformance.md §b.1).
// Exit code 0 means the client did its part; the harness judges the rest from what it saw.
import { McpClient, type ClientOptions } from '../src/index.js';
import { connectHttp } from '../src/transports/http/client/index.js';

type Scenario = (url: string) => Promise<void>;

const log = (msg: string) => process.stderr.write(`[conformance-client] ${msg}\n`);

/**
 * A fetch that reports when the standalone GET stream (a GET without Last-Event-ID) is open.
 * Messages a server sends outside any request travel only on that stream, so scenarios that
 * rely on them must not start before it exists.
 */
function watchedFetch(): { fetch: typeof fetch; getStreamOpen: Promise<void> } {
  let opened!: () => void;
  const getStreamOpen = new Promise<void>((resolve) => (opened = resolve));
  const wrapped: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    const headers = new Headers(init?.headers);
    if (init?.method === 'GET' && !headers.has('last-event-id') && res.ok) opened();
    return res;
  };
  return { fetch: wrapped, getStreamOpen };
}

async function within(promise: Promise<void>, ms: number, what: string): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      log(`${what}: not seen after ${ms} ms, going on`);
      resolve();
    }, ms);
  });
  await Promise.race([promise, timeout]);
  clearTimeout(timer);
}

const baseOptions: Partial<ClientOptions> = {
  name: 'mcpkit-conformance-client',
  version: '0.1.0',
  // The newer harness names the revision it runs; for 2026-07-28 the client negotiates the era
  // (the mock servers there speak only the stateless wire). Older runs keep the handshake.
  era: process.env.MCP_CONFORMANCE_PROTOCOL_VERSION?.startsWith('2026') ? 'auto' : 'handshake',
  onerror: (err) => log(`client error: ${err.message}`),
};

async function withClient(client: McpClient, body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } finally {
    await client.close();
  }
}

const scenarios: Record<string, Scenario> = {
  /** initialize → initialized (→ tools/list when the server offers tools). */
  async initialize(url) {
    const { client } = await connectHttp(url, baseOptions);
    await withClient(client, async () => {
      log(`connected: protocol ${client.protocolVersion}, server ${client.serverInfo?.name}`);
      if (client.serverCapabilities?.tools) await client.listTools();
    });
  },

  /** initialize, list tools, call add_numbers. */
  async tools_call(url) {
    const { client } = await connectHttp(url, baseOptions);
    await withClient(client, async () => {
      const { tools } = await client.listTools();
      log(`tools: ${tools.map((t) => t.name).join(', ')}`);
      const result = await client.callTool('add_numbers', { a: 5, b: 3 });
      log(`add_numbers → ${JSON.stringify(result.content)}`);
    });
  },

  /**
   * The server elicits outside the tools/call (on the GET stream); the client accepts with no
   * content and McpClient fills in the schema's defaults (SEP-1034).
   */
  async 'elicitation-sep1034-client-defaults'(url) {
    const watch = watchedFetch();
    const { client } = await connectHttp(
      url,
      { ...baseOptions, elicitation: () => ({ action: 'accept', content: {} }) },
      { fetch: watch.fetch },
    );
    await withClient(client, async () => {
      await within(watch.getStreamOpen, 5000, 'standalone GET stream');
      const { tools } = await client.listTools();
      const tool = tools.find((t) => t.name === 'test_client_elicitation_defaults') ?? tools[0];
      if (!tool) throw new Error('the server lists no tools');
      const result = await client.callTool(tool.name, {});
      log(`${tool.name} → ${JSON.stringify(result.content)}`);
    });
  },

  /**
   * test_reconnection: the server closes the tools/call stream after a priming event with
   * `retry: 500`; the transport must resume with GET + Last-Event-ID after that delay.
   */
  async 'sse-retry'(url) {
    const watch = watchedFetch();
    const { client } = await connectHttp(url, baseOptions, { fetch: watch.fetch });
    await withClient(client, async () => {
      // The resumed GET must be the last GET the server sees: let the standalone one go first.
      await within(watch.getStreamOpen, 5000, 'standalone GET stream');
      const { tools } = await client.listTools();
      const tool = tools.find((t) => t.name === 'test_reconnection') ?? tools[0];
      if (!tool) throw new Error('the server lists no tools');
      const result = await client.callTool(tool.name, {});
      log(`${tool.name} → ${JSON.stringify(result.content)}`);
    });
  },
};

async function main(): Promise<number> {
  const url = process.argv[process.argv.length - 1];
  const name = process.env.MCP_CONFORMANCE_SCENARIO;
  if (!url || !/^https?:\/\//.test(url)) {
    log('usage: conformance/client.ts <serverUrl>   (scenario in MCP_CONFORMANCE_SCENARIO)');
    return 2;
  }
  if (!name) {
    log('MCP_CONFORMANCE_SCENARIO is not set');
    return 2;
  }
  const scenario = scenarios[name];
  if (!scenario) {
    log(`Unknown scenario: ${name} (handled: ${Object.keys(scenarios).join(', ')})`);
    return 1;
  }
  log(`scenario ${name} against ${url}`);
  await scenario(url);
  log(`scenario ${name} done`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    log(`failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(1);
  },
);
