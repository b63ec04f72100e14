// The client command the official MCP conformance suite (@modelcontextprotocol/conformance,
// `client` mode) runs against its mock servers:
//
//   npm run --silent conformance:client -- <serverUrl>
//
// The harness appends the server URL as the last argument and names the scenario in
// MCP_CONFORMANCE_SCENARIO. Handled here: the non-auth scenarios `initialize`, `tools_call`,
// `elicitation-sep1034-client-defaults` and `sse-retry` (/work/shared/conformance.md §b.1), and
// the 2026-07-28 ones (§4): `request-metadata`, `sep-2322-client-request-state`,
// `http-standard-headers`, `http-custom-headers`, `http-invalid-tool-headers`,
// `json-schema-ref-no-deref` and `json-schema-2020-12-preservation`; and every `auth/*` scenario
// (§b.2) through OAuthClientAuth, and the skills ones (`sep-2640-client-*`) through the skill
// helpers (listSkills, readSkillFile). Each does what an
// application would (list, call, answer input requests) through McpClient's public API; the
// headers, envelope, retries and tool filtering the harness checks are the library's own doing.
// Exit code 0 means the client did its part; the harness judges the rest from what it saw.
import {
  connectHttp,
  idJagAssertion,
  listSkills,
  readSkillFile,
  SkillVerificationError,
  type McpClient,
  type AuthorizationRequest,
  type ClientOptions,
  type JwtAlgorithm,
  type OAuthOptions,
} from '../src/entries/client.js';

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
    const { client } = await connectHttp(url, { ...baseOptions, elicitation: () => ({ action: 'accept', content: {} }) }, { fetch: watch.fetch });
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

  // ------------------------------------------------------------ 2026-07-28 (stateless) era

  /**
   * SEP-2575: the server refuses the first request with -32022 and names 2026-07-28; the client
   * switches to it, and every request carries the envelope and a matching version header. The
   * mock declares no server capabilities, so connecting (server/discover) is all a client may do.
   * Handlers for all three kinds of input make the client declare roots, sampling and elicitation.
   */
  async 'request-metadata'(url) {
    const { client } = await connectHttp(url, {
      ...modernOptions,
      roots: [{ uri: 'file:///tmp/conformance', name: 'conformance' }],
      sampling: () => ({ role: 'assistant', content: { type: 'text', text: 'unused' }, model: 'none' }),
      elicitation: () => ({ action: 'decline' }),
    });
    await withClient(client, async () => {
      log(`connected: era ${client.era}, protocol ${client.protocolVersion}, server ${client.serverInfo?.name}`);
    });
  },

  /**
   * SEP-2322 multi round-trip: each input_required result is answered by the elicitation
   * handler and retried by McpClient. While the first elicitation is open, an unrelated call
   * goes out; it must carry nothing of the other call's round.
   */
  async 'sep-2322-client-request-state'(url) {
    let unrelated: Promise<unknown> | undefined;
    let client!: McpClient;
    ({ client } = await connectHttp(url, {
      ...modernOptions,
      elicitation: (params) => {
        log(`elicitation: ${params.message}`);
        unrelated ??= client.callTool('test_mrtr_unrelated', {});
        return { action: 'accept', content: { confirmed: true } };
      },
    }));
    await withClient(client, async () => {
      const { tools } = await client.listTools();
      log(`tools: ${tools.map((t) => t.name).join(', ')}`);
      for (const name of ['test_mrtr_echo_state', 'test_mrtr_no_state', 'test_mrtr_no_result_type']) {
        const result = await client.callTool(name, {});
        log(`${name} → ${JSON.stringify(result.content)}`);
      }
      log(`test_mrtr_unrelated → ${JSON.stringify(await (unrelated ?? client.callTool('test_mrtr_unrelated', {})))}`);
    });
  },

  /** SEP-2243 Mcp-Method / Mcp-Name: list, then call, read and get what is listed. */
  async 'http-standard-headers'(url) {
    const { client } = await connectHttp(url, modernOptions);
    await withClient(client, async () => {
      for (const tool of (await client.listTools()).tools) log(`${tool.name} → ${JSON.stringify((await client.callTool(tool.name, {})).content)}`);
      for (const r of (await client.listResources()).resources) log(`${r.uri} → ${JSON.stringify((await client.readResource(r.uri)).contents)}`);
      for (const p of (await client.listPrompts()).prompts) log(`${p.name} → ${JSON.stringify((await client.getPrompt(p.name)).messages)}`);
    });
  },

  /** SEP-2243 Mcp-Param-*: the calls named in the context; McpClient mirrors x-mcp-header arguments. */
  async 'http-custom-headers'(url) {
    const calls = contextOf<{ toolCalls?: Array<{ name: string; arguments?: Record<string, unknown> }> }>().toolCalls ?? [];
    const { client } = await connectHttp(url, modernOptions);
    await withClient(client, async () => {
      const { tools } = await client.listTools();
      log(`tools: ${tools.map((t) => t.name).join(', ')}`);
      for (const call of calls) {
        if (!tools.some((t) => t.name === call.name)) throw new Error(`tool ${call.name} is not listed`);
        log(`${call.name} → ${JSON.stringify((await client.callTool(call.name, call.arguments ?? {})).content)}`);
      }
    });
  },

  /**
   * SEP-2243: tools whose x-mcp-header annotations are invalid are dropped from listTools (with
   * a warning); the client calls every tool it was given, so a tool that survived would be called.
   */
  async 'http-invalid-tool-headers'(url) {
    const { client } = await connectHttp(url, modernOptions);
    await withClient(client, async () => {
      const { tools } = await client.listTools();
      log(`tools kept: ${tools.map((t) => t.name).join(', ')}`);
      for (const tool of tools) log(`${tool.name} → ${JSON.stringify((await client.callTool(tool.name, sampleArguments(tool.inputSchema))).content)}`);
    });
  },

  /** SEP-2106: listing a tool whose schema `$ref`s a network URL must not fetch it. */
  async 'json-schema-ref-no-deref'(url) {
    const { client } = await connectHttp(url, modernOptions);
    await withClient(client, async () => {
      const { tools } = await client.listTools();
      for (const tool of tools) log(`${tool.name}: ${JSON.stringify(tool.inputSchema)}`);
    });
  },

  /** SEP-1613/2106: the inputSchema as listed, echoed back verbatim through a tool call. */
  async 'json-schema-2020-12-preservation'(url) {
    const { client } = await connectHttp(url, modernOptions);
    await withClient(client, async () => {
      const { tools } = await client.listTools();
      const focal = tools.find((t) => t.name === 'json_schema_2020_12_tool');
      if (!focal) throw new Error('json_schema_2020_12_tool is not listed');
      const result = await client.callTool('json_schema_echo', { schema: focal.inputSchema });
      log(`json_schema_echo → ${JSON.stringify(result.content)}`);
    });
  },
};

