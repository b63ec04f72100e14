// The demo server's bundled data: a small document set (searched by search_docs, exposed as
// resources) and deterministic weather.

export interface Doc {
  id: string;
  title: string;
  tags: string[];
  body: string;
}

export const DOCS: Doc[] = [
  {
    id: 'what-is-mcp',
    title: 'What is MCP?',
    tags: ['mcp', 'overview'],
    body: 'The Model Context Protocol (MCP) is an open protocol that connects AI applications to tools, data and prompts through a common JSON-RPC interface.',
  },
  {
    id: 'architecture',
    title: 'MCP architecture',
    tags: ['mcp', 'overview'],
    body: 'MCP has hosts, clients and servers. A host (an IDE, a chat app) runs one client per server; each server offers tools, resources and prompts.',
  },
  {
    id: 'json-rpc',
    title: 'JSON-RPC messages',
    tags: ['mcp', 'protocol'],
    body: 'Every MCP message is JSON-RPC 2.0: requests carry an id and expect a response, notifications carry no id and expect nothing.',
  },
  {
    id: 'lifecycle',
    title: 'Connection lifecycle',
    tags: ['mcp', 'protocol'],
    body: 'A handshake-era connection starts with initialize, where client and server agree on a protocol version and capabilities, then notifications/initialized.',
  },
  {
    id: 'versions',
    title: 'Protocol versions',
    tags: ['mcp', 'protocol'],
    body: 'MCP revisions are dated: 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25 and the stateless 2026-07-28 era.',
  },
  {
    id: 'stateless-era',
    title: 'The stateless 2026-07-28 era',
    tags: ['mcp', 'protocol', 'http'],
    body: 'From 2026-07-28 every request carries its own protocol version and capabilities in _meta, so servers need no sessions and scale horizontally.',
  },
  {
    id: 'tools',
    title: 'Tools',
    tags: ['mcp', 'tools'],
    body: 'Tools are functions a model can call. Each tool has a name, a description and a JSON Schema for its input; results are content blocks.',
  },
  {
    id: 'tool-errors',
    title: 'Tool errors',
    tags: ['mcp', 'tools', 'errors'],
    body: 'A tool that fails returns a result with isError true so the model can read the error and try again; unknown tools are JSON-RPC errors.',
  },
  {
    id: 'structured-output',
    title: 'Structured tool output',
    tags: ['mcp', 'tools'],
    body: 'Tools may declare an output schema and return structuredContent, a JSON value clients can use directly, with a text copy for older clients.',
  },
  {
    id: 'resources',
    title: 'Resources',
    tags: ['mcp', 'resources'],
    body: 'Resources are data a server exposes by URI: files, database rows, documents. Clients list them and read their contents as text or binary blobs.',
  },
  {
    id: 'resource-templates',
    title: 'Resource templates',
    tags: ['mcp', 'resources'],
    body: 'A resource template is an RFC 6570 URI template such as docs://mcpkit/{id}; clients fill in the variables, helped by completions.',
  },
  {
    id: 'subscriptions',
    title: 'Resource subscriptions',
    tags: ['mcp', 'resources', 'notifications'],
    body: 'Clients may subscribe to a resource URI and receive notifications/resources/updated whenever it changes.',
  },
  {
    id: 'prompts',
    title: 'Prompts',
    tags: ['mcp', 'prompts'],
    body: 'Prompts are reusable message templates with arguments, chosen by the user (slash commands in many hosts) rather than by the model.',
  },
  {
    id: 'completions',
    title: 'Argument completions',
    tags: ['mcp', 'prompts', 'resources'],
    body: 'completion/complete suggests values for prompt arguments and resource template variables as the user types.',
  },
  {
    id: 'progress',
    title: 'Progress notifications',
    tags: ['mcp', 'notifications'],
    body: 'A request may carry a progressToken; the server then sends notifications/progress with progress, total and a message while it works.',
  },
  {
    id: 'cancellation',
    title: 'Cancellation',
    tags: ['mcp', 'notifications'],
    body: 'Either side may cancel a request it sent with notifications/cancelled; the receiver stops work and sends no response.',
  },
  {
    id: 'logging',
    title: 'Logging',
    tags: ['mcp', 'notifications'],
    body: 'Servers send log messages with notifications/message; clients choose the minimum level with logging/setLevel.',
  },
  {
    id: 'list-changed',
    title: 'List changes',
    tags: ['mcp', 'notifications', 'tools'],
    body: 'When its tools, resources or prompts change, a server sends notifications/tools/list_changed (and the like) so clients list them again.',
  },
  {
    id: 'pagination',
    title: 'Pagination',
    tags: ['mcp', 'protocol'],
    body: 'List results may be split into pages: the server returns nextCursor and the client passes it back as cursor to get the next page.',
  },
  {
    id: 'sampling',
    title: 'Sampling',
    tags: ['mcp', 'client'],
    body: 'With sampling a server asks the client to run a model completion for it, so servers can use AI without holding API keys.',
  },
  {
    id: 'elicitation',
    title: 'Elicitation',
    tags: ['mcp', 'client'],
    body: 'Elicitation lets a server ask the user for input through the client: a small form described by a JSON Schema, or a URL to visit.',
  },
  {
    id: 'roots',
    title: 'Roots',
    tags: ['mcp', 'client'],
    body: 'Roots tell a server which directories or projects the client considers in scope, as file:// URIs.',
  },
  {
    id: 'stdio-transport',
    title: 'The stdio transport',
    tags: ['mcp', 'transports'],
    body: 'Over stdio the client starts the server as a child process and exchanges newline-delimited JSON on its stdin and stdout; logs go to stderr.',
  },
  {
    id: 'streamable-http',
    title: 'Streamable HTTP',
    tags: ['mcp', 'transports', 'http'],
    body: 'Streamable HTTP uses one endpoint: clients POST messages and get JSON or an SSE stream back, GET opens a stream for server messages, DELETE ends the session.',
  },
  {
    id: 'sessions',
    title: 'HTTP sessions',
    tags: ['mcp', 'http'],
    body: 'A Streamable HTTP server may assign an Mcp-Session-Id at initialize; the client sends it on every request until the server answers 404.',
  },
  {
    id: 'resumption',
    title: 'Resuming SSE streams',
    tags: ['mcp', 'http'],
    body: 'Servers may give SSE events ids; after a dropped connection the client reconnects with GET and Last-Event-ID to receive what it missed.',
  },
  {
    id: 'legacy-sse',
    title: 'The deprecated HTTP+SSE transport',
    tags: ['mcp', 'transports', 'http'],
    body: 'The 2024-11-05 transport opens a GET /sse stream whose first event names the endpoint where the client POSTs its messages.',
  },
  {
    id: 'security',
    title: 'Security basics',
    tags: ['mcp', 'security', 'http'],
    body: 'Bind local servers to 127.0.0.1, check Origin headers against DNS rebinding, require authentication for remote servers and never pass tokens through.',
  },
  {
    id: 'authorization',
    title: 'Authorization',
    tags: ['mcp', 'security', 'http'],
    body: 'Remote MCP servers use OAuth 2.1: the server is a resource server that advertises its authorization server and validates bearer tokens.',
  },
  {
    id: 'mcpkit-cli',
    title: 'The mcpkit command',
    tags: ['mcpkit', 'cli'],
    body: 'mcpkit serve runs this demo server; mcpkit tools, call, read, prompt and inspect talk to any MCP server; --trace shows the wire.',
  },
  {
    id: 'mcpkit-bridge',
    title: 'Bridging transports',
    tags: ['mcpkit', 'cli', 'transports'],
    body: 'mcpkit bridge exposes a stdio server over HTTP, or a remote HTTP server as a local stdio server for hosts that only speak stdio.',
  },
  {
    id: 'testing-servers',
    title: 'Testing MCP servers',
    tags: ['mcpkit', 'testing'],
    body: 'Connect a client and server in memory with createTestPair and assert on the exact messages that crossed the wire.',
  },
];

