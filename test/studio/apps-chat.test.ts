// A view's `ui/message` sent to the Chat panel's model, in headless Chromium: an MCP App view (our
// apps() extension, over HTTP) sets its model context and says a message; the studio shows both,
// and nothing reaches the model until you click "Send to the Chat". Then the message, with the
// view's model context beside it, is the user's turn of the chat's conversation, sent to a
// scripted OpenAI Chat Completions endpoint, and the answer shows in the Chat panel. And a view's
// `ui/download-file`: shown (name, type, size), saved only when you say so, refused when you do not.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { z } from 'zod';
import { apps } from '../../src/extensions/apps/extension.js';
import { resolveTarget } from '../../src/pool/targets.js';
import { McpServer } from '../../src/server/mcp-server.js';
import { serve, type RunningServer } from '../../src/serving/node.js';
import type { RunningStudio } from '../../src/studio/http.js';
import { ROOT } from '../cli/helpers.js';
import { startScriptedOpenAI, textTurn, type ScriptedLlm } from '../support/llm.js';
import { connectedIn, launchChromium, startTestStudio } from './helpers.js';

const SHOTS = join(ROOT, '.artifacts', 'studio');
const VIEW_URI = 'ui://trip/say.html';

// A hand-written view: once given the tool input, it sets its model context and says a message.
const VIEW = `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Trip</title></head>
<body><h1 id="status">connecting</h1>
<script>
let next = 0;
const waiting = new Map();
const post = (m) => parent.postMessage(m, '*');
const request = (method, params) => new Promise((resolve) => { const id = ++next; waiting.set(id, resolve); post({ jsonrpc: '2.0', id, method, params }); });
addEventListener('message', async (e) => {
  if (e.source !== parent) return;
  const m = e.data;
  if (m && m.id !== undefined && waiting.has(m.id)) { waiting.get(m.id)(m); waiting.delete(m.id); return; }
  if (m && m.method === 'ui/notifications/tool-input') {
    const city = m.params.arguments.city;
    if (city === 'ask') {
      const r = await request('sampling/createMessage', { messages: [{ role: 'user', content: { type: 'text', text: 'Name a fjord' } }], maxTokens: 30 });
      document.getElementById('status').textContent = r.error ? 'refused: ' + r.error.message : 'sampled: ' + r.result.content.text + ' (' + r.result.model + ')';
      return;
    }
    if (city === 'Bergen') {
      const file = (name) => ({ contents: [{ type: 'resource', resource: { uri: 'file:///trips/' + name, mimeType: 'text/plain', text: 'coat\\nboots\\n' } }] });
      const first = await request('ui/download-file', file('packing-list.txt'));
      const linked = await request('ui/download-file', { contents: [{ type: 'resource_link', uri: 'memo://trips/days.csv', name: 'days.csv', mimeType: 'text/csv' }] });
      const second = await request('ui/download-file', file('second.txt'));
      const said = (r) => (r.result && !r.result.isError ? 'saved' : 'refused');
      document.getElementById('status').textContent = 'first ' + said(first) + ', linked ' + said(linked) + ', second ' + said(second);
      return;
    }
    await request('ui/update-model-context', { content: [{ type: 'text', text: 'The user picked ' + city + ' in the trip view' }], structuredContent: { city } });
    await request('ui/message', { role: 'user', content: [{ type: 'text', text: 'What should I pack for ' + city + '?' }] });
    document.getElementById('status').textContent = 'said';
  }
});
request('ui/initialize', { appInfo: { name: 'trip', version: '1' }, appCapabilities: {}, protocolVersion: '2026-01-26' }).then(() => {
  post({ jsonrpc: '2.0', method: 'ui/notifications/initialized' });
  document.getElementById('status').textContent = 'connected';
});
</script></body></html>`;

function tripServer(): McpServer {
  const server = new McpServer({ name: 'trip', version: '1.0.0', extensions: [apps({ resources: [{ uri: VIEW_URI, name: 'trip-view', html: VIEW }] })] });
  server.resource('days', 'memo://trips/days.csv', { mimeType: 'text/csv' }, () => 'city,days\nBergen,3\n');
  server.tool(
    'pick_city',
    { description: 'Pick a city for the trip', input: { city: z.string() }, ui: { resourceUri: VIEW_URI } },
    ({ city }) => `picked ${city}`,
  );
  return server;
}

