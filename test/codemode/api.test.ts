// The typed API code mode shows a model: JSON Schema to TypeScript (every shaping keyword, doc
// comments from descriptions, `unknown` where a schema cannot be followed), identifiers made of
// server and tool names (reserved words, clashes, globals), search, and the overview that fits
// a budget.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CodeApi, identifier } from '../../src/codemode/api.js';
import { CodeMode } from '../../src/codemode/code-mode.js';
import { schemaToType } from '../../src/codemode/schema-ts.js';
import type { Tool } from '../../src/protocol/types.js';

test('JSON Schema to TypeScript: scalars, enums, const, arrays, tuples, unions, intersections, nullable', () => {
  assert.equal(schemaToType({ type: 'string' }), 'string');
  assert.equal(schemaToType({ type: 'integer' }), 'number');
  assert.equal(schemaToType({ type: ['string', 'null'] }), 'string | null');
  assert.equal(schemaToType({ enum: ['open', 'closed', 3, null] }), '"open" | "closed" | 3 | null');
  assert.equal(schemaToType({ const: 'x' }), '"x"');
  assert.equal(schemaToType({ type: 'array', items: { type: 'number' } }), 'number[]');
  assert.equal(schemaToType({ type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'number' }] } }), '(string | number)[]');
  assert.equal(schemaToType({ type: 'array', prefixItems: [{ type: 'string' }, { type: 'boolean' }] }), '[string, boolean]');
  assert.equal(schemaToType({ type: 'array' }), 'unknown[]');
  assert.equal(schemaToType({ oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] }), 'string | string[]');
  assert.equal(schemaToType({ type: 'string', nullable: true }), 'string | null');
  assert.equal(schemaToType(true), 'unknown');
  assert.equal(schemaToType(false), 'never');
  assert.equal(schemaToType({}), 'unknown');
  assert.equal(
    schemaToType({
      allOf: [
        { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
        { type: 'object', properties: { b: { type: 'number' } } },
      ],
    }),
    '{\n  a: string;\n} & {\n  b?: number;\n}',
  );
});

test('objects: required and optional keys, quoted keys, index signatures, comments with hints', () => {
  const type = schemaToType({
    type: 'object',
    properties: {
      repo: { type: 'string', description: 'owner/name' },
      'per-page': { type: 'integer', minimum: 1, maximum: 100, default: 30 },
      since: { type: 'string', format: 'date-time', description: 'Only after this */ time' },
      labels: { type: 'object', additionalProperties: { type: 'string' } },
    },
    required: ['repo'],
  });
  assert.equal(
    type,
    [
      '{',
      '  /** owner/name */',
      '  repo: string;',
      '  /** (integer, min 1, max 100, default 30) */',
      '  "per-page"?: number;',
      '  /** Only after this *\\/ time (format: date-time) */',
      '  since?: string;',
      '  labels?: {',
      '    [key: string]: string;',
      '  };',
      '}',
    ].join('\n'),
  );
});

test('$ref to $defs and definitions is followed; a cycle or a remote ref becomes unknown', () => {
  const schema = {
    type: 'object',
    properties: {
      owner: { $ref: '#/$defs/user' },
      tree: { $ref: '#/definitions/node' },
      remote: { $ref: 'https://example.com/schema.json' },
    },
    $defs: { user: { type: 'object', properties: { login: { type: 'string' } }, required: ['login'] } },
    definitions: { node: { type: 'object', properties: { children: { type: 'array', items: { $ref: '#/definitions/node' } } } } },
  };
  const type = schemaToType(schema);
  assert.match(type, /owner\?: \{\n {4}login: string;\n {2}\};/);
  assert.match(type, /tree\?: \{\n {4}children\?: unknown\[\];\n {2}\};/);
  assert.match(type, /remote\?: unknown;/);
});

test('deep nesting past the limit is unknown, never a stack overflow', () => {
  let schema: Record<string, unknown> = { type: 'string' };
  for (let i = 0; i < 5000; i++) schema = { type: 'array', items: schema };
  assert.match(schemaToType(schema), /^unknown(\[\])+$/);
});

test('identifiers: reserved words and globals get a _, other characters become _, clashes get _2', () => {
  assert.equal(identifier('github'), 'github');
  assert.equal(identifier('my-server.v2'), 'my_server_v2');
  assert.equal(identifier('delete'), 'delete_');
  assert.equal(identifier('Math'), 'Math_');
  assert.equal(identifier('console'), 'console_');
  assert.equal(identifier('2fa'), '_2fa');
  assert.equal(identifier('日本'), '__');
  const tool = (name: string): Tool => ({ name, inputSchema: { type: 'object' } });
  const api = new CodeApi([
    { key: 'a', server: 'git-hub', tool: tool('list-issues') },
    { key: 'b', server: 'git-hub', tool: tool('list.issues') },
    { key: 'c', server: 'git_hub', tool: tool('x') },
    { key: 'd', server: 'JSON', tool: tool('parse') },
  ]);
  assert.deepEqual(
    api.functions.map((f) => `${f.path} <- ${f.key}`),
    ['git_hub.list_issues <- a', 'git_hub.list_issues_2 <- b', 'git_hub_2.x <- c', 'JSON_.parse <- d'],
  );
  assert.equal(api.lookup('git_hub', 'list_issues_2')?.key, 'b');
  assert.equal(api.lookup('git_hub', 'nope'), undefined);
});

