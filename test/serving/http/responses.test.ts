// POST responses over real HTTP: JSON vs SSE, 202, refusals (406/415/413/400), batches, the
// MCP-Protocol-Version header, and server-to-client requests on a POST's stream.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deferred, latch, within } from '../../support/index.js';
import { call, initReq, jsonError, LATEST, makeServer, open, post, raw, req, SseReader, start, type Started } from './helpers.js';

async function withServer(
  options: Parameters<typeof start>[0],
  fn: (s: Started, headers: Record<string, string>) => Promise<void>,
  fixture = makeServer(),
): Promise<void> {
  const s = await start(options, fixture);
  try {
    const { headers } = await open(s.url, LATEST, {}, { elicitation: {} });
    await fn(s, headers);
  } finally {
    await s.running.close();
  }
}

test('JSON when Accept lacks text/event-stream or is absent, even with progress', async () => {
  await withServer({}, async (s, headers) => {
    // fetch sends `*/*` when no Accept is given: that does not name text/event-stream either.
    for (const accept of ['application/json', '*/*']) {
      const r = await post(s.url, call('progress', { steps: 2, delayMs: 1 }, { progressToken: 1 }), { ...headers, accept });
      assert.equal(r.status, 200);
      assert.match(r.headers.get('content-type') ?? '', /^application\/json/, accept);
      const body = (await r.json()) as { result: { content: Array<{ text: string }> } };
      assert.equal(body.result.content[0].text, 'did 2');
    }
    const body = JSON.stringify(call('progress', { steps: 2, delayMs: 1 }, { progressToken: 2 }));
    const r = await raw(s.url, 'POST', { ...headers, 'content-type': 'application/json' }, body);
    assert.equal(r.status, 200);
    assert.match(String(r.headers['content-type']), /^application\/json/);
    assert.equal(JSON.parse(r.body).result.content[0].text, 'did 2');
  });
});

test('a client that accepts only text/event-stream gets SSE even for a plain result', async () => {
  await withServer({ responseMode: 'json' }, async (s, headers) => {
    const r = await post(s.url, call('echo', { text: 'only sse' }), { ...headers, accept: 'text/event-stream' });
    const events = await new SseReader(r).rest();
    assert.equal(JSON.parse(events[0].data!).result.content[0].text, 'only sse');
  });
});

test('auto mode: a plain result is JSON', async () => {
  await withServer({}, async (s, headers) => {
    const r = await post(s.url, call('echo', { text: 'hi' }), headers);
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
    assert.equal(r.headers.get('mcp-session-id'), headers['mcp-session-id']);
    const body = (await r.json()) as { id: unknown; result: unknown };
    assert.deepEqual(body.result, { content: [{ type: 'text', text: 'hi' }] });
  });
});

test('auto mode: progress before the result switches to SSE (priming, progress, result, end)', async () => {
  await withServer({}, async (s, headers) => {
    const msg = call('progress', { steps: 3, delayMs: 1 }, { progressToken: 'tok' });
    const r = await post(s.url, msg, headers);
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('mcp-session-id'), headers['mcp-session-id']);
    const sse = new SseReader(r);
    const priming = await sse.next();
    assert.ok(priming?.id, 'priming event has an id');
    assert.equal(priming.data, '');
    assert.equal(priming.retry, 1000);
    const events = await sse.rest();
    const messages = events.map((e) => JSON.parse(e.data!));
    assert.deepEqual(
      messages.slice(0, 3).map((m) => [m.method, m.params.progress, m.params.total, m.params.progressToken]),
      [
        ['notifications/progress', 1, 3, 'tok'],
        ['notifications/progress', 2, 3, 'tok'],
        ['notifications/progress', 3, 3, 'tok'],
      ],
    );
    assert.equal(messages[3].id, msg.id);
    assert.equal(messages[3].result.content[0].text, 'did 3');
    assert.equal(messages.length, 4, 'the stream ends after the result');
    assert.ok(events.every((e) => e.id && e.event === 'message'));
    assert.equal(new Set(events.map((e) => e.id)).size, 4, 'event ids are unique');
  });
});

test('auto mode: a log message before the result switches to SSE', async () => {
  await withServer({}, async (s, headers) => {
    const r = await post(s.url, call('log'), headers);
    const events = await new SseReader(r).rest();
    const [log, result] = events.map((e) => JSON.parse(e.data!));
    assert.equal(log.method, 'notifications/message');
    assert.deepEqual(log.params, { level: 'info', data: 'hello from the tool' });
    assert.equal(result.result.content[0].text, 'logged');
  });
});

