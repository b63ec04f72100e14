// Servers that ask the host something in the middle of a tool call, end to end: a sampling
// request answered by the host's own model (after the user approved it, or refused when not), and
// elicitation answered by the user, in the 2026-07-28 era (the demo over HTTP; the official v2
// SDK's multi round-trip tool over HTTP and stdio) and in the handshake era (the demo pinned to
// it; the official v1 SDK over stdio). Then the same questions ended early: the user cancels the
// message while a form is on screen or while the model answers the server, or the server dies
// while its form is shown; the question is withdrawn and nothing is left waiting. And URL-mode
// elicitation (a sign-in page) in both eras.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Host, type HostEvent } from '../../../src/entries/host.js';
import type { ElicitResult } from '../../../src/protocol/params.js';
import { McpServer } from '../../../src/server/mcp-server.js';
import { serve } from '../../../src/serving/node.js';
import { startV2HttpServer } from '../../fixtures/v2/server.js';
import { fileURLToPath } from 'node:url';
import {
  fixtureEntry,
  hangTurn,
  lastUserText,
  REPO_ROOT,
  offeredTools,
  sentToolResults,
  startDemoHttp,
  startScriptedAnthropic,
  startScriptedOpenAI,
  textTurn,
  toolCallsTurn,
  waitFor,
  within,
} from '../../support/index.js';

const V2_STDIO = fileURLToPath(new URL('../../fixtures/v2/stdio-server.ts', import.meta.url));

test("sampling: a server's createMessage is answered by the host's model, without tools, once the user approves", async () => {
  const demo = await startDemoHttp();
  const llm = await startScriptedAnthropic([
    toolCallsTurn({ name: 'ask_model', arguments: { question: 'Name a colour.' } }),
    // The server's request, sent to the same model: its messages, no tools.
    (req) => {
      assert.equal(lastUserText(req), 'Name a colour.');
      assert.deepEqual(offeredTools(req), []);
      assert.ok(req.body.max_tokens <= 200, `max_tokens ${req.body.max_tokens}`);
      return textTurn('Blue.');
    },
    (req) => {
      const [r] = sentToolResults(req);
      assert.equal(r.id, 'toolu_0_0');
      assert.match(r.text, /^The model \(scripted\) says: Blue\.$/);
      return textTurn('The model picked blue.');
    },
  ]);
  const asked: Array<{ server: string; text: string }> = [];
  const events: HostEvent[] = [];
  const host = new Host({
    servers: { demo: { url: demo.url, era: 'modern', allow: ['ask_model'] } },
    model: { provider: 'anthropic', model: 'scripted', baseUrl: llm.baseUrl },
    interaction: {
      approveSampling: async (request) => {
        const first = request.params.messages[0].content as { type: string; text: string };
        asked.push({ server: request.server, text: first.text });
        return true;
      },
    },
    onEvent: (e) => events.push(e),
  });
  try {
    await host.start();
    const answer = await host.conversation().send('Ask the model for a colour.');
    llm.assertNoErrors();
    assert.equal(answer.text, 'The model picked blue.');
    assert.deepEqual(asked, [{ server: 'demo', text: 'Name a colour.' }]);
    const sampling = events.find((e) => e.type === 'sampling');
    assert.ok(sampling?.type === 'sampling');
    assert.equal(sampling.server, 'demo');
    assert.equal(llm.requests.length, 3);
  } finally {
    await host.close();
    await demo.close();
    await llm.close();
  }
});

test('sampling the user refuses: the server hears a refusal, the model reads what the tool made of it; the model is not asked', async () => {
  const llm = await startScriptedOpenAI([
    toolCallsTurn({ name: 'sample', arguments: { prompt: 'Write a poem.' } }),
    (req) => {
      const [r] = sentToolResults(req);
      assert.equal(r.id, 'call_0_0');
      assert.doesNotMatch(r.text, /the model said/);
      assert.match(r.text, /rejected the sampling request/);
      return textTurn('The server could not use the model.');
    },
  ]);
  const host = new Host({
    servers: { official: { ...fixtureEntry('official'), allow: ['sample'] } },
    model: { provider: 'openai', model: 'scripted', baseUrl: llm.baseUrl },
    interaction: { approveSampling: async () => false },
  });
  try {
    await host.start();
    const answer = await host.conversation().send('Get a poem from the server.');
    llm.assertNoErrors();
    assert.equal(answer.text, 'The server could not use the model.');
    assert.equal(llm.requests.length, 2, 'no sampling request reached the model');
  } finally {
    await host.close();
    await llm.close();
  }
});

