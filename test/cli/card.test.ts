// mcpkit card: a module's Server Card (the same document the HTTP host serves) and its server.json
// for the MCP Registry, both checked against the official schemas, and the mcpName advice.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { serve } from '../../src/serving/node.js';
import { server as notes } from '../fixtures/cli/card-server.js';
import { serverCardErrors, serverJsonErrors } from '../fixtures/schemas/validate.js';
import { tempDir } from '../support/index.js';
import { mcpkit, ROOT, startListening } from './helpers.js';

const MODULE = 'test/fixtures/cli/card-server.ts';
const URL_ = 'https://notes.example.com/mcp';

test('mcpkit card MODULE prints a valid card; with --url it is the card the HTTP host serves at that URL', async (t) => {
  const bare = await mcpkit(['card', MODULE]);
  assert.equal(bare.code, 0, bare.stderr);
  const card = JSON.parse(bare.stdout) as Record<string, unknown>;
  assert.deepEqual(serverCardErrors(card), []);
  assert.equal(card.name, 'io.github.mcpkit/notes');
  assert.equal(card.version, '3.1.0');
  assert.equal(card.title, 'Notes');
  assert.equal(card.remotes, undefined, 'no URL, no remote');

  const withUrl = await mcpkit(['card', MODULE, '--url', URL_, '--repository', 'https://github.com/mcpkit/notes']);
  assert.equal(withUrl.code, 0, withUrl.stderr);
  const printed = JSON.parse(withUrl.stdout) as Record<string, any>;
  assert.deepEqual(serverCardErrors(printed), []);
  assert.deepEqual(printed.repository, { url: 'https://github.com/mcpkit/notes', source: 'github' });
  const running = await serve(notes, { port: 0, legacySse: false, serverCard: { url: URL_, repository: printed.repository } });
  t.after(() => running.close());
  const served = await (await fetch(new URL('/mcp/server-card', running.url))).json();
  assert.deepEqual(printed, served);
});

test('mcpkit card --server-json: valid against the registry schema 2025-12-11, with the npm package and the remote', async () => {
  const r = await mcpkit(['card', MODULE, '--server-json', '--package', '@mcpkit/notes', '--url', URL_]);
  assert.equal(r.code, 0, r.stderr);
  const doc = JSON.parse(r.stdout) as Record<string, unknown>;
  assert.deepEqual(serverJsonErrors(doc), []);
  assert.deepEqual(doc, {
    $schema: 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json',
    name: 'io.github.mcpkit/notes',
    description: 'Write, search and tag notes',
    version: '3.1.0',
    title: 'Notes',
    websiteUrl: 'https://example.com/notes',
    icons: [{ src: 'https://example.com/notes.png', mimeType: 'image/png', sizes: ['64x64'] }],
    packages: [{ registryType: 'npm', identifier: '@mcpkit/notes', version: '3.1.0', transport: { type: 'stdio' } }],
    remotes: [{ type: 'streamable-http', url: URL_ }],
  });
  assert.match(r.stderr, /the package\.json of @mcpkit\/notes must carry "mcpName": "io\.github\.mcpkit\/notes"/);
});

test('the mcpName advice reads the package.json beside the command', async () => {
  const dir = tempDir('card-pkg');
  const module = join(ROOT, MODULE);
  const args = ['card', module, '--server-json', '--package', '@mcpkit/notes', '--package-version', '3.1.1'];
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: '@mcpkit/notes', version: '3.1.1' }));
  const none = await mcpkit(args, { cwd: dir });
  assert.equal(none.code, 0, none.stderr);
  assert.match(none.stderr, /must carry "mcpName": "io\.github\.mcpkit\/notes" \(the one here has none\)/);
  assert.equal((JSON.parse(none.stdout) as { packages: Array<{ version: string }> }).packages[0].version, '3.1.1');
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: '@mcpkit/notes', mcpName: 'io.github.someone/notes' }));
  const wrong = await mcpkit(args, { cwd: dir });
  assert.match(wrong.stderr, /\(the one here has "io\.github\.someone\/notes"\)/);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: '@mcpkit/notes', mcpName: 'io.github.mcpkit/notes' }));
  const right = await mcpkit(args, { cwd: dir });
  assert.match(right.stderr, /carries "mcpName": "io\.github\.mcpkit\/notes", as the registry requires/);
  assert.doesNotMatch(right.stderr, /must carry/);
  const nothing = await mcpkit(['card', module, '--server-json'], { cwd: dir });
  assert.equal(nothing.code, 0);
  assert.match(nothing.stderr, /neither packages nor remotes/);
});

