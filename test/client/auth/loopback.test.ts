// loopbackAuthorization(): the 127.0.0.1 redirect listener for CLIs and desktop apps (RFC 8252),
// driven here the way a browser would: the authorization URL, then the redirect to the listener.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loopbackAuthorization } from '../../../src/client/auth/loopback.js';
import { OAuthClientAuth } from '../../../src/client/auth/oauth.js';
import { OAuthFlowError } from '../../../src/client/auth/errors.js';
import type { AuthorizationRequest } from '../../../src/client/auth/options.js';
import { authorizations, rpc, setup } from './fixture.js';
import { flush, ManualClock, within } from '../../support/index.js';

const request = (state: string): AuthorizationRequest => ({
  url: new URL(`https://as.example.com/authorize?state=${state}`),
  redirectUri: '',
  state,
  issuer: 'https://as.example.com',
});

async function get(url: string): Promise<{ status: number; body: string }> {
  const r = await fetch(url);
  return { status: r.status, body: await r.text() };
}

test('a full sign-in through the loopback listener: a wrong state gets 400 and the listener keeps waiting', async () => {
  const s = await setup();
  const seen: Array<{ status: number; body: string }> = [];
  let browsing: Promise<void> | undefined;
  const lb = await loopbackAuthorization({
    open: (url) => {
      // The "browser": the AS redirects to the listener; a stray forged hit arrives first.
      browsing = (async () => {
        const r = await fetch(url, { redirect: 'manual' });
        await r.body?.cancel();
        const back = new URL(r.headers.get('location')!);
        const forged = new URL(back);
        forged.searchParams.set('state', 'forged');
        seen.push(await get(forged.href));
        seen.push(await get(back.href));
      })();
    },
  });
  try {
    assert.match(lb.redirectUri, /^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    const auth = new OAuthClientAuth(s.rs.url, { authorize: lb.authorize, redirectUri: lb.redirectUri });
    const res = await rpc(auth.fetch, s.rs.url, 'tools/list');
    await res.body?.cancel();
    await browsing;
    assert.equal(res.status, 200);
    assert.equal(seen[0]!.status, 400);
    assert.match(seen[0]!.body, /Unexpected sign-in response/);
    assert.equal(seen[1]!.status, 200);
    assert.match(seen[1]!.body, /Signed in/);
    assert.equal(authorizations(s.as)[0]!.query.get('redirect_uri'), lb.redirectUri);
    const reg = s.as.requests.find((r) => r.path === '/register')!;
    assert.deepEqual(reg.json!['redirect_uris'], [lb.redirectUri]);
    assert.equal(reg.json!['application_type'], 'native');
  } finally {
    await lb.close();
    await s.close();
  }
});

test('the callback URL resolved is the listener URL with the query, port included', async () => {
  const lb = await loopbackAuthorization({ path: '/cb', open: () => void setTimeout(() => void get(`${lb.redirectUri}?code=abc&state=s1`), 5) });
  try {
    assert.match(lb.redirectUri, /\/cb$/);
    assert.equal(await lb.authorize(request('s1')), `${lb.redirectUri}?code=abc&state=s1`);
  } finally {
    await lb.close();
  }
});

test('other paths get 404, and a callback with no sign-in waiting gets 400', async () => {
  const lb = await loopbackAuthorization({ open: () => {} });
  try {
    assert.equal((await get(lb.redirectUri.replace('/callback', '/other'))).status, 404);
    assert.equal((await get(`${lb.redirectUri}?code=x&state=y`)).status, 400);
    const post = await fetch(lb.redirectUri, { method: 'POST' });
    await post.body?.cancel();
    assert.equal(post.status, 404);
  } finally {
    await lb.close();
  }
});

test('an error answer with the right state ends the wait; the grant then reports the error', async () => {
  const lb = await loopbackAuthorization({
    open: () => void setTimeout(async () => assert.match((await get(`${lb.redirectUri}?error=access_denied&state=s2`)).body, /Sign-in failed/), 5),
  });
  try {
    const url = new URL(await lb.authorize(request('s2')));
    assert.equal(url.searchParams.get('error'), 'access_denied');
  } finally {
    await lb.close();
  }
});

test('one sign-in at a time; a timed-out one frees the listener', async () => {
  // The timeout runs on a ManualClock, and the browser answers when the page is opened: no race
  // between a short timeout and a sleep (it lost at load 40).
  const clock = new ManualClock();
  let onOpen = () => {};
  const lb = await loopbackAuthorization({ open: () => onOpen(), timeoutMs: 100, clock });
  try {
    const first = lb.authorize(request('a'));
    await assert.rejects(lb.authorize(request('b')), /already waiting/);
    clock.advance(100);
    await assert.rejects(first, (err: Error) => err instanceof OAuthFlowError && /no sign-in response/.test(err.message));
    onOpen = () => void get(`${lb.redirectUri}?code=ok&state=c`);
    assert.match(await lb.authorize(request('c')), /code=ok/);
  } finally {
    await lb.close();
  }
});

test('an open() that fails frees the listener at once and leaves no rejection behind', async () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (e: unknown) => unhandled.push(e);
  process.on('unhandledRejection', onUnhandled);
  let fail = true;
  const clock = new ManualClock();
  const lb = await loopbackAuthorization({
    timeoutMs: 50,
    clock,
    open: () => {
      if (fail) throw new Error('no browser');
    },
  });
  try {
    await assert.rejects(lb.authorize(request('a')), /no browser/);
    assert.equal(clock.pending, 0, "the failed attempt's timer is cleared");
    fail = false;
    const next = lb.authorize(request('b'));
    void get(`${lb.redirectUri}?code=ok&state=b`);
    assert.match(await next, /code=ok/, 'not refused as "already waiting"');
    // Past every timeout: the failed attempt's timer must not fire a rejection nobody handles
    // (unhandled rejections are reported once the microtasks drain, which flush() lets happen).
    clock.advance(1000);
    await flush();
    assert.deepEqual(unhandled, []);
  } finally {
    process.off('unhandledRejection', onUnhandled);
    await lb.close();
  }
});

test('close() while a sign-in waits fails it at once', async () => {
  // The clock stands still: only close() can end the 5-minute wait.
  const lb = await loopbackAuthorization({ open: () => {}, clock: new ManualClock() });
  const waiting = lb.authorize(request('a'));
  await lb.close();
  await assert.rejects(within(waiting, 'the waiting sign-in to fail'), (err: Error) => err instanceof OAuthFlowError && /closed/.test(err.message));
});

test('a fixed port is used when given', async () => {
  const probe = await loopbackAuthorization({ open: () => {} });
  const port = Number(new URL(probe.redirectUri).port);
  await probe.close();
  const lb = await loopbackAuthorization({ port, open: () => {} });
  try {
    assert.equal(lb.redirectUri, `http://127.0.0.1:${port}/callback`);
  } finally {
    await lb.close();
  }
});