test("responseMode 'sse' always streams; 'json' never does", async () => {
  await withServer({ responseMode: 'sse' }, async (s, headers) => {
    const r = await post(s.url, call('echo', { text: 'streamed' }), headers);
    const events = await new SseReader(r).rest();
    assert.equal(events.length, 1);
    assert.equal(JSON.parse(events[0].data!).result.content[0].text, 'streamed');
  });
  await withServer({ responseMode: 'json' }, async (s, headers) => {
    const r = await post(s.url, call('progress', { steps: 2, delayMs: 1 }, { progressToken: 1 }), headers);
    assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
    assert.equal(((await r.json()) as { result: { content: Array<{ text: string }> } }).result.content[0].text, 'did 2');
  });
});

test('notifications and responses POSTed get 202 with an empty body', async () => {
  await withServer({}, async (s, headers) => {
    const n = await post(s.url, { jsonrpc: '2.0', method: 'notifications/roots/list_changed' }, headers);
    assert.equal(n.status, 202);
    assert.equal(await n.text(), '');
    const resp = await post(s.url, { jsonrpc: '2.0', id: 999, result: {} }, headers);
    assert.equal(resp.status, 202);
    assert.equal(await resp.text(), '');
  });
});

test('refusals: 406, 415, 413, -32700, batched initialize', async () => {
  await withServer({ maxBodyBytes: 2048 }, async (s, headers) => {
    const na = await post(s.url, call('echo', { text: 'x' }), { ...headers, accept: 'text/html' });
    await jsonError(na, 406);
    const ct = await post(s.url, call('echo', { text: 'x' }), { ...headers, 'content-type': 'text/plain' });
    await jsonError(ct, 415);
    const big = await post(s.url, call('echo', { text: 'x'.repeat(5000) }), headers);
    await jsonError(big, 413);
    const bad = await post(s.url, '{"jsonrpc": "2.0", ', headers);
    await jsonError(bad, 400, -32700);
    const batch = await post(s.url, [initReq(), req('ping')], {});
    await jsonError(batch, 400, -32600);
    const invalid = await post(s.url, { jsonrpc: '2.0', id: 1 }, headers);
    assert.equal(invalid.status, 400);
    assert.equal(((await invalid.json()) as { error: { code: number } }).error.code, -32600);
    // The session survived all of that.
    const ok = await post(s.url, call('echo', { text: 'still here' }), headers);
    assert.equal(ok.status, 200);
    await ok.text();
  });
});

test('a batch outside 2025-03-26 is refused with 400 instead of hanging', async () => {
  await withServer({}, async (s, headers) => {
    const r = await post(s.url, [call('echo', { text: 'a' }), call('echo', { text: 'b' })], headers, AbortSignal.timeout(2000));
    await jsonError(r, 400, -32600);
  });
});

test('a batch on a 2025-03-26 session is answered as a batch', async () => {
  const s = await start();
  try {
    const { headers } = await open(s.url, '2025-03-26');
    const a = call('echo', { text: 'a' });
    const b = call('echo', { text: 'b' });
    const r = await post(s.url, [a, b, { jsonrpc: '2.0', method: 'notifications/roots/list_changed' }], headers);
    assert.equal(r.status, 200);
    const body = (await r.json()) as Array<{ id: unknown; result: { content: Array<{ text: string }> } }>;
    assert.ok(Array.isArray(body));
    assert.deepEqual(
      body.map((m) => [m.id, m.result.content[0].text]).sort(),
      [
        [a.id, 'a'],
        [b.id, 'b'],
      ].sort(),
    );
  } finally {
    await s.running.close();
  }
});

test('MCP-Protocol-Version: unsupported → 400, absent → accepted (2025-03-26 assumed)', async () => {
  await withServer({}, async (s, headers) => {
    const bad = await post(s.url, call('echo', { text: 'x' }), { ...headers, 'mcp-protocol-version': '1999-01-01' });
    assert.match((await jsonError(bad, 400)).message, /MCP-Protocol-Version/);
    const { 'mcp-protocol-version': _omit, ...noVersion } = headers;
    const ok = await post(s.url, call('echo', { text: 'x' }), noVersion);
    assert.equal(ok.status, 200);
    await ok.text();
    const badGet = await fetch(s.url, { headers: { ...headers, accept: 'text/event-stream', 'mcp-protocol-version': 'nope' } });
    await jsonError(badGet, 400);
    const badDelete = await fetch(s.url, { method: 'DELETE', headers: { ...headers, 'mcp-protocol-version': 'nope' } });
    await jsonError(badDelete, 400);
  });
  const s = await start({ stateful: false });
  try {
    const r = await post(s.url, call('echo', { text: 'x' }));
    assert.equal(r.status, 200);
    const body = (await r.json()) as { result: { content: Array<{ text: string }> } };
    assert.equal(body.result.content[0].text, 'x');
  } finally {
    await s.running.close();
  }
});

