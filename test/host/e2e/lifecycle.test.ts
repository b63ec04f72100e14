// Servers and model turns that end before their time, through the Host with real processes: a
// stdio server killed in the middle of a call (the call fails with an error the model reads, it
// never hangs), calls while it is down, and the next message after the pool reconnected it (a
// ManualClock drives the retry backoff); an HTTP server stopped mid-call and started again, in
// both eras; cancellation of a running tool call (the server hears notifications/cancelled) and
// of a model turn still streaming, and a call past its timeout, each leaving a conversation that
// goes on; a server that cannot start next to one that can; host.close() in the middle of a
// message.
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';
import { Host, type HostEvent } from '../../../src/entries/host.js';
import type { ServerPool, PoolEventOf, PoolEventType } from '../../../src/pool/pool.js';
import { serve, type RunningServer } from '../../../src/serving/node.js';
import { createDemoServer } from '../../../src/cli/demo/server.js';
import {
  fixtureEntry,
  hangTurn,
  ManualClock,
  offeredTools,
  REPO_ROOT,
  sentToolCalls,
  sentToolResults,
  startDemoHttp,
  startScriptedAnthropic,
  startScriptedOpenAI,
  textTurn,
  toolCallsTurn,
  within,
  type ScriptedRequest,
} from '../../support/index.js';

const CRASH_AT_START = fileURLToPath(new URL('../../fixtures/stdio/crash-at-start.mjs', import.meta.url));

