// The studio at scale, in headless Chromium: a server with 1,000 tools and a timeline of 10,000
// messages. What is asserted does not depend on the machine: the lists are virtualised (a bounded
// number of rows in the DOM whatever the list's length) and a filter finds what it should. The
// times (first render, a filter keystroke) are measured and reported, not asserted: they belong to
// the machine (docs/studio.md gives them for one).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { serve, type RunningServer } from '../../src/serving/node.js';
import { resolveTarget } from '../../src/pool/targets.js';
import { McpServer } from '../../src/server/mcp-server.js';
import type { RunningStudio } from '../../src/studio/http.js';
import { connectedIn, launchChromium, startTestStudio } from './helpers.js';

const TOOLS = 1_000;
const MESSAGES = 10_000;

function bigServer(): McpServer {
  const server = new McpServer({ name: 'big', version: '1.0.0' });
  for (let i = 0; i < TOOLS; i++) {
    server.tool(`tool_${i}`, { description: `Tool number ${i}`, input: { type: 'object', properties: { n: { type: 'integer' } } } }, () => `tool ${i}`);
  }
  return server;
}

describe('the studio at scale', () => {
  let big: RunningServer;
  let studio: RunningStudio;
  let browser: Browser;
  let page: Page;

  before(async () => {
    big = await serve(bigServer(), { port: 0 });
    studio = await startTestStudio({ servers: [{ name: 'big', origin: 'command-line', target: resolveTarget(big.url) }] });
    await studio.ready;
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1360, height: 860 } });
    await page.goto(studio.url);
    await connectedIn(page, studio, 'big');
  });
  after(async () => {
    await browser?.close();
    await studio?.close();
    await big?.close();
  });

  async function timed(what: () => Promise<unknown>): Promise<number> {
    const t0 = performance.now();
    await what();
    return performance.now() - t0;
  }

  test(`${TOOLS} tools: rendered virtualised, filtered`, async (t) => {
    await page.click('[data-tab="tools"]');
    const first = await timed(() => page.waitForSelector('[data-tool="tool_0"]'));
    assert.equal(await page.getAttribute('[aria-label="Filter tools"]', 'placeholder'), `Filter ${TOOLS} tools`);
    const rows = await page.$$eval('.vrow', (r) => r.length);
    assert.ok(rows > 0 && rows < 60, `${rows} rows in the DOM for ${TOOLS} tools`);
    const filter = await timed(async () => {
      await page.fill('[aria-label="Filter tools"]', 'tool_99');
      await page.waitForSelector('[data-tool="tool_999"]');
    });
    const shown = await page.$$eval('[data-tool]', (r) => r.map((e) => e.getAttribute('data-tool')));
    assert.deepEqual(shown.sort(), ['tool_99', ...Array.from({ length: 10 }, (_, i) => `tool_99${i}`)].sort());
    t.diagnostic(`${rows} rows in the DOM`);
    t.diagnostic(`${TOOLS} tools: first render ${first.toFixed(0)} ms, a filter ${filter.toFixed(0)} ms (wall clock, this machine, through CDP)`);
  });

  test(`${MESSAGES} timeline messages: rendered virtualised, searched`, async (t) => {
    await page.click('[data-tab="timeline"]');
    // Through the studio's own recorder, as a server would produce them.
    const rec = studio.hub.timeline.middleware('big', () => 'modern');
    const next = async () => {};
    for (let i = 0; i < MESSAGES / 2; i++) {
      await rec.outgoing!({ jsonrpc: '2.0', id: `s${i}`, method: 'tools/call', params: { name: `tool_${i % TOOLS}`, arguments: { n: i } } }, next);
      await rec.incoming!({ jsonrpc: '2.0', id: `s${i}`, result: { content: [{ type: 'text', text: `answer ${i}` }] } }, next);
    }
    const total = studio.hub.timeline.lastSeq;
    await page.waitForFunction((n) => document.querySelector('[data-testid="timeline-count"]')?.textContent?.endsWith(`of ${n}`), total);
    const rows = await page.$$eval('.tl-row', (r) => r.length);
    assert.ok(rows > 0 && rows < 80, `${rows} rows in the DOM for ${total} messages`);
    const search = await timed(async () => {
      await page.fill('[aria-label="Search the timeline"]', 'answer 4999');
      await page.waitForFunction(() => document.querySelector('[data-testid="timeline-count"]')?.textContent?.startsWith('1 of'));
    });
    const reset = await timed(async () => {
      await page.fill('[aria-label="Search the timeline"]', '');
      await page.waitForFunction((n) => document.querySelector('[data-testid="timeline-count"]')?.textContent === `${n} of ${n}`, total);
    });
    t.diagnostic(`${rows} rows in the DOM`);
    t.diagnostic(`${total} messages: a search ${search.toFixed(0)} ms, clearing it ${reset.toFixed(0)} ms (wall clock, this machine, through CDP)`);
  });
});
