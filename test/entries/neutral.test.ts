// mcpkit/server, mcpkit/client and mcpkit/http must load in any JavaScript runtime (Workers,
// Deno, browsers): nothing in their module graph, dynamic imports included, may import a Node
// built-in or use a Node global. And the heavy optional parts load only when used: ajv only for
// raw JSON Schemas, the OAuth client only when `auth` is given.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, isNodeBuiltin, ROOT, walk, type ModuleFacts } from './graph.js';

// The one import the walker cannot follow: the client transports' HTTP stack on Node
// (pick-exchange.ts loads node-exchange.ts through a specifier held in a variable, so that bundlers
// for browsers and Workers leave it out, and only where `process.getBuiltinModule` exists). The
// test below checks what it loads.
const NODE_ONLY_LOADER = 'src/transports/http/client/pick-exchange.ts';

function nodeUses(path: string, facts: ModuleFacts): string[] {
  const out: string[] = [];
  for (const b of facts.bare)
    if (isNodeBuiltin(b.specifier) || (b.specifier === '<computed import()>' && path !== NODE_ONLY_LOADER))
      out.push(`imports ${b.specifier}${b.dynamic ? ' (dynamic)' : ''}`);
  for (const g of facts.nodeGlobals) out.push(`uses the Node global ${g}`);
  return out;
}

for (const entry of ['server', 'client', 'http']) {
  test(`mcpkit/${entry}: no node:* import, bare builtin or Node global anywhere in its module graph`, () => {
    const { seen, problems } = walk(`src/entries/${entry}.ts`, nodeUses);
    assert.ok(seen.size > 5, `the walk found only ${seen.size} modules: is the entry empty?`);
    assert.equal(problems.length, 0, `mcpkit/${entry} is not runtime-neutral:\n${describe(problems)}`);
  });
}

test('the Node HTTP stack of the client transports: loaded only where process.getBuiltinModule exists, and it imports nothing of Node', () => {
  const loader = readFileSync(join(ROOT, NODE_ONLY_LOADER), 'utf8');
  assert.match(loader, /const NODE_EXCHANGE = '\.\/node-exchange\.js';/);
  assert.match(loader, /if \(typeof globalThis\.process\?\.getBuiltinModule !== 'function'\) return viaFetch;/);
  // What it loads reaches node:net and node:tls through process.getBuiltinModule, never an import;
  // it uses the globals process and Buffer, which exist wherever it is loaded.
  const { problems } = walk('src/transports/http/client/node-exchange.ts', nodeUses);
  const kinds = [...new Set(problems.map((p) => p.what))].sort();
  assert.deepEqual(kinds, ['uses the Node global Buffer', 'uses the Node global process'], describe(problems));
});

test('mcpkit/oauth-server: the authorization server and its fetch handler use nothing of Node (only serveAuthorizationServer does)', () => {
  const { seen, problems } = walk('src/serving/oauth-server/server.ts', nodeUses);
  assert.ok(seen.size > 5, `the walk found only ${seen.size} modules`);
  assert.equal(problems.length, 0, `the authorization server is not runtime-neutral:\n${describe(problems)}`);
  assert.ok(walk('src/entries/oauth-server.ts', nodeUses).problems.length > 0, 'serveAuthorizationServer (node:http) is reachable from the entry');
});

test('the walker sees Node where it is: mcpkit/node and mcpkit/stdio do use it', () => {
  for (const entry of ['node', 'stdio']) {
    const { problems } = walk(`src/entries/${entry}.ts`, nodeUses);
    assert.ok(problems.length > 0, `expected Node built-ins under mcpkit/${entry}`);
  }
});

const loads = (target: (path: string, facts: ModuleFacts) => boolean) => (path: string, facts: ModuleFacts) => (target(path, facts) ? ['loaded'] : []);

test('ajv is only ever imported dynamically: mcpkit/server and the root load it only for a raw JSON Schema', () => {
  const ajv = loads((_p, f) => f.bare.some((b) => b.specifier === 'ajv' || b.specifier.startsWith('ajv/') || b.specifier === 'ajv-formats'));
  for (const entry of ['server', 'index']) {
    const { problems } = walk(`src/entries/${entry}.ts`, ajv, { staticOnly: true });
    assert.equal(problems.length, 0, `mcpkit${entry === 'index' ? '' : '/' + entry} loads ajv up front:\n${describe(problems)}`);
  }
  // ...and the dynamic import is there to find (or the assertion above proves nothing).
  assert.ok(walk('src/entries/server.ts', ajv).problems.length > 0, 'ajv is not reachable at all from mcpkit/server');
});

test('connect() over HTTP loads the OAuth client only when asked to sign in', () => {
  const oauth = loads((p) => p === 'src/client/auth/oauth.ts');
  const { problems } = walk('src/client/connect.ts', oauth, { staticOnly: true });
  assert.equal(problems.length, 0, `connect() pulls in the OAuth client up front:\n${describe(problems)}`);
  assert.ok(walk('src/client/connect.ts', oauth).problems.length > 0, 'the OAuth client is not reachable from connect() at all');
});