test('elicitation in both eras: the demo over HTTP in 2026-07-28 and in the handshake era, the official v2 SDK (multi round-trip) over HTTP and stdio, the official v1 SDK over stdio', async () => {
  const demo = await startDemoHttp();
  const v2 = await startV2HttpServer();
  const llm = await startScriptedOpenAI([
    (req) => {
      assert.deepEqual(offeredTools(req).sort(), ['ask', 'hs_greet_me', 'mo_greet_me', 'v2_deploy', 'v2s_deploy']);
      return toolCallsTurn({ name: 'mo_greet_me', arguments: {} });
    },
    (req) => {
      assert.equal(sentToolResults(req).at(-1)?.text, 'Bonjour, Ada!');
      return toolCallsTurn({ name: 'hs_greet_me', arguments: {} });
    },
    (req) => {
      assert.equal(sentToolResults(req).at(-1)?.text, 'Hallo, Ada!');
      return toolCallsTurn({ name: 'v2_deploy', arguments: { env: 'staging' } });
    },
    (req) => {
      assert.equal(sentToolResults(req).at(-1)?.text, 'deployed to staging');
      return toolCallsTurn({ name: 'v2s_deploy', arguments: { env: 'prod' } });
    },
    (req) => {
      assert.equal(sentToolResults(req).at(-1)?.text, 'not deployed');
      return toolCallsTurn({ name: 'ask', arguments: {} });
    },
    (req) => {
      assert.equal(sentToolResults(req).at(-1)?.text, 'no name (decline)');
      return textTurn('Greeted twice, deployed once, and one server got no name.');
    },
  ]);
  const asked: Array<{ server: string; message: string }> = [];
  const events: HostEvent[] = [];
  const host = new Host({
    servers: {
      mo: { url: demo.url, era: 'modern', allow: ['greet_me'] },
      hs: { url: demo.url, era: 'handshake', allow: ['greet_me'] },
      v2: { url: v2.url, era: 'modern', allow: ['deploy'] },
      v2s: { command: process.execPath, args: ['--import', 'tsx', V2_STDIO], cwd: REPO_ROOT, era: 'modern', allow: ['deploy'] },
      v1: { ...fixtureEntry('official'), allow: ['ask'] },
    },
    model: { provider: 'openai', model: 'scripted', baseUrl: llm.baseUrl },
    interaction: {
      elicit: async ({ server, params }): Promise<ElicitResult> => {
        asked.push({ server, message: params.message });
        if (server === 'mo') return { action: 'accept', content: { name: 'Ada', language: 'fr' } };
        if (server === 'hs') return { action: 'accept', content: { name: 'Ada', language: 'de' } };
        if (server === 'v2') return { action: 'accept', content: { ok: true } };
        if (server === 'v2s') return { action: 'accept', content: { ok: false } };
        return { action: 'decline' };
      },
    },
    onEvent: (e) => events.push(e),
  });
  try {
    await host.start();
    const answer = await host.conversation().send('Greet me, deploy to staging, then ask who I am.');
    llm.assertNoErrors();
    assert.equal(answer.text, 'Greeted twice, deployed once, and one server got no name.');
    assert.deepEqual(asked, [
      { server: 'mo', message: 'How should I greet you?' },
      { server: 'hs', message: 'How should I greet you?' },
      { server: 'v2', message: 'Deploy to staging?' },
      { server: 'v2s', message: 'Deploy to prod?' },
      { server: 'v1', message: 'Who is asking?' },
    ]);
    assert.deepEqual(
      events.flatMap((e) => (e.type === 'elicitation' ? [e.server] : [])),
      ['mo', 'hs', 'v2', 'v2s', 'v1'],
    );
    const eras = Object.fromEntries(events.flatMap((e) => (e.type === 'server' && e.event.type === 'connected' ? [[e.event.server, e.event.era]] : [])));
    assert.deepEqual(eras, { mo: 'modern', hs: 'handshake', v2: 'modern', v2s: 'modern', v1: 'handshake' });
  } finally {
    await host.close();
    await v2.close();
    await demo.close();
    await llm.close();
  }
});

