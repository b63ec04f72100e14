// Servers' sampling requests answered by the studio's configured model, in headless Chromium:
// the demo server over HTTP (2026-07-28: the request arrives in an input_required round) against
// a scripted OpenAI Chat Completions endpoint, and the official v1 SDK server over stdio (the
// handshake era: a server request) against a scripted Anthropic Messages endpoint. The person
// stays in the loop: the model is asked only when they click, its answer comes back to the
// dialog (the server gets nothing yet), they edit it and send it. A model that fails says so, and
// can be asked again. The model's key is used on the wire and never reaches the page.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { RunningServer } from '../../src/serving/node.js';
import { resolveTarget } from '../../src/pool/targets.js';
import type { RunningStudio } from '../../src/studio/http.js';
import { OFFICIAL_LINE, ROOT } from '../cli/helpers.js';
import { startDemoHttp } from '../support/index.js';
import { errorTurn, startScriptedAnthropic, startScriptedOpenAI, textTurn, type ScriptedLlm } from '../support/llm.js';
import { apiCall, launchChromium, signIn, startTestStudio } from './helpers.js';

const SHOTS = join(ROOT, '.artifacts', 'studio');
const KEY = 'sk-studio-sampling-0123456789-SECRET';

describe('sampling answered by the configured model', () => {
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
    assert.deepEqual(pageErrors, []);
  });

  async function open(
    provider: 'openai' | 'anthropic',
    llm: ScriptedLlm,
    server: { name: string; target: string },
  ): Promise<{ studio: RunningStudio; page: Page }> {
    const studio = await startTestStudio({
      servers: [{ name: server.name, origin: 'command-line', target: resolveTarget(server.target, { cwd: ROOT }) }],
      model: { provider, model: `scripted-${provider}`, baseUrl: llm.baseUrl, apiKey: KEY },
    });
    const page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
    try {
      await studio.ready;
      page.on('pageerror', (e) => pageErrors.push(e.message));
      page.on('console', (m) => {
        if (/Content Security Policy/i.test(m.text())) pageErrors.push(m.text());
      });
      await page.goto(studio.url);
      await page.waitForSelector(`[data-server="${server.name}"][data-state="connected"]`);
      return { studio, page };
    } catch (err) {
      // Not connected in time: say how far the server got, and stop it (a stdio child left
      // running would keep this file from ever ending).
      const v = studio.hub.view(server.name);
      const seen = JSON.stringify({ state: v?.state, error: v?.error, retryInMs: v?.retryInMs, pid: v?.pid, stderr: v?.stderr });
      await page.close();
      await studio.close();
      throw new Error(`${server.name} did not connect: ${(err as Error).message}\n  the studio saw: ${seen}`);
    }
  }

  async function callTool(page: Page, server: string, tool: string, fill: Record<string, string>): Promise<void> {
    await page.click(`[data-server="${server}"]`);
    await page.click('[data-tab="tools"]');
    await page.fill('[aria-label="Filter tools"]', tool);
    await page.click(`[data-tool="${tool}"]`);
    await page.waitForSelector(`.tool-detail h2:has-text("${tool}")`);
    for (const [name, value] of Object.entries(fill)) await page.fill(`[name="${name}"]`, value);
    await page.click('button:has-text("Call tool")');
  }

  test('2026-07-28 era, OpenAI format: the model drafts, you edit, the server gets your edit', async () => {
    const llm = await startScriptedOpenAI(
      [
        (req) => {
          assert.equal(req.body.model, 'scripted-openai');
          const user = req.body.messages.find((m: { role: string }) => m.role === 'user');
          assert.match(JSON.stringify(user.content), /six times seven/);
          assert.equal(req.body.tools, undefined, 'no tools were offered by the server');
          return textTurn('Forty-two.', { chunkSize: 3 });
        },
      ],
      { apiKey: KEY },
    );
    const { studio, page } = await open('openai', llm, { name: 'demo', target: demo.url });
    try {
      await callTool(page, 'demo', 'ask_model', { question: 'What is six times seven?' });
      await page.waitForSelector('[role="dialog"][data-input-kind="sampling"]:has-text("six times seven")');
      // Nothing asked of the model before you choose to.
      assert.equal(llm.requests.length, 0);
      await page.click('[role="dialog"] button:has-text("Answer with the model (scripted-openai)")');
      await page.waitForSelector('[data-testid="sampling-drafted"]:has-text("Drafted by scripted-openai")');
      assert.equal(await page.inputValue('[name="sampling-text"]'), 'Forty-two.');
      assert.equal(await page.inputValue('[name="sampling-model"]'), 'scripted-openai');
      // A draft only: the request still waits, and the server has had no answer.
      assert.equal(studio.hub.inputs.list().length, 1);
      assert.equal(await page.$('.outcome'), null);
      await page.screenshot({ path: join(SHOTS, 'sampling-model.png') });
      await page.fill('[name="sampling-text"]', 'Forty-two, checked by a person.');
      await page.click('[role="dialog"] button:has-text("Send answer")');
      await page.waitForSelector('.outcome:has-text("The model (scripted-openai) says: Forty-two, checked by a person.")');
      llm.assertNoErrors();
      assert.equal(llm.requests.length, 1);
      assert.equal(llm.requests[0].headers.authorization, `Bearer ${KEY}`);
      // The round went through the 2026-07-28 input_required flow.
      const round = studio.hub.timeline
        .since(0, 100_000)
        .find(
          (e) => e.server === 'demo' && e.kind === 'response' && (e.message as { result?: { resultType?: string } })?.result?.resultType === 'input_required',
        );
      assert.ok(round, 'an input_required round');
      // The page was told the model, never the key.
      const s = await signIn(studio);
      const state = await apiCall(s, '/api/state');
      assert.equal(JSON.parse(state.body).model.model, 'scripted-openai');
      assert.doesNotMatch(state.body, /SECRET/);
      assert.doesNotMatch(await page.content(), /SECRET/);
    } finally {
      await page.close();
      await studio.close();
      await llm.close();
    }
  });

  test('handshake era, Anthropic format: a model that fails says why, asked again it answers', async () => {
    const llm = await startScriptedAnthropic(
      [
        errorTurn(400, 'this model cannot take that request'),
        (req) => {
          assert.equal(req.body.max_tokens, 50, "the server's maxTokens");
          assert.match(JSON.stringify(req.body.messages), /Say pong/);
          return textTurn('pong');
        },
      ],
      { apiKey: KEY },
    );
    const { studio, page } = await open('anthropic', llm, { name: 'official', target: OFFICIAL_LINE });
    try {
      await callTool(page, 'official', 'sample', { prompt: 'Say pong' });
      await page.waitForSelector('[role="dialog"][data-input-kind="sampling"]:has-text("Say pong")');
      await page.click('[role="dialog"] button:has-text("Answer with the model (scripted-anthropic)")');
      await page.waitForSelector('[role="dialog"] .error-text:has-text("The model did not answer")');
      assert.match((await page.textContent('[role="dialog"] .error-text')) ?? '', /cannot take that request/);
      assert.equal(studio.hub.inputs.list().length, 1, 'the request still waits');
      await page.click('[role="dialog"] button:has-text("Answer with the model")');
      await page.waitForSelector('[data-testid="sampling-drafted"]');
      assert.equal(await page.inputValue('[name="sampling-text"]'), 'pong');
      await page.click('[role="dialog"] button:has-text("Send answer")');
      const outcome = await page.waitForSelector('.outcome:has-text("pong")');
      assert.match((await outcome.textContent()) ?? '', /scripted-anthropic/);
      const asked = studio.hub.timeline.since(0, 100_000).find((e) => e.server === 'official' && e.dir === 'in' && e.method === 'sampling/createMessage');
      assert.equal(asked?.era, 'handshake');
      assert.equal(llm.requests.length, 2);
      assert.equal(llm.requests[1].headers['x-api-key'], KEY);
    } finally {
      await page.close();
      await studio.close();
      await llm.close();
    }
  });
});