/**
 * The harness's authorization server answers /authorize with a 302 to the redirect URI; there
 * is no browser, so the redirect is read by hand, as a user's browser would deliver it.
 */
async function headlessAuthorize(request: AuthorizationRequest): Promise<string> {
  const res = await fetch(request.url, { redirect: 'manual' });
  const location = res.headers.get('location');
  res.body?.cancel().catch(() => {});
  if (!location) throw new Error(`the authorization endpoint answered HTTP ${res.status} without a redirect`);
  return new URL(location, request.url).href;
}

/**
 * Every `auth/*` scenario (conformance.md §b.2): connect with OAuth, list the tools and call each.
 * Discovery, registration (pre-registered, CIMD or dynamic), PKCE, scopes and step-up are
 * OAuthClientAuth's doing; the scenario only gives it what an application would: a way to send
 * the user to the authorization URL, a redirect URI, a CIMD URL, and credentials when the
 * context has them.
 */
async function authScenario(url: string, name: string): Promise<void> {
  const ctx = contextOf<{
    client_id?: string;
    client_secret?: string;
    private_key_pem?: string;
    signing_algorithm?: string;
    valid_jwt?: string;
    idp_client_id?: string;
    idp_id_token?: string;
    idp_token_endpoint?: string;
  }>();
  // Enterprise-managed authorization (SEP-990): the user's ID token from the IdP becomes an
  // ID-JAG there, which the MCP server's authorization server takes as a JWT bearer grant.
  const enterprise =
    ctx.idp_token_endpoint && ctx.idp_id_token && ctx.idp_client_id
      ? idJagAssertion({ tokenEndpoint: ctx.idp_token_endpoint, idToken: ctx.idp_id_token, clientId: ctx.idp_client_id })
      : undefined;
  const auth: OAuthOptions = enterprise
    ? { assertion: enterprise, clientId: ctx.client_id, clientSecret: ctx.client_secret }
    : ctx.valid_jwt // workload identity (SEP-1933): a JWT from the platform, presented as is
      ? { assertion: ctx.valid_jwt, clientId: ctx.client_id }
      : name.startsWith('auth/client-credentials')
        ? {
            grant: 'client_credentials',
            clientId: ctx.client_id,
            clientSecret: ctx.client_secret,
            privateKey: ctx.private_key_pem ? { key: ctx.private_key_pem, algorithm: (ctx.signing_algorithm ?? 'ES256') as JwtAlgorithm } : undefined,
          }
        : {
            authorize: headlessAuthorize,
            redirectUri: 'http://localhost:3000/callback',
            clientMetadataUrl: 'https://conformance-test.local/client-metadata.json',
            clientMetadata: { client_name: 'mcpkit conformance client' },
            clientId: ctx.client_id,
            clientSecret: ctx.client_secret,
          };
  const { client } = await connectHttp(url, baseOptions, { auth });
  await withClient(client, async () => {
    const { tools } = await client.listTools();
    log(`tools: ${tools.map((t) => t.name).join(', ')}`);
    for (const tool of tools) log(`${tool.name} → ${JSON.stringify((await client.callTool(tool.name, {})).content)}`);
  });
}

