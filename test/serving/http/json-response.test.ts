// `responseMode: 'json'` (`mcpkit serve --json-response`) against real clients (issue 13, item
// 13): a 2026-07-28 subscriptions/listen is still answered with its stream; in the handshake era a
// request's own notifications (progress, logs) are not moved to the GET stream, where they would
// arrive after the JSON result, while server-to-client requests still travel there.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from '../../../src/client/connect.js';
import { meta, V } from '../../server/modern/helpers.js';
import { waitFor } from '../../support/index.js';
import { call, jsonError, makeServer, open, post, SseReader, start } from './helpers.js';

test('2026-07-28 listen in JSON mode: mcpkit connect() gets the acknowledgement and a later notification', async () => {
  const s = await start({ responseMode: 'json' });
  const client = await connect(s.url);
  try {
    assert.equal(client.era, 'modern');
    const seen: string[] = [];
    const sub = client.listen({ toolsListChanged: true }, (n) => seen.push(n.method));
    assert.deepEqual(await sub.acknowledged, { toolsListChanged: true });
    s.mcp.tool('late', () => 'here');
    await waitFor(() => seen.includes('notifications/tools/list_changed'), 'the list change on the listen stream');
    // Other requests keep their JSON answers.
    assert.equal((await client.callTool('echo', { text: 'json' })).content[0]?.type, 'text');
    await sub.close();
  } finally {
    await client.close();
    await s.running.close();
  }
});

test('2026-07-28 listen in JSON mode over raw fetch: an event stream; a client that takes JSON only gets 406', async () => {
  const s = await start({ responseMode: 'json' });
  const ac = new AbortController();
  try {
    const listen = { jsonrpc: '2.0', id: 'L', method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true }, _meta: meta() } };
    const headers = { 'mcp-protocol-version': V, 'mcp-method': 'subscriptions/listen' };
    const r = await post(s.url, listen, headers, ac.signal);
    assert.equal(r.status, 200);
    const sse = new SseReader(r);
    const ack = await sse.message();
    assert.equal(ack.method, 'notifications/subscriptions/acknowledged');
    assert.deepEqual(ack.params.notifications, { toolsListChanged: true });
    s.mcp.tool('late', () => 'here');
    const change = await sse.message();
    assert.equal(change.method, 'notifications/tools/list_changed');
    assert.equal(change.params._meta['io.modelcontextprotocol/subscriptionId'], 'L');
    // A tools/call in the same mode is still one JSON body.
    const called = await post(
      s.url,
      { ...call('echo', { text: 'x' }), params: { name: 'echo', arguments: { text: 'x' }, _meta: meta() } },
      {
        ...headers,
        'mcp-method': 'tools/call',
        'mcp-name': 'echo',
      },
    );
    assert.match(called.headers.get('content-type') ?? '', /application\/json/);
    await called.json();

    const jsonOnly = await post(s.url, listen, { ...headers, accept: 'application/json' });
    const e = await jsonError(jsonOnly, 406);
    assert.match(e.message, /subscriptions\/listen is answered with an event stream/);
  } finally {
    ac.abort();
    await s.running.close();
  }
});

test('handshake era, JSON mode: progress and logs stay off the GET stream; an elicitation still arrives there', async () => {
  const fixture = makeServer();
  // A tool that reports progress and logs (info passes the default level), then answers.
  fixture.mcp.tool('busy', async (_a, ctx) => {
    await ctx.progress(1, 2);
    await ctx.log('info', 'working');
    await ctx.progress(2, 2);
    return 'busy done';
  });
  const s = await start({ responseMode: 'json' }, fixture);
  const get = new AbortController();
  try {
    const { headers } = await open(s.url, '2025-11-25', {}, { elicitation: {} });
    const stream = await fetch(s.url, { headers: { ...headers, accept: 'text/event-stream' }, signal: get.signal });
    assert.equal(stream.status, 200);
    const events = new SseReader(stream);
    const r = await post(s.url, call('busy', {}, { progressToken: 'p' }), headers);
    assert.match(r.headers.get('content-type') ?? '', /application\/json/);
    assert.equal(((await r.json()) as { result: { content: Array<{ text: string }> } }).result.content[0].text, 'busy done');
    // The next message on the GET stream is the elicitation below: nothing of `busy` came first.
    const asked = post(s.url, call('ask'), headers, get.signal);
    const question = await events.message();
    assert.equal(question.method, 'elicitation/create');
    const answer = await post(s.url, { jsonrpc: '2.0', id: question.id, result: { action: 'accept', content: { name: 'Ada' } } }, headers);
    assert.equal(answer.status, 202);
    const done = (await (await asked).json()) as { result: { content: Array<{ text: string }> } };
    assert.equal(done.result.content[0].text, 'hello Ada');
  } finally {
    get.abort();
    await s.running.close();
  }
});
