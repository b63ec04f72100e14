// The Apps panel end to end in headless Chromium: MCP App views rendered in a sandboxed iframe
// (no allow-same-origin) with the `io.modelcontextprotocol/ui` host protocol, against real
// servers: our apps() extension over HTTP (2026-07-28), whose view is written with the OFFICIAL
// App SDK (@modelcontextprotocol/ext-apps), and a server built with the official SDK and the
// ext-apps server helpers over stdio. Then the defences, each written as the attack: a view that reads its
// parent, calls the studio's API and asks it to start a command, calls tools on its own; messages
// from other windows. Screenshots go to .artifacts/studio/.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, ElementHandle, Frame, Page } from 'playwright-core';
import { serve, type RunningServer } from '../../src/serving/node.js';
import type { TimelineEntry } from '../../src/studio/api-types.js';
import type { RunningStudio } from '../../src/studio/http.js';
import { resolveTarget } from '../../src/pool/targets.js';
import { ROOT, TSX } from '../cli/helpers.js';
import { studioAppsServer } from '../fixtures/studio-apps-server.js';
import { tempDir } from '../support/index.js';
import { connectedIn, launchChromium, spawnProbe, startTestStudio } from './helpers.js';

const SHOTS = join(ROOT, '.artifacts', 'studio');
const EXT_APPS_LINE = `"${process.execPath}" --import ${TSX} "${join(ROOT, 'test/fixtures/ext-apps-server.ts')}"`;

