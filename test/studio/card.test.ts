// The server card view in headless Chromium: a v1 card served by mcpkit whose description differs
// from the server's (the check names that field, and says the card lists no tools), and a card of
// an earlier draft that lists tools, against a live server with one tool changed, one added and
// one gone: the diff shows exactly those.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { serve, toNodeHandler, type RunningServer } from '../../src/serving/node.js';
import { resolveTarget } from '../../src/pool/targets.js';
import { McpServer } from '../../src/server/mcp-server.js';
import type { RunningStudio } from '../../src/studio/http.js';
import { ROOT } from '../cli/helpers.js';
import { launchChromium, startTestStudio } from './helpers.js';

const SHOTS = join(ROOT, '.artifacts', 'studio');

function server(name: string, withFresh: boolean): McpServer {
  const s = new McpServer({ name, version: '1.0.0', description: 'A server for the card tests' });
  s.tool(
    'echo',
    { description: 'Says it back', input: { type: 'object', properties: { text: { type: 'string' }, loud: { type: 'boolean' } } } as never },
    () => 'ok',
  );
  if (withFresh) s.tool('fresh', { description: 'New since the card' }, () => 'new');
  return s;
}

describe('the server card view', () => {
  let v1: RunningServer;
  let draft: Server;
  let draftUrl: string;
  let studio: RunningStudio;
  let browser: Browser;
  let page: Page;

  before(async () => {
    v1 = await serve(server('io.github.test/carded', false), { port: 0, serverCard: { description: 'What the card says instead' } });
    // An earlier draft's card (it listed tools), served beside a live mcpkit server.
    const mcp = toNodeHandler(server('io.github.test/drafted', true));
    draft = createServer((req, res) => {
      if (req.url === '/mcp/server-card') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            name: 'io.github.test/drafted',
            version: '1.0.0',
            description: 'A server for the card tests',
            remotes: [{ type: 'streamable-http', url: draftUrl }],
            tools: [{ name: 'echo', description: 'Says it back', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }, 'gone'],
          }),
        );
        return;
      }
      mcp(req, res);
    });
    await new Promise<void>((r) => draft.listen(0, '127.0.0.1', r));
    draftUrl = `http://127.0.0.1:${(draft.address() as AddressInfo).port}/mcp`;
    studio = await startTestStudio({
      servers: [
        { name: 'v1', origin: 'command-line', target: resolveTarget(v1.url) },
        { name: 'draft', origin: 'command-line', target: resolveTarget(draftUrl) },
      ],
    });
    await studio.ready;
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
    await page.goto(studio.url);
  });
  after(async () => {
    await browser?.close();
    await studio?.close();
    await v1?.close();
    draft?.closeAllConnections();
    await new Promise((r) => draft?.close(r));
  });

  test('a v1 card: the field it disagrees on, and no lists to compare', async () => {
    await page.click('[data-server="v1"]');
    await page.click('[data-tab="card"]');
    await page.waitForSelector('[data-testid="card-verdict"]:has-text("1 difference")');
    const fields = await page.$$eval('.card-differences tr', (rows) => rows.map((r) => r.getAttribute('data-field')));
    assert.deepEqual(fields, ['description']);
    assert.match((await page.textContent('.card-differences')) ?? '', /What the card says instead/);
    await page.waitForSelector('.card-panel:has-text("lists no tools, prompts or resources")');
    // The card's exchange is in the timeline, as the connection's are.
    assert.ok(studio.hub.timeline.since(0, 100_000).some((e) => e.server === 'v1' && e.kind === 'http' && /server-card/.test(e.method ?? '')));
  });

  test("an earlier draft's card with tools: added, removed and changed against the live server", async () => {
    await page.click('[data-server="draft"]');
    await page.click('[data-tab="card"]');
    const summary = await page.waitForSelector('[data-testid="tools-summary"]');
    assert.equal(await summary.textContent(), '1 added, 1 removed, 1 changed, 0 unchanged');
    await page.waitForSelector('.item-added[data-key="fresh"]');
    await page.waitForSelector('.item-removed[data-key="gone"]');
    const changes = await page.$$eval('.item-changed[data-key="echo"] .change', (rows) => rows.map((r) => r.getAttribute('data-path')));
    assert.deepEqual(changes, ['inputSchema.properties.loud']);
    // The client's own check says so too, by name.
    await page.waitForSelector('.card-differences tr[data-field="tools"]');
    await page.screenshot({ path: join(SHOTS, 'card.png') });
  });
});