test('a server without a reverse-DNS name or a description: exit 2 and what to pass', async () => {
  const plain = 'test/fixtures/cli/module-server.ts'; // named "cli-module", no description
  const unnamed = await mcpkit(['card', plain]);
  assert.equal(unnamed.code, 2);
  assert.equal(unnamed.stdout, '');
  assert.match(
    unnamed.stderr,
    /^mcpkit: card: the server's name "cli-module" is not reverse-DNS; give the card a name such as "io\.github\.you\/cli-module" \(see --name, --description\)\n$/,
  );
  const undescribed = await mcpkit(['card', plain, '--name', 'io.github.you/cli-module']);
  assert.equal(undescribed.code, 2);
  assert.match(undescribed.stderr, /a card needs a description/);
  const ok = await mcpkit(['card', plain, '--server-json', '--name', 'io.github.you/cli-module', '--description', 'Says hello', '--package', 'cli-module']);
  assert.equal(ok.code, 0, ok.stderr);
  assert.deepEqual(serverJsonErrors(JSON.parse(ok.stdout)), []);
  const badName = await mcpkit(['card', plain, '--name', 'cli-module', '--description', 'x']);
  assert.match(badName.stderr, /the name "cli-module" is not reverse-DNS/);
});

test('usage mistakes: exit 2 with one line', async () => {
  for (const [args, message] of [
    [['card'], /card: needs one MODULE/],
    [['card', MODULE, '--package', 'x'], /--package and --package-version describe a server\.json; add --server-json/],
    [['card', MODULE, '--url', 'notes.example.com'], /--url must be an http\(s\) URL/],
    [['card', MODULE, '--repository', 'nope'], /--repository must be a URL/],
    [['card', 'no/such/module.ts'], /^mcpkit: card: no such file: no\/such\/module\.ts$/m],
    [['card', 'test/fixtures/cli/not-a-server.ts'], /must export an McpServer or Server/],
  ] as const) {
    const r = await mcpkit([...args]);
    assert.equal(r.code, 2, args.join(' '));
    assert.match(r.stderr, message);
    assert.equal(r.stderr.trim().split('\n').length, 1);
  }
  const help = await mcpkit(['card', '--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /--server-json/);
  assert.match((await mcpkit(['--help'])).stdout, /mcpkit card MODULE/);
});

test('mcpkit serve MODULE --server-card serves the card mcpkit card prints for that URL', async () => {
  const s = await startListening(['serve', MODULE, '--port', '0', '--server-card']);
  try {
    assert.match(s.stdout(), /Server Card {6}http:\/\/127\.0\.0\.1:\d+\/mcp\/server-card/);
    const r = await fetch(`${s.url}/server-card`);
    assert.equal(r.headers.get('content-type'), 'application/mcp-server-card+json');
    const served = (await r.json()) as { remotes: unknown[] };
    const printed = JSON.parse((await mcpkit(['card', MODULE, '--url', s.url])).stdout) as { remotes: unknown[] };
    // The CLI's card names the Streamable HTTP endpoint only; the served one adds HTTP+SSE.
    assert.deepEqual({ ...served, remotes: served.remotes.slice(0, 1) }, printed);
  } finally {
    await s.stop();
  }
  const plain = await mcpkit(['serve', 'test/fixtures/cli/module-server.ts', '--port', '0', '--server-card']);
  assert.equal(plain.code, 2);
  assert.match(
    plain.stderr,
    /^mcpkit: serve --server-card: the server's name "cli-module" is not reverse-DNS; .*\(set it on the server; mcpkit card shows the card\)\n$/,
  );
  const stdio = await mcpkit(['serve', MODULE, '--stdio', '--server-card']);
  assert.equal(stdio.code, 2);
  assert.match(stdio.stderr, /--server-card is for HTTP/);
});
