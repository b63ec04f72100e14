// Failures of both providers, over real HTTP: refused tool schemas, bad keys, an unreachable
// port, broken streams, 429/5xx retried once on an injected clock, aborts and idle timeouts (the
// server sees the connection close). No test waits on wall-clock time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ModelEvent, ModelError, type ModelProvider, type ModelTool } from '../../../src/host/model.js';
import { AnthropicProvider, OpenAIProvider, type ProviderHttpOptions } from '../../../src/host/providers/index.js';
import { ManualClock, flush, waitFor } from '../../support/index.js';
import {
  errorTurn,
  hangTurn,
  malformedTurn,
  type ScriptedLlm,
  startScriptedAnthropic,
  startScriptedOpenAI,
  streamErrorTurn,
  textTurn,
  truncatedTurn,
  type Turn,
} from '../../support/llm.js';

interface Flavor {
  name: 'openai' | 'anthropic';
  start(script: Turn[], options?: { apiKey?: string }): Promise<ScriptedLlm>;
  provider(baseUrl: string, options?: ProviderHttpOptions & { apiKey?: string; stream?: boolean }): ModelProvider;
  /** The path each provider POSTs to, below its base URL. */
  endpoint: string;
}

const flavors: Flavor[] = [
  {
    name: 'openai',
    start: startScriptedOpenAI,
    provider: (baseUrl, options) => new OpenAIProvider({ baseUrl, model: 'm', ...options }),
    endpoint: '/chat/completions',
  },
  {
    name: 'anthropic',
    start: startScriptedAnthropic,
    provider: (baseUrl, options) => new AnthropicProvider({ baseUrl, model: 'm', ...options }),
    endpoint: '/v1/messages',
  },
];

const tools: ModelTool[] = [
  { name: 'ok_tool', inputSchema: { type: 'object', properties: {} } },
  { name: 'bad_tool', inputSchema: { type: 'object', properties: { x: { type: 'object' } } } },
];
const ask = { messages: [{ role: 'user' as const, content: 'hi' }], tools };

