// The studio end to end in headless Chromium, against real servers: the demo server over HTTP
// (2026-07-28 era) and over stdio (pinned to the handshake era), the official v1 SDK fixture over
// stdio, a fixture whose tool schema has every shape the form must handle, and a command that does
// not exist. Every step waits on what the page shows, never on time. Screenshots go to
// .artifacts/studio/ (git-ignored).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { serve, type RunningServer } from '../../src/serving/node.js';
import type { TimelineEntry } from '../../src/studio/api-types.js';
import type { RunningStudio } from '../../src/studio/http.js';
import { resolveTarget } from '../../src/pool/targets.js';
import { CLI_LINE, OFFICIAL_LINE, ROOT } from '../cli/helpers.js';
import { createStudioFixture } from '../fixtures/studio-server.js';
import { startDemoHttp, tempDir, waitFor } from '../support/index.js';
import { launchChromium, spawnProbe, startTestStudio } from './helpers.js';

const SHOTS = join(ROOT, '.artifacts', 'studio');

describe('mcpkit studio in a browser', () => {
  let demo: RunningServer;
  let fixture: RunningServer;
  let studio: RunningStudio;
  let browser: Browser;
  let page: Page;
  const cspViolations: string[] = [];
  const pageErrors: string[] = [];

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    [demo, fixture] = await Promise.all([startDemoHttp(), serve(createStudioFixture(), { port: 0 })]);
    const t = (spec: string) => resolveTarget(spec, { cwd: ROOT });
    studio = await startTestStudio({
      servers: [
        { name: 'demo', origin: 'command-line', target: t(demo.url) },
        { name: 'demo-stdio', origin: 'command-line', target: t(`${CLI_LINE} serve --stdio`), settings: { era: 'handshake' } },
        { name: 'official', origin: 'command-line', target: t(OFFICIAL_LINE) },
        { name: 'fixture', origin: 'config', target: t(fixture.url) },
        { name: 'broken', origin: 'config', target: t('mcpkit-studio-no-such-command --flag') },
      ],
    });
    await studio.ready;
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1360, height: 860 } });
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) cspViolations.push(m.text());
    });
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.goto(studio.url);
  });
  after(async () => {
    await browser?.close();
    await studio?.close();
    await Promise.all([demo?.close(), fixture?.close()]);
  });

  const shot = (name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`) });
  const entries = (): TimelineEntry[] => studio.hub.timeline.since(0, 100_000);

  async function openServer(name: string, tab: string): Promise<void> {
    await page.click(`[data-server="${name}"]`);
    await page.click(`[data-tab="${tab}"]`);
  }

  async function openTool(server: string, tool: string): Promise<void> {
    await openServer(server, 'tools');
    await page.fill('[aria-label="Filter tools"]', tool);
    await page.click(`[data-tool="${tool}"]`);
    await page.waitForSelector(`.tool-detail h2:has-text("${tool}")`);
  }

  async function callAndRead(): Promise<string> {
    await page.click('button:has-text("Call tool")');
    const outcome = await page.waitForSelector('.outcome');
    return (await outcome.textContent()) ?? '';
  }

  test('every server is listed with its state; the one that fails says why', async () => {
    for (const name of ['demo', 'demo-stdio', 'official', 'fixture']) await page.waitForSelector(`[data-server="${name}"][data-state="connected"]`);
    await page.waitForSelector('[data-server="broken"][data-state="failed"]');
    await openServer('broken', 'overview');
    const why = await page.waitForSelector('.diagnosis');
    const text = (await why.textContent()) ?? '';
    assert.match(text, /start the command/);
    assert.match(text, /mcpkit-studio-no-such-command/);
    assert.match(text, /PATH/);
    await shot('failure');
    await openServer('demo', 'overview');
    await page.waitForSelector('[data-testid="server-state"]:has-text("connected")');
    assert.match((await page.textContent('.overview')) ?? '', /2026-07-28/);
    await shot('overview');
  });

  test('tools: a form from the schema, the call, its result', async () => {
    await openTool('demo', 'echo');
    await page.fill('[name="message"]', 'hello from the studio');
    assert.match(await callAndRead(), /hello from the studio/);
    await shot('tools');
  });

  test('progress, then cancel', async () => {
    await openTool('demo', 'count');
    await page.fill('[name="n"]', '1000');
    await page.click('button:has-text("Call tool")');
    await page.waitForSelector('[role="progressbar"]');
    await page.click('button:has-text("Cancel")');
    await page.waitForSelector('.outcome .badge:has-text("cancelled")');
    const cancelled = entries().find((e) => e.server === 'demo' && e.method === 'notifications/cancelled');
    assert.ok(cancelled, 'no notifications/cancelled went to the server');
  });

  test('structured output is checked against the outputSchema', async () => {
    await openTool('demo', 'get_weather');
    await page.fill('[name="city"]', 'Oslo');
    const text = await callAndRead();
    assert.match(text, /structured output matches outputSchema/);
    await openTool('official', 'add');
    await page.fill('[name="a"]', '2');
    await page.fill('[name="b"]', '3');
    const sum = await callAndRead();
    assert.match(sum, /"sum": 5/);
    assert.match(sum, /matches outputSchema/);
  });

  test('elicitation in the 2026-07-28 era: an input_required round answered in the page', async () => {
    await openTool('demo', 'greet_me');
    await page.click('button:has-text("Call tool")');
    const dialog = await page.waitForSelector('[role="dialog"][data-input-kind="elicitation"]');
    await shot('elicitation');
    await (await dialog.$('[name="name"]'))!.fill('Ada');
    await (await dialog.$('[name="language"]'))!.selectOption({ label: 'fr' });
    await page.click('[role="dialog"] button:has-text("Accept")');
    await page.waitForSelector('.outcome:has-text("Bonjour, Ada!")');
    const round = entries().find((e) => e.server === 'demo' && e.kind === 'response' && (e.message as any)?.result?.resultType === 'input_required');
    assert.ok(round, 'the call went through an input_required round');
  });

  test('sampling answered by hand, with you as the model', async () => {
    await openTool('demo', 'ask_model');
    await page.fill('[name="question"]', 'What is six times seven?');
    await page.click('button:has-text("Call tool")');
    await page.waitForSelector('[role="dialog"][data-input-kind="sampling"]:has-text("six times seven")');
    await page.fill('[name="sampling-text"]', '42');
    await page.click('[role="dialog"] button:has-text("Send answer")');
    await page.waitForSelector('.outcome:has-text("says: 42")');
  });

  test('elicitation in the handshake era: a server request answered in the page', async () => {
    await openTool('demo-stdio', 'greet_me');
    await page.click('button:has-text("Call tool")');
    const dialog = await page.waitForSelector('[role="dialog"][data-input-kind="elicitation"]');
    await (await dialog.$('[name="name"]'))!.fill('Grace');
    await page.click('[role="dialog"] button:has-text("Accept")');
    await page.waitForSelector('.outcome:has-text("Hello, Grace!")');
    const request = entries().find((e) => e.server === 'demo-stdio' && e.dir === 'in' && e.method === 'elicitation/create');
    assert.equal(request?.era, 'handshake');
    // Declining is an answer too (the official SDK's server).
    await openTool('official', 'ask');
    await page.click('button:has-text("Call tool")');
    await page.waitForSelector('[role="dialog"][data-input-kind="elicitation"]');
    await page.click('[role="dialog"] button:has-text("Decline")');
    await page.waitForSelector('.outcome:has-text("decline")');
  });

  test('URL elicitation: a link to follow, never opened by the studio', async () => {
    await openTool('fixture', 'visit');
    await page.click('button:has-text("Call tool")');
    const link = await page.waitForSelector('[role="dialog"] a[href="https://example.com/sign?ticket=42"]');
    assert.equal(await link.getAttribute('rel'), 'noopener noreferrer');
    assert.equal(await link.getAttribute('target'), '_blank');
    await page.click('[role="dialog"] button:has-text("Accept")');
    await page.waitForSelector('.outcome:has-text("you chose to accept")');
  });

  test('sampling in the handshake era, and the log level asked of a server', async () => {
    await openTool('official', 'sample');
    await page.fill('[name="prompt"]', 'Say pong');
    await page.click('button:has-text("Call tool")');
    await page.waitForSelector('[role="dialog"][data-input-kind="sampling"]:has-text("Say pong")');
    await page.fill('[name="sampling-text"]', 'pong');
    await page.click('[role="dialog"] button:has-text("Send answer")');
    await page.waitForSelector('.outcome:has-text("pong")');
    const asked = entries().find((e) => e.server === 'official' && e.dir === 'in' && e.method === 'sampling/createMessage');
    assert.equal(asked?.era, 'handshake');
    // Logging: the level set in the page goes to the server, whose messages then show.
    await openServer('official', 'overview');
    await page.selectOption('[name="log-level"]', 'warning');
    await waitFor(
      () => entries().some((e) => e.server === 'official' && e.method === 'logging/setLevel' && e.kind === 'response'),
      'logging/setLevel answered',
    );
    await openTool('official', 'log');
    await page.selectOption('[name="level"]', 'info');
    await page.fill('[name="text"]', 'below the level');
    await callAndRead();
    await page.selectOption('[name="level"]', 'error');
    await page.fill('[name="text"]', 'above the level');
    await page.click('button:has-text("Call tool")');
    await page.waitForSelector('.outcome:has-text("logged")');
    await openServer('official', 'overview');
    await page.waitForSelector('.logs:has-text("above the level")');
    assert.doesNotMatch((await page.textContent('.logs')) ?? '', /below the level/);
  });

  test('the form covers nested objects, arrays, enums, a nullable enum, oneOf, defaults and formats', async () => {
    await openTool('fixture', 'configure');
    // The default of `count` is in the form already.
    assert.equal(await page.inputValue('[name="count"]'), '3');
    await page.fill('[name="title"]', 'Report');
    await page.fill('[name="ratio"]', '0.5');
    await page.selectOption('[name="enabled"]', 'true');
    await page.selectOption('[name="color"]', { label: 'green' });
    await page.check('[name="size:null"]');
    await page.fill('[name="when"]', '2026-11-28');
    await page.click('.field:has([id="f-tags"]) button:has-text("+ Add item")');
    await page.fill('[name="tags[0]"]', 'x');
    await page.check('[name="flags[]"][value="b"]');
    await page.fill('[name="address.city"]', 'Oslo');
    await page.selectOption('[name="target:variant"]', { label: 'By name' });
    await page.fill('[name="target.name"]', 'Ada');
    await page.fill('[name="extra"]', '{"k": [1, 2]}');
    await shot('schema-form');
    await callAndRead();
    const sent = entries()
      .filter((e) => e.server === 'fixture' && e.dir === 'out' && e.method === 'tools/call')
      .at(-1);
    assert.deepEqual((sent?.message as any)?.params?.arguments, {
      title: 'Report',
      count: 3,
      ratio: 0.5,
      enabled: true,
      color: 'green',
      size: null,
      when: '2026-11-28',
      tags: ['x'],
      flags: ['b'],
      address: { city: 'Oslo' },
      target: { name: 'Ada' },
      extra: { k: [1, 2] },
    });
  });

  test('raw JSON arguments are validated against the schema', async () => {
    await openTool('fixture', 'configure');
    await page.click('button[role="tab"]:has-text("JSON")');
    await page.fill('[name="raw-arguments"]', '{"title": ""}');
    const warning = await page.waitForSelector('.warn-text:has-text("address")');
    assert.match((await warning.textContent()) ?? '', /"address" is required/);
    await page.fill('[name="raw-arguments"]', '{"title": "x", "address": {"city": "y"}}');
    await page.waitForSelector('.warn-text', { state: 'detached' });
  });

  test('images, audio and resource links in results', async () => {
    await openTool('fixture', 'media');
    await callAndRead();
    await page.waitForSelector('.outcome img.image-block');
    await page.waitForSelector('.outcome audio');
    await page.click('.outcome button:has-text("Read it")');
    await page.waitForSelector('.opened .resource-block:has-text("count 0")');
  });

  test('resources: a template filled with completions, then read', async () => {
    await openServer('demo', 'resources');
    await page.fill('[aria-label="Filter resources"]', 'weather');
    await page.click('.vrow:has-text("weather://{city}")');
    await page.fill('[name="city"]', 'Os');
    await page.click('button.chip:has-text("Oslo")');
    assert.equal(await page.textContent('code.expanded'), 'weather://Oslo');
    await page.click('button.primary:has-text("Read")');
    await page.waitForSelector('.resource-block:has-text("\\"city\\": \\"Oslo\\"")');
  });

  test('resources: subscribe, and see the update', async () => {
    await openServer('fixture', 'resources');
    await page.click('.vrow:has-text("memo://counter")');
    await page.waitForSelector('.resource-block:has-text("count")');
    await page.click('button:has-text("Subscribe")');
    await page.waitForSelector('button:has-text("Unsubscribe")');
    const before = Number(/count (\d+)/.exec((await page.textContent('.resource-block')) ?? '')?.[1]);
    await studio.hub.client('fixture')!.callTool('bump');
    await page.waitForSelector(`.resource-block:has-text("count ${before + 1}")`);
    await page.waitForSelector('.badge:has-text("updated")');
  });

  test('prompts: arguments with completions', async () => {
    await openServer('demo', 'prompts');
    await page.click('.vrow:has-text("plan_day")');
    await page.fill('[name="city"]', 'Par');
    await page.click('button.chip:has-text("Paris")');
    await page.click('button:has-text("Get prompt")');
    await page.waitForSelector('.message:has-text("day in Paris")');
  });

  test('roots: changed in the page, seen by the server', async () => {
    await page.click('[data-tab="roots"]');
    await page.fill('[name="roots"]', 'file:///tmp/studio-root');
    await page.click('button:has-text("Save roots")');
    await page.waitForSelector('.badge:has-text("saved")');
    await openTool('official', 'roots');
    assert.match(await callAndRead(), /file:\/\/\/tmp\/studio-root/);
  });

  test('the timeline: search, pin, one message sent again', async () => {
    await page.click('[data-tab="timeline"]');
    await page.fill('[aria-label="Search the timeline"]', 'get_weather');
    await page.waitForSelector('.tl-row.request');
    const count = (await page.textContent('[data-testid="timeline-count"]')) ?? '';
    const [shown, total] = count.split(' of ').map((n) => Number.parseInt(n, 10));
    assert.ok(shown > 0 && shown < total, count);
    await page.click('.tl-row.request .pin');
    await page.waitForSelector('.tl-row.request .pin.on');
    await page.click('.tl-row.request .tl-method');
    await page.click('button:has-text("Send again")');
    await page.waitForSelector('.outcome:has-text("Answer to the replay")');
    await page.fill('[aria-label="Search the timeline"]', '');
    await shot('timeline');
    const replays = entries().filter((e) => e.dir === 'out' && e.method === 'tools/call' && JSON.stringify(e.message).includes('get_weather'));
    assert.ok(replays.length >= 2, 'the request was not sent again');
  });

  test('a server added from the page starts only once confirmed there', async () => {
    const marker = join(tempDir('studio-add'), 'spawned');
    await page.click('button:has-text("+ Add a server")');
    await page.fill('[name="add-target"]', spawnProbe(marker));
    await page.click('button:has-text("Ask to add")');
    const card = await page.waitForSelector('.confirm-card');
    assert.match((await card.textContent()) ?? '', /writeFileSync/);
    await shot('confirm');
    assert.equal(existsSync(marker), false, 'the command ran before it was confirmed');
    await page.click('.confirm-card button:has-text("Run it")');
    await waitFor(() => existsSync(marker), 'the confirmed command to run');
  });

  test('the keyboard alone finds a tool and calls it', async () => {
    await openServer('demo', 'tools');
    await page.focus('[aria-label="Filter tools"]');
    await page.keyboard.type('echo');
    // The list arrives from the server after the tab opens: arrowing through it before it is
    // there selects nothing (a busy machine showed it).
    await page.waitForSelector('[aria-label="Tools"] [role="option"]:has-text("echo")');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'Tools');
    await page.keyboard.press('ArrowDown');
    await page.waitForSelector('.tool-detail h2:has-text("echo")');
    for (let i = 0; i < 12 && (await page.evaluate(() => document.activeElement?.getAttribute('name'))) !== 'message'; i++) await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('name')), 'message');
    await page.keyboard.type('typed, not clicked');
    await page.keyboard.press('Control+Enter');
    await page.waitForSelector('.outcome:has-text("typed, not clicked")');
  });

  test('a command palette, and a dark theme', async () => {
    await page.keyboard.press('Control+K');
    await page.waitForSelector('[aria-label="Command palette"]');
    // The palette focuses its input once rendered; keys sent before that land elsewhere.
    await page.waitForFunction(() => document.activeElement?.getAttribute('aria-label') === 'Command');
    await page.keyboard.type('go to tools');
    await page.waitForSelector('.palette li.selected:has-text("Go to Tools")');
    await page.keyboard.press('Enter');
    await page.waitForSelector('[aria-label="Command palette"]', { state: 'detached' });
    await page.waitForSelector('[data-tab="tools"][aria-selected="true"]');
    await page.click('[aria-label="Switch theme"]');
    await page.waitForSelector('html[data-theme="dark"]');
    await openTool('demo', 'get_weather');
    await page.fill('[name="city"]', 'Paris');
    await callAndRead();
    await shot('dark');
  });

  test('no Content-Security-Policy violation and no error in the page', () => {
    assert.deepEqual(cspViolations, []);
    assert.deepEqual(pageErrors, []);
  });
});