test('cancelling a message while a server waits for the user (both eras): the question is withdrawn (its signal aborts), send() rejects, the next message works', async () => {
  const demo = await startDemoHttp();
  const llm = await startScriptedAnthropic([
    toolCallsTurn({ name: 'hs_greet_me', arguments: {} }),
    toolCallsTurn({ name: 'mo_greet_me', arguments: {} }),
    textTurn('Fine, no greeting.'),
  ]);
  const withdrawn: string[] = [];
  let shown: () => void = () => {};
  const host = new Host({
    servers: {
      mo: { url: demo.url, era: 'modern', allow: ['greet_me'] },
      hs: { url: demo.url, era: 'handshake', allow: ['greet_me'] },
    },
    model: { provider: 'anthropic', model: 'scripted', baseUrl: llm.baseUrl },
    interaction: {
      // A dialog the user never answers: it closes only when the question is withdrawn.
      elicit: ({ server }, signal) =>
        new Promise((resolve) => {
          const withdraw = () => {
            withdrawn.push(server);
            resolve({ action: 'cancel' });
          };
          if (signal.aborted) withdraw();
          else signal.addEventListener('abort', withdraw, { once: true });
          shown();
        }),
    },
  });
  try {
    await host.start();
    const chat = host.conversation();
    for (const server of ['hs', 'mo']) {
      const controller = new AbortController();
      // The user gives up while the form is on screen.
      shown = () => controller.abort();
      const err = await within(
        chat.send(`Greet me (${server}).`, { signal: controller.signal }).then(
          () => undefined,
          (e: unknown) => e,
        ),
        `send() to reject (${server})`,
      );
      assert.ok(err instanceof Error && err.name === 'AbortError', String(err));
      await waitFor(() => withdrawn.includes(server), `the ${server} elicitation to be withdrawn`);
    }
    assert.equal((await chat.send('Forget it.')).text, 'Fine, no greeting.');
    llm.assertNoErrors();
  } finally {
    await host.close();
    await demo.close();
    await llm.close();
  }
});

test('cancelling a message while a dialog that ignores its signal is open: send() still rejects at once, in both eras', async () => {
  const demo = await startDemoHttp();
  const llm = await startScriptedOpenAI([toolCallsTurn({ name: 'hs_greet_me', arguments: {} }), toolCallsTurn({ name: 'mo_greet_me', arguments: {} })]);
  // Answered only when the test ends: a UI that never heard of AbortSignal.
  const answers: Array<(r: { action: 'cancel' }) => void> = [];
  let shown: () => void = () => {};
  const host = new Host({
    servers: {
      mo: { url: demo.url, era: 'modern', allow: ['greet_me'] },
      hs: { url: demo.url, era: 'handshake', allow: ['greet_me'] },
    },
    model: { provider: 'openai', model: 'scripted', baseUrl: llm.baseUrl },
    interaction: {
      elicit: () =>
        new Promise((resolve) => {
          answers.push(resolve);
          shown();
        }),
    },
  });
  try {
    await host.start();
    const chat = host.conversation();
    for (const server of ['hs', 'mo']) {
      const controller = new AbortController();
      shown = () => controller.abort();
      const err = await within(
        chat.send(`Greet me (${server}).`, { signal: controller.signal }).then(
          () => undefined,
          (e: unknown) => e,
        ),
        `send() to reject (${server})`,
      );
      assert.ok(err instanceof Error && err.name === 'AbortError', String(err));
    }
    llm.assertNoErrors();
  } finally {
    for (const answer of answers) answer({ action: 'cancel' });
    await host.close();
    await demo.close();
    await llm.close();
  }
});

test("cancelling a message while the host's model answers a server's sampling request (both eras): that model request is abandoned too", async () => {
  const demo = await startDemoHttp();
  const llm = await startScriptedOpenAI([
    toolCallsTurn({ name: 'hs_ask_model', arguments: { question: 'A long story, please.' } }),
    hangTurn('Once upon a time'),
    toolCallsTurn({ name: 'mo_ask_model', arguments: { question: 'A long story, please.' } }),
    hangTurn('Once upon a time'),
  ]);
  const host = new Host({
    servers: {
      mo: { url: demo.url, era: 'modern', allow: ['ask_model'] },
      hs: { url: demo.url, era: 'handshake', allow: ['ask_model'] },
    },
    model: { provider: 'openai', model: 'scripted', baseUrl: llm.baseUrl },
    interaction: { approveSampling: () => true },
  });
  try {
    await host.start();
    const chat = host.conversation();
    for (const [i, server] of ['hs', 'mo'].entries()) {
      const controller = new AbortController();
      const sent = chat.send(`Tell me a story (${server}).`, { signal: controller.signal }).then(
        () => undefined,
        (e: unknown) => e,
      );
      // The sampling turn has reached the model (it streams and never ends): the user gives up.
      await waitFor(() => llm.requests.length === 2 * (i + 1), `the ${server} sampling request to reach the model`);
      controller.abort();
      const err = await within(sent, `send() to reject (${server})`);
      assert.ok(err instanceof Error && err.name === 'AbortError', String(err));
      await within(llm.waitForDisconnect(i + 1), `the ${server} sampling request to the model to be abandoned`);
    }
    llm.assertNoErrors();
  } finally {
    await host.close();
    await demo.close();
    await llm.close();
  }
});

