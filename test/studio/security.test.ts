// The studio's gate, attacked over raw HTTP: no token, a wrong token, a foreign Host (DNS
// rebinding), a foreign or missing Origin, a request from another site, the cookie without the API
// key and the key without the cookie; and the one thing that must never happen: a request makes
// the studio start a command the user did not name, without the user confirming it in the page.
// Each spawn attempt names a command that would write a marker file: the file is the proof.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { RunningStudio } from '../../src/studio/http.js';
import { tempDir, waitFor } from '../support/index.js';
import { apiCall, raw, signIn, spawnProbe, startTestStudio, type Session } from './helpers.js';

describe('studio gate', () => {
  let studio: RunningStudio;
  let s: Session;
  const dir = tempDir('studio-sec');
  before(async () => {
    studio = await startTestStudio({
      servers: [
        {
          name: 'remote',
          origin: 'command-line',
          target: { kind: 'http', url: 'http://127.0.0.1:9/mcp', headers: { Authorization: 'Bearer SECRET-VALUE' }, label: 'x' },
        },
      ],
    });
    s = await signIn(studio);
  });
  after(() => studio.close());

  test('binds loopback, and the printed address carries a token of at least 128 bits', () => {
    const u = new URL(studio.url);
    assert.equal(u.hostname, '127.0.0.1');
    const token = u.searchParams.get('token') ?? '';
    assert.ok(Buffer.from(token, 'base64url').length >= 16, `token too short: ${token}`);
  });

  test('without the token: the page, the assets, the API and the stream are refused', async () => {
    for (const path of ['/', '/assets/studio.js', '/assets/studio.css', '/api/state', '/api/events']) {
      const r = await raw(`${studio.origin}${path}`);
      assert.equal(r.status, 401, path);
      assert.doesNotMatch(r.body, /mcpkit-studio-key/, path);
    }
    const wrong = await raw(`${studio.origin}/?token=${'A'.repeat(43)}`);
    assert.equal(wrong.status, 401);
    assert.equal(wrong.headers['set-cookie'], undefined);
  });

  test('the token sets an HttpOnly, SameSite=Strict cookie named for this port, and leaves the URL', async () => {
    const r = await raw(studio.url);
    assert.equal(r.status, 303);
    assert.equal(r.headers.location, '/');
    const cookie = String(r.headers['set-cookie']);
    assert.match(cookie, new RegExp(`^mcpkit-studio-${studio.port}=`));
    assert.match(cookie, /HttpOnly/);
    assert.match(cookie, /SameSite=Strict/);
  });

  test('every answer carries a strict CSP, nosniff, no-referrer and no framing', async () => {
    for (const r of [
      await raw(`${studio.origin}/`, { headers: { Cookie: s.cookie } }),
      await raw(`${studio.origin}/api/state`),
      await apiCall(s, '/api/state'),
    ]) {
      const csp = String(r.headers['content-security-policy']);
      assert.match(csp, /default-src 'none'/);
      assert.match(csp, /script-src 'self'(;|$)/);
      assert.match(csp, /frame-ancestors 'none'/);
      assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|https?:|\*/);
      assert.equal(r.headers['x-content-type-options'], 'nosniff');
      assert.equal(r.headers['referrer-policy'], 'no-referrer');
      assert.equal(r.headers['x-frame-options'], 'DENY');
    }
  });

  test('a foreign Host (DNS rebinding) is refused, even with the cookie and the key', async () => {
    for (const host of [`evil.example:${studio.port}`, `127.0.0.1:${studio.port + 1}`, 'localhost', `127.0.0.2:${studio.port}`]) {
      const r = await apiCall(s, '/api/state', undefined, { Host: host });
      assert.equal(r.status, 403, host);
      const page = await raw(`${studio.origin}/`, { headers: { Host: host, Cookie: s.cookie } });
      assert.equal(page.status, 403, host);
      assert.doesNotMatch(page.body, /mcpkit-studio-key/);
    }
    // Its other loopback names are its own.
    assert.equal((await apiCall(s, '/api/state', undefined, { Host: `localhost:${studio.port}`, Origin: `http://localhost:${studio.port}` })).status, 200);
  });

  test('the API wants the cookie AND the key', async () => {
    assert.equal((await apiCall(s, '/api/state')).status, 200);
    assert.equal((await apiCall(s, '/api/state', undefined, { 'X-Mcpkit-Studio-Key': undefined })).status, 401);
    assert.equal((await apiCall(s, '/api/state', undefined, { Cookie: undefined })).status, 401);
    assert.equal((await apiCall(s, '/api/state', undefined, { 'X-Mcpkit-Studio-Key': s.key.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')) })).status, 401);
    // The token itself is not the key.
    const token = new URL(studio.url).searchParams.get('token')!;
    assert.equal((await apiCall(s, '/api/state', undefined, { 'X-Mcpkit-Studio-Key': token })).status, 401);
    assert.equal((await apiCall(s, '/api/events', undefined, { 'X-Mcpkit-Studio-Key': undefined })).status, 401);
  });

  test('header values of targets never reach the page', async () => {
    const r = await apiCall(s, '/api/state');
    assert.equal(r.status, 200);
    assert.match(r.body, /Authorization/);
    assert.doesNotMatch(r.body, /SECRET-VALUE/);
  });

  test('a page cannot make the studio start a command: foreign Origin, no Origin, another site, no token', async () => {
    const marker = join(dir, 'by-foreign-request');
    const body = { target: spawnProbe(marker) };
    const attempts: Array<[string, Record<string, string | undefined>]> = [
      ['foreign Origin', { Origin: 'http://evil.example' }],
      ['another port of this host', { Origin: `http://127.0.0.1:${studio.port + 1}` }],
      ['no Origin', { Origin: undefined }],
      ['cross-site fetch metadata', { 'Sec-Fetch-Site': 'cross-site' }],
      ['same-site fetch metadata', { 'Sec-Fetch-Site': 'same-site' }],
      ['no key', { 'X-Mcpkit-Studio-Key': undefined }],
      ['no cookie', { Cookie: undefined }],
      ['a form post', { 'Content-Type': 'text/plain' }],
    ];
    for (const [what, headers] of attempts) {
      const r = await apiCall(s, '/api/targets', body, headers);
      assert.ok(r.status >= 400, `${what}: answered ${r.status} ${r.body}`);
    }
    const state = JSON.parse((await apiCall(s, '/api/state')).body);
    assert.deepEqual(state.pendingTargets, []);
    assert.deepEqual(
      state.servers.map((x: { name: string }) => x.name),
      ['remote'],
    );
    assert.equal(existsSync(marker), false, 'a command ran');
  });

  test('a request from the page itself starts nothing until confirmed with its nonce, once', async () => {
    const marker = join(dir, 'confirmed');
    const asked = await apiCall(s, '/api/targets', { target: spawnProbe(marker), name: 'probe' });
    assert.equal(asked.status, 200, asked.body);
    const pending = JSON.parse(asked.body);
    assert.equal(pending.target.kind, 'stdio');
    assert.match(pending.target.text, /writeFileSync/);
    assert.equal(studio.hub.has('probe'), false);
    // A confirmation must carry the nonce of the request shown; a guess, or another request's, is refused.
    for (const nonce of [undefined, '', 'x'.repeat(43), pending.id]) {
      const r = await apiCall(s, `/api/targets/${pending.id}/confirm`, { nonce });
      assert.equal(r.status, 403, `nonce ${nonce}`);
    }
    // And with the right nonce but a foreign Origin, refused too.
    assert.equal((await apiCall(s, `/api/targets/${pending.id}/confirm`, { nonce: pending.nonce }, { Origin: 'http://evil.example' })).status, 403);
    assert.equal(existsSync(marker), false, 'the command ran before it was confirmed');
    const ok = await apiCall(s, `/api/targets/${pending.id}/confirm`, { nonce: pending.nonce });
    assert.equal(ok.status, 200, ok.body);
    await waitFor(() => existsSync(marker), 'the confirmed command to run');
    // Used once.
    assert.equal((await apiCall(s, `/api/targets/${pending.id}/confirm`, { nonce: pending.nonce })).status, 404);
  });

  test('a rejected request is gone', async () => {
    const marker = join(dir, 'rejected');
    const p = JSON.parse((await apiCall(s, '/api/targets', { target: spawnProbe(marker) })).body);
    assert.equal((await apiCall(s, `/api/targets/${p.id}/reject`, {})).status, 200);
    assert.equal((await apiCall(s, `/api/targets/${p.id}/confirm`, { nonce: p.nonce })).status, 404);
    assert.equal(existsSync(marker), false);
  });

  test('bad requests get a clear 4xx, never a crash', async () => {
    const cases: Array<[string, unknown, number]> = [
      ['/api/targets', { target: '' }, 400],
      ['/api/targets', { target: 'gopher://x' }, 400],
      ['/api/servers/nope/call', { name: 'x' }, 404],
      ['/api/servers/remote/call', { name: 'x' }, 409],
      ['/api/roots', { roots: [{ uri: 'http://x' }] }, 400],
      ['/api/inputs/nope', { result: {} }, 404],
      ['/api/nope', {}, 404],
    ];
    for (const [path, body, status] of cases) {
      const r = await apiCall(s, path, body);
      assert.equal(r.status, status, `${path}: ${r.body}`);
      assert.ok(JSON.parse(r.body).error.message.length > 0);
    }
    const notJson = await raw(`${s.origin}/api/roots`, {
      method: 'POST',
      headers: { Cookie: s.cookie, 'X-Mcpkit-Studio-Key': s.key, Origin: s.origin, 'Content-Type': 'application/json' },
      body: '{"roots": [',
    });
    assert.equal(notJson.status, 400);
  });
});

describe('studio started with --no-add', () => {
  test('the page cannot even ask to add a server', async () => {
    const studio = await startTestStudio({ canAdd: false });
    try {
      const s = await signIn(studio);
      const marker = join(tempDir('studio-noadd'), 'm');
      const r = await apiCall(s, '/api/targets', { target: spawnProbe(marker) });
      assert.equal(r.status, 403);
      assert.equal(JSON.parse((await apiCall(s, '/api/state')).body).canAdd, false);
    } finally {
      await studio.close();
    }
  });
});