const TOOLS: Tool[] = [
  {
    name: 'list_issues',
    description: 'Lists issues of a repository.',
    inputSchema: { type: 'object', properties: { repo: { type: 'string' }, state: { enum: ['open', 'closed'] } }, required: ['repo'] },
    outputSchema: {
      type: 'object',
      description: 'The issues, newest first',
      properties: { issues: { type: 'array', items: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] } } },
      required: ['issues'],
    },
    annotations: { readOnlyHint: true },
  },
  {
    name: 'create_issue',
    description: 'Opens an issue.',
    inputSchema: { type: 'object', properties: { repo: { type: 'string' }, title: { type: 'string' } } },
  },
  { name: 'ping', inputSchema: { type: 'object' } },
];

test('declarations: doc comment with annotations and result description, typed args and result', () => {
  const api = new CodeApi(TOOLS.map((tool) => ({ key: tool.name, server: 'github', tool })));
  assert.equal(
    api.declarations([api.functions[0], api.functions[2]]),
    [
      'declare namespace github {',
      '  /**',
      '   * Lists issues of a repository.',
      '   * (read-only)',
      '   * Returns: The issues, newest first',
      '   */',
      '  function list_issues(args: {',
      '    repo: string;',
      '    state?: "open" | "closed";',
      '  }): Promise<{',
      '    issues: {',
      '      /** (integer) */',
      '      id: number;',
      '    }[];',
      '  }>;',
      '  function ping(args?: {}): Promise<unknown>;',
      '}',
    ].join('\n'),
  );
});

test('search ranks by name and description; the overview fits its budget at every level', () => {
  const api = new CodeApi(TOOLS.map((tool) => ({ key: tool.name, server: 'github', tool })));
  assert.deepEqual(
    api.search('open a new issue', 5).map((f) => f.name),
    ['create_issue', 'list_issues'],
  );
  assert.equal(api.overview(10_000).level, 'declarations');
  const names = api.overview(80);
  assert.deepEqual(names, { text: 'github: list_issues, create_issue, ping', level: 'names' });
  const many = new CodeApi(
    Array.from({ length: 300 }, (_, i) => ({ key: `t${i}`, server: `server${i % 30}`, tool: { name: `tool_${i}`, inputSchema: { type: 'object' as const } } })),
  );
  const spaces = many.overview(200);
  assert.equal(spaces.level, 'namespaces');
  assert.ok(spaces.text.length <= 200, spaces.text);
  assert.match(spaces.text, /^server0 \(10\), server1 \(10\), .*, and \d+ more namespaces$/);
});

test('CodeMode: search_api answers declarations, says when nothing matches, refuses a missing query', () => {
  const mode = new CodeMode(TOOLS.map((tool) => ({ key: tool.name, server: 'github', tool })));
  const [search, run] = mode.tools();
  assert.equal(search.name, 'search_api');
  assert.equal(run.name, 'run_code');
  assert.match(run.description, /The whole API:\ndeclare namespace github \{/);
  const found = mode.search({ query: 'list issues', limit: 1 });
  assert.equal(found.isError, false);
  assert.match(found.text, /^1 matching function \(call them in run_code\):\ndeclare namespace github \{\n/);
  assert.deepEqual(mode.search({ query: 'zebra' }), { text: 'No function matches "zebra". Try other words. Namespaces: github.', isError: false, found: [] });
  assert.equal(mode.search({}).isError, true);
});

test('search_api ranks with ToolIndex: synonyms, CJK sentences, server instructions, and a ranker fused in by searchAsync', async () => {
  const tools: Array<{ server: string; tool: Tool }> = [
    { server: 'github', tool: { name: 'create_issue', description: 'Creates an issue in a repository', inputSchema: { type: 'object' } } },
    { server: 'github', tool: { name: 'delete_file', description: 'Deletes a file from a repository', inputSchema: { type: 'object' } } },
    { server: 'desk', tool: { name: 'open_case', description: 'Opens a case', inputSchema: { type: 'object' } } },
    { server: 'weather', tool: { name: 'forecast', description: 'Weather for a city', inputSchema: { type: 'object' } } },
  ];
  const instructions: Record<string, string> = { desk: 'Customer support: refunds and complaints.' };
  const mode = new CodeMode(
    tools.map((t) => ({ key: `${t.server}_${t.tool.name}`, ...t })),
    { index: { instructions: (s) => instructions[s] } },
  );
  // "ticket" stands for an issue (the old BM25 knew no synonyms), "删除文件" is "delete file".
  assert.equal(mode.search({ query: 'file a ticket', limit: 1 }).found[0]?.path, 'github.create_issue');
  assert.equal(mode.search({ query: '删除文件', limit: 1 }).found[0]?.path, 'github.delete_file');
  // Only the server's instructions say "refund".
  assert.equal(mode.search({ query: 'refund', limit: 1 }).found[0]?.path, 'desk.open_case');
  // A ranker (embeddings, say) finds what no word of the query matches; searchAsync fuses it in.
  const ranked = new CodeMode(
    tools.map((t) => ({ key: `${t.server}_${t.tool.name}`, ...t })),
    { index: { ranker: { rank: async (_q, list) => list.filter((t) => t.tool.name === 'forecast') } } },
  );
  assert.deepEqual(ranked.search({ query: 'umbrella' }).found, []);
  const fused = await ranked.searchAsync({ query: 'umbrella', limit: 1 });
  assert.equal(fused.found[0]?.path, 'weather.forecast');
  assert.match(fused.text, /function forecast\(/);
});
