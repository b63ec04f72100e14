// The demo server `mcpkit serve` runs with no MODULE: one of everything a newcomer wants to see
// on the wire. Plain JSON Schemas (no schema library needed), deterministic answers.
import { McpServer } from '../../server/mcp-server.js';
import { tasks } from '../../extensions/tasks/extension.js';
import type { RequestContext } from '../../server/context.js';
import type { ContentBlock } from '../../protocol/types.js';
import { ErrorCode, McpError } from '../../jsonrpc/errors.js';
import { resourceNotFound } from '../../server/resources.js';
import { version } from '../args.js';
import { ACTIVITIES, CITIES, CONDITIONS, DOCS, docText, PAGE_SIZE, searchDocs, weatherFor, type Condition } from './data.js';

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        reject(signal.reason);
      },
      { once: true },
    );
  });

/** The caller's network address, without the IPv4-mapped IPv6 prefix. */
export function callerAddress(ctx: RequestContext): string | undefined {
  return ctx.remoteAddress?.replace(/^::ffff:/, '');
}

/** The start of a text, cut at a word boundary. */
function snippet(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.lastIndexOf(' ', max - 1);
  return `${text.slice(0, cut > 0 ? cut : max - 1)}…`;
}

const prefixMatch = (values: readonly string[]) => (typed: string) => values.filter((v) => v.toLowerCase().startsWith(typed.toLowerCase()));

export const DEMO_INSTRUCTIONS = `The mcpkit demo server. Try: echo, count (progress notifications), test_throw (an error
result), echo_ip, get_weather and suggest_activity, search_docs (paged, structured results),
the docs://mcpkit/... resources, the plan_day and summarize_doc prompts (with completions),
greet_me (elicitation), ask_model (sampling), toggle_bonus_tool (tools/list_changed), and
build_report (a task, for clients that poll).`;

