// The Server Card over real HTTP: both locations, the media type, CORS (preflight included), ETag
// revalidation, Cache-Control, the official schema, and agreement with what server/discover says
// in 2026-07-28 on the same server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { McpServer } from '../../../src/server/mcp-server.js';
import { serve, toNodeHandler, type RunningServer, type ServeOptions } from '../../../src/serving/node.js';
import { toFetchHandler } from '../../../src/serving/fetch.js';
import { apiKeyGuard } from '../../../src/serving/http/security.js';
import { serverCardErrors } from '../../fixtures/schemas/validate.js';
import { meta, V } from '../../server/modern/helpers.js';

const ICON = { src: 'https://example.com/icon.png', mimeType: 'image/png', sizes: ['48x48'] };

function cardServer(): McpServer {
  return new McpServer({
    name: 'io.github.mcpkit/weather',
    version: '1.4.2',
    title: 'Weather',
    description: 'Forecasts and warnings for any city',
    websiteUrl: 'https://example.com/weather',
    icons: [ICON],
  });
}

async function started(t: { after(fn: () => Promise<void>): void }, options: ServeOptions, server = cardServer()): Promise<RunningServer> {
  const running = await serve(server, { port: 0, ...options });
  t.after(() => running.close());
  return running;
}

const CARD_TYPE = 'application/mcp-server-card+json';

test('the card at <mcp-url>/server-card and /.well-known/mcp/server-card.json: one valid document, public headers', async (t) => {
  const running = await started(t, { serverCard: true });
  const url = new URL(running.url);
  const bodies: string[] = [];
  for (const path of ['/mcp/server-card', '/.well-known/mcp/server-card.json']) {
    const r = await fetch(new URL(path, url), { headers: { accept: CARD_TYPE } });
    assert.equal(r.status, 200, path);
    assert.equal(r.headers.get('content-type'), CARD_TYPE);
    assert.equal(r.headers.get('access-control-allow-origin'), '*');
    assert.match(r.headers.get('access-control-expose-headers') ?? '', /etag/i);
    assert.equal(r.headers.get('cache-control'), 'public, max-age=3600');
    assert.match(r.headers.get('etag') ?? '', /^"[A-Za-z0-9_-]+"$/);
    bodies.push(await r.text());
  }
  assert.equal(bodies[0], bodies[1]);
  const card = JSON.parse(bodies[0]) as Record<string, any>;
  assert.deepEqual(serverCardErrors(card), []);
  assert.deepEqual(card, {
    $schema: 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json',
    name: 'io.github.mcpkit/weather',
    version: '1.4.2',
    description: 'Forecasts and warnings for any city',
    title: 'Weather',
    websiteUrl: 'https://example.com/weather',
    icons: [ICON],
    remotes: [
      { type: 'streamable-http', url: running.url, supportedProtocolVersions: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] },
      { type: 'sse', url: new URL('/sse', url).href, supportedProtocolVersions: ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] },
    ],
  });
});

test('the card agrees with server/discover in 2026-07-28 (serverInfo, versions) and with the connection it advertises', async (t) => {
  const running = await started(t, { serverCard: true, legacySse: false });
  const card = (await (await fetch(new URL('/mcp/server-card', running.url))).json()) as Record<string, any>;
  const remote = card.remotes[0] as { type: string; url: string; supportedProtocolVersions: string[] };
  assert.deepEqual(
    card.remotes.map((r: { type: string }) => r.type),
    ['streamable-http'],
  );
  // The card's remote is where discover is answered.
  const r = await fetch(remote.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': V, 'mcp-method': 'server/discover' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: meta() } }),
  });
  assert.equal(r.status, 200);
  const { result } = (await r.json()) as { result: Record<string, any> };
  const info = result._meta['io.modelcontextprotocol/serverInfo'] as Record<string, unknown>;
  assert.equal(info.name, card.name);
  assert.equal(info.version, card.version);
  assert.equal(info.title, card.title);
  assert.equal(info.description, card.description);
  assert.equal(info.websiteUrl, card.websiteUrl);
  assert.deepEqual(info.icons, card.icons);
  for (const v of result.supportedVersions as string[]) assert.ok(remote.supportedProtocolVersions.includes(v), `discover's ${v} is on the card`);
});

test('ETag revalidation: If-None-Match answers 304 without a body; a changed tag gets the card', async (t) => {
  const running = await started(t, { serverCard: true });
  const url = new URL('/mcp/server-card', running.url);
  const first = await fetch(url);
  const etag = first.headers.get('etag')!;
  const again = await fetch(url);
  assert.equal(again.headers.get('etag'), etag, 'the same card has the same tag');
  for (const inm of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
    const r = await fetch(url, { headers: { 'if-none-match': inm } });
    assert.equal(r.status, 304, inm);
    assert.equal(await r.text(), '');
    assert.equal(r.headers.get('etag'), etag);
    assert.equal(r.headers.get('cache-control'), 'public, max-age=3600');
    assert.equal(r.headers.get('access-control-allow-origin'), '*');
  }
  const stale = await fetch(url, { headers: { 'if-none-match': '"stale"' } });
  assert.equal(stale.status, 200);
  assert.deepEqual(await stale.json(), await first.json());
});

