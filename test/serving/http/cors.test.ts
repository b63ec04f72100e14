// CORS on the MCP endpoint: a page from an allowed origin gets its preflight answered before any
// authentication, and may read the responses (the session id, a 401's challenge); a page from
// another origin gets no CORS header at all, and the 403 it always got.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { apiKeyGuard } from '../../../src/serving/http/security.js';
import { BOTH, initReq, start } from './helpers.js';

const PAGE = 'http://127.0.0.1:5173';

test('an allowed origin: preflight without credentials, readable session id and challenge', async () => {
  const s = await start({ allowedOrigins: [PAGE], authenticate: apiKeyGuard({ keys: ['k'] }) });
  try {
    const pre = await fetch(s.url, {
      method: 'OPTIONS',
      headers: {
        origin: PAGE,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type, mcp-protocol-version, mcp-param-city',
      },
    });
    assert.equal(pre.status, 204);
    assert.equal(pre.headers.get('access-control-allow-origin'), PAGE);
    assert.equal(pre.headers.get('access-control-allow-methods'), 'GET, POST, DELETE');
    assert.equal(pre.headers.get('access-control-allow-headers'), 'content-type, mcp-protocol-version, mcp-param-city');

    const refused = await fetch(s.url, { method: 'POST', headers: { ...BOTH, origin: PAGE }, body: JSON.stringify(initReq()) });
    assert.equal(refused.status, 401);
    assert.equal(refused.headers.get('access-control-allow-origin'), PAGE);
    assert.match(refused.headers.get('access-control-expose-headers') ?? '', /www-authenticate/);

    const ok = await fetch(s.url, { method: 'POST', headers: { ...BOTH, origin: PAGE, 'x-api-key': 'k' }, body: JSON.stringify(initReq()) });
    assert.equal(ok.status, 200);
    assert.equal(ok.headers.get('access-control-allow-origin'), PAGE);
    assert.match(ok.headers.get('access-control-expose-headers') ?? '', /mcp-session-id/);
    assert.ok(ok.headers.get('mcp-session-id'));
  } finally {
    await s.running.close();
  }
});

test('another origin: no CORS headers, 403 for the preflight and the request', async () => {
  const s = await start({ allowedOrigins: [PAGE] });
  try {
    const pre = await fetch(s.url, { method: 'OPTIONS', headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } });
    assert.equal(pre.status, 403);
    assert.equal(pre.headers.get('access-control-allow-origin'), null);
    const post = await fetch(s.url, { method: 'POST', headers: { ...BOTH, origin: 'https://evil.example' }, body: JSON.stringify(initReq()) });
    assert.equal(post.status, 403);
    assert.equal(post.headers.get('access-control-allow-origin'), null);
  } finally {
    await s.running.close();
  }
});
