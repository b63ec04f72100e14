// The routes added for sessions, the server card, chat and OAuth, each attacked as the gate's
// own tests attack the first routes: without the API key, from a foreign Origin, from another
// site (fetch metadata), from a DNS-rebinding Host; and each one seen to act for the page itself.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { serve, type RunningServer } from '../../src/serving/node.js';
import { resolveTarget } from '../../src/pool/targets.js';
import { McpServer } from '../../src/server/mcp-server.js';
import type { RunningStudio } from '../../src/studio/http.js';
import { waitFor } from '../support/index.js';
import { startScriptedOpenAI, textTurn, toolCallsTurn, type ScriptedLlm } from '../support/llm.js';
import { apiCall, signIn, startTestStudio, type Session } from './helpers.js';

interface Case {
  method: 'GET' | 'POST';
  path: string;
  /** Makes what the route acts on; returns the path to use when it depends on it. */
  setup?(): Promise<string | undefined>;
  body?: unknown;
  /** The status of the page's own request, when not 200. */
  okStatus?: number;
  /** What the route does for the page itself (asserted on its answer). */
  acts(body: any): void | Promise<void>;
}

describe('the new routes behind the gate', () => {
  let mcp: RunningServer;
  let studio: RunningStudio;
  let s: Session;
  let llm: ScriptedLlm;
  let sent: Promise<unknown> | undefined;
  before(async () => {
    llm = await startScriptedOpenAI([
      textTurn('hello from the model'),
      toolCallsTurn({ name: 'ping_me', arguments: {} }),
      textTurn('it said pong'),
      textTurn('drafted by the model'),
    ]);
    const server = new McpServer({ name: 'gated', version: '1.0.0' });
    server.tool('ping_me', { description: 'answers pong' }, () => 'pong');
    server.tool('ask_the_model', { description: 'samples' }, async (_args, ctx) => {
      const r = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'Say something' } }], maxTokens: 20 });
      return `the model said: ${(r.content as { text?: string }).text}`;
    });
    mcp = await serve(server, { port: 0 });
    studio = await startTestStudio({
      servers: [{ name: 'mem', origin: 'command-line', target: resolveTarget(mcp.url) }],
      model: { provider: 'openai', model: 'scripted', baseUrl: llm.baseUrl },
    });
    await studio.ready;
    s = await signIn(studio);
  });
  after(async () => {
    await studio?.close();
    await mcp?.close();
    await llm?.close();
  });

  const cases: Case[] = [
    {
      method: 'POST',
      path: '/api/recording',
      body: { after: 0 },
      acts: (r) => {
        assert.equal(r.format, 'mcpkit-studio-recording');
        assert.deepEqual(
          r.servers[0].catalog.tools.map((t: { name: string }) => t.name),
          ['ping_me', 'ask_the_model'],
        );
      },
    },
    { method: 'GET', path: '/api/snapshots', acts: (r) => assert.ok(r.some((k: { server: string }) => k.server === 'mem')) },
    { method: 'POST', path: '/api/servers/mem/snapshot', body: {}, acts: (r) => assert.equal(r.reason, 'taken by you') },
    { method: 'GET', path: '/api/chat', acts: (r) => assert.equal(r.model, 'scripted') },
    { method: 'POST', path: '/api/chat/send', body: { conversation: 'g', text: 'hi' }, acts: (r) => assert.equal(r.text, 'hello from the model') },
    {
      method: 'POST',
      path: '/api/chat/approvals/x',
      body: { allow: true },
      // A call waiting for approval: the model calls ping_me, which is not marked read-only.
      async setup() {
        sent = apiCall(s, '/api/chat/send', { conversation: 'g', text: 'ping it' });
        await waitFor(() => studio.hub.chat.info().pending.length === 1, 'a call waiting for approval');
        return `/api/chat/approvals/${encodeURIComponent(studio.hub.chat.info().pending[0].id)}`;
      },
      acts: async () => {
        const answered = (await sent) as { body: string };
        assert.equal(JSON.parse(answered.body).text, 'it said pong');
      },
    },
    { method: 'POST', path: '/api/chat/cancel', body: { conversation: 'g' }, acts: (r) => assert.equal(r.cancelled, false) },
    {
      method: 'POST',
      path: '/api/chat/reset',
      body: { conversation: 'g' },
      acts: (r) => {
        assert.equal(r.reset, true);
        assert.deepEqual(studio.hub.chat.info().conversations[0].history, []);
      },
    },
    { method: 'POST', path: '/api/chat/settings', body: { approval: 'auto' }, acts: (r) => assert.equal(r.approval, 'auto') },
    // The card route fetches: this server serves none, and says so.
    { method: 'POST', path: '/api/servers/mem/card', body: {}, acts: (r) => assert.match(r.error, /No Server Card/) },
    { method: 'GET', path: '/api/servers/mem/oauth', acts: (r) => assert.deepEqual([r.enabled, r.signedIn, r.steps], [true, false, []]) },
    {
      method: 'POST',
      path: '/api/servers/mem/oauth/sign-out',
      body: {},
      okStatus: 409,
      acts: (r) => assert.match(r.error.message, /has not signed in/),
    },
    { method: 'POST', path: '/api/servers/mem/oauth/cancel', body: {}, acts: (r) => assert.equal(r.cancelled, false) },
    { method: 'POST', path: '/api/chat/search-tools', body: { query: 'pong' }, acts: (r) => assert.equal(r.tools[0].name, 'ping_me') },
    {
      method: 'POST',
      path: '/api/inputs/x/model',
      body: {},
      // A server's sampling request waiting in the page: the model drafts an answer, which is not sent.
      async setup() {
        sent = apiCall(s, '/api/servers/mem/call', { name: 'ask_the_model', arguments: {} });
        await waitFor(() => studio.hub.inputs.list().length === 1, 'a sampling request waiting');
        return `/api/inputs/${encodeURIComponent(studio.hub.inputs.list()[0].id)}/model`;
      },
      acts: async (r) => {
        assert.deepEqual(r.result.content, { type: 'text', text: 'drafted by the model' });
        // Only a draft: the request still waits for the page's answer.
        const [waiting] = studio.hub.inputs.list();
        assert.ok(waiting, 'the request still waits');
        const answered = await apiCall(s, `/api/inputs/${encodeURIComponent(waiting.id)}`, { result: r.result });
        assert.equal(answered.status, 200, answered.body);
        const call = (await sent) as { body: string };
        assert.match(JSON.stringify(JSON.parse(call.body).result.content), /the model said: drafted by the model/);
      },
    },
    {
      method: 'POST',
      path: '/api/servers/mem/apps/sample',
      body: { params: { messages: [{ role: 'user', content: { type: 'text', text: 'from a view' } }], maxTokens: 10 } },
      // A view's sampling request waits for the person: answered here as the page would.
      async setup() {
        void waitFor(() => studio.hub.inputs.list().find((i) => i.from === 'view'), { what: "the view's request waiting", timeoutMs: 60_000 })
          .then((i) =>
            studio.hub.inputs.answer(i.id, { role: 'assistant', content: { type: 'text', text: 'from the person' }, model: 'person', stopReason: 'endTurn' }),
          )
          // Never found: the page's own request then fails its assertion, which says so.
          .catch(() => {});
        return undefined;
      },
      acts: (r) => assert.deepEqual(r.result.content, { type: 'text', text: 'from the person' }),
    },
  ];

  for (const c of cases) {
    test(`${c.method} ${c.path}: refused without the key, from another origin, site or Host; acts for the page`, async () => {
      const path = (await c.setup?.()) ?? c.path;
      const attempts: Array<[string, Record<string, string | undefined>, number]> = [
        ['no key', { 'X-Mcpkit-Studio-Key': undefined }, 401],
        ['no cookie', { Cookie: undefined }, 401],
        ['foreign Origin', { Origin: 'http://evil.example' }, 403],
        ['another site', { 'Sec-Fetch-Site': 'cross-site' }, 403],
        ['DNS rebinding', { Host: `evil.example:${studio.port}` }, 403],
      ];
      if (c.method === 'POST') attempts.push(['no Origin', { Origin: undefined }, 403], ['a form post', { 'Content-Type': 'text/plain' }, 415]);
      for (const [what, headers, status] of attempts) {
        const r = await apiCall(s, path, c.method === 'POST' ? (c.body ?? {}) : undefined, headers);
        assert.equal(r.status, status, `${what}: ${r.body}`);
      }
      const ok = await apiCall(s, path, c.method === 'POST' ? (c.body ?? {}) : undefined);
      assert.equal(ok.status, c.okStatus ?? 200, ok.body);
      await c.acts(JSON.parse(ok.body));
    });
  }
});