describe('mcpkit studio: MCP Apps', () => {
  let apps: RunningServer;
  let studio: RunningStudio;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];
  const pageCsp: string[] = [];

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    apps = await serve(studioAppsServer(), { port: 0 });
    const t = (spec: string) => resolveTarget(spec, { cwd: ROOT });
    studio = await startTestStudio({
      servers: [
        { name: 'apps', origin: 'command-line', target: t(apps.url) },
        { name: 'ext-apps', origin: 'command-line', target: t(EXT_APPS_LINE) },
      ],
    });
    await studio.ready;
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    page.on('pageerror', (e) => pageErrors.push(e.message));
    page.on('console', (m) => {
      // The studio's own page only: a view's console is the view's business.
      if (/Content Security Policy/i.test(m.text()) && !m.location().url.includes('/apps/view/')) pageCsp.push(m.text());
    });
    await page.goto(studio.url);
  });
  after(async () => {
    await browser?.close();
    await studio?.close();
    await apps?.close();
  });

  const shot = (name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`) });
  const calls = (tool: string): TimelineEntry[] =>
    studio.hub.timeline.since(0, 100_000).filter((e) => e.dir === 'out' && e.method === 'tools/call' && (e.message as any)?.params?.name === tool);

  async function run(server: string, tool: string, fill: Record<string, string> = {}): Promise<{ iframe: ElementHandle; frame: Frame }> {
    await page.click(`[data-server="${server}"]`);
    await page.click('[data-tab="apps"]');
    await page.click(`[data-app-tool="${tool}"]`);
    await page.waitForSelector(`.app-detail h2:has-text("${tool}")`);
    for (const [name, value] of Object.entries(fill)) await page.fill(`[name="${name}"]`, value);
    await page.click('button:has-text("Run and show the view")');
    const iframe = await page.waitForSelector('iframe.app-frame');
    const frame = await iframe.contentFrame();
    assert.ok(frame, 'the view has a frame');
    return { iframe, frame };
  }

  const text = async (frame: Frame, id: string, want: RegExp) => {
    await frame.waitForFunction(([i, src]) => new RegExp(src).test(document.getElementById(i)?.textContent ?? ''), [id, want.source] as const);
    return (await frame.textContent(`#${id}`)) ?? '';
  };

  test('a view written with the official App SDK: sandboxed, initialized, given the context, the input and the result', async () => {
    await connectedIn(page, studio, 'apps');
    const { iframe, frame } = await run('apps', 'show_weather', { city: 'Oslo' });
    // The sandbox: scripts and forms, never same-origin.
    assert.equal(await iframe.getAttribute('sandbox'), 'allow-scripts allow-forms');
    assert.equal(await iframe.getAttribute('allow'), 'clipboard-write');
    await text(frame, 'status', /connected/);
    assert.equal(await text(frame, 'theme', /light|dark/), 'light');
    assert.equal(await text(frame, 'width', /\d/), '1024');
    assert.equal(await text(frame, 'platform', /\w/), 'web');
    assert.match(await text(frame, 'locale', /\w/), /^[a-z]{2}/i);
    assert.match(await text(frame, 'input', /Oslo/), /"city":"Oslo"/);
    assert.match(await text(frame, 'result', /tempC/), /"tempC":21/);
    await page.waitForSelector('[data-testid="view-state"]:has-text("view initialized")');
    // ui/notifications/size-changed: the frame takes the view's height (its content is 420 px).
    await page.waitForFunction(() => Number.parseInt(document.querySelector<HTMLIFrameElement>('iframe.app-frame')?.style.height ?? '0', 10) >= 420);
    await shot('apps');
  });

  test('theme and device presets reach the view (ui/notifications/host-context-changed)', async () => {
    const frame = (await (await page.waitForSelector('iframe.app-frame')).contentFrame())!;
    await page.selectOption('[name="app-device"]', 'phone');
    await page.selectOption('[name="app-theme"]', 'dark');
    await page.selectOption('[name="app-locale"]', 'fr-FR');
    assert.equal(await text(frame, 'width', /^390$/), '390');
    assert.equal(await text(frame, 'platform', /mobile/), 'mobile');
    assert.equal(await text(frame, 'theme', /dark/), 'dark');
    assert.equal(await text(frame, 'locale', /fr-FR/), 'fr-FR');
    assert.equal(await page.$eval('iframe.app-frame', (f) => (f as HTMLIFrameElement).style.width), '390px');
    await shot('apps-phone-dark');
    await page.selectOption('[name="app-device"]', 'tablet');
    assert.equal(await text(frame, 'width', /^768$/), '768');
  });

  test("a view's tools/call reaches the server only after you allow it", async () => {
    const frame = (await (await page.waitForSelector('iframe.app-frame')).contentFrame())!;
    await frame.click('#refresh');
    await page.waitForSelector('.approval[data-ask="tools/call"] [data-testid="ask-tool"]:has-text("refresh")');
    assert.equal(calls('refresh').length, 0, 'the call went out before it was approved');
    await page.click('.approval button:has-text("Deny")');
    assert.match(await text(frame, 'refreshed', /error/), /denied/);
    assert.equal(calls('refresh').length, 0, 'a denied call went out');
    await frame.click('#refresh');
    await page.click('.approval[data-ask="tools/call"] button:has-text("Allow")');
    assert.match(await text(frame, 'refreshed', /refreshes/), /"refreshes":1/);
    assert.equal(calls('refresh').length, 1);
  });

  test('a link the view asks to open waits for you; fullscreen on request', async () => {
    const frame = (await (await page.waitForSelector('iframe.app-frame')).contentFrame())!;
    await frame.click('#open');
    const ask = await page.waitForSelector('.approval[data-ask="ui/open-link"]');
    assert.match((await ask.textContent()) ?? '', /https:\/\/example\.com\/docs/);
    assert.equal(await page.getAttribute('.approval[data-ask="ui/open-link"] a', 'rel'), 'noopener noreferrer');
    await page.click('.approval button:has-text("Dismiss")');
    assert.equal(await text(frame, 'link', /dismissed|opened/), 'dismissed');
    await frame.click('#full');
    assert.equal(await text(frame, 'mode', /fullscreen/), 'fullscreen');
    await page.waitForSelector('.app-view.fullscreen');
    await page.click('button:has-text("Exit fullscreen")');
    assert.equal(await text(frame, 'mode', /inline/), 'inline');
  });

  test('closing the view asks it to wind down first (ui/resource-teardown)', async () => {
    // The view's App SDK logs it from its onteardown handler, before the frame goes.
    const said = page.waitForEvent('console', (m) => m.text() === 'view teardown');
    await page.click('button:has-text("Close the view")');
    await said;
    await page.waitForSelector('iframe.app-frame', { state: 'detached' });
  });

  test('attack: a view reads its parent, cookies and storage, calls the API, asks to start a command, calls tools on its own', async () => {
    const marker = join(tempDir('studio-apps-probe'), 'spawned');
    const had = calls('refresh').length;
    const { frame } = await run('apps', 'probe', { studio: studio.origin, command: spawnProbe(marker) });
    // Its app-only call waits for the person; the model-only one is refused at once.
    await page.waitForSelector('.approval [data-testid="ask-tool"]:has-text("refresh")');
    await frame.waitForFunction(
      () => /"modelOnly"/.test(document.getElementById('report')?.textContent ?? '') && /"spawn"/.test(document.getElementById('report')?.textContent ?? ''),
    );
    const report = JSON.parse((await frame.textContent('#report')) ?? '{}');
    assert.equal(report.origin, 'null', 'the view has an opaque origin');
    assert.match(report.parent, /^blocked: SecurityError/);
    assert.match(report.cookie, /^blocked: SecurityError/);
    assert.match(report.storage, /^blocked: SecurityError/);
    assert.match(report.key, /^blocked: SecurityError/, "the view read the studio's API key");
    assert.doesNotMatch(report.read, /^status 200/, `the view read the studio's state: ${report.read}`);
    assert.match(report.modelOnly, /^refused: .*not callable by apps/);
    assert.deepEqual(studio.hub.targets.list(), [], 'the view got a command request through');
    assert.equal(existsSync(marker), false);
    assert.equal(calls('refresh').length, had);
    assert.equal(calls('model_only').length, 0);
    // The policy it was served with: the declared origin, not the directive it tried to write.
    const csp = (await page.textContent('[data-testid="view-csp"]')) ?? '';
    assert.match(csp, /connect-src http:\/\/127\.0\.0\.1:\*;/);
    assert.doesNotMatch(csp, /script-src \*/);
    assert.match((await page.textContent('.view-facts')) ?? '', /https:\/\/x\.example; script-src \*" is not an origin/);
    await shot('apps-probe');
    await page.click('.approval button:has-text("Deny")');
    await frame.waitForFunction(() => /"refresh":"error: You denied/.test(document.getElementById('report')?.textContent ?? ''));
    assert.equal(calls('refresh').length, had);
  });

  test('attack: messages from another window (the page itself, a popup) are ignored', async () => {
    await page.waitForSelector('iframe.app-frame');
    const ignored = () => page.$eval('[data-testid="ignored-count"]', (e) => Number(e.textContent));
    const before = await ignored();
    const had = calls('refresh').length;
    const asked = await page.$$eval('.approval', (xs) => xs.length);
    const forged = { jsonrpc: '2.0', id: 77, method: 'tools/call', params: { name: 'refresh', arguments: { why: 'forged' } } };
    await page.evaluate((m) => window.postMessage(m, '*'), forged);
    await page.waitForFunction((n) => Number(document.querySelector('[data-testid="ignored-count"]')?.textContent) === n, before + 1);
    const [popup] = await Promise.all([page.waitForEvent('popup'), page.evaluate(() => void window.open('about:blank'))]);
    await popup.evaluate((m) => window.opener.postMessage(m, '*'), forged);
    await page.waitForFunction((n) => Number(document.querySelector('[data-testid="ignored-count"]')?.textContent) === n, before + 2);
    await popup.close();
    assert.equal(await page.$$eval('.approval', (xs) => xs.length), asked, 'a forged message asked for approval');
    assert.equal(calls('refresh').length, had);
  });

  test('a server built with the official SDK and ext-apps helpers (stdio): its view is checked and rendered', async () => {
    await connectedIn(page, studio, 'ext-apps');
    const { frame } = await run('ext-apps', 'show_cart');
    await frame.waitForSelector('h1:has-text("Cart")');
    const csp = (await page.textContent('[data-testid="view-csp"]')) ?? '';
    assert.match(csp, /connect-src https:\/\/api\.shop\.example;/);
    assert.match(csp, /script-src 'unsafe-inline' https:\/\/cdn\.shop\.example;/);
    assert.match(csp, /frame-ancestors http:\/\/127\.0\.0\.1:\d+$/);
  });

  test('no error and no CSP violation in the studio page', () => {
    assert.deepEqual(pageErrors, []);
    assert.deepEqual(pageCsp, []);
  });
});
