// The studio attacked from a real browser (headless Chromium) whose user has the studio open and
// signed in: a page of another origin on the same machine (same site for cookies: a SameSite
// cookie alone would not stop it) tries every way a page has to make the studio start a command
// (fetch without CORS, fetch with CORS and the headers, a form post, an event stream) and to read
// what it holds; a DNS-rebinding page (a hostile name resolved to 127.0.0.1) tries the same from
// the studio's own port. The command, if it ever ran, would leave a marker file.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import type { RunningStudio } from '../../src/studio/http.js';
import { deferred, tempDir } from '../support/index.js';
import { launchChromium, spawnProbe, startTestStudio } from './helpers.js';

function attackPage(studioOrigin: string, command: string): string {
  return `<!doctype html><meta charset="utf-8"><title>a page you visit</title>
<iframe name="sink" title="sink"></iframe>
<script>
const studio = ${JSON.stringify(studioOrigin)};
const body = JSON.stringify({ target: ${JSON.stringify(command)} });
const out = {};
async function attempt(name, fn) {
  try { out[name] = await fn(); } catch (e) { out[name] = 'threw: ' + e.name; }
}
(async () => {
  await attempt('no-cors text/plain', async () => (await fetch(studio + '/api/targets', { method: 'POST', mode: 'no-cors', credentials: 'include', headers: { 'Content-Type': 'text/plain' }, body })).type);
  await attempt('cors json with key header', async () => (await fetch(studio + '/api/targets', { method: 'POST', credentials: 'include', headers: { 'Content-Type': 'application/json', 'X-Mcpkit-Studio-Key': 'guess' }, body })).status);
  await attempt('read state', async () => (await (await fetch(studio + '/api/state', { credentials: 'include' })).text()).slice(0, 40));
  await attempt('read page', async () => (await (await fetch(studio + '/', { credentials: 'include' })).text()).slice(0, 40));
  await attempt('event stream', () => new Promise((resolve) => { const es = new EventSource(studio + '/api/events', { withCredentials: true }); es.onopen = () => resolve('open'); es.onerror = () => { es.close(); resolve('error'); }; }));
  await attempt('form post', () => new Promise((resolve) => {
    const f = document.createElement('form');
    f.method = 'POST'; f.action = studio + '/api/targets'; f.target = 'sink'; f.enctype = 'text/plain';
    const i = document.createElement('input'); i.name = '{"target":' + JSON.stringify(${JSON.stringify(command)}) + ',"x":"'; i.value = '"}';
    f.appendChild(i); document.body.appendChild(f);
    document.querySelector('iframe').onload = () => resolve('submitted');
    f.submit();
  }));
  await fetch('/report', { method: 'POST', body: JSON.stringify(out) });
})();
</script>`;
}

describe('studio attacked from a browser', () => {
  let studio: RunningStudio;
  let browser: Browser;
  let evil: Server;
  let evilOrigin: string;
  const report = deferred<Record<string, unknown>>();
  const marker = join(tempDir('studio-attack'), 'spawned');

  before(async () => {
    studio = await startTestStudio();
    evil = createServer((req, res) => {
      if (req.url === '/report') {
        let b = '';
        req.on('data', (c) => (b += c));
        req.on('end', () => {
          report.resolve(JSON.parse(b));
          res.end();
        });
        return;
      }
      res.writeHead(200, { 'Content-Type': 'text/html' });
      if (req.url !== '/') return void res.end('<!doctype html><title>another page</title>');
      res.end(attackPage(studio.origin, spawnProbe(marker)));
    });
    await new Promise<void>((r) => evil.listen(0, '127.0.0.1', r));
    evilOrigin = `http://127.0.0.1:${(evil.address() as AddressInfo).port}`;
    browser = await launchChromium([`--host-resolver-rules=MAP evil.test 127.0.0.1`]);
  });
  after(async () => {
    await browser?.close();
    evil?.close();
    await studio?.close();
  });

  test('a page of another origin, with the studio signed in, can neither start a command nor read anything', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    // The user has the studio open: its cookie is in the browser.
    await page.goto(studio.url);
    await page.waitForSelector('.topbar');
    const cookies = await context.cookies(studio.origin);
    assert.equal(cookies.length, 1);
    // Then visits another page.
    const other = await context.newPage();
    await other.goto(`${evilOrigin}/`);
    const out = await report.promise;
    assert.equal(out['cors json with key header'], 'threw: TypeError', 'a CORS request got through');
    assert.equal(out['read state'], 'threw: TypeError', 'the state was readable');
    assert.equal(out['read page'], 'threw: TypeError', 'the page (and its key) was readable');
    assert.equal(out['event stream'], 'error');
    const state = studio.hub.state();
    assert.deepEqual(state.pendingTargets, [], 'a request to add a server was accepted');
    assert.deepEqual(state.servers, []);
    assert.equal(existsSync(marker), false, 'the command ran');
    await context.close();
  });

  test('a DNS-rebinding page on the studio port gets nothing', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(studio.url);
    await page.waitForSelector('.topbar');
    const rebound = await context.newPage();
    const res = await rebound.goto(`http://evil.test:${studio.port}/`);
    assert.equal(res?.status(), 403);
    const tries = await rebound.evaluate(async (cmd) => {
      const r1 = await fetch('/api/state');
      const r2 = await fetch('/api/targets', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ target: cmd }) });
      const r3 = await fetch('/assets/studio.js');
      return [r1.status, r2.status, r3.status];
    }, spawnProbe(marker));
    assert.deepEqual(tries, [403, 403, 403]);
    assert.deepEqual(studio.hub.state().pendingTargets, []);
    assert.equal(existsSync(marker), false);
    await context.close();
  });

  test('the studio page cannot be framed by another page', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(studio.url);
    await page.waitForSelector('.topbar');
    const other = await context.newPage();
    await other.goto(`${evilOrigin}/frame-test`);
    const framed = deferred<string>();
    other.on('console', (m) => {
      if (/frame-ancestors|X-Frame-Options|refused to display|Refused to frame/i.test(m.text())) framed.resolve(m.text());
    });
    await other.evaluate((origin) => {
      const f = document.createElement('iframe');
      f.src = `${origin}/`;
      document.body.appendChild(f);
    }, studio.origin);
    // Chromium says why it refused on the console.
    assert.match(await framed.promise, /frame/i);
    const frame = other.frames().find((f) => f.url().startsWith(studio.origin));
    const hasApp = frame
      ? await frame
          .$('.topbar')
          .then((e) => e !== null)
          .catch(() => false)
      : false;
    assert.equal(hasApp, false);
    await context.close();
  });
});
