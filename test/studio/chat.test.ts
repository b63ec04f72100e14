// The chat panel in headless Chromium: the mcpkit/host loop over the studio's servers, against
// scripted model endpoints that speak the real wire formats (OpenAI Chat Completions and Anthropic
// Messages, streamed). A read-only tool runs by the approval mode, another waits for Allow in the
// page; tool search gives the model search_tools only, and a denied call reaches the model as a
// refusal. The model's key is used on the wire and never reaches the page.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { RunningServer } from '../../src/serving/node.js';
import { resolveTarget } from '../../src/pool/targets.js';
import type { ChatMessage } from '../../src/studio/chat-types.js';
import type { RunningStudio } from '../../src/studio/http.js';
import { ROOT } from '../cli/helpers.js';
import { startDemoHttp, waitFor } from '../support/index.js';
import { startScriptedAnthropic, startScriptedOpenAI, textTurn, toolCallsTurn, type ScriptedLlm } from '../support/llm.js';
import { apiCall, connectedIn, launchChromium, raw, signIn, startTestStudio } from './helpers.js';

const SHOTS = join(ROOT, '.artifacts', 'studio');
const KEY = 'sk-studio-test-0123456789-SECRET';

describe('the chat panel', () => {
  let demo: RunningServer;
  let browser: Browser;
  const pageErrors: string[] = [];

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    demo = await startDemoHttp();
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await demo?.close();
  });

  async function open(provider: 'openai' | 'anthropic', llm: ScriptedLlm): Promise<{ studio: RunningStudio; page: Page; events: ChatMessage[] }> {
    const studio = await startTestStudio({
      servers: [{ name: 'demo', origin: 'command-line', target: resolveTarget(demo.url) }],
      model: { provider, model: `scripted-${provider}`, baseUrl: llm.baseUrl, apiKey: KEY },
    });
    await studio.ready;
    const events: ChatMessage[] = [];
    studio.hub.on((event, data) => {
      if (event === 'chat') events.push(data as ChatMessage);
    });
    const page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
    page.on('pageerror', (e) => pageErrors.push(e.message));
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) pageErrors.push(m.text());
    });
    await page.goto(studio.url);
    await connectedIn(page, studio, 'demo');
    await page.click('[data-tab="chat"]');
    await page.waitForSelector(`[data-testid="chat-model"]:has-text("scripted-${provider}")`);
    return { studio, page, events };
  }

  async function ask(page: Page, text: string): Promise<void> {
    await page.fill('[name="chat-text"]', text);
    await page.keyboard.press('Control+Enter');
  }

  test('OpenAI format: a read-only tool runs by the approval mode, another waits for Allow; the answer streams in', async () => {
    const llm = await startScriptedOpenAI(
      [
        (req) => {
          const names = req.body.tools.map((t: { function: { name: string } }) => t.function.name);
          assert.ok(names.includes('echo') && names.includes('toggle_bonus_tool'), names.join(', '));
          assert.equal(req.body.stream, true);
          return toolCallsTurn([
            { name: 'echo', arguments: { message: 'hi from the model' } },
            { name: 'toggle_bonus_tool', arguments: {} },
          ]);
        },
        (req) => {
          const results = req.body.messages.filter((m: { role: string }) => m.role === 'tool');
          assert.equal(results.length, 2);
          assert.match(JSON.stringify(results[0].content), /hi from the model/);
          return textTurn('The server echoed your words, and the bonus tool is switched.', { chunkSize: 4 });
        },
      ],
      { apiKey: KEY },
    );
    const { studio, page, events } = await open('openai', llm);
    try {
      await ask(page, 'Echo something, then switch the bonus tool.');
      const asking = await page.waitForSelector('.chat-tool[data-tool-call="toggle_bonus_tool"][data-state="asking"]');
      // The read-only echo did not wait for anyone.
      await page.waitForSelector('.chat-tool[data-tool-call="echo"][data-state="done"]:has-text("allowed by the approval mode")');
      assert.match((await asking.textContent()) ?? '', /not annotated|default policy|wants to call/);
      await page.screenshot({ path: join(SHOTS, 'chat-approval.png') });
      await asking.waitForSelector('button:has-text("Allow")');
      await page.click('.chat-tool[data-tool-call="toggle_bonus_tool"] button:has-text("Allow")');
      await page.waitForSelector('.chat-tool[data-tool-call="toggle_bonus_tool"][data-state="done"]:has-text("you decided")');
      await page.waitForSelector('.chat-msg.assistant:has-text("the bonus tool is switched")');
      await page.waitForSelector('.chat-note:has-text("2 steps")');
      await page.screenshot({ path: join(SHOTS, 'chat.png') });
      llm.assertNoErrors();
      // Streamed: the answer came to the page in pieces.
      assert.ok(events.filter((e) => e.event.type === 'text').length > 3, 'text deltas');
      // The calls went through the studio's own connections: they are in the timeline.
      const calls = studio.hub.timeline.since(0, 100_000).filter((e) => e.server === 'demo' && e.dir === 'out' && e.method === 'tools/call');
      assert.deepEqual(calls.map((e) => (e.message as { params: { name: string } }).params.name).sort(), ['echo', 'toggle_bonus_tool']);
      // The key went to the endpoint, and nowhere near the page.
      assert.equal(llm.requests[0].headers.authorization, `Bearer ${KEY}`);
      const s = await signIn(studio);
      for (const path of ['/api/chat', '/api/state', '/api/events']) {
        const r =
          path === '/api/events' ? await raw(`${s.origin}${path}`, { headers: { Cookie: s.cookie, 'X-Mcpkit-Studio-Key': s.key } }) : await apiCall(s, path);
        assert.equal(r.status, 200, path);
        assert.doesNotMatch(r.body, /SECRET/, path);
      }
      assert.ok(!events.some((e) => JSON.stringify(e).includes('SECRET')), 'no chat event carries the key');
    } finally {
      await page.close();
      await studio.close();
      await llm.close();
    }
  });

  test('Anthropic format: tool search, a call denied in the page, the refusal reaches the model', async () => {
    const llm = await startScriptedAnthropic(
      [
        (req) => {
          assert.deepEqual(
            req.body.tools.map((t: { name: string }) => t.name),
            ['search_tools'],
          );
          return toolCallsTurn({ name: 'search_tools', arguments: { query: 'weather forecast for a city' } });
        },
        (req) => {
          const names = req.body.tools.map((t: { name: string }) => t.name);
          assert.ok(names.includes('get_weather'), names.join(', '));
          return toolCallsTurn({ name: 'get_weather', arguments: { city: 'Oslo' } });
        },
        (req) => {
          const last = req.body.messages.at(-1);
          const block = last.content.find((b: { type: string }) => b.type === 'tool_result');
          assert.equal(block.is_error, true);
          assert.match(JSON.stringify(block.content), /did not allow/);
          return textTurn('You did not let me look.');
        },
      ],
      { apiKey: KEY },
    );
    const { studio, page } = await open('anthropic', llm);
    try {
      await page.selectOption('[name="chat-tool-search"]', 'always');
      await page.selectOption('[name="chat-approval"]', 'ask');
      await waitFor(() => studio.hub.chat.approval === 'ask' && studio.hub.chat.toolSearch === 'always', 'the settings made in the page');
      // The panel's own tool search ranks as search_tools does.
      await page.fill('[aria-label="Search the tools"]', 'weather');
      await page.waitForSelector('.chat-tools li:first-child[data-chat-tool="get_weather"]');
      await ask(page, 'What is the weather in Oslo?');
      await page.waitForSelector('.chat-tool[data-tool-call="search_tools"]');
      await page.waitForSelector('.chat-tool[data-tool-call="get_weather"][data-state="asking"]');
      await page.click('.chat-tool[data-tool-call="get_weather"] button:has-text("Deny")');
      await page.waitForSelector('.chat-tool[data-tool-call="get_weather"][data-state="denied"]');
      await page.waitForSelector('.chat-msg.assistant:has-text("You did not let me look.")');
      llm.assertNoErrors();
      assert.equal(llm.requests[0].headers['x-api-key'], KEY);
      const calls = studio.hub.timeline.since(0, 100_000).filter((e) => e.server === 'demo' && e.method === 'tools/call');
      assert.deepEqual(calls, [], 'the denied call never reached the server');
    } finally {
      await page.close();
      await studio.close();
      await llm.close();
    }
  });

  test('without a model, the panel says how to give one', async () => {
    const studio = await startTestStudio({ servers: [] });
    const page = await browser.newPage();
    try {
      await page.goto(studio.url);
      await page.click('[data-tab="chat"]');
      assert.match((await (await page.waitForSelector('[data-testid="chat-unconfigured"]')).textContent()) ?? '', /--model/);
    } finally {
      await page.close();
      await studio.close();
    }
  });

  test('no error in the pages', () => {
    assert.deepEqual(pageErrors, []);
  });
});