/** The ModelError `promise` rejects with. */
async function modelError(promise: Promise<unknown>): Promise<ModelError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof ModelError, `expected a ModelError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected the call to fail');
}

for (const f of flavors) {
  test(`${f.name}: a 400 refusing a tool schema says so and names the tool; another 400 does not`, async () => {
    const refusal =
      f.name === 'openai'
        ? errorTurn(400, "Invalid schema for function 'bad_tool': In context=('properties', 'x'), schema must have a 'properties' key.", {
            param: 'tools[1].function.parameters',
          })
        : errorTurn(400, 'tools.1.custom.input_schema: JSON schema is invalid. It must match JSON Schema draft 2020-12');
    const byIndex =
      f.name === 'openai' ? errorTurn(400, "Invalid 'tools[1].function.parameters': schema refused.") : errorTurn(400, 'tools.0.custom.input_schema: bad');
    const llm = await f.start([refusal, byIndex]);
    try {
      const provider = f.provider(llm.baseUrl);
      const err = await modelError(provider.complete(ask));
      assert.equal(err.status, 400);
      assert.match(err.message, /refused a tool schema \(tool bad_tool\) \(400\)/);
      assert.match(err.detail ?? '', f.name === 'openai' ? /^Invalid schema for function 'bad_tool'/ : /^tools\.1\.custom\.input_schema/);
      const second = await modelError(provider.complete(ask));
      assert.match(second.message, new RegExp(`refused a tool schema \\(tool ${f.name === 'openai' ? 'bad_tool' : 'ok_tool'}\\)`));
      assert.equal(llm.requests.length, 2, 'a 4xx is not retried');
      llm.push(errorTurn(400, "'messages.0.content' must be a string or a list of parts"));
      const other = await modelError(provider.complete(ask));
      assert.equal(
        other.message,
        `${f.name === 'openai' ? 'the OpenAI-compatible endpoint' : 'the Anthropic API'} at ${llm.baseUrl}${f.endpoint} answered 400 Bad Request: 'messages.0.content' must be a string or a list of parts`,
      );
    } finally {
      await llm.close();
    }
  });

  test(`${f.name}: a wrong API key is a 401 with the endpoint's message, not retried`, async () => {
    const llm = await f.start([textTurn('never')], { apiKey: 'right-key' });
    try {
      const err = await modelError(f.provider(llm.baseUrl, { apiKey: 'wrong-key' }).complete(ask));
      assert.equal(err.status, 401);
      assert.match(err.message, /refused the credentials \(401\): Incorrect API key provided/);
      assert.equal(llm.requests.length, 1);
      const ok = await f.provider(llm.baseUrl, { apiKey: 'right-key' }).complete(ask);
      assert.equal(ok.text, 'never');
    } finally {
      await llm.close();
    }
  });

  test(`${f.name}: an unreachable endpoint is "cannot reach <url>"`, async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const base = f.name === 'openai' ? `http://127.0.0.1:${port}/v1` : `http://127.0.0.1:${port}`;
    const err = await modelError(f.provider(base).complete(ask));
    assert.equal(err.status, undefined);
    assert.equal(err.message, `cannot reach ${base}${f.endpoint}: ECONNREFUSED`);
  });

  test(`${f.name}: broken streams (not JSON, cut off, an error event) are ModelErrors after the text that came`, async () => {
    const llm = await f.start([malformedTurn('{"choices": [', 'so far'), truncatedTurn('half'), streamErrorTurn('Overloaded', { text: 'abc' })]);
    try {
      const provider = f.provider(llm.baseUrl);
      let text = '';
      const onEvent = (e: ModelEvent) => {
        if (e.type === 'text') text += e.delta;
      };
      const malformed = await modelError(provider.complete(ask, onEvent));
      assert.match(malformed.message, /^malformed stream from .*: an event is not JSON: \{"choices": \[/);
      assert.equal(text, 'so far');
      const cut = await modelError(provider.complete(ask));
      assert.match(cut.message, /malformed stream from .*ended before/);
      const failed = await modelError(provider.complete(ask));
      assert.match(failed.message, /failed mid-answer.*Overloaded/);
      assert.equal(failed.detail, 'Overloaded');
      assert.equal(llm.remaining(), 0);
    } finally {
      await llm.close();
    }
  });

  test(`${f.name}: non-streamed answers that are not JSON, and error bodies that are not JSON`, async () => {
    const llm = await f.start([malformedTurn('<html>oops</html>'), errorTurn(404, undefined, { body: '<h1>Not Found</h1>' })]);
    try {
      const provider = f.provider(llm.baseUrl, { stream: false });
      const err = await modelError(provider.complete(ask));
      assert.match(err.message, /^malformed answer from .*: not JSON: <html>oops<\/html>/);
      const notFound = await modelError(provider.complete(ask));
      assert.equal(notFound.status, 404);
      assert.match(notFound.message, /answered 404 Not Found: "<h1>Not Found<\/h1>"/);
    } finally {
      await llm.close();
    }
  });

  test(`${f.name}: 429 is retried once after Retry-After, on the injected clock`, async () => {
    const llm = await f.start([errorTurn(429, 'slow down', { headers: { 'retry-after': '7' } }), textTurn('finally')]);
    try {
      const clock = new ManualClock();
      const provider = f.provider(llm.baseUrl, { clock });
      const done = provider.complete(ask);
      // The idle timer is always armed; a second timer is the retry wait.
      await waitFor(() => llm.requests.length === 1 && clock.pending === 2, 'the retry wait');
      clock.advance(6_999);
      await flush();
      assert.equal(llm.requests.length, 1, 'not before Retry-After');
      clock.advance(1);
      const r = await done;
      assert.equal(r.text, 'finally');
      assert.equal(llm.requests.length, 2);
      assert.deepEqual(llm.requests[1].body, llm.requests[0].body, 'the same request again');
    } finally {
      await llm.close();
    }
  });

  test(`${f.name}: a second 5xx is reported with the endpoint's message`, async () => {
    const llm = await f.start([errorTurn(503, 'down for maintenance'), errorTurn(500, 'still down'), textTurn('unused')]);
    try {
      const clock = new ManualClock();
      const provider = f.provider(llm.baseUrl, { clock });
      const done = modelError(provider.complete(ask));
      await waitFor(() => clock.pending === 2, 'the retry wait');
      clock.advance(1_000); // no Retry-After: one second
      const err = await done;
      assert.equal(err.status, 500);
      assert.match(err.message, /answered 500 Internal Server Error: still down/);
      assert.equal(llm.requests.length, 2);
    } finally {
      await llm.close();
    }
  });

  test(`${f.name}: aborting mid-stream rejects with the abort reason and closes the connection`, async () => {
    const llm = await f.start([hangTurn('Thinking'), errorTurn(429, 'wait', { headers: { 'retry-after': '30' } })]);
    try {
      const provider = f.provider(llm.baseUrl);
      const controller = new AbortController();
      let text = '';
      const done = provider.complete({ ...ask, signal: controller.signal }, (e) => {
        if (e.type === 'text') text += e.delta;
      });
      await waitFor(() => text === 'Thinking', 'the streamed text');
      controller.abort(new Error('user pressed Ctrl-C'));
      await assert.rejects(done, /user pressed Ctrl-C/);
      await llm.waitForDisconnect(1);
      // Aborting while waiting to retry also ends at once.
      const clock = new ManualClock();
      const waiting = new AbortController();
      const retried = f.provider(llm.baseUrl, { clock }).complete({ ...ask, signal: waiting.signal });
      await waitFor(() => clock.pending === 2, 'the retry wait');
      waiting.abort();
      await assert.rejects(retried, { name: 'AbortError' });
      assert.equal(clock.pending, 0, 'no timer left behind');
    } finally {
      await llm.close();
    }
  });

  test(`${f.name}: an endpoint silent for timeoutMs fails with a ModelError and the connection is closed`, async () => {
    const llm = await f.start([hangTurn('tick')]);
    try {
      const clock = new ManualClock();
      let text = '';
      const done = modelError(
        f.provider(llm.baseUrl, { clock, timeoutMs: 5_000 }).complete(ask, (e) => {
          if (e.type === 'text') text += e.delta;
        }),
      );
      await waitFor(() => text === 'tick', 'the streamed text');
      clock.advance(5_000);
      const err = await done;
      assert.match(err.message, /sent nothing for 5000 ms/);
      await llm.waitForDisconnect(1);
    } finally {
      await llm.close();
    }
  });
}

test('openai: retry-after-ms wins over Retry-After', async () => {
  const llm = await startScriptedOpenAI([errorTurn(429, 'x', { headers: { 'retry-after-ms': '250', 'retry-after': '9' } }), textTurn('ok')]);
  try {
    const clock = new ManualClock();
    const done = new OpenAIProvider({ baseUrl: llm.baseUrl, model: 'm', clock }).complete(ask);
    await waitFor(() => clock.pending === 2, 'the retry wait');
    clock.advance(250);
    assert.equal((await done).text, 'ok');
  } finally {
    await llm.close();
  }
});

test('anthropic: an overloaded error event carries status 529', async () => {
  const llm = await startScriptedAnthropic([streamErrorTurn('Overloaded', { type: 'overloaded_error' })]);
  try {
    const err = await modelError(new AnthropicProvider({ baseUrl: llm.baseUrl, model: 'm' }).complete(ask));
    assert.equal(err.status, 529);
    assert.match(err.message, /\(overloaded_error\): Overloaded/);
  } finally {
    await llm.close();
  }
});
