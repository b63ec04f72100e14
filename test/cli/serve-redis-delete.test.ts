// `mcpkit serve --redis`: a DELETE of a session (a logout) on one instance ends it on every
// instance at once, over the bus. The attack: log out through instance A, then keep using the
// session through instance B, which held it and (before) served it until its next store check.
// The check interval is an hour here, so only the bus can end it in time.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { REDIS_URL } from '../state/redis/helpers.js';
import { within } from '../support/index.js';
import { startInstance, stopInstance, uniquePrefix, type Instance } from './redis-helpers.js';

const started: Instance[] = [];
after(async () => {
  await Promise.allSettled(started.map(stopInstance));
});

const VERSION = '2025-11-25';
const POST_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

async function rpc(base: string, body: object, session?: string): Promise<Response> {
  return fetch(`${base}/mcp`, {
    method: 'POST',
    headers: { ...POST_HEADERS, ...(session ? { 'mcp-session-id': session, 'mcp-protocol-version': VERSION } : {}) },
    body: JSON.stringify(body),
  });
}

/** A session opened on `base`: its id. */
async function openSession(base: string): Promise<string> {
  const init = await rpc(base, {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: 'logout-test', version: '1.0.0' } },
  });
  assert.equal(init.status, 200, await init.clone().text());
  const id = init.headers.get('mcp-session-id');
  assert.ok(id, 'a session id');
  await init.text();
  const ready = await rpc(base, { jsonrpc: '2.0', method: 'notifications/initialized' }, id);
  assert.equal(ready.status, 202);
  return id;
}

async function whoami(base: string, session: string): Promise<Response> {
  return rpc(base, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'whoami', arguments: {} } }, session);
}

test('serve --redis: a session DELETEd on A is ended on B at once: its GET stream closes, its next request is a 404', async () => {
  const prefix = uniquePrefix();
  // An hour between store checks: only the bus can end the session on B within this test.
  const [a, b] = await Promise.all(['A', 'B'].map((n) => startInstance(n, REDIS_URL, prefix, ['--session-check', '3600'])));
  started.push(a, b);
  const session = await openSession(a.base);

  // B serves the session A opened, and holds it: a call, and a GET stream left open.
  const call = await whoami(b.base, session);
  assert.equal(call.status, 200);
  assert.match(await call.text(), /B 2025-11-25 logout-test/);
  const stream = await fetch(`${b.base}/mcp`, { headers: { accept: 'text/event-stream', 'mcp-session-id': session, 'mcp-protocol-version': VERSION } });
  assert.equal(stream.status, 200);
  const reader = stream.body!.getReader();
  const ended = (async () => {
    for (;;) if ((await reader.read()).done) return 'closed';
  })().catch(() => 'closed');

  // Log out through A.
  const del = await fetch(`${a.base}/mcp`, { method: 'DELETE', headers: { 'mcp-session-id': session, 'mcp-protocol-version': VERSION } });
  assert.equal(del.status, 200);

  // B ends it on the bus's word: its stream closes...
  assert.equal(await within(ended, "B's GET stream to close after the DELETE on A"), 'closed');
  // ...and it refuses the session from now on, as A does.
  const afterB = await whoami(b.base, session);
  assert.equal(afterB.status, 404, await afterB.text());
  const afterA = await whoami(a.base, session);
  assert.equal(afterA.status, 404);
  await afterA.text();
  // B serves other sessions as before.
  const other = await openSession(b.base);
  assert.equal((await whoami(b.base, other)).status, 200);
});
