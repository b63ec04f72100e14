// The MCP Apps extension (SEP-1865) end to end: the fixture served over stdio and HTTP, to
// clients in each era with and without the extension. Our wire output is checked against the
// zod schemas of the official package (@modelcontextprotocol/ext-apps).
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { McpUiResourceMetaSchema, McpUiToolMetaSchema } from '@modelcontextprotocol/ext-apps';
import { McpClient } from '../../../src/client/client.js';
import { AppApprovals, appTools, modelTools, readAppResource } from '../../../src/client/apps.js';
import { McpError } from '../../../src/jsonrpc/errors.js';
import { serve } from '../../../src/serving/node.js';
import type { Tool } from '../../../src/protocol/types.js';
import { StreamableHttpClientTransport } from '../../../src/transports/http/client/streamable.js';
import { StdioClientTransport } from '../../../src/transports/stdio/client.js';
import { appsServer, VIEW_HTML, VIEW_UI, VIEW_URI } from '../../fixtures/apps-server.js';
import { patient } from '../../support/index.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const EXT = 'io.modelcontextprotocol/ui';
const MIME = 'text/html;profile=mcp-app';

type Era = 'modern' | 'handshake';
type Open = (t: TestContext, era: Era, apps: boolean) => Promise<McpClient>;

const overHttp: Open = async (t, era, apps) => {
  const running = await serve(appsServer(), { port: 0, host: '127.0.0.1' });
  const client = new McpClient({ name: 'apps-e2e', version: '1.0.0', era, apps });
  await client.connect(new StreamableHttpClientTransport({ url: running.url }));
  t.after(async () => {
    await client.close();
    await running.close();
  });
  return client;
};

const overStdio: Open = async (t, era, apps) => {
  // probeTimeoutMs: the fixture starts under tsx, slower than the default on a busy machine.
  const client = new McpClient({ name: 'apps-e2e', version: '1.0.0', era, apps, probeTimeoutMs: patient(30_000) });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: ['--import', 'tsx', 'test/fixtures/apps-server.ts'], cwd: ROOT }));
  t.after(() => client.close());
  return client;
};

const byName = (tools: Tool[]) => new Map(tools.map((t) => [t.name, t]));

/** A host that renders apps: negotiation, metadata, visibility, the resource and drift. */
async function appHost(client: McpClient, era: Era): Promise<void> {
  assert.equal(client.era, era);
  assert.deepEqual(client.serverCapabilities?.extensions?.[EXT], {});
  const tools = byName(await client.listAllTools());
  assert.deepEqual(tools.get('weather')?._meta, { ui: { resourceUri: VIEW_URI }, 'ui/resourceUri': VIEW_URI });
  assert.deepEqual(tools.get('refresh')?._meta, { ui: { resourceUri: VIEW_URI, visibility: ['app'] }, 'ui/resourceUri': VIEW_URI });
  // The deprecated flat key is read and written out in both forms; other keys are kept.
  assert.deepEqual(tools.get('legacy')?._meta, { 'vendor/x': 1, ui: { resourceUri: VIEW_URI }, 'ui/resourceUri': VIEW_URI });
  assert.deepEqual(tools.get('model_only')?._meta, { ui: { visibility: ['model'] } });
  assert.equal(tools.get('plain')?._meta, undefined);
  for (const t of tools.values()) if (t._meta?.ui !== undefined) McpUiToolMetaSchema.parse(t._meta.ui);

  const all = [...tools.values()];
  assert.deepEqual(
    modelTools(all)
      .map((t) => t.name)
      .sort(),
    ['legacy', 'model_only', 'plain', 'set_view', 'weather'],
  );
  assert.deepEqual(
    appTools(all)
      .map((t) => t.name)
      .sort(),
    ['legacy', 'plain', 'refresh', 'set_view', 'weather'],
  );

  const weather = await client.callTool('weather', { city: 'Lyon' });
  assert.deepEqual(weather.content, [{ type: 'text', text: 'Showing the forecast for Lyon.' }]);
  assert.deepEqual(weather.structuredContent, { city: 'Lyon', tempC: 21, sky: 'clear' });
  // The app's own call: a result with only structured data still carries text.
  const refresh = await client.callTool('refresh');
  assert.deepEqual(refresh.content, [{ type: 'text', text: '{"refreshedAt":"now"}' }]);

  const listed = (await client.listAllResources()).filter((r) => r.uri.startsWith('ui://'));
  const entry = listed.find((r) => r.uri === VIEW_URI);
  assert.deepEqual(entry, {
    uri: VIEW_URI,
    name: 'weather-view',
    title: 'Weather view',
    description: 'Forecast dashboard',
    mimeType: MIME,
    _meta: { ui: VIEW_UI },
  });
  assert.deepEqual(
    listed.find((r) => r.uri === 'ui://static/hello.html'),
    { uri: 'ui://static/hello.html', name: 'hello', mimeType: MIME },
  );

  const raw = await client.readResource(VIEW_URI);
  assert.equal(raw.contents.length, 1);
  assert.equal(raw.contents[0].mimeType, MIME);
  McpUiResourceMetaSchema.parse((raw.contents[0]._meta as { ui: unknown }).ui);

  const view = await readAppResource(client, tools.get('weather')!, { listing: entry });
  assert.equal(view.html, VIEW_HTML);
  assert.deepEqual(view.ui, VIEW_UI);
  assert.match(view.fingerprint, /^sha256:[0-9a-f]{64}$/);
  // Read through the legacy tool: the same resource, the same fingerprint.
  assert.equal((await readAppResource(client, tools.get('legacy')!)).fingerprint, view.fingerprint);

  const approvals = new AppApprovals();
  approvals.approve('fixture', view);
  assert.equal(approvals.check('fixture', await readAppResource(client, VIEW_URI)), 'approved');
  assert.equal(approvals.check('other-server', view), 'unapproved');

  // The CSP's origins reordered: the same policy, no drift.
  await client.callTool('set_view', { connectDomains: ['https://api.weather.example'] });
  assert.ok(approvals.checkApproved('fixture', await readAppResource(client, VIEW_URI)));
  // The CSP widened under the cached approval: drift.
  await client.callTool('set_view', { connectDomains: ['https://api.weather.example', 'https://evil.example'] });
  const widened = await readAppResource(client, VIEW_URI);
  assert.deepEqual(widened.ui.csp?.connectDomains, ['https://api.weather.example', 'https://evil.example']);
  assert.equal(approvals.check('fixture', widened), 'changed');
  approvals.approve('fixture', widened);
  // The HTML changed: drift again.
  await client.callTool('set_view', { html: `${VIEW_HTML}<!-- v2 -->` });
  const rewritten = await readAppResource(client, VIEW_URI);
  assert.equal(approvals.check('fixture', rewritten), 'changed');
  assert.equal(new AppApprovals(approvals.toJSON()).check('fixture', widened), 'approved');
}