describe("a view's ui/message sent to the Chat, its ui/download-file saved by you", () => {
  let trip: RunningServer;
  let llm: ScriptedLlm;
  let studio: RunningStudio;
  let browser: Browser;

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    trip = await serve(tripServer(), { port: 0 });
    llm = await startScriptedOpenAI([
      (req) => {
        const last = req.body.messages.at(-1);
        assert.equal(last.role, 'user');
        const text = JSON.stringify(last.content);
        assert.match(text, /What should I pack for Oslo\?/);
        assert.match(text, /Context from the app view: The user picked Oslo in the trip view/);
        assert.match(text, /\\"city\\":\\"Oslo\\"/);
        return textTurn('Pack a warm coat.');
      },
      (req) => {
        assert.match(JSON.stringify(req.body.messages), /Name a fjord/);
        assert.equal(req.body.tools, undefined);
        return textTurn('Geirangerfjord');
      },
    ]);
    studio = await startTestStudio({
      servers: [{ name: 'trip', origin: 'command-line', target: resolveTarget(trip.url) }],
      model: { provider: 'openai', model: 'scripted-openai', baseUrl: llm.baseUrl },
    });
    await studio.ready;
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await studio?.close();
    await trip?.close();
    await llm?.close();
  });

  /** A page of the studio, signed in, with pick_city run for `city` and its view shown. */
  async function runPickCity(city: string, options: { acceptDownloads?: boolean } = {}) {
    const page = await browser.newPage({ viewport: { width: 1360, height: 900 }, ...options });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(studio.url);
    await connectedIn(page, studio, 'trip');
    await page.click('[data-tab="apps"]');
    await page.click('[data-app-tool="pick_city"]');
    await page.fill('[name="city"]', city);
    await page.click('button:has-text("Run and show the view")');
    return { page, errors };
  }

  test('shown first; sent, with the model context, only when you click; answered in the Chat panel', async () => {
    const { page, errors } = await runPickCity('Oslo');
    const said = await page.waitForSelector('[data-testid="app-message"]:has-text("What should I pack for Oslo?")');
    await page.waitForSelector('.app-said:has-text("The user picked Oslo")');
    assert.equal(llm.requests.length, 0, 'nothing reaches the model before you choose');
    await page.screenshot({ path: join(SHOTS, 'apps-message.png') });
    await (await said.$('button:has-text("Send to the Chat (scripted-openai)")'))!.click();
    await page.waitForSelector('[data-testid="app-message-state"]:has-text("answered in the Chat panel")');
    llm.assertNoErrors();
    await page.click('[data-tab="chat"]');
    await page.waitForSelector('.chat-msg.assistant:has-text("Pack a warm coat.")');
    await page.waitForSelector('.chat-msg.user:has-text("What should I pack for Oslo?")');
    assert.equal(llm.requests.length, 1);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test("a view's sampling/createMessage: put to you like a server's, drafted by the model, your answer to the view", async () => {
    const { page, errors } = await runPickCity('ask');
    await page.waitForSelector('[role="dialog"][data-input-kind="sampling"]:has-text("An app view asks the model")');
    assert.equal(studio.hub.inputs.list()[0]?.from, 'view');
    await page.click('[role="dialog"] button:has-text("Answer with the model")');
    await page.waitForSelector('[data-testid="sampling-drafted"]');
    assert.equal(await page.inputValue('[name="sampling-text"]'), 'Geirangerfjord');
    await page.fill('[name="sampling-text"]', 'Geirangerfjord, in Norway');
    await page.click('[role="dialog"] button:has-text("Send answer")');
    const frame = await (await page.waitForSelector('iframe.app-frame')).contentFrame();
    await frame!.waitForFunction(() => document.getElementById('status')?.textContent === 'sampled: Geirangerfjord, in Norway (scripted-openai)');
    // The view's question never went to the server.
    assert.ok(!studio.hub.timeline.since(0, 100_000).some((e) => e.method === 'sampling/createMessage'));
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('ui/download-file: what would be saved is shown; saved when you say so, refused when you do not', async () => {
    const { page, errors } = await runPickCity('Bergen', { acceptDownloads: true });
    const asking = await page.waitForSelector('[data-ask="ui/download-file"]');
    assert.match((await asking.textContent()) ?? '', /packing-list\.txt \(text\/plain, 11 bytes\)/);
    await page.screenshot({ path: join(SHOTS, 'apps-download.png') });
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-ask="ui/download-file"] button:has-text("Save")')]);
    assert.equal(download.suggestedFilename(), 'packing-list.txt');
    assert.equal(readFileSync((await download.path())!, 'utf8'), 'coat\nboots\n');
    // A resource link: read through the view's server when you save it.
    await page.waitForSelector('[data-ask="ui/download-file"]:has-text("read from memo://trips/days.csv")');
    const [linked] = await Promise.all([page.waitForEvent('download'), page.click('[data-ask="ui/download-file"] button:has-text("Save")')]);
    assert.equal(linked.suggestedFilename(), 'days.csv');
    assert.equal(readFileSync((await linked.path())!, 'utf8'), 'city,days\nBergen,3\n');
    await page.waitForSelector('[data-ask="ui/download-file"]:has-text("second.txt")');
    await page.click('[data-ask="ui/download-file"] button:has-text("Dismiss")');
    const frame = await (await page.waitForSelector('iframe.app-frame')).contentFrame();
    await frame!.waitForFunction(() => document.getElementById('status')?.textContent === 'first saved, linked saved, second refused');
    assert.deepEqual(errors, []);
    await page.close();
  });
});