function next<T extends PoolEventType>(pool: ServerPool, type: T): Promise<PoolEventOf<T>> {
  return within(
    new Promise<PoolEventOf<T>>((resolve) => {
      const off = pool.on(type, (e) => {
        off();
        resolve(e);
      });
    }),
    `the pool's "${type}" event`,
  );
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Every tool call in the history has its result, right after the assistant message that made it. */
function wellFormed(req: ScriptedRequest): void {
  const calls = sentToolCalls(req).map((c) => c.id);
  const results = sentToolResults(req).map((r) => r.id);
  assert.deepEqual(results, calls, 'each tool call of the history is answered once, in order');
}

test('a stdio server killed mid-call: the call fails with an error the model reads; while down calls fail at once; after the reconnect the next message works', async () => {
  const clock = new ManualClock();
  const llm = await startScriptedAnthropic([
    // Message 1: a call in flight when the server dies.
    toolCallsTurn({ name: 'wait', arguments: {} }),
    (req) => {
      wellFormed(req);
      const [lost] = sentToolResults(req);
      assert.equal(lost.id, 'toolu_0_0');
      assert.equal(lost.isError, true);
      assert.match(lost.text, /Server "weather" was lost during the call to "wait"/);
      return textTurn('The weather server crashed.');
    },
    // Message 2: the server is down and its retry not yet due.
    toolCallsTurn({ name: 'get_weather', arguments: { city: 'Oslo' } }),
    (req) => {
      wellFormed(req);
      const down = sentToolResults(req).at(-1);
      assert.equal(down?.id, 'toolu_2_0');
      assert.equal(down?.isError, true);
      assert.match(down?.text ?? '', /server "weather" is not connected.*retrying in 100 ms/);
      return textTurn('Still down.');
    },
    // Message 3: reconnected.
    toolCallsTurn({ name: 'get_weather', arguments: { city: 'Oslo' } }),
    (req) => {
      wellFormed(req);
      const ok = sentToolResults(req).at(-1);
      assert.equal(ok?.id, 'toolu_4_0');
      assert.notEqual(ok?.isError, true);
      assert.equal(JSON.parse(ok?.text ?? '{}').source, 'mcpkit');
      return textTurn('Back up.');
    },
  ]);
  const host = new Host({
    servers: { weather: fixtureEntry('weather') },
    clock,
    retry: { initialDelayMs: 100 },
    model: { provider: 'anthropic', model: 'scripted', baseUrl: llm.baseUrl },
  });
  const { pool } = host;
  try {
    await host.start();
    const first = pool.server('weather')?.pid;
    assert.ok(first);
    const chat = host.conversation();
    const reconnecting = next(pool, 'reconnecting');
    const toolErrors: HostEvent[] = [];
    let killed = false;
    const lost = await within(
      chat.send('Wait for me.', {
        onEvent: (e) => {
          // The server runs the call (its progress came): kill it now.
          if (e.type === 'tool_progress' && !killed) {
            killed = true;
            process.kill(first, 'SIGKILL');
          }
          if (e.type === 'tool_error') toolErrors.push(e);
        },
      }),
      'the answer after the server died',
    );
    assert.equal(lost.text, 'The weather server crashed.');
    assert.equal(lost.toolCalls[0].result, undefined);
    assert.match(lost.toolCalls[0].error ?? '', /was lost during the call/);
    assert.equal(toolErrors.length, 1);
    assert.equal((await reconnecting).inMs, 100);
    assert.equal(alive(first), false);

    assert.equal((await chat.send('The weather in Oslo?')).text, 'Still down.');

    const connected = next(pool, 'connected');
    clock.advance(100);
    await connected;
    const second = pool.server('weather')?.pid;
    assert.ok(second && second !== first);
    assert.equal((await chat.send('And now?')).text, 'Back up.');
    llm.assertNoErrors();
  } finally {
    await host.close();
    await llm.close();
  }
});

test('cancelling send() during a tool call: the server is told (notifications/cancelled), send() rejects with AbortError, the conversation goes on', async () => {
  const llm = await startScriptedOpenAI([
    toolCallsTurn({ name: 'wait', arguments: {} }),
    (req) => {
      // The history the next message is sent with is one a provider accepts.
      wellFormed(req);
      assert.equal(req.body.messages.at(-1).role, 'user');
      assert.equal(req.body.messages.at(-1).content, 'Never mind. Hello?');
      return textTurn('Hello.');
    },
  ]);
  let cancelledOnServer: () => void = () => {};
  const serverHeard = new Promise<void>((resolve) => (cancelledOnServer = resolve));
  const host = new Host({
    servers: { weather: fixtureEntry('weather') },
    model: { provider: 'openai', model: 'scripted', baseUrl: llm.baseUrl },
    onEvent: (e) => {
      if (e.type === 'server' && e.event.type === 'stderr' && /^cancelled /.test(e.event.line)) cancelledOnServer();
    },
  });
  try {
    await host.start();
    const chat = host.conversation();
    const controller = new AbortController();
    const err = await within(
      chat
        .send('Wait.', {
          signal: controller.signal,
          onEvent: (e) => {
            if (e.type === 'tool_progress') controller.abort();
          },
        })
        .then(
          () => undefined,
          (e: unknown) => e,
        ),
      'send() to reject',
    );
    assert.ok(err instanceof Error, String(err));
    assert.equal(err.name, 'AbortError');
    await within(serverHeard, 'the server to see the cancellation');
    assert.equal((await chat.send('Never mind. Hello?')).text, 'Hello.');
    llm.assertNoErrors();
  } finally {
    await host.close();
    await llm.close();
  }
});

test('cancelling send() while the model streams: the HTTP request is abandoned, send() rejects with AbortError, the next message works', async () => {
  const llm = await startScriptedAnthropic([
    hangTurn('Let me think'),
    (req) => {
      const users = req.body.messages.filter((m: { role: string }) => m.role === 'user');
      assert.equal(users.at(-1).content.at?.(-1)?.text ?? users.at(-1).content, 'Try again.');
      return textTurn('Done thinking.');
    },
  ]);
  const host = new Host({ servers: { weather: fixtureEntry('weather') }, model: { provider: 'anthropic', model: 'scripted', baseUrl: llm.baseUrl } });
  try {
    await host.start();
    const chat = host.conversation();
    const controller = new AbortController();
    const err = await within(
      chat
        .send('Think hard.', {
          signal: controller.signal,
          onEvent: (e) => {
            if (e.type === 'text') controller.abort();
          },
        })
        .then(
          () => undefined,
          (e: unknown) => e,
        ),
      'send() to reject',
    );
    assert.ok(err instanceof Error, String(err));
    assert.equal(err.name, 'AbortError');
    await within(llm.waitForDisconnect(1), 'the model request to be abandoned');
    assert.equal((await chat.send('Try again.')).text, 'Done thinking.');
    llm.assertNoErrors();
  } finally {
    await host.close();
    await llm.close();
  }
});

test('a tool call past toolTimeoutMs without progress (ManualClock): the model reads the timeout, the server is told to stop, nothing hangs', async () => {
  const clock = new ManualClock();
  const llm = await startScriptedOpenAI([
    toolCallsTurn({ name: 'wait', arguments: {} }),
    (req) => {
      const [late] = sentToolResults(req);
      assert.equal(late.id, 'call_0_0');
      assert.equal(late.text, 'Error: The call to wait timed out after 1000 ms without progress.');
      return textTurn('The tool took too long.');
    },
  ]);
  let cancelledOnServer: () => void = () => {};
  const serverHeard = new Promise<void>((resolve) => (cancelledOnServer = resolve));
  const host = new Host({
    servers: { weather: fixtureEntry('weather') },
    clock,
    toolTimeoutMs: 1000,
    model: { provider: 'openai', model: 'scripted', baseUrl: llm.baseUrl },
    onEvent: (e) => {
      if (e.type === 'server' && e.event.type === 'stderr' && /^cancelled /.test(e.event.line)) cancelledOnServer();
    },
  });
  try {
    await host.start();
    const answer = await within(
      host.conversation().send('Wait.', {
        onEvent: (e) => {
          // Progress restarted the timeout; let the client take it in, then run the clock past it.
          if (e.type === 'tool_progress') setImmediate(() => clock.advance(1000));
        },
      }),
      'the answer after the timeout',
    );
    assert.equal(answer.text, 'The tool took too long.');
    assert.match(answer.toolCalls[0].error ?? '', /timed out/);
    await within(serverHeard, 'the server to hear that the call is abandoned');
    llm.assertNoErrors();
  } finally {
    await host.close();
    await llm.close();
  }
});

for (const era of ['handshake', 'modern'] as const) {
  test(`an HTTP server gone mid-call and back on its port (${era} era): the call fails with an error the model reads, the next message reaches the new server`, async () => {
    const demo = await startDemoHttp();
    const llm = await startScriptedOpenAI([
      toolCallsTurn({ name: 'count', arguments: { n: 1000 } }),
      (req) => {
        const [lost] = sentToolResults(req);
        assert.equal(lost.id, 'call_0_0');
        assert.match(lost.text, /^Error: The call to count failed: Server "demo" was lost during the call to "count": /);
        return textTurn('The server went away.');
      },
      toolCallsTurn({ name: 'echo', arguments: { message: 'still there?' } }),
      (req) => {
        wellFormed(req);
        assert.equal(sentToolResults(req).at(-1)?.text, 'still there?');
        return textTurn('It is back.');
      },
    ]);
    const host = new Host({
      servers: { demo: { url: demo.url, era, allow: ['count', 'echo'] } },
      model: { provider: 'openai', model: 'scripted', baseUrl: llm.baseUrl },
    });
    let again: RunningServer | undefined;
    try {
      await host.start();
      const chat = host.conversation();
      let stopped: Promise<void> | undefined;
      const lost = await within(
        chat.send('Count to 1000.', {
          onEvent: (e) => {
            // Counting is under way on the server: stop it, connections and all.
            if (e.type === 'tool_progress') stopped ??= demo.close();
          },
        }),
        'the answer after the server went away',
      );
      assert.equal(lost.text, 'The server went away.');
      await stopped;
      again = await serve(createDemoServer(), { port: demo.port });
      assert.equal((await within(chat.send('Echo something.'), 'the answer from the new server')).text, 'It is back.');
      llm.assertNoErrors();
    } finally {
      await host.close();
      await again?.close();
      await llm.close();
    }
  });
}

test('a server that cannot start does not hold the others: start() resolves, the failure is an event, the model gets the tools that are up', async () => {
  const clock = new ManualClock();
  const llm = await startScriptedAnthropic([
    (req) => {
      assert.deepEqual(offeredTools(req).sort(), ['get_weather', 'pid', 'unlock_forecast', 'wait']);
      return toolCallsTurn({ name: 'get_weather', arguments: { city: 'Oslo' } });
    },
    (req) => textTurn(JSON.parse(sentToolResults(req)[0].text).city),
  ]);
  const failures: Array<{ server: string; message: string; retryInMs: number | undefined }> = [];
  const host = new Host({
    servers: {
      broken: { command: process.execPath, args: [CRASH_AT_START], cwd: REPO_ROOT },
      weather: fixtureEntry('weather'),
    },
    clock,
    retry: { initialDelayMs: 1000 },
    model: { provider: 'anthropic', model: 'scripted', baseUrl: llm.baseUrl },
    onEvent: (e) => {
      if (e.type === 'server' && e.event.type === 'failed')
        failures.push({ server: e.event.server, message: e.event.error.message, retryInMs: e.event.retryInMs });
    },
  });
  try {
    await host.start();
    assert.equal(failures.length, 1);
    assert.equal(failures[0].server, 'broken');
    assert.match(failures[0].message, /fatal: missing API_KEY/);
    assert.equal(failures[0].retryInMs, 1000);
    assert.equal((await host.conversation().send('Weather in Oslo?')).text, 'Oslo');
    llm.assertNoErrors();
  } finally {
    await host.close();
    await llm.close();
  }
});

test('cancelling send() during parallel calls to two stdio servers: both servers are told, and two conversations on one host keep their calls apart', async () => {
  const llm = await startScriptedOpenAI([
    toolCallsTurn([
      { name: 'one_wait', arguments: {} },
      { name: 'two_wait', arguments: {} },
    ]),
    // The other conversation, while the first one waits.
    toolCallsTurn({ name: 'one_get_weather', arguments: { city: 'Rome' } }),
    (req) => textTurn(JSON.parse(sentToolResults(req)[0].text).city),
  ]);
  const heard = new Set<string>();
  let bothHeard: () => void = () => {};
  const cancelled = new Promise<void>((resolve) => (bothHeard = resolve));
  const host = new Host({
    servers: { one: fixtureEntry('weather'), two: fixtureEntry('weather') },
    model: { provider: 'openai', model: 'scripted', baseUrl: llm.baseUrl },
    onEvent: (e) => {
      if (e.type !== 'server' || e.event.type !== 'stderr' || !/^cancelled /.test(e.event.line)) return;
      heard.add(e.event.server);
      if (heard.size === 2) bothHeard();
    },
  });
  try {
    await host.start();
    const controller = new AbortController();
    const running = new Set<string>();
    let bothRunning: () => void = () => {};
    const started = new Promise<void>((resolve) => (bothRunning = resolve));
    const firstEvents: HostEvent[] = [];
    const first = host
      .conversation()
      .send('Wait on both.', {
        signal: controller.signal,
        onEvent: (e) => {
          firstEvents.push(e);
          if (e.type !== 'tool_progress') return;
          running.add(e.id);
          if (running.size === 2) bothRunning();
        },
      })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    await within(started, 'both calls to run on their servers');
    // Another conversation works meanwhile; its calls are its own.
    const secondEvents: HostEvent[] = [];
    const second = await host.conversation().send('Weather in Rome?', { onEvent: (e) => secondEvents.push(e) });
    assert.equal(second.text, 'Rome');
    controller.abort();
    const err = await within(first, 'send() to reject');
    assert.ok(err instanceof Error && err.name === 'AbortError', String(err));
    await within(cancelled, () => `both servers to hear the cancellation (heard: ${[...heard].join(', ') || 'none'})`);
    const calls = (events: HostEvent[]) => events.flatMap((e) => (e.type === 'tool_call' ? [e.name] : []));
    assert.deepEqual(calls(firstEvents), ['one_wait', 'two_wait']);
    assert.deepEqual(calls(secondEvents), ['one_get_weather']);
    llm.assertNoErrors();
  } finally {
    await host.close();
    await llm.close();
  }
});

test('host.close() while a message is answered (during a tool call, during a model stream): send() rejects saying the host closed, no model turn follows, nothing is left running', async () => {
  const rounds = [
    // A second turn is scripted so that a model turn after close() shows up as a request answered.
    { during: 'tool_progress' as const, script: [toolCallsTurn({ name: 'wait', arguments: {} }), textTurn('Asked after the host closed.')] },
    { during: 'text' as const, script: [hangTurn('Thinking')] },
  ];
  for (const { during, script } of rounds) {
    const llm = await startScriptedOpenAI(script);
    const host = new Host({ servers: { weather: fixtureEntry('weather') }, model: { provider: 'openai', model: 'scripted', baseUrl: llm.baseUrl } });
    try {
      await host.start();
      const pid = host.pool.server('weather')?.pid;
      assert.ok(pid);
      let closing: Promise<void> | undefined;
      const settled = await within(
        host
          .conversation()
          .send('Wait, or think.', {
            onEvent: (e) => {
              if (e.type === during) closing ??= host.close();
            },
          })
          .then(
            (answer) => answer,
            (e: unknown) => e,
          ),
        `send() to settle after close() (during ${during})`,
      );
      await within(closing ?? Promise.resolve(), 'close() to finish');
      assert.ok(settled instanceof Error, `send() resolved: ${JSON.stringify(settled)}`);
      assert.match(settled.message, /closed/i);
      assert.equal(llm.requests.length, 1, 'no model turn after close()');
      assert.equal(alive(pid), false);
    } finally {
      await host.close();
      await llm.close();
    }
  }
});