/** A client without the extension: plain tools, text answers, app-only tools out of reach. */
async function textClient(client: McpClient, era: Era): Promise<void> {
  assert.equal(client.era, era);
  const tools = byName(await client.listAllTools());
  assert.deepEqual([...tools.keys()].sort(), ['legacy', 'model_only', 'plain', 'set_view', 'weather']);
  assert.equal(tools.get('weather')?._meta, undefined);
  assert.deepEqual(tools.get('legacy')?._meta, { 'vendor/x': 1 });
  const weather = await client.callTool('weather', { city: 'Lyon' });
  assert.deepEqual(weather.content, [{ type: 'text', text: 'Lyon: 21°C, clear sky.' }]);
  await assert.rejects(
    client.callTool('refresh'),
    (e: unknown) => e instanceof McpError && e.code === -32602 && /only be called by its MCP App/.test(e.message) && e.message.includes(EXT),
  );
  assert.deepEqual(
    (await client.listAllResources()).filter((r) => r.uri.startsWith('ui://')),
    [],
  );
  // Still readable: a URI is no secret, and a host may read it to show it some other way.
  assert.equal((await client.readResource(VIEW_URI)).contents[0].mimeType, MIME);
}

for (const [transport, open] of [
  ['stdio', overStdio],
  ['HTTP', overHttp],
] as const) {
  for (const era of ['modern', 'handshake'] as const) {
    test(`apps over ${transport}, ${era}: a host that declares the extension`, async (t) => {
      await appHost(await open(t, era, true), era);
    });
    test(`apps over ${transport}, ${era}: a client without it gets text`, async (t) => {
      await textClient(await open(t, era, false), era);
    });
  }
}

test('apps, 2026-07-28: negotiation is per request, so two clients of one server see different lists', async (t) => {
  const running = await serve(appsServer(), { port: 0, host: '127.0.0.1' });
  t.after(() => running.close());
  const host = new McpClient({ name: 'host', version: '1.0.0', era: 'modern', apps: true });
  const plain = new McpClient({ name: 'plain', version: '1.0.0', era: 'modern' });
  await host.connect(new StreamableHttpClientTransport({ url: running.url }));
  await plain.connect(new StreamableHttpClientTransport({ url: running.url }));
  t.after(() => Promise.all([host.close(), plain.close()]));
  assert.ok((await host.listAllTools()).some((t) => t.name === 'refresh'));
  assert.ok(!(await plain.listAllTools()).some((t) => t.name === 'refresh'));
  // The extension declared without the app MIME type: nothing this server serves can be rendered.
  const other = new McpClient({ name: 'other', version: '1.0.0', era: 'modern', capabilities: { extensions: { [EXT]: { mimeTypes: ['text/uri-list'] } } } });
  await other.connect(new StreamableHttpClientTransport({ url: running.url }));
  t.after(() => other.close());
  assert.ok(!(await other.listAllTools()).some((t) => t.name === 'refresh'));
});

test('apps: negotiate: false serves UI metadata to every client', async (t) => {
  const running = await serve(appsServer({ negotiate: false }), { port: 0, host: '127.0.0.1' });
  t.after(() => running.close());
  const client = new McpClient({ name: 'plain', version: '1.0.0', era: 'handshake' });
  await client.connect(new StreamableHttpClientTransport({ url: running.url }));
  t.after(() => client.close());
  const tools = byName(await client.listAllTools());
  assert.deepEqual(tools.get('refresh')?._meta?.ui, { resourceUri: VIEW_URI, visibility: ['app'] });
  assert.deepEqual((await client.callTool('refresh')).content, [{ type: 'text', text: '{"refreshedAt":"now"}' }]);
  assert.ok((await client.listAllResources()).some((r) => r.uri === VIEW_URI));
});