export function createDemoServer(): McpServer {
  const server = new McpServer({
    name: 'mcpkit-demo',
    title: 'mcpkit demo server',
    version: version(),
    instructions: DEMO_INSTRUCTIONS,
    extensions: [tasks()],
  });

  server.tool(
    'echo',
    {
      title: 'Echo',
      description: 'Returns the message you send.',
      input: { type: 'object', properties: { message: { type: 'string', description: 'Text to echo back' } }, required: ['message'] },
      annotations: { readOnlyHint: true },
    },
    (args) => String(args.message),
  );

  server.tool(
    'count',
    {
      title: 'Count',
      description: 'Counts from 1 to n, one step every 100 ms, with a progress notification per step.',
      input: { type: 'object', properties: { n: { type: 'integer', minimum: 1, maximum: 1000, default: 5, description: 'Where to count to' } } },
      annotations: { readOnlyHint: true },
    },
    async (args, ctx) => {
      const n = typeof args.n === 'number' ? args.n : 5;
      await ctx.log('info', `counting to ${n}`, 'count');
      for (let i = 1; i <= n; i++) {
        await sleep(100, ctx.signal);
        await ctx.progress(i, n, `Step ${i} of ${n}`);
      }
      await ctx.log('debug', `counted to ${n}`, 'count');
      return `Counted to ${n}.`;
    },
  );

  server.tool(
    'test_throw',
    {
      title: 'Always fails',
      description: 'Throws an error, which reaches the client as a result with isError: true.',
    },
    () => {
      throw new Error('test_throw failed on purpose: this is what a tool error looks like');
    },
  );

  server.tool(
    'echo_ip',
    {
      title: 'Echo IP',
      description: "Returns the caller's network address (HTTP), or says there is none (stdio).",
      annotations: { readOnlyHint: true },
    },
    (_args, ctx) => {
      const ip = callerAddress(ctx);
      return ip ? `Your address: ${ip}` : 'No network address: this connection is not over HTTP (stdio or in-memory).';
    },
  );

  server.tool(
    'get_weather',
    {
      title: 'Get weather',
      description: `Current weather for a city (demo data, deterministic). Known cities: ${CITIES.join(', ')}.`,
      input: { type: 'object', properties: { city: { type: 'string', description: 'City name' } }, required: ['city'] },
      output: {
        type: 'object',
        properties: {
          city: { type: 'string' },
          condition: { type: 'string', enum: [...CONDITIONS] },
          temperatureC: { type: 'number' },
          humidity: { type: 'number' },
          windKmh: { type: 'number' },
        },
        required: ['city', 'condition', 'temperatureC', 'humidity', 'windKmh'],
      },
      annotations: { readOnlyHint: true, idempotentHint: true },
    },
    (args) => ({ ...weatherFor(String(args.city)) }),
  );

  server.tool(
    'suggest_activity',
    {
      title: 'Suggest an activity',
      description: 'Something to do in the given weather condition (use get_weather first).',
      input: {
        type: 'object',
        properties: { condition: { type: 'string', enum: [...CONDITIONS], description: 'A weather condition' } },
        required: ['condition'],
      },
      annotations: { readOnlyHint: true, idempotentHint: true },
    },
    (args) => ACTIVITIES[args.condition as Condition],
  );

  server.tool(
    'search_docs',
    {
      title: 'Search docs',
      description: `Searches the bundled documents; every keyword must match. ${PAGE_SIZE} results per page.`,
      input: {
        type: 'object',
        properties: {
          keyword: { type: 'string', description: 'One or more keywords, separated by spaces' },
          pageIndex: { type: 'integer', minimum: 0, default: 0, description: 'Page to return, from 0' },
        },
        required: ['keyword'],
      },
      output: {
        type: 'object',
        properties: {
          keyword: { type: 'string' },
          pageIndex: { type: 'integer' },
          pageSize: { type: 'integer' },
          total: { type: 'integer' },
          totalPages: { type: 'integer' },
          nextPageIndex: { type: 'integer' },
          results: {
            type: 'array',
            items: {
              type: 'object',
              properties: { id: { type: 'string' }, title: { type: 'string' }, uri: { type: 'string' }, snippet: { type: 'string' } },
              required: ['id', 'title', 'uri', 'snippet'],
            },
          },
        },
        required: ['keyword', 'pageIndex', 'pageSize', 'total', 'totalPages', 'results'],
      },
      annotations: { readOnlyHint: true, idempotentHint: true },
    },
    (args) => {
      const keyword = String(args.keyword);
      const pageIndex = typeof args.pageIndex === 'number' ? args.pageIndex : 0;
      const hits = searchDocs(keyword);
      const totalPages = Math.ceil(hits.length / PAGE_SIZE);
      const page = hits.slice(pageIndex * PAGE_SIZE, (pageIndex + 1) * PAGE_SIZE);
      const result: Record<string, unknown> = {
        keyword,
        pageIndex,
        pageSize: PAGE_SIZE,
        total: hits.length,
        totalPages,
        results: page.map((d) => ({ id: d.id, title: d.title, uri: `docs://mcpkit/${d.id}`, snippet: snippet(d.body, 80) })),
      };
      if (pageIndex + 1 < totalPages) result.nextPageIndex = pageIndex + 1;
      return result;
    },
  );

  server.tool(
    'greet_me',
    {
      title: 'Greet me',
      description: 'Asks you (elicitation) for your name and language, then greets you.',
    },
    async (_args, ctx) => {
      const r = await ctx.elicit({
        mode: 'form',
        message: 'How should I greet you?',
        requestedSchema: {
          type: 'object',
          properties: {
            name: { type: 'string', title: 'Your name', minLength: 1 },
            language: { type: 'string', title: 'Language', enum: ['en', 'fr', 'de', 'no'], default: 'en' },
          },
          required: ['name'],
        },
      });
      if (r.action !== 'accept') return `No greeting: you chose to ${r.action}.`;
      const hello: Record<string, string> = { en: 'Hello', fr: 'Bonjour', de: 'Hallo', no: 'Hei' };
      const content = r.content ?? {};
      return `${hello[String(content.language ?? 'en')] ?? 'Hello'}, ${String(content.name)}!`;
    },
  );

  server.tool(
    'ask_model',
    {
      title: 'Ask the model',
      description: "Asks the client's model a question (sampling) and returns its answer.",
      input: { type: 'object', properties: { question: { type: 'string' } }, required: ['question'] },
    },
    async (args, ctx) => {
      const r = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: String(args.question) } }], maxTokens: 200 });
      const text = Array.isArray(r.content)
        ? r.content.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join(' ')
        : r.content.type === 'text'
          ? r.content.text
          : `[${r.content.type}]`;
      return `The model (${r.model}) says: ${text}`;
    },
  );

  const bonus = server.tool(
    'lucky_number',
    {
      title: 'Lucky number',
      description: 'A bonus tool that appears and disappears with toggle_bonus_tool.',
    },
    () => 'Your lucky number is 7.',
  );
  bonus.disable();

  server.tool(
    'toggle_bonus_tool',
    {
      title: 'Toggle the bonus tool',
      description: 'Adds or removes the lucky_number tool; clients get notifications/tools/list_changed.',
    },
    () => {
      if (bonus.enabled) bonus.disable();
      else bonus.enable();
      return `lucky_number is now ${bonus.enabled ? 'available' : 'gone'}; notifications/tools/list_changed was sent.`;
    },
  );

  server.tool(
    'build_report',
    {
      title: 'Build a report',
      description: 'Takes a few seconds. Clients that declare the 2026-07-28 tasks extension get a task to poll.',
      input: { type: 'object', properties: { seconds: { type: 'integer', minimum: 1, maximum: 60, default: 2, description: 'How long it takes' } } },
      annotations: { readOnlyHint: true },
      task: 'optional',
    },
    async (args, ctx) => {
      const seconds = typeof args.seconds === 'number' ? args.seconds : 2;
      await sleep(seconds * 1000, ctx.signal);
      return `Report ready after ${seconds} s.`;
    },
  );

  // ---------------------------------------------------------------- resources
  for (const d of DOCS) {
    server.resource(d.id, `docs://mcpkit/${d.id}`, { title: d.title, description: d.body, mimeType: 'text/markdown' }, () => docText(d));
  }
  const docIds = DOCS.map((d) => d.id);
  server.resourceTemplate(
    'doc',
    'docs://mcpkit/{id}',
    {
      title: 'A document by id',
      description: 'Any bundled document; completions suggest ids.',
      mimeType: 'text/markdown',
      complete: { id: prefixMatch(docIds) },
    },
    (uri, vars, ctx) => {
      const d = DOCS.find((x) => x.id === vars.id);
      if (!d) throw resourceNotFound(uri, ctx.protocolVersion);
      return docText(d);
    },
  );
  server.resourceTemplate(
    'weather',
    'weather://{city}',
    {
      title: 'Weather by city',
      description: 'The weather for a city as JSON; completions suggest known cities.',
      mimeType: 'application/json',
      complete: { city: prefixMatch(CITIES) },
    },
    (_uri, vars) => JSON.stringify(weatherFor(String(vars.city)), null, 2),
  );

  // ------------------------------------------------------------------ prompts
  server.prompt(
    'plan_day',
    {
      title: 'Plan a day',
      description: 'Plans a day out in a city, given its weather.',
      args: [
        { name: 'city', description: 'Where you are', required: true },
        { name: 'mood', description: 'relaxed, active or curious' },
      ],
      complete: { city: prefixMatch(CITIES), mood: prefixMatch(['relaxed', 'active', 'curious']) },
    },
    (args) => {
      const w = weatherFor(args.city);
      return `Plan a ${args.mood ?? 'relaxed'} day in ${w.city}. The weather is ${w.condition}, ${w.temperatureC}°C, wind ${w.windKmh} km/h. Suggest a morning, an afternoon and an evening activity.`;
    },
  );

  server.prompt(
    'summarize_doc',
    {
      title: 'Summarize a document',
      description: 'Asks for a summary of one bundled document (embedded as a resource).',
      args: [{ name: 'id', description: 'Document id', required: true }],
      complete: { id: prefixMatch(docIds) },
    },
    (args) => {
      const d = DOCS.find((x) => x.id === args.id);
      if (!d) throw new McpError(ErrorCode.InvalidParams, `No document "${args.id}" (try: mcpkit resources)`);
      const doc: ContentBlock = { type: 'resource', resource: { uri: `docs://mcpkit/${d.id}`, mimeType: 'text/markdown', text: docText(d) } };
      return [
        { role: 'user', content: doc },
        { role: 'user', content: { type: 'text', text: 'Summarize this document in one sentence.' } },
      ];
    },
  );

  return server;
}
