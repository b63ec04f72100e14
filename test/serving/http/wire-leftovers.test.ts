// Wire-level edge cases over real HTTP (issue 13, item 12): a body that is valid JSON but not an
// object or array is an invalid request (-32600), not a parse error; a second initialize on a live
// session is refused (-32600), while one without the session header starts a new session.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createLinkedPair } from '../../../src/transports/memory/index.js';
import { initReq, jsonError, open, post, start } from './helpers.js';

test('a JSON body that is a string, a number or null is -32600 (valid JSON, not a message); broken JSON stays -32700', async () => {
  const s = await start();
  try {
    for (const body of ['"hello"', '42', 'null', 'true']) {
      const e = await jsonError(await post(s.url, body), 400, -32600);
      assert.match(e.message, /a JSON-RPC message must be an object/, body);
    }
    await jsonError(await post(s.url, '{"jsonrpc":'), 400, -32700);
  } finally {
    await s.running.close();
  }
});

test('HTTP+SSE: a POST whose body is a JSON string is refused with -32600 on the POST', async () => {
  const s = await start();
  const ac = new AbortController();
  try {
    const sse = await fetch(`${s.base}/sse`, { headers: { accept: 'text/event-stream' }, signal: ac.signal });
    const reader = sse.body!.getReader();
    let text = '';
    while (!/data: (.*)\n/.test(text)) text += new TextDecoder().decode((await reader.read()).value);
    const endpoint = new URL(/data: (.*)\n/.exec(text)![1], s.base).toString();
    await jsonError(await post(endpoint, '"hello"'), 400, -32600);
  } finally {
    ac.abort();
    await s.running.close();
  }
});

test('a second initialize on a live session is -32600 with its id; without the header it opens a new session', async () => {
  const s = await start();
  try {
    const { sid, headers } = await open(s.url);
    const again = initReq();
    const r = await post(s.url, again, headers);
    const body = (await r.clone().json()) as { id: unknown };
    const e = await jsonError(r, 400, -32600);
    assert.match(e.message, /already initialized/);
    assert.equal(body.id, again.id, 'the refusal echoes the initialize id');
    // The first session still works.
    const ping = await post(s.url, { jsonrpc: '2.0', id: 'p', method: 'ping' }, headers);
    assert.equal(ping.status, 200);
    // A fresh initialize (no header) is a new session, as after a 404; so is one naming an unknown id.
    const fresh = await post(s.url, initReq());
    assert.equal(fresh.status, 200);
    assert.notEqual(fresh.headers.get('mcp-session-id'), sid);
    await fresh.text();
    const stale = await post(s.url, initReq(), { 'mcp-session-id': 'no-such-session' });
    assert.equal(stale.status, 200);
    await stale.text();
  } finally {
    await s.running.close();
  }
});

test('a second initialize on a stream connection is -32600 too', async () => {
  const { mcp } = await import('./helpers.js').then((h) => h.makeServer());
  const [client, server] = createLinkedPair();
  const frames: Array<{ id?: unknown; result?: unknown; error?: { code: number } }> = [];
  let arrived: () => void = () => {};
  client.onmessage = (f) => {
    frames.push(JSON.parse(f as string));
    arrived();
  };
  await client.start();
  await mcp.connect(server);
  const next = () => new Promise<void>((r) => (arrived = r));
  let wait = next();
  await client.send(initReq() as never);
  await wait;
  wait = next();
  await client.send({ ...initReq(), id: 'second' } as never);
  await wait;
  assert.ok(frames[0].result);
  assert.equal(frames[1].id, 'second');
  assert.equal(frames[1].error?.code, -32600);
  await mcp.close();
});