export function docText(d: Doc): string {
  return `# ${d.title}\n\n${d.body}\n\nTags: ${d.tags.join(', ')}\n`;
}

export const PAGE_SIZE = 10;

/** Documents matching every keyword (case-insensitive, in title, tags or body). */
export function searchDocs(query: string): Doc[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  return DOCS.filter((d) => {
    const hay = `${d.title} ${d.tags.join(' ')} ${d.body}`.toLowerCase();
    return words.every((w) => hay.includes(w));
  });
}

export const CONDITIONS = ['sunny', 'cloudy', 'rainy', 'snowy', 'windy', 'foggy', 'stormy'] as const;
export type Condition = (typeof CONDITIONS)[number];

export interface Weather {
  city: string;
  condition: Condition;
  temperatureC: number;
  humidity: number;
  windKmh: number;
}

const KNOWN: Record<string, Omit<Weather, 'city'>> = {
  oslo: { condition: 'snowy', temperatureC: -3, humidity: 80, windKmh: 12 },
  london: { condition: 'rainy', temperatureC: 11, humidity: 88, windKmh: 18 },
  paris: { condition: 'cloudy', temperatureC: 14, humidity: 70, windKmh: 10 },
  tokyo: { condition: 'sunny', temperatureC: 22, humidity: 55, windKmh: 8 },
  'new york': { condition: 'windy', temperatureC: 9, humidity: 60, windKmh: 35 },
  sydney: { condition: 'sunny', temperatureC: 26, humidity: 50, windKmh: 15 },
  'san francisco': { condition: 'foggy', temperatureC: 15, humidity: 85, windKmh: 20 },
  reykjavik: { condition: 'stormy', temperatureC: 2, humidity: 90, windKmh: 60 },
  cairo: { condition: 'sunny', temperatureC: 33, humidity: 20, windKmh: 9 },
  singapore: { condition: 'rainy', temperatureC: 30, humidity: 92, windKmh: 7 },
};

export const CITIES = ['Oslo', 'London', 'Paris', 'Tokyo', 'New York', 'Sydney', 'San Francisco', 'Reykjavik', 'Cairo', 'Singapore'];

/** The same answer for the same city, every time; unknown cities get a stable pseudo-random day. */
export function weatherFor(city: string): Weather {
  const key = city.trim().toLowerCase();
  const known = KNOWN[key];
  if (known) return { city: CITIES.find((c) => c.toLowerCase() === key) ?? city, ...known };
  let h = 2166136261;
  for (const ch of key) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
  return {
    city: city.trim(),
    condition: CONDITIONS[h % CONDITIONS.length],
    temperatureC: (h % 36) - 5,
    humidity: 30 + (h % 61),
    windKmh: h % 45,
  };
}

export const ACTIVITIES: Record<Condition, string> = {
  sunny: 'Go for a hike or have a picnic in the park.',
  cloudy: 'Visit a museum, then walk around the old town.',
  rainy: 'Find a cosy café and read a good book.',
  snowy: 'Go skiing, or build a snowman.',
  windy: 'Fly a kite on an open field.',
  foggy: 'Take moody photographs by the water.',
  stormy: 'Stay in: board games and hot chocolate.',
};
