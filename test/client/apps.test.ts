// The client's MCP Apps helpers: against a server built with the official ext-apps helpers on the
// official v2 SDK (a stdio child process, both eras), and against mcpkit's own McpServer for the
// corners (blob content, listing-level settings, malformed metadata). Fingerprints and approvals.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { McpClient } from '../../src/client/client.js';
import { AppApprovals, AppResourceError, appResourceUri, appTools, fingerprintAppResource, modelTools, readAppResource } from '../../src/client/apps.js';
import { McpServer } from '../../src/server/mcp-server.js';
import { createTestPair } from '../../src/testing/index.js';
import { StdioClientTransport } from '../../src/transports/stdio/client.js';
import { CART_HTML, CART_UI, CART_URI } from '../fixtures/ext-apps-server.js';
import { patient } from '../support/index.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MIME = 'text/html;profile=mcp-app';

async function official(t: TestContext, era: 'modern' | 'handshake', apps = true): Promise<McpClient> {
  const client = new McpClient({ name: 'apps-host', version: '1.0.0', era, apps, probeTimeoutMs: patient(30_000) });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: ['--import', 'tsx', 'test/fixtures/ext-apps-server.ts'], cwd: ROOT }));
  t.after(() => client.close());
  return client;
}

for (const era of ['modern', 'handshake'] as const) {
  test(`apps client against the official ext-apps helpers (${era}): split, read, fingerprint`, async (t) => {
    const client = await official(t, era);
    assert.equal(client.era, era);
    const tools = await client.listAllTools();
    const named = new Map(tools.map((x) => [x.name, x]));
    // registerAppTool writes both keys; the flat-only tool is normalised by our reader.
    assert.equal(named.get('show_cart')?._meta?.['ui/resourceUri'], CART_URI);
    assert.equal(appResourceUri(named.get('old_cart')!), CART_URI);
    assert.equal(appResourceUri(named.get('client_ui')!), undefined);
    assert.deepEqual(
      modelTools(tools)
        .map((x) => x.name)
        .sort(),
      ['client_ui', 'old_cart', 'show_cart'],
    );
    assert.deepEqual(
      appTools(tools)
        .map((x) => x.name)
        .sort(),
      ['client_ui', 'old_cart', 'show_cart', 'update_quantity'],
    );

    const listing = (await client.listAllResources()).find((r) => r.uri === CART_URI);
    assert.equal(listing?.mimeType, MIME);
    const cart = await readAppResource(client, named.get('show_cart')!, { listing });
    assert.equal(cart.html, CART_HTML);
    assert.deepEqual(cart.ui, CART_UI);
    assert.equal(cart.fingerprint, await fingerprintAppResource({ html: CART_HTML, ui: CART_UI }));
    assert.equal((await readAppResource(client, named.get('old_cart')!)).fingerprint, cart.fingerprint);

    await assert.rejects(
      readAppResource(client, 'ui://shop/plain.html'),
      (e: unknown) => e instanceof AppResourceError && /not text\/html;profile=mcp-app/.test(e.message),
    );
    await assert.rejects(readAppResource(client, named.get('client_ui')!), AppResourceError);
  });
}

test('apps client: the official getUiCapability reads what the apps option declares', async (t) => {
  const withApps = await official(t, 'handshake');
  const said = await withApps.callTool('client_ui');
  assert.deepEqual(JSON.parse((said.content[0] as { text: string }).text), { mimeTypes: [MIME] });
  const without = await official(t, 'handshake', false);
  assert.equal(((await without.callTool('client_ui')).content[0] as { text: string }).text, 'null');
});

