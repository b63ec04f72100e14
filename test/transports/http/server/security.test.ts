// Origin/Host checks, API keys and per-principal sessions over real HTTP.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { apiKeyGuard } from '../../../../src/transports/http/server/security.js';
import { call, initReq, jsonError, LATEST, open, post, raw, start } from './helpers.js';

test('Origin: foreign → 403 (JSON-RPC body without id), localhost accepted, none accepted', async () => {
  const s = await start();
  try {
    for (const origin of ['https://evil.example.com', 'http://127.0.0.1.evil.example.com', 'null']) {
      const r = await post(s.url, initReq(), { origin });
      const err = await jsonError(r, 403);
      assert.match(err.message, /Origin/);
      assert.equal(s.running.handler.streamable.sessionCount, 0);
    }
    const body = (await (await post(s.url, initReq(), { origin: 'https://evil.example.com' })).json()) as { id: unknown };
    assert.equal(body.id, null);
    for (const origin of [`http://localhost:${s.running.port}`, `http://127.0.0.1:${s.running.port}`, 'http://[::1]:8080']) {
      const r = await post(s.url, initReq(), { origin });
      assert.equal(r.status, 200, origin);
      await r.text();
    }
    const { headers } = await open(s.url);
    await jsonError(await fetch(s.url, { headers: { ...headers, accept: 'text/event-stream', origin: 'https://evil.example.com' } }), 403);
    await jsonError(await fetch(s.url, { method: 'DELETE', headers: { ...headers, origin: 'https://evil.example.com' } }), 403);
  } finally {
    await s.running.close();
  }
});

test('Origin: configured allowedOrigins replace the localhost default', async () => {
  const s = await start({ allowedOrigins: ['https://app.example.com'] });
  try {
    const ok = await post(s.url, initReq(), { origin: 'https://app.example.com' });
    assert.equal(ok.status, 200);
    await ok.text();
    await jsonError(await post(s.url, initReq(), { origin: 'https://other.example.com' }), 403);
    await jsonError(await post(s.url, initReq(), { origin: 'http://localhost:3000' }), 403);
  } finally {
    await s.running.close();
  }
  const any = await start({ allowedOrigins: '*' });
  try {
    const r = await post(any.url, initReq(), { origin: 'https://anything.example' });
    assert.equal(r.status, 200);
    await r.text();
  } finally {
    await any.running.close();
  }
});

test('Host: serve() on 127.0.0.1 refuses a rebinding Host header with 403', async () => {
  const s = await start();
  try {
    const body = JSON.stringify(initReq());
    const headers = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
    const evil = await raw(s.url, 'POST', { ...headers, host: 'evil.example.com' }, body);
    assert.equal(evil.status, 403);
    assert.match(JSON.parse(evil.body).error.message, /Host/);
    const evilPort = await raw(s.url, 'POST', { ...headers, host: `evil.example.com:${s.running.port}` }, body);
    assert.equal(evilPort.status, 403);
    const sse = await raw(`${s.base}/sse`, 'GET', { accept: 'text/event-stream', host: 'evil.example.com' });
    assert.equal(sse.status, 403);
    for (const host of [`localhost:${s.running.port}`, `127.0.0.1:${s.running.port}`]) {
      const ok = await raw(s.url, 'POST', { ...headers, host }, body);
      assert.equal(ok.status, 200, host);
    }
  } finally {
    await s.running.close();
  }
});

test('apiKeyGuard: ?api_key, X-API-Key and Bearer are accepted; anything else is 401 with JSON', async () => {
  const s = await start({ authenticate: apiKeyGuard({ keys: ['k1'] }) });
  try {
    for (const [url, extra] of [
      [`${s.url}?api_key=k1`, {}],
      [s.url, { 'x-api-key': 'k1' }],
      [s.url, { authorization: 'Bearer k1' }],
    ] as const) {
      const { headers } = await open(url, LATEST, extra);
      const r = await post(url, call('echo', { text: 'authed' }), headers);
      assert.equal(r.status, 200);
      assert.equal(((await r.json()) as { result: { content: Array<{ text: string }> } }).result.content[0].text, 'authed');
    }
    for (const [url, extra] of [
      [s.url, {}],
      [`${s.url}?api_key=nope`, {}],
      [s.url, { 'x-api-key': 'k2' }],
      [s.url, { authorization: 'Bearer k11' }],
      [s.url, { authorization: 'Basic azE6' }],
    ] as const) {
      const r = await post(url, initReq(), extra);
      const err = await jsonError(r, 401);
      assert.match(err.message, /Unauthorized/);
      assert.match(r.headers.get('www-authenticate') ?? '', /Bearer/);
    }
    await jsonError(await fetch(`${s.base}/sse`, { headers: { accept: 'text/event-stream' } }), 401);
    assert.equal(s.running.handler.streamable.sessionCount, 3);
  } finally {
    await s.running.close();
  }
});

test('a session opened with key A does not exist for key B', async () => {
  const s = await start({ authenticate: apiKeyGuard({ keys: ['ka', 'kb'] }) });
  try {
    const a = await open(s.url, LATEST, { 'x-api-key': 'ka' });
    const asB = { ...a.headers, 'x-api-key': 'kb' };
    await jsonError(await post(s.url, call('echo', { text: 'x' }), asB), 404);
    await jsonError(await fetch(s.url, { headers: { ...asB, accept: 'text/event-stream' } }), 404);
    await jsonError(await fetch(s.url, { method: 'DELETE', headers: asB }), 404);
    // Still alive for its owner.
    const r = await post(s.url, call('echo', { text: 'mine' }), a.headers);
    assert.equal(r.status, 200);
    await r.text();
  } finally {
    await s.running.close();
  }
});

test('a custom authenticate hook sees the request and its principal reaches the handler', async () => {
  const s = await start({
    authenticate: (req) => (req.header('x-user') ? { principal: `user:${req.header('x-user')}` } : undefined),
  });
  s.mcp.tool('whoami', (_a, ctx) => ctx.authInfo?.principal ?? 'nobody');
  try {
    const { headers } = await open(s.url, LATEST, { 'x-user': 'ada' });
    const r = await post(s.url, call('whoami'), headers);
    assert.equal(((await r.json()) as { result: { content: Array<{ text: string }> } }).result.content[0].text, 'user:ada');
  } finally {
    await s.running.close();
  }
});
