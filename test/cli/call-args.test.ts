// `mcpkit call TARGET TOOL key=value...`: values are typed by the tool's inputSchema (issue 13,
// item 9): a string parameter keeps the text, numbers and booleans are parsed, arrays and
// objects are JSON; a parameter the schema does not type is guessed from how the value looks.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { McpServer } from '../../src/server/mcp-server.js';
import { serve, type RunningServer } from '../../src/serving/node.js';
import { mcpkit } from './helpers.js';

let running: RunningServer;

before(async () => {
  const mcp = new McpServer({ name: 'typed', version: '1.0.0' });
  mcp.tool(
    'show',
    {
      input: {
        type: 'object',
        properties: {
          text: { type: 'string' },
          n: { type: 'number' },
          i: { type: 'integer' },
          on: { type: 'boolean' },
          tags: { type: 'array' },
          opts: { type: 'object' },
          maybe: { type: ['integer', 'null'] },
          either: { anyOf: [{ type: 'boolean' }, { type: 'string' }] },
          free: {},
        },
      },
    },
    (args) => JSON.stringify(args),
  );
  running = await serve(mcp, { port: 0, host: '127.0.0.1' });
});
after(() => running.close());

async function shown(...args: string[]): Promise<unknown> {
  const r = await mcpkit(['call', running.url, 'show', ...args]);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

test('each value takes its parameter type', async () => {
  assert.deepEqual(await shown('text=123', 'n=1.5', 'i=7', 'on=false', 'tags=["a",1]', 'opts={"k":{"d":true}}', 'maybe=null'), {
    text: '123',
    n: 1.5,
    i: 7,
    on: false,
    tags: ['a', 1],
    opts: { k: { d: true } },
    maybe: null,
  });
  assert.deepEqual(await shown('text=true', 'maybe=3', 'either=true'), { text: 'true', maybe: 3, either: true });
  assert.deepEqual(await shown('either=yes', 'text='), { either: 'yes', text: '' });
});

test('untyped parameters, and parameters the schema does not name, are guessed as before', async () => {
  assert.deepEqual(await shown('free=42', 'other=[1]', 'word=hi'), { free: 42, other: [1], word: 'hi' });
});

test('a value its type cannot take is a usage error naming the parameter (exit 2)', async () => {
  const cases: Array<[string, RegExp]> = [
    ['n=abc', /n: expected a number, got 'abc'/],
    ['i=1.5', /i: expected a whole number, got '1\.5'/],
    ['on=yes', /on: expected true or false, got 'yes'/],
    ['tags={"a":1}', /tags: expected a JSON array, got '\{"a":1\}'/],
    ['opts=[1]', /opts: expected a JSON object, got '\[1\]'/],
    ['maybe=x', /maybe: expected a whole number or null, got 'x'/],
    ['n=', /n: expected a number, got ''/],
  ];
  for (const [arg, message] of cases) {
    const r = await mcpkit(['call', running.url, 'show', arg]);
    assert.equal(r.code, 2, `${arg}: ${r.stderr}`);
    assert.match(r.stderr, message);
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack frames');
  }
});

test('one JSON object is sent as written', async () => {
  // Not typed by the CLI: the server's own validation answers.
  const r = await mcpkit(['call', running.url, 'show', '{"text": 5}']);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /returned an error/);
  assert.deepEqual(await shown('{"text": "5", "n": 2}'), { text: '5', n: 2 });
});
