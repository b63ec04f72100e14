// fetchServerCard and checkServerCard against a real mcpkit HTTP server with its card on: the
// served card matches the connection in both eras; a drifted card (name, version, versions,
// capabilities and tools of an older draft, a remote elsewhere) is reported field by field.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { McpServer } from '../../src/server/mcp-server.js';
import { serve } from '../../src/serving/node.js';
import { connect } from '../../src/client/connect.js';
import { checkServerCard, fetchServerCard, type FetchedServerCard } from '../../src/client/server-card.js';
import { MODERN_VERSIONS } from '../../src/protocol/versions.js';

async function start(serverCard = true) {
  const mcp = new McpServer({ name: 'io.github.mcpkit/card-test', version: '2.3.4', title: 'Card test', description: 'A server with a card' });
  mcp.tool('echo', { input: { text: z.string() } }, ({ text }) => text);
  mcp.tool('add', { input: { a: z.number(), b: z.number() } }, ({ a, b }) => String(a + b));
  return serve(mcp, { port: 0, serverCard });
}

for (const era of ['modern', 'handshake'] as const) {
  test(`${era}: the served card matches what the connection reports`, async () => {
    const running = await start();
    const client = await connect(running.url, { era });
    try {
      const card = await fetchServerCard(running.url);
      assert.equal(card.name, 'io.github.mcpkit/card-test');
      const check = await checkServerCard(client, card, { url: running.url });
      assert.deepEqual(check, { matches: true, differences: [], source: era === 'modern' ? 'server/discover' : 'initialize' });
    } finally {
      await client.close();
      await running.close();
    }
  });

  test(`${era}: a drifted card is reported field by field`, async () => {
    const running = await start();
    const client = await connect(running.url, { era });
    try {
      const served = await fetchServerCard(running.url);
      const remote = served.remotes!.find((r) => r.type === 'streamable-http')!;
      const drifted: FetchedServerCard = {
        ...served,
        name: 'io.github.mcpkit/renamed',
        version: '2.3.3',
        title: 'Card test',
        remotes: [{ ...remote, supportedProtocolVersions: ['2099-01-01', '2024-11-05'] }],
        capabilities: { tools: {}, prompts: {} },
        tools: ['echo', { name: 'search' }],
      };
      const check = await checkServerCard(client, drifted);
      assert.equal(check.matches, false);
      const by = new Map(check.differences.map((d) => [d.field, d]));
      assert.deepEqual([...by.keys()], ['name', 'version', 'protocolVersions', 'capabilities', 'tools']);
      assert.deepEqual([by.get('name')!.card, by.get('name')!.server], ['io.github.mcpkit/renamed', 'io.github.mcpkit/card-test']);
      assert.deepEqual([by.get('version')!.card, by.get('version')!.server], ['2.3.3', '2.3.4']);
      const versions = by.get('protocolVersions')!;
      if (era === 'modern') {
        assert.deepEqual(versions.card, ['2099-01-01'], 'listed, not supported');
        assert.deepEqual(versions.server, [...MODERN_VERSIONS], 'supported, not listed');
      } else {
        assert.equal(versions.server, client.protocolVersion);
        assert.match(versions.message, /negotiated .*, which the card does not list/);
      }
      const caps = by.get('capabilities')!;
      assert.deepEqual(caps.card, ['prompts']);
      // Only in the server: everything it declares but tools (the card's other capability).
      const declared = Object.keys(client.serverCapabilities ?? {}).filter((k) => k !== 'tools' && k !== 'extensions' && k !== 'experimental');
      assert.deepEqual(caps.server, declared.sort());
      assert.ok(declared.length > 0, 'the server declares more than tools');
      assert.deepEqual([by.get('tools')!.card, by.get('tools')!.server], [['search'], ['add']]);
      assert.match(by.get('tools')!.message, /only in the card \[search\], only in tools\/list \[add\]/);
    } finally {
      await client.close();
      await running.close();
    }
  });
}

test('a card whose remotes do not include the endpoint connected to is reported', async () => {
  const running = await start();
  const client = await connect(running.url, { era: 'modern' });
  try {
    const card = await fetchServerCard(running.url);
    const elsewhere = { ...card, remotes: card.remotes!.map((r) => ({ ...r, url: r.url.replace('127.0.0.1', 'mcp.example.com') })) };
    const check = await checkServerCard(client, elsewhere, { url: running.url });
    assert.deepEqual(
      check.differences.map((d) => d.field),
      ['remote'],
    );
    assert.match(check.differences[0].message, /lists no remote at http:\/\/127\.0\.0\.1:\d+\/mcp \(it lists http:\/\/mcp\.example\.com/);
  } finally {
    await client.close();
    await running.close();
  }
});

test('fetchServerCard falls back to /.well-known/mcp/server-card.json, and says where it looked when there is none', async () => {
  const running = await start();
  const bare = await start(false);
  try {
    // No card under /elsewhere/server-card: the well-known document is the same card.
    const card = await fetchServerCard(new URL('/elsewhere', running.url));
    assert.equal(card.version, '2.3.4');
    await assert.rejects(fetchServerCard(bare.url), (e: Error) => {
      assert.match(e.message, /^No Server Card for http:\/\/127\.0\.0\.1:\d+\/mcp \(/);
      assert.match(e.message, /\/mcp\/server-card: HTTP \d{3}; .*\/\.well-known\/mcp\/server-card\.json: HTTP 404\)$/);
      return true;
    });
  } finally {
    await Promise.all([running.close(), bare.close()]);
  }
});