/** The 2026-07-28 scenarios pin nothing: connectHttp negotiates the era and the version. */
const modernOptions: Partial<ClientOptions> = { ...baseOptions, era: 'auto' };

/**
 * A host with skills (SEP-2640): list them (reading no file), then, as if the model loaded the
 * first one, read its SKILL.md and then a supporting file it names. Every read is verified; a
 * file that fails verification is not used and the skill goes no further (not an error of the
 * host's: exit 0).
 */
async function skillsScenario(url: string, load: boolean): Promise<void> {
  const { client } = await connectHttp(url, modernOptions);
  await withClient(client, async () => {
    const skills = await listSkills(client);
    log(`skills: ${skills.map((s) => s.uri).join(', ')}`);
    const skill = skills[0];
    if (!load || !skill || skill.resources === 'dynamic') return;
    try {
      await readSkillFile(client, skill);
      const next = skill.resources.find((r) => r.uri !== skill.uri);
      if (next) await readSkillFile(client, skill, next.uri);
      log(`loaded ${skill.uri}`);
    } catch (e) {
      if (!(e instanceof SkillVerificationError)) throw e;
      log(`refused ${skill.uri}: ${e.message}`);
    }
  });
}

/** MCP_CONFORMANCE_CONTEXT, when the scenario gives one. */
function contextOf<T>(): T {
  const raw = process.env.MCP_CONFORMANCE_CONTEXT;
  return (raw ? JSON.parse(raw) : {}) as T;
}

/** Arguments that satisfy a flat object schema: a placeholder per required property, by type. */
function sampleArguments(schema: unknown): Record<string, unknown> {
  const { properties = {}, required = [] } = (schema ?? {}) as { properties?: Record<string, { type?: unknown }>; required?: string[] };
  const sample: Record<string, unknown> = { string: 'us-west1', integer: 1, number: 1, boolean: true, object: {}, array: [], null: null };
  return Object.fromEntries(required.map((k) => [k, sample[String(properties[k]?.type)] ?? 'us-west1']));
}

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
  const scenario = name.startsWith('auth/')
    ? (u: string) => authScenario(u, name)
    : name.startsWith('sep-2640-client-')
      ? (u: string) => skillsScenario(u, name !== 'sep-2640-client-no-prefetch')
      : scenarios[name];
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