test('readAppResource: base64 content, listing-level settings, and what it refuses', async (t) => {
  const server = new McpServer({ name: 'corners', version: '1.0.0' });
  const html = '<!DOCTYPE html><html><body>é</body></html>';
  server.resource('blob', 'ui://c/blob.html', { mimeType: MIME }, () => ({
    contents: [{ uri: 'ui://c/blob.html', mimeType: MIME, blob: Buffer.from(html).toString('base64') }],
  }));
  server.resource('bad-meta', 'ui://c/bad.html', { mimeType: MIME }, () => ({
    contents: [{ uri: 'ui://c/bad.html', mimeType: MIME, text: html, _meta: { ui: { csp: { connectDomains: 'https://x.example' } } } }],
  }));
  server.resource('bad-blob', 'ui://c/bad-blob.html', { mimeType: MIME }, () => ({
    contents: [{ uri: 'ui://c/bad-blob.html', mimeType: MIME, blob: Buffer.from([0xff, 0xfe]).toString('base64') }],
  }));
  const { client, close } = await createTestPair(server);
  t.after(close);
  const listing = { _meta: { ui: { csp: { resourceDomains: ['https://cdn.example'] } } } };
  const read = await readAppResource(client, 'ui://c/blob.html', { listing });
  assert.equal(read.html, html);
  // No `_meta.ui` on the content: the listing's applies.
  assert.deepEqual(read.ui, listing._meta.ui);
  await assert.rejects(
    readAppResource(client, 'ui://c/bad.html'),
    (e: unknown) => e instanceof AppResourceError && /csp.connectDomains must be a list/.test(e.message),
  );
  await assert.rejects(
    readAppResource(client, 'ui://c/bad-blob.html'),
    (e: unknown) => e instanceof AppResourceError && /not base64-encoded UTF-8/.test(e.message),
  );
  await assert.rejects(
    readAppResource(client, 'https://example.com/x.html'),
    (e: unknown) => e instanceof AppResourceError && /must start with ui:\/\//.test(e.message),
  );
});

test('fingerprintAppResource: what counts as a change', async () => {
  const base = {
    html: '<p>x</p>',
    ui: { csp: { connectDomains: ['https://a.example', 'https://b.example'] }, permissions: { camera: {} }, domain: 'd.example' },
  };
  const fp = await fingerprintAppResource(base);
  const same = async (other: typeof base | { html: string; ui?: object }) => (await fingerprintAppResource(other)) === fp;
  assert.ok(await same({ ...base, ui: { ...base.ui, csp: { connectDomains: ['https://b.example', 'https://a.example'] } } }), 'origin order');
  assert.ok(await same({ ...base, ui: { ...base.ui, prefersBorder: true } } as typeof base), 'prefersBorder is cosmetic');
  assert.ok(!(await same({ ...base, html: '<p>y</p>' })), 'html');
  assert.ok(!(await same({ ...base, ui: { ...base.ui, csp: { connectDomains: ['https://a.example'] } } })), 'csp narrowed');
  assert.ok(!(await same({ ...base, ui: { ...base.ui, csp: { ...base.ui.csp, frameDomains: ['https://f.example'] } } } as typeof base)), 'frames');
  assert.ok(!(await same({ ...base, ui: { ...base.ui, permissions: { camera: {}, microphone: {} } } } as typeof base)), 'permission');
  assert.ok(!(await same({ ...base, ui: { ...base.ui, domain: 'e.example' } })), 'domain');
});

test('AppApprovals: per server and resource, persisted', () => {
  const approvals = new AppApprovals();
  approvals.approve('a', { uri: 'ui://x', fingerprint: 'sha256:1' });
  assert.equal(approvals.check('a', { uri: 'ui://x', fingerprint: 'sha256:1' }), 'approved');
  assert.equal(approvals.check('a', { uri: 'ui://x', fingerprint: 'sha256:2' }), 'changed');
  assert.equal(approvals.check('b', { uri: 'ui://x', fingerprint: 'sha256:1' }), 'unapproved');
  const restored = new AppApprovals(approvals.toJSON());
  assert.ok(restored.checkApproved('a', { uri: 'ui://x', fingerprint: 'sha256:1' }));
  restored.revoke('a', 'ui://x');
  assert.equal(restored.check('a', { uri: 'ui://x', fingerprint: 'sha256:1' }), 'unapproved');
});
