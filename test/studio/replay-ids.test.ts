// Replay with the live server's ids. The pairing itself (ReplayIds: ids found side by side in the
// recorded and live answers, then used in later requests and in reading the recorded answers),
// and end to end in headless Chromium: a session recorded against one ticket server (a tool that
// opens a ticket and answers its id, another that takes the id) replayed against a second one,
// whose tickets have other ids. Sent as recorded, the second call would name a ticket the live
// server never made; replayed, it names the live one, and both calls answer the same.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { serve, type RunningServer } from '../../src/serving/node.js';
import { resolveTarget } from '../../src/pool/targets.js';
import { McpServer } from '../../src/server/mcp-server.js';
import type { RunningStudio } from '../../src/studio/http.js';
import { ReplayIds } from '../../src/studio/replay-ids.js';
import { ROOT } from '../cli/helpers.js';
import { tempDir } from '../support/index.js';
import { apiCall, connectedIn, launchChromium, signIn, startTestStudio } from './helpers.js';

const SHOTS = join(ROOT, '.artifacts', 'studio');

describe('ReplayIds', () => {
  test('pairs ids under id-like keys, and uses them in later requests and recorded answers', () => {
    const ids = new ReplayIds();
    const learned = ids.learn(
      { structuredContent: { ticketId: 'rec-ticket-0001', count: 1 }, nextCursor: 'c1', task: { taskId: 't-rec' }, content: [{ type: 'text', text: 'a' }] },
      { structuredContent: { ticketId: 'live-ticket-0002', count: 2 }, nextCursor: 'c9', task: { taskId: 't-live' }, content: [{ type: 'text', text: 'b' }] },
    );
    assert.deepEqual(
      learned.map((m) => [m.path, m.recorded, m.live]),
      [
        ['structuredContent.ticketId', 'rec-ticket-0001', 'live-ticket-0002'],
        ['nextCursor', 'c1', 'c9'],
        ['task.taskId', 't-rec', 't-live'],
      ],
    );
    // Only id-like keys: a count or a text that differ are answers, not ids.
    assert.equal(ids.size, 3);
    const { value, used } = ids.apply({ name: 'ticket_status', arguments: { ticketId: 'rec-ticket-0001', note: 'about rec-ticket-0001', cursor: 'c1' } });
    assert.deepEqual(value, { name: 'ticket_status', arguments: { ticketId: 'live-ticket-0002', note: 'about live-ticket-0002', cursor: 'c9' } });
    assert.equal(used.length, 2);
    // A short id is replaced only whole, never inside a longer string.
    assert.deepEqual(ids.apply({ text: 'c1 and t-rec' }).value, { text: 'c1 and t-rec' });
    // The same value on both sides, or seen before: nothing new.
    assert.deepEqual(ids.learn({ id: 'same' }, { id: 'same' }), []);
    assert.deepEqual(ids.learn({ taskId: 't-rec' }, { taskId: 'other' }), []);
  });
});

function ticketServer(name: string): McpServer {
  const tickets = new Set<string>();
  const server = new McpServer({ name, version: '1.0.0' });
  server.tool('open_ticket', { description: 'Opens a ticket and answers its id' }, () => {
    const id = randomUUID();
    tickets.add(id);
    return { content: [{ type: 'text', text: `ticket ${id} opened` }], structuredContent: { ticketId: id } };
  });
  server.tool(
    'ticket_status',
    { description: 'The status of a ticket', input: { type: 'object', properties: { ticketId: { type: 'string' } }, required: ['ticketId'] } as never },
    (args) => {
      const id = (args as { ticketId: string }).ticketId;
      return tickets.has(id) ? `ticket ${id}: open` : { content: [{ type: 'text', text: `no ticket ${id}` }], isError: true };
    },
  );
  return server;
}

describe('a recording replayed against another server: the live ids are used', () => {
  let a: RunningServer;
  let b: RunningServer;
  let studio: RunningStudio;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    [a, b] = await Promise.all([serve(ticketServer('a'), { port: 0 }), serve(ticketServer('b'), { port: 0 })]);
    studio = await startTestStudio({
      servers: [
        { name: 'first', origin: 'command-line', target: resolveTarget(a.url) },
        { name: 'second', origin: 'command-line', target: resolveTarget(b.url) },
      ],
    });
    await studio.ready;
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
    page.on('pageerror', (e) => pageErrors.push(e.message));
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) pageErrors.push(m.text());
    });
  });
  after(async () => {
    await browser?.close();
    await studio?.close();
    await Promise.all([a?.close(), b?.close()]);
  });

  test('the second call names the ticket the live server made, and both answer the same', async () => {
    // The session, recorded through the page's API: a ticket opened on "first", then asked about.
    const s = await signIn(studio);
    const opened = JSON.parse((await apiCall(s, '/api/servers/first/call', { name: 'open_ticket', arguments: {} })).body);
    const recordedId = opened.result.structuredContent.ticketId as string;
    const status = JSON.parse((await apiCall(s, '/api/servers/first/call', { name: 'ticket_status', arguments: { ticketId: recordedId } })).body);
    assert.equal(status.result.isError, undefined);
    const recording = (await apiCall(s, '/api/recording', { after: 0, servers: ['first'] })).body;
    const file = join(tempDir('studio-replay-ids'), 'tickets.json');
    writeFileSync(file, recording);

    await page.goto(studio.url);
    await connectedIn(page, studio, 'second');
    await page.click('[data-tab="sessions"]');
    await page.setInputFiles('input[name="load-recording"]', file);
    await page.selectOption('select[aria-label="Recorded server"]', 'first');
    await page.selectOption('select[aria-label="Live server"]', 'second');
    await page.click('.replay button:has-text("Replay")');
    const row = await page.waitForSelector('.replay .call-row[data-call="tools/call ticket_status"]:not([data-state="waiting"])');
    assert.equal(await row.getAttribute('data-state'), 'same', (await row.textContent()) ?? '');
    // The ticket the replay opened on "second" is the one the next call named.
    const opening = await page.waitForSelector('.replay .call-row[data-call="tools/call open_ticket"]');
    assert.equal(await opening.getAttribute('data-state'), 'same', 'a fresh id is not a difference');
    const made = (await opening.textContent()) ?? '';
    assert.match(made, /ids the live server made/);
    assert.ok(made.includes(recordedId), made);
    const liveId = /→ ([0-9a-f-]{36})/.exec(made)?.[1];
    assert.ok(liveId && liveId !== recordedId, made);
    assert.match((await row.textContent()) ?? '', /sent with the live server's ids/);
    const sent = studio.hub.timeline
      .since(0, 100_000)
      .filter((e) => e.server === 'second' && e.dir === 'out' && e.method === 'tools/call')
      .map((e) => (e.message as { params: { name: string; arguments: Record<string, unknown> } }).params);
    assert.deepEqual([sent.at(-1)?.name, sent.at(-1)?.arguments], ['ticket_status', { ticketId: liveId }]);
    await row.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SHOTS, 'sessions-replay-ids.png') });
    assert.deepEqual(pageErrors, []);
  });
});
