// Sessions in headless Chromium, against a real server process: record a session and download it,
// restart the server with one tool changed (a stdio process whose tools come from a file), load
// the recording back, and see exactly that change: in the capability diff (recording vs live, and
// the sets the studio kept before and after the restart), when the recording is replayed (the
// changed tool's answer differs, the other's does not), and when two recordings are compared.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { RunningServer } from '../../src/serving/node.js';
import { resolveTarget } from '../../src/pool/targets.js';
import type { Recording } from '../../src/studio/recording.js';
import type { RunningStudio } from '../../src/studio/http.js';
import { ROOT, TSX } from '../cli/helpers.js';
import { startDemoHttp, tempDir } from '../support/index.js';
import { connectedIn, launchChromium, startTestStudio } from './helpers.js';

const SHOTS = join(ROOT, '.artifacts', 'studio');
const FIXTURE = join(ROOT, 'test/fixtures/studio-versioned-server.ts');

describe('studio sessions: record, replay, diff', () => {
  const dir = tempDir('studio-sessions');
  const versionFile = join(dir, 'version');
  let demo: RunningServer;
  let studio: RunningStudio;
  let browser: Browser;
  let page: Page;
  let first: string;
  const pageErrors: string[] = [];

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    writeFileSync(versionFile, '1');
    demo = await startDemoHttp();
    studio = await startTestStudio({
      servers: [
        {
          name: 'versioned',
          origin: 'command-line',
          target: resolveTarget(`"${process.execPath}" --import ${TSX} "${FIXTURE}" "${versionFile}"`, { cwd: ROOT }),
        },
        { name: 'demo', origin: 'command-line', target: resolveTarget(demo.url) },
      ],
    });
    await studio.ready;
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
    page.on('pageerror', (e) => pageErrors.push(e.message));
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) pageErrors.push(m.text());
    });
    await page.goto(studio.url);
    await connectedIn(page, studio, 'versioned');
  });
  after(async () => {
    await browser?.close();
    await studio?.close();
    await demo?.close();
  });

  async function call(tool: string, fields: Record<string, string>): Promise<void> {
    await page.click('[data-server="versioned"]');
    await page.click('[data-tab="tools"]');
    await page.fill('[aria-label="Filter tools"]', tool);
    await page.click(`[data-tool="${tool}"]`);
    await page.waitForSelector(`.tool-detail h2:has-text("${tool}")`);
    for (const [name, value] of Object.entries(fields)) await page.fill(`[name="${name}"]`, value);
    await page.click('button:has-text("Call tool")');
    await page.waitForSelector('.outcome');
  }

  async function recordCalls(): Promise<{ file: string; recording: Recording }> {
    await page.click('[data-tab="sessions"]');
    await page.click('button:has-text("Start recording")');
    await page.waitForSelector('.recording');
    await call('echo', { text: 'hello' });
    await call('add', { a: '2', b: '3' });
    await page.click('[data-tab="sessions"]');
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('button:has-text("Stop and save")')]);
    const file = join(dir, download.suggestedFilename());
    await download.saveAs(file);
    return { file, recording: JSON.parse(readFileSync(file, 'utf8')) as Recording };
  }

  /** The value of the option whose label contains `text` in a select. */
  async function optionValue(select: string, text: string): Promise<string> {
    const values = await page.$$eval(`select[aria-label="${select}"] option`, (os) => os.map((o) => [(o as HTMLOptionElement).value, o.textContent ?? '']));
    const hit = values.filter(([, label]) => label.includes(text));
    assert.ok(hit.length > 0, `no option "${text}" in ${select}: ${values.map((v) => v[1]).join(' | ')}`);
    return hit[0][0];
  }

  test('a recording holds the calls, their eras and timing, and the capability set', async () => {
    const { file, recording } = await recordCalls();
    first = file;
    assert.equal(recording.format, 'mcpkit-studio-recording');
    const calls = recording.entries.filter((e) => e.server === 'versioned' && e.method === 'tools/call' && e.dir === 'out');
    assert.deepEqual(
      calls.map((e) => (e.message as { params: { name: string } }).params.name),
      ['echo', 'add'],
    );
    const answer = recording.entries.find((e) => e.server === 'versioned' && e.kind === 'response' && e.method === 'tools/call');
    assert.ok(answer?.era && typeof answer.latencyMs === 'number' && answer.time > 0, 'answers carry their era and latency');
    const tools = recording.servers.find((s) => s.name === 'versioned')?.catalog?.tools?.map((t) => t.name);
    assert.deepEqual(tools?.sort(), ['add', 'echo']);
    assert.deepEqual(
      recording.servers.find((s) => s.name === 'versioned')?.catalog?.prompts?.map((p) => p.name),
      ['greeting'],
    );
  });

  test('the whole session holds the HTTP exchanges too, credentials masked', async () => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('button:has-text("Save the whole session")')]);
    const rec = JSON.parse(readFileSync(await download.path(), 'utf8')) as Recording;
    const http = rec.entries.filter((e) => e.server === 'demo' && e.kind === 'http');
    assert.ok(
      http.some((e) => /^POST /.test(e.method ?? '')),
      'an HTTP request line',
    );
    assert.ok(
      http.some((e) => /^200 POST /.test(e.method ?? '')),
      'an HTTP status line',
    );
  });

  test('restarted with one tool changed: the diff against the recording shows exactly that change', async () => {
    writeFileSync(versionFile, '2');
    await page.click('[data-server="versioned"]');
    await page.click('[data-tab="overview"]');
    await page.click('button:has-text("Reconnect")');
    await page.waitForSelector('.overview h2:has-text("2.0.0")');
    // Loaded back from the file (not the copy the page kept).
    await page.click('[data-tab="sessions"]');
    await page.click('.recordings li button:has-text("Remove")');
    await page.setInputFiles('input[name="load-recording"]', first);
    await page.waitForSelector(`.recordings li:has-text("${basename(first)}")`);
    await page.selectOption('select[aria-label="Compare from"]', await optionValue('Compare from', `${basename(first)} › versioned`));
    await page.selectOption('select[aria-label="Compare to"]', await optionValue('Compare to', 'versioned: live now'));
    await page.click('.compare button:has-text("Compare")');
    const summary = await page.waitForSelector('[data-testid="tools-summary"]');
    assert.equal(await summary.textContent(), '0 added, 0 removed, 1 changed, 1 unchanged');
    assert.equal(await page.textContent('[data-testid="prompts-summary"]'), '0 added, 0 removed, 0 changed, 1 unchanged');
    const paths = await page.$$eval('.item-changed[data-key="add"] .change', (rows) =>
      rows.map((r) => `${r.getAttribute('data-kind')} ${r.getAttribute('data-path')}`),
    );
    assert.deepEqual(paths.sort(), ['added inputSchema.properties.c', 'changed description']);
    await page.click('.item-changed[data-key="add"] button:has-text("show both")');
    await page.waitForSelector('.item-changed[data-key="add"] .side-by-side mark.diff-hl');
    await (await page.$('.compare-result'))!.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SHOTS, 'sessions-diff.png') });
  });

  test('the sets kept at each connection: before and after the restart, without a recording', async () => {
    await page.click('.compare button:has-text("Refresh kept sets")');
    const values = await page.$$eval('select[aria-label="Compare from"] option', (os) =>
      os.filter((o) => /^versioned: connected/.test(o.textContent ?? '')).map((o) => (o as HTMLOptionElement).value),
    );
    assert.equal(values.length, 2, 'a set kept at each of the two connections');
    // Newest first in the list: the older is the second.
    await page.selectOption('select[aria-label="Compare from"]', values[1]);
    await page.selectOption('select[aria-label="Compare to"]', values[0]);
    await page.click('.compare button:has-text("Compare")');
    await page.waitForSelector('[data-testid="tools-summary"]:has-text("1 changed")');
    assert.equal(await page.textContent('[data-testid="tools-summary"]'), '0 added, 0 removed, 1 changed, 1 unchanged');
    await page.waitForSelector('.item-changed[data-key="add"] .change[data-path="inputSchema.properties.c"]');
  });

  test('replayed against the restarted server: each answer beside the recorded one, the difference marked', async () => {
    await page.selectOption('select[aria-label="Recorded server"]', 'versioned');
    await page.selectOption('select[aria-label="Live server"]', 'versioned');
    await page.click('.replay button:has-text("Replay")');
    await page.waitForSelector('.replay .call-row[data-call="tools/call add"]:not([data-state="waiting"])');
    const echo = await page.getAttribute('.replay .call-row[data-call="tools/call echo"]', 'data-state');
    assert.equal(echo, 'same');
    const add = await page.waitForSelector('.replay .call-row[data-call="tools/call add"][data-state="differs"]');
    assert.match((await add.textContent()) ?? '', /sum 5/);
    await add.waitForSelector('mark.diff-hl');
    const changed = await add.$$eval('.change', (rows) => rows.map((r) => r.getAttribute('data-path')));
    assert.deepEqual(changed, ['content[0].text']);
    await page.click('.replay .call-row[data-call="tools/list"] button:has-text("hide")');
    await add.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SHOTS, 'sessions-replay.png') });
  });

  test('two recordings compared: the calls paired, the changed answer and tool shown', async () => {
    const { file } = await recordCalls();
    const from = await optionValue('Compare from', `${basename(first)} › versioned`);
    const second = await optionValue('Compare to', `${basename(file)} › versioned`);
    await page.selectOption('select[aria-label="Compare from"]', from);
    await page.selectOption('select[aria-label="Compare to"]', second);
    await page.click('.compare button:has-text("Compare")');
    await page.waitForSelector('.compare .call-row[data-call="tools/call add"]');
    assert.equal(await page.getAttribute('.compare .call-row[data-call="tools/call echo"]', 'data-state'), 'same');
    assert.equal(await page.getAttribute('.compare .call-row[data-call="tools/call add"]', 'data-state'), 'differs');
    assert.equal(await page.textContent('[data-testid="tools-summary"]'), '0 added, 0 removed, 1 changed, 1 unchanged');
  });

  test('no error in the page', () => {
    assert.deepEqual(pageErrors, []);
  });
});