test('a server killed while its elicitation is on screen: the dialog is withdrawn, the call fails with an error the model reads', async () => {
  const llm = await startScriptedAnthropic([
    toolCallsTurn({ name: 'ask', arguments: {} }),
    (req) => {
      const [lost] = sentToolResults(req);
      assert.equal(lost.isError, true);
      assert.match(lost.text, /Server "v1" was lost during the call to "ask"/);
      return textTurn('The server went away while asking you.');
    },
  ]);
  let withdrawn = false;
  const host: Host = new Host({
    servers: { v1: { ...fixtureEntry('official'), allow: ['ask'] } },
    model: { provider: 'anthropic', model: 'scripted', baseUrl: llm.baseUrl },
    interaction: {
      elicit: (_request, signal) =>
        new Promise((resolve) => {
          signal.addEventListener(
            'abort',
            () => {
              withdrawn = true;
              resolve({ action: 'cancel' });
            },
            { once: true },
          );
          // The form is shown; the server dies.
          const pid = host.pool.server('v1')?.pid;
          assert.ok(pid);
          process.kill(pid, 'SIGKILL');
        }),
    },
  });
  try {
    await host.start();
    const answer = await within(host.conversation().send('Ask me who I am.'), 'the answer after the server died');
    assert.equal(answer.text, 'The server went away while asking you.');
    await waitFor(() => withdrawn, 'the dialog of the dead server to be withdrawn');
    llm.assertNoErrors();
  } finally {
    await host.close();
    await llm.close();
  }
});

test('URL-mode elicitation in both eras: the user is sent to the URL the server names, and the call goes on', async () => {
  const mcp = new McpServer({ name: 'signin', version: '1.0.0' });
  mcp.tool('connect_calendar', { description: 'Connects your calendar (sign-in in the browser)' }, async (_args, ctx) => {
    const r = await ctx.elicit({ mode: 'url', message: 'Sign in to your calendar', url: 'https://calendar.example/auth?state=s1', elicitationId: 'e-1' });
    return r.action === 'accept' ? 'calendar connected' : `not connected (${r.action})`;
  });
  const http = await serve(mcp, { port: 0 });
  const llm = await startScriptedOpenAI([
    toolCallsTurn({ name: 'hs_connect_calendar', arguments: {} }),
    toolCallsTurn({ name: 'mo_connect_calendar', arguments: {} }),
    (req) =>
      textTurn(
        sentToolResults(req)
          .map((r) => r.text)
          .join(' / '),
      ),
  ]);
  const opened: Array<{ server: string; url: string | undefined; mode: string | undefined }> = [];
  const host = new Host({
    servers: { hs: { url: http.url, era: 'handshake' }, mo: { url: http.url, era: 'modern' } },
    model: { provider: 'openai', model: 'scripted', baseUrl: llm.baseUrl },
    interaction: {
      elicit: ({ server, params }) => {
        opened.push({ server, url: (params as { url?: string }).url, mode: params.mode });
        return { action: 'accept' };
      },
    },
  });
  try {
    await host.start();
    const answer = await host.conversation().send('Connect my calendar, twice.');
    llm.assertNoErrors();
    assert.equal(answer.text, 'calendar connected / calendar connected');
    assert.deepEqual(opened, [
      { server: 'hs', url: 'https://calendar.example/auth?state=s1', mode: 'url' },
      { server: 'mo', url: 'https://calendar.example/auth?state=s1', mode: 'url' },
    ]);
  } finally {
    await host.close();
    await http.close();
    await llm.close();
  }
});
