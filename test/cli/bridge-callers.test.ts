// `mcpkit bridge --http` shares ONE stdio server among its HTTP clients. When that server asks a
// question in the middle of a call (elicitation, sampling, roots), the question must reach the
// client whose call it is, and no other: the attack is two users calling at once, one of them
// being shown the other's question and the other's call carrying the wrong answer. A
// handshake-era stdio server cannot say which call it asks for, so the bridge answers only when
// it can tell (one client with calls in flight) and refuses the question otherwise.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { connectAny as connect } from '../../src/client/connect-stdio.js';
import type { MessageMiddleware } from '../../src/engine/middleware.js';
import { cleanEnv, ROOT, TSX } from './helpers.js';
import { patient, waitFor, within } from '../support/index.js';

const MAIN = join(ROOT, 'dist/cli/main.js');
const FIXTURE = join(ROOT, 'test/fixtures/cli/ask-caller-server.ts');
type Ask = 'elicit' | 'sample' | 'roots';
type Era = 'handshake' | 'modern';

interface Caller {
  name: string;
  /** Questions of the stdio server this caller was shown (any kind, either era). */
  asked(): number;
  greet(ask: Ask, group: string, together: number): Promise<{ text: string; isError: boolean }>;
  close(): Promise<void>;
}

const QUESTION = /"(elicitation\/create|sampling\/createMessage|roots\/list)"/;

/** A caller on mcpkit's client, answering every question with its own name. */
async function mcpkitCaller(name: string, url: string, era: Era): Promise<Caller> {
  let asked = 0;
  // In the handshake era a question is a request; in 2026-07-28 it rides in an input_required result.
  const watch: MessageMiddleware = {
    incoming(m, next) {
      if (QUESTION.test(JSON.stringify(m))) asked++;
      return next(m);
    },
  };
  const client = await connect(url, {
    era,
    middleware: [watch],
    roots: [{ uri: `file:///home/${name}`, name }],
    elicitation: async () => ({ action: 'accept', content: { name } }),
    sampling: async () => ({ role: 'assistant', content: { type: 'text', text: name }, model: 'test' }),
  });
  assert.equal(client.era, era);
  return {
    name,
    asked: () => asked,
    async greet(ask, group, together) {
      const r = await client.callTool('greet', { ask, group, together });
      return { text: (r.content[0] as { text: string }).text, isError: r.isError === true };
    },
    close: () => client.close(),
  };
}

/** A caller on the official TypeScript SDK (v1), a handshake-era client. */
async function officialCaller(name: string, url: string): Promise<Caller> {
  let asked = 0;
  const client = new Client({ name: `official-${name}`, version: '1.0.0' }, { capabilities: { elicitation: {}, sampling: {}, roots: {} } });
  client.setRequestHandler(ElicitRequestSchema, async () => {
    asked++;
    return { action: 'accept', content: { name } };
  });
  client.setRequestHandler(CreateMessageRequestSchema, async () => {
    asked++;
    return { role: 'assistant', content: { type: 'text', text: name }, model: 'test' };
  });
  client.setRequestHandler(ListRootsRequestSchema, async () => {
    asked++;
    return { roots: [{ uri: `file:///home/${name}`, name }] };
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return {
    name,
    asked: () => asked,
    async greet(ask, group, together) {
      const r = await client.callTool({ name: 'greet', arguments: { ask, group, together } }, CallToolResultSchema);
      return { text: (r.content as Array<{ text: string }>)[0].text, isError: r.isError === true };
    },
    close: () => client.close(),
  };
}

describe('bridge --http: a question from the stdio server goes to the caller whose call it is', () => {
  let child: ChildProcess;
  let url = '';
  let stderr = '';
  let groups = 0;
  before(async () => {
    assert.ok(existsSync(MAIN), 'dist/cli/main.js exists (run npm run build first)');
    // The built CLI as users run it, over a real stdio child.
    child = spawn(process.execPath, [MAIN, 'bridge', '--http', '--port', '0', '--', process.execPath, '--import', TSX, FIXTURE], {
      cwd: ROOT,
      env: cleanEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (c: Buffer) => (out += c));
    child.stderr!.on('data', (c: Buffer) => (stderr += c));
    url = await waitFor(() => /listening on (http:\/\/\S+\/mcp)/.exec(out)?.[1], {
      what: `the bridge to listen (stderr: ${stderr})`,
      timeoutMs: patient(60_000),
    });
  });
  after(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await within(gone, 'the bridge to exit');
    }
  });

  const pairs: Array<{ what: string; make: (name: string, i: number) => Promise<Caller> }> = [
    { what: 'two handshake-era sessions', make: (name) => mcpkitCaller(name, url, 'handshake') },
    { what: 'two 2026-07-28 callers', make: (name) => mcpkitCaller(name, url, 'modern') },
    {
      what: 'an official SDK client and an HTTP+SSE session',
      make: (name, i) => (i === 0 ? officialCaller(name, url) : mcpkitCaller(name, url.replace(/\/mcp$/, '/sse'), 'handshake')),
    },
  ];

  for (const { what, make } of pairs) {
    test(`two callers at once (${what}): neither is shown the other's question nor given the other's answer`, async () => {
      const alice = await make('alice', 0);
      const bob = await make('bob', 1);
      try {
        for (const ask of ['elicit', 'sample', 'roots'] as const) {
          // Both calls are in the stdio server before either asks: the bridge cannot tell whose
          // question is whose, and refuses both rather than guess.
          const group = `g${++groups}`;
          const [a, b] = await Promise.all([alice.greet(ask, group, 2), bob.greet(ask, group, 2)]);
          for (const [me, other, r] of [
            [alice, bob, a],
            [bob, alice, b],
          ] as const) {
            assert.doesNotMatch(r.text, new RegExp(other.name), `${ask}: ${me.name}'s call carries ${other.name}'s answer: ${r.text}`);
            assert.equal(r.isError, true, `${ask}: ${me.name}: ${r.text}`);
            assert.match(
              r.text,
              /^refused: Bridge: the stdio server asked for input .*without saying for which call, and 2 HTTP clients have calls in progress/,
              `${ask}: ${me.name}`,
            );
            assert.equal(me.asked(), 0, `${ask}: ${me.name} was shown a question`);
          }
        }
        // Each alone: her own question, her own answer.
        for (const ask of ['elicit', 'sample', 'roots'] as const) {
          for (const me of [alice, bob]) {
            const before = me.asked();
            const r = await me.greet(ask, `g${++groups}`, 1);
            assert.deepEqual(r, { text: `Hello, ${me.name}!`, isError: false }, `${ask}: ${me.name}`);
            assert.ok(me.asked() > before, `${ask}: ${me.name} was asked`);
          }
        }
      } finally {
        await Promise.allSettled([alice.close(), bob.close()]);
      }
    });
  }

  test('one session with two calls at once is still asked: both questions are its own', async () => {
    const alice = await mcpkitCaller('alice', url, 'handshake');
    const bob = await mcpkitCaller('bob', url, 'handshake');
    try {
      const group = `g${++groups}`;
      const rs = await Promise.all([alice.greet('elicit', group, 2), alice.greet('elicit', group, 2)]);
      assert.deepEqual(rs, [
        { text: 'Hello, alice!', isError: false },
        { text: 'Hello, alice!', isError: false },
      ]);
      assert.equal(alice.asked(), 2);
      assert.equal(bob.asked(), 0, 'bob, connected but idle, was shown none of it');
    } finally {
      await Promise.allSettled([alice.close(), bob.close()]);
    }
  });
});