test('ctx.elicit travels on the POST stream and the POSTed answer (202) completes the call', async () => {
  await withServer({}, async (s, headers) => {
    const msg = call('ask');
    const r = await post(s.url, msg, headers);
    assert.match(r.headers.get('content-type') ?? '', /text\/event-stream/);
    const sse = new SseReader(r);
    const ask = await sse.message();
    assert.equal(ask.method, 'elicitation/create');
    assert.equal(ask.params.message, 'Your name?');
    assert.notEqual(ask.id, undefined);
    const answer = await post(s.url, { jsonrpc: '2.0', id: ask.id, result: { action: 'accept', content: { name: 'Ada' } } }, headers);
    assert.equal(answer.status, 202);
    assert.equal(await answer.text(), '');
    const result = await sse.message();
    assert.equal(result.id, msg.id);
    assert.equal(result.result.content[0].text, 'hello Ada');
    assert.equal(await sse.next(), undefined, 'the stream ends after the result');
  });
});

test('tool errors and unknown tools over HTTP', async () => {
  await withServer({}, async (s, headers) => {
    const fail = await post(s.url, call('fail'), headers);
    const f = (await fail.json()) as { result: { isError: boolean; content: Array<{ text: string }> } };
    assert.equal(f.result.isError, true);
    assert.equal(f.result.content[0].text, 'boom');
    const unknown = await post(s.url, call('nope'), headers);
    assert.equal(unknown.status, 200, 'a JSON-RPC error is still an HTTP 200');
    assert.equal(((await unknown.json()) as { error: { code: number } }).error.code, -32602);
  });
});

test('a request reusing the id of one still in flight is refused; the first is still answered', async () => {
  // The first call is held in its handler until the duplicate has been refused: in flight by
  // construction, not by a race between a sleep and a slow tool.
  const running = latch();
  const release = deferred();
  const fixture = makeServer();
  fixture.mcp.tool('hold', async () => {
    running.arrive();
    await release.promise;
    return 'released';
  });
  await withServer(
    {},
    async (s, headers) => {
      const pending = post(s.url, req('tools/call', { name: 'hold' }, 'dup'), headers);
      await within(running.opened, 'the first call to be running');
      const again = await post(s.url, req('ping', undefined, 'dup'), headers);
      assert.match((await jsonError(again, 400, -32600)).message, /already in use/);
      release.resolve();
      const r = await pending;
      assert.equal(r.status, 200);
      const body = (await r.json()) as { id: string; result: { content: Array<{ text: string }> } };
      assert.equal(body.id, 'dup');
      assert.equal(body.result.content[0].text, 'released');
    },
    fixture,
  );
});

test('stateless: ctx.elicit/sample/roots blame the transport, not the client, which did declare them', async () => {
  const fixture = makeServer();
  fixture.mcp.prompt('sampled', async (_args, ctx) => {
    const r = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 5 });
    return r.model;
  });
  fixture.mcp.tool('rooted', async (_args, ctx) => String((await ctx.roots()).length));
  const s = await start({ stateful: false }, fixture);
  try {
    // The client declares everything, in an initialize the stateless server forgets at once.
    const init = await post(s.url, initReq(LATEST, { elicitation: {}, sampling: {}, roots: {} }));
    assert.equal(init.status, 200);
    await init.text();
    const headers = { 'mcp-protocol-version': LATEST };
    for (const [tool, action] of [
      ['ask', 'elicit'],
      ['rooted', 'list roots'],
    ]) {
      const r = await post(s.url, call(tool), headers);
      const body = (await r.json()) as { result: { isError: boolean; content: Array<{ text: string }> } };
      assert.equal(body.result.isError, true);
      const text = body.result.content[0].text;
      assert.match(text, new RegExp(`^Cannot ${action}: this HTTP server is stateless \\(no sessions\\), so it cannot send requests to the client`));
      assert.match(text, /Serve it with sessions, or use protocol 2026-07-28/);
      assert.doesNotMatch(text, /did not declare/);
    }
    // Outside a tool the same words come as a JSON-RPC error: an internal one, the server's limit.
    const r = await post(s.url, req('prompts/get', { name: 'sampled' }), headers);
    const error = await jsonError(r, 200, -32603);
    assert.match(error.message, /^Cannot sample: this HTTP server is stateless/);
  } finally {
    await s.running.close();
  }
});

test("stateful, responseMode 'json', no GET stream: ctx.elicit fails at once, saying no stream can carry it", async () => {
  await withServer({ responseMode: 'json' }, async (s, headers) => {
    const r = await post(s.url, call('ask'), headers);
    assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
    const body = (await r.json()) as { result: { isError: boolean; content: Array<{ text: string }> } };
    assert.equal(body.result.isError, true);
    assert.match(
      body.result.content[0].text,
      /^Request "elicitation\/create" was lost: no stream can carry it to the client \(its request is answered with plain JSON/,
    );
    assert.match(body.result.content[0].text, /no GET stream open\)$/);
  });
});