test('CORS preflight from any origin, HEAD, and refusals: other methods 405, an unacceptable Accept 406', async (t) => {
  const running = await started(t, { serverCard: { maxAgeSeconds: 60 } });
  const url = new URL('/mcp/server-card', running.url);
  const pre = await fetch(url, {
    method: 'OPTIONS',
    headers: { origin: 'https://app.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'if-none-match' },
  });
  assert.equal(pre.status, 204);
  assert.equal(pre.headers.get('access-control-allow-origin'), '*');
  assert.match(pre.headers.get('access-control-allow-methods') ?? '', /\bGET\b/);
  assert.match(pre.headers.get('access-control-allow-headers') ?? '', /If-None-Match/i);
  // A browser on another origin reads it (the MCP endpoint itself would refuse that Origin).
  const cross = await fetch(url, { headers: { origin: 'https://app.example' } });
  assert.equal(cross.status, 200);
  assert.equal(cross.headers.get('cache-control'), 'public, max-age=60');
  const head = await fetch(url, { method: 'HEAD' });
  assert.equal(head.status, 200);
  assert.equal(head.headers.get('etag'), cross.headers.get('etag'));
  assert.equal(await head.text(), '');
  const post = await fetch(url, { method: 'POST', body: '{}' });
  assert.equal(post.status, 405);
  assert.equal(post.headers.get('allow'), 'GET, HEAD, OPTIONS');
  const json = await fetch(url, { headers: { accept: 'application/json' } });
  assert.equal(json.status, 200);
  assert.equal(json.headers.get('content-type'), 'application/json');
  const html = await fetch(url, { headers: { accept: 'text/html' } });
  assert.equal(html.status, 406);
  assert.match(((await html.json()) as { error: { message: string } }).error.message, /mcp-server-card\+json/);
});

test('the card is public on a guarded server; off by default; options name the public URL and the headers', async (t) => {
  const guarded = await started(t, {
    authenticate: apiKeyGuard({ keys: ['k1'] }),
    serverCard: { url: 'https://mcp.example.com/mcp', headers: [{ name: 'X-API-Key', isRequired: true, isSecret: true }] },
  });
  assert.equal((await fetch(guarded.url, { method: 'POST', body: '{}' })).status, 401);
  const card = (await (await fetch(new URL('/.well-known/mcp/server-card.json', guarded.url))).json()) as Record<string, any>;
  assert.deepEqual(
    card.remotes.map((r: { url: string; headers: unknown }) => [r.url, r.headers]),
    [
      ['https://mcp.example.com/mcp', [{ name: 'X-API-Key', isRequired: true, isSecret: true }]],
      ['https://mcp.example.com/sse', [{ name: 'X-API-Key', isRequired: true, isSecret: true }]],
    ],
  );
  assert.deepEqual(serverCardErrors(card), []);
  const plain = await started(t, {});
  assert.equal((await fetch(new URL('/mcp/server-card', plain.url))).status, 404);
  assert.equal((await fetch(new URL('/.well-known/mcp/server-card.json', plain.url))).status, 404);
});

test('AI Catalog on request: one entry pointing at the card, under its own media type', async (t) => {
  const running = await started(t, { serverCard: { aiCatalog: true } });
  const r = await fetch(new URL('/.well-known/ai-catalog.json', running.url));
  assert.equal(r.status, 200);
  assert.equal(r.headers.get('content-type'), 'application/ai-catalog+json');
  assert.equal(r.headers.get('access-control-allow-origin'), '*');
  const catalog = (await r.json()) as { specVersion: string; entries: Array<{ identifier: string; type: string; url: string }> };
  assert.equal(catalog.specVersion, '1.0');
  assert.deepEqual(catalog.entries, [
    { identifier: 'urn:air:mcpkit.github.io:mcp:weather', type: 'application/mcp-server-card+json', url: new URL('/mcp/server-card', running.url).href },
  ]);
  assert.equal((await fetch(catalog.entries[0].url)).status, 200);
  const without = await started(t, { serverCard: true });
  assert.equal((await fetch(new URL('/.well-known/ai-catalog.json', without.url))).status, 404);
});

test('a card that could never be valid is refused when the handler is built, with what to do', async () => {
  const unnamed = new McpServer({ name: 'weather', version: '1.0.0', description: 'Forecasts' });
  assert.throws(
    () => toNodeHandler(unnamed, { serverCard: true }),
    /server card: the server's name "weather" is not reverse-DNS; give the card a name such as "io\.github\.you\/weather"/,
  );
  await toNodeHandler(unnamed, { serverCard: { name: 'com.example/weather' } }).close();
  const undescribed = new McpServer({ name: 'com.example/weather', version: '1.0.0' });
  assert.throws(() => toNodeHandler(undescribed, { serverCard: true }), /a card needs a description/);
  const long = new McpServer({ name: 'com.example/weather', version: '1.0.0', description: 'x'.repeat(101) });
  assert.throws(() => toNodeHandler(long, { serverCard: true }), /101 characters; a card allows 100/);
  assert.throws(() => toNodeHandler(cardServer(), { serverCard: { url: 'mcp.example.com' } }), /serverCard\.url must be an http\(s\) URL/);
});

test('the fetch adapter (Workers, Deno, Bun) serves the same card, its remotes on the origin the Request names', async () => {
  const handle = toFetchHandler(cardServer(), { serverCard: true, legacySse: false });
  try {
    const r = await handle(new Request('https://edge.example/mcp/server-card'));
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('content-type'), CARD_TYPE);
    const card = (await r.json()) as { remotes: Array<{ url: string }> };
    assert.deepEqual(serverCardErrors(card), []);
    assert.deepEqual(
      card.remotes.map((x) => x.url),
      ['https://edge.example/mcp'],
    );
    const again = await handle(new Request('https://edge.example/.well-known/mcp/server-card.json', { headers: { 'if-none-match': r.headers.get('etag')! } }));
    assert.equal(again.status, 304);
  } finally {
    await handle.close();
  }
});
