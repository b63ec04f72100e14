// MCP App views over raw HTTP, attacked: the view's document is served once, to the signed-in
// browser, as a frame of the studio's page, with a policy built from what the resource declared
// and nothing else (a declared "origin" that smuggles a directive is dropped). The policy itself,
// from the function that builds it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { serve, type RunningServer } from '../../src/serving/node.js';
import { viewAllow, viewCsp } from '../../src/studio/apps.js';
import type { RunningStudio } from '../../src/studio/http.js';
import { resolveTarget } from '../../src/pool/targets.js';
import { PROBE_URI, studioAppsServer, WEATHER_URI } from '../fixtures/studio-apps-server.js';
import { apiCall, raw, signIn, startTestStudio, type Session } from './helpers.js';

test("viewCsp: the spec default when nothing is declared, without the studio's own origin", () => {
  const { policy, ignored } = viewCsp({}, 'http://127.0.0.1:4000');
  assert.deepEqual(ignored, []);
  assert.equal(
    policy,
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data: blob:; font-src data:; media-src data: blob:; connect-src 'none'; frame-src 'none'; base-uri 'none'; object-src 'none'; form-action 'none'; frame-ancestors http://127.0.0.1:4000",
  );
  assert.doesNotMatch(policy, /'self'/);
});

test('viewCsp: declared origins go where the spec says; anything else is left out, never pasted in', () => {
  const { policy, ignored } = viewCsp(
    {
      csp: {
        connectDomains: ['https://api.example.com', 'wss://live.example.com', 'https://x.example; script-src *', "'unsafe-eval'", '*'],
        resourceDomains: ['https://*.cdn.example:8443/assets/', 'javascript:alert(1)', 'https://a.example b.example'],
        frameDomains: ['https://www.youtube.com'],
        baseUriDomains: ['data:'],
      },
    },
    'http://127.0.0.1:4000',
  );
  assert.match(policy, /; connect-src https:\/\/api\.example\.com wss:\/\/live\.example\.com;/);
  assert.match(policy, /script-src 'unsafe-inline' https:\/\/\*\.cdn\.example:8443\/assets\/;/);
  assert.match(policy, /img-src data: blob: https:\/\/\*\.cdn\.example:8443\/assets\/;/);
  assert.match(policy, /frame-src https:\/\/www\.youtube\.com;/);
  assert.match(policy, /base-uri 'none';/);
  // Exactly the directives written here, each once.
  const names = policy.split('; ').map((d) => d.split(' ')[0]);
  assert.deepEqual(names, [...new Set(names)]);
  assert.equal(names.length, 12);
  assert.doesNotMatch(policy, /unsafe-eval|javascript:|script-src \*|b\.example/);
  assert.equal(ignored.length, 6, ignored.join('\n'));
});

test('viewAllow: the permissions asked for, as a Permission Policy', () => {
  assert.equal(viewAllow({ permissions: { camera: {}, geolocation: {}, clipboardWrite: {} } }), 'camera; geolocation; clipboard-write');
  assert.equal(viewAllow({}), '');
});

describe('the view document route', () => {
  let apps: RunningServer;
  let studio: RunningStudio;
  let s: Session;
  before(async () => {
    apps = await serve(studioAppsServer(), { port: 0 });
    studio = await startTestStudio({ servers: [{ name: 'apps', origin: 'command-line', target: resolveTarget(apps.url, { cwd: process.cwd() }) }] });
    await studio.ready;
    s = await signIn(studio);
  });
  after(async () => {
    await studio.close();
    await apps.close();
  });

  async function open(uri: string): Promise<{ id: string; csp: string }> {
    const r = await apiCall(s, '/api/servers/apps/apps/open', { uri });
    assert.equal(r.status, 200, r.body);
    const out = JSON.parse(r.body) as { result: { id: string; csp: string } };
    assert.ok(out.result, r.body);
    return out.result;
  }
  const frameHeaders = (extra: Record<string, string> = {}) => ({
    Host: s.host,
    Cookie: s.cookie,
    'Sec-Fetch-Dest': 'iframe',
    'Sec-Fetch-Site': 'same-origin',
    ...extra,
  });

  test('served once, as a frame, to the signed-in browser, with its own policy', async () => {
    const view = await open(WEATHER_URI);
    const r = await raw(`${studio.origin}/apps/view/${view.id}`, { headers: frameHeaders() });
    assert.equal(r.status, 200);
    assert.match(r.body, /<title>Weather view<\/title>/);
    assert.equal(r.headers['content-security-policy'], view.csp);
    assert.match(view.csp, new RegExp(`frame-ancestors http://${s.host.replace(/\./g, '\\.')}$`));
    assert.equal(r.headers['x-frame-options'], undefined);
    assert.equal(r.headers['x-content-type-options'], 'nosniff');
    const again = await raw(`${studio.origin}/apps/view/${view.id}`, { headers: frameHeaders() });
    assert.equal(again.status, 404, 'a view document was served twice');
  });

  test('attack: without the cookie, as a top-level page, from another site, or a made-up id', async () => {
    const view = await open(PROBE_URI);
    const url = `${studio.origin}/apps/view/${view.id}`;
    const { Cookie: _c, ...noCookie } = frameHeaders();
    assert.equal((await raw(url, { headers: noCookie })).status, 401);
    assert.equal((await raw(url, { headers: frameHeaders({ 'Sec-Fetch-Dest': 'document' }) })).status, 403);
    assert.equal((await raw(url, { headers: frameHeaders({ 'Sec-Fetch-Site': 'cross-site' }) })).status, 403);
    assert.equal((await raw(url, { headers: frameHeaders({ Host: `evil.example:${studio.port}` }) })).status, 403);
    assert.equal((await raw(url, { method: 'POST', headers: frameHeaders() })).status, 405);
    assert.equal((await raw(`${studio.origin}/apps/view/${'A'.repeat(32)}`, { headers: frameHeaders() })).status, 404);
    // None of those used it up: the real frame still gets it, once.
    const r = await raw(url, { headers: frameHeaders() });
    assert.equal(r.status, 200);
    assert.match(String(r.headers['content-security-policy']), /connect-src http:\/\/127\.0\.0\.1:\*;/);
    assert.doesNotMatch(String(r.headers['content-security-policy']), /script-src \*/);
  });

  test("the studio's own page may frame its views (frame-src 'self'), and nothing else", async () => {
    const page = await raw(`${studio.origin}/`, { headers: { Host: s.host, Cookie: s.cookie } });
    const csp = String(page.headers['content-security-policy']);
    assert.match(csp, /frame-src 'self'/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.equal(page.headers['x-frame-options'], 'DENY');
  });

  test('a resource that is not an MCP App is refused with the reason, and nothing is kept', async () => {
    const r = await apiCall(s, '/api/servers/apps/apps/open', { uri: 'ui://studio/none.html' });
    assert.equal(r.status, 200);
    assert.match(JSON.parse(r.body).error.message, /none\.html/);
  });
});
