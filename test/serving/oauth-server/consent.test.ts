// Proxy mode's consent step and the state cookie, written as the attacks they stop (the MCP
// security best practices, "Confused Deputy Problem"), over real HTTP, with an upstream provider
// that, like GitHub or Google for a returning user, signs the user in again without a page:
//   - a client that registered itself with an attacker's redirect URI, sent to the victim as a
//     link, must not get a code without the victim seeing this server's consent page and allowing;
//   - Deny sends the client access_denied;
//   - a callback whose state this browser did not start (login CSRF) is refused;
//   - an Allow is remembered for that browser, user, client and redirect URI only;
//   - the consent form's CSRF token and browser binding are checked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { oidcUpstream } from '../../../src/serving/oauth-server/upstream.js';
import { createAuthorizationServer } from '../../../src/serving/oauth-server/server.js';
import type { AuthorizationServerOptions } from '../../../src/serving/oauth-server/options.js';
import { Browser, consentForm, startIdp, type Hop } from './browser.js';
import { authorizeUrl, pkce, REDIRECT, register, startAs, token } from './helpers.js';

const ATTACKER = 'https://attacker.example/cb';
const FIRST_PARTY = { client_id: 'app', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' as const };

async function setup(options: Partial<AuthorizationServerOptions> = {}) {
  const idp = await startIdp();
  const as = await startAs({
    login: undefined,
    upstream: oidcUpstream({ issuer: idp.origin, clientId: 'our-client', clientSecret: 'upstream-secret' }),
    clients: [FIRST_PARTY],
    ...options,
  });
  const registerClient = async (redirect: string, name = 'Totally <b>Legit</b> App') => {
    const r = await register(as.issuer, { redirect_uris: [redirect], token_endpoint_auth_method: 'none', client_name: name });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    return r.body.client_id as string;
  };
  return {
    idp,
    as,
    registerClient,
    /** The link the attacker sends: an authorization request for its client, with its own PKCE pair. */
    link: (clientId: string, redirect = ATTACKER, extra: { scope?: string } = {}) =>
      authorizeUrl(as.issuer, { client_id: clientId, redirect_uri: redirect, challenge: pkce().challenge, method: 'S256', state: 'attacker-state', ...extra }),
    async close() {
      await as.close();
      await idp.close();
    },
  };
}

function cookieLine(hop: Hop, prefix: string): string {
  const line = hop.headers.getSetCookie().find((c) => c.startsWith(prefix));
  assert.ok(line, `no ${prefix} cookie in ${JSON.stringify(hop.headers.getSetCookie())}`);
  return line;
}

test('(a) a dynamically registered client with an attacker redirect URI gets no code until the user sees the consent page and allows', async () => {
  const s = await setup();
  try {
    const evil = await s.registerClient(ATTACKER);
    const victim = new Browser();
    // The victim clicks the attacker's link; the provider would sign them in without a page.
    const visit = await victim.follow(s.link(evil), [ATTACKER]);
    assert.equal(visit.stopped, undefined, `the browser was sent to the attacker: ${visit.stopped?.href}`);
    assert.equal(s.idp.authorizations.length, 0, 'nothing went upstream before consent');
    const page = visit.last;
    assert.equal(page.status, 200);
    // The page names the client and where the code would go, with what the client chose escaped.
    assert.match(page.body, new RegExp(evil));
    assert.match(page.body, /attacker\.example/);
    assert.match(page.body, /<code>openid<\/code> <code>email<\/code> <code>profile<\/code>/, 'what is asked of the provider');
    assert.match(page.body, /Totally &#60;b&#62;Legit&#60;\/b&#62; App/);
    assert.doesNotMatch(page.body, /<b>Legit<\/b>/);
    assert.doesNotMatch(page.body, /<script/i);
    const csp = page.headers.get('content-security-policy')!;
    assert.match(csp, /frame-ancestors 'none'/);
    assert.match(csp, /default-src 'none'/);
    assert.equal(page.headers.get('x-frame-options'), 'DENY');
    assert.equal(page.headers.get('cache-control'), 'no-store');
    const browserCookie = cookieLine(page, 'mcpkit-browser=');
    assert.match(browserCookie, /; HttpOnly/);
    assert.match(browserCookie, /; SameSite=Lax/);
    assert.match(browserCookie, /; Path=\//);
    // Only the user's Allow sends them upstream; then the code reaches the client they allowed.
    const allowed = await victim.answer(page, 'allow');
    assert.equal(allowed.status, 302);
    assert.equal(allowed.location!.origin, s.idp.origin);
    const done = await victim.follow(allowed.location!.href, [ATTACKER]);
    const back = done.stopped!.searchParams;
    assert.ok(back.get('code'));
    assert.equal(back.get('state'), 'attacker-state');
    assert.equal(back.get('iss'), s.as.issuer);
  } finally {
    await s.close();
  }
});

test('(b) Deny sends the client access_denied, and nothing goes upstream', async () => {
  const s = await setup();
  try {
    const evil = await s.registerClient(ATTACKER);
    const victim = new Browser();
    const page = (await victim.follow(s.link(evil), [ATTACKER])).last;
    const denied = await victim.answer(page, 'deny');
    assert.equal(denied.status, 302);
    const q = denied.location!;
    assert.equal(`${q.origin}${q.pathname}`, ATTACKER);
    assert.equal(q.searchParams.get('error'), 'access_denied');
    assert.equal(q.searchParams.get('state'), 'attacker-state');
    assert.equal(q.searchParams.get('iss'), s.as.issuer);
    assert.equal(q.searchParams.get('code'), null);
    assert.equal(s.idp.authorizations.length, 0);
    // A Deny is not remembered as an Allow: the next visit shows the page again.
    assert.equal((await victim.follow(s.link(evil), [ATTACKER])).last.status, 200);
  } finally {
    await s.close();
  }
});

test('(c) login CSRF: a callback whose state this browser did not start is refused; the state cookie is HttpOnly, SameSite=Lax', async () => {
  const s = await setup();
  try {
    // The attacker signs in with their own provider account, and stops at the callback.
    const attacker = new Browser();
    const p = pkce();
    const start = authorizeUrl(s.as.issuer, { client_id: 'app', redirect_uri: REDIRECT, challenge: p.challenge, method: 'S256' });
    const first = await attacker.go(start);
    assert.equal(first.location!.origin, s.idp.origin, 'a pre-registered client goes upstream without a page');
    const toCallback = (await attacker.follow(first.location!.href, [`${s.as.issuer}/callback`])).stopped!;
    // ...and makes the victim's browser deliver it.
    const victim = new Browser();
    const forged = await victim.go(toCallback.href);
    assert.equal(forged.status, 400);
    assert.equal(forged.location, undefined, 'no redirect, no code');
    assert.match(forged.body, /not started in this browser/);
    assert.equal(s.idp.tokenRequests.length, 0, 'the attacker’s upstream code was not even exchanged');
    const stateCookie = cookieLine(first, 'mcpkit-state-');
    assert.match(stateCookie, /; HttpOnly/);
    assert.match(stateCookie, /; SameSite=Lax/);
    assert.match(stateCookie, /; Max-Age=600/);
    assert.doesNotMatch(stateCookie, /; Secure/, 'http issuer: no Secure');
    // A browser with another sign-in's state cookie is refused as well.
    const other = new Browser();
    await other.go(start);
    assert.equal((await other.go(toCallback.href)).status, 400);
    // The forgeries did not spend the sign-in: in the browser that started it, it completes.
    const own = await attacker.go(toCallback.href);
    assert.equal(own.status, 302);
    assert.ok(own.location!.href.startsWith(`${REDIRECT}?`));
    assert.ok(own.location!.searchParams.get('code'));
    assert.match(cookieLine(own, 'mcpkit-state-'), /Max-Age=0/, 'the state cookie is cleared');
    const t = await token(s.as.issuer, {
      grant_type: 'authorization_code',
      code: own.location!.searchParams.get('code')!,
      redirect_uri: REDIRECT,
      code_verifier: p.verifier,
      client_id: 'app',
    });
    assert.equal(t.status, 200, JSON.stringify(t.body));
  } finally {
    await s.close();
  }
});

test('(d) an Allow is remembered for this browser, user, client and redirect URI, not for another client, browser, user or more scopes', async () => {
  const s = await setup();
  try {
    const client = await s.registerClient(REDIRECT, 'Notes');
    const v = new Browser();
    const page = (await v.follow(s.link(client, REDIRECT), [REDIRECT])).last;
    const allowed = await v.answer(page, 'allow');
    assert.ok((await v.follow(allowed.location!.href, [REDIRECT])).stopped?.searchParams.get('code'));
    // Same browser, same client: straight upstream, no page.
    const again = await v.follow(s.link(client, REDIRECT), [REDIRECT]);
    assert.ok(again.stopped?.searchParams.get('code'), `expected a code without a page, got ${again.last.status}`);
    assert.equal(again.hops[0]!.origin, s.idp.origin);
    // Another dynamically registered client, even with the same redirect URI: the page again.
    const other = await s.registerClient(REDIRECT, 'Notes');
    const otherVisit = await v.follow(s.link(other, REDIRECT), [REDIRECT]);
    assert.equal(otherVisit.last.status, 200);
    assert.match(otherVisit.last.body, new RegExp(other));
    // Another browser (another user's, or a private window): the page.
    assert.equal((await new Browser().follow(s.link(client, REDIRECT), [REDIRECT])).last.status, 200);
    // More than was allowed: the page.
    assert.equal((await v.follow(s.link(client, REDIRECT, { scope: 'admin' }), [REDIRECT])).last.status, 200);
    // Another person signs in upstream on this browser: asked after sign-in, the page says who.
    s.idp.user = { sub: 'idp-user-99', email: 'bob@example.test' };
    const bob = await v.follow(s.link(client, REDIRECT), [REDIRECT]);
    assert.equal(bob.stopped, undefined, 'no code for bob on ada’s Allow');
    assert.equal(bob.hops[0]!.origin, s.idp.origin, 'the browser’s Allow let the user go upstream');
    assert.match(bob.last.body, /bob@example\.test/);
    const bobAllowed = await v.answer(bob.last, 'allow');
    assert.ok(bobAllowed.location!.href.startsWith(`${REDIRECT}?`));
    assert.ok(bobAllowed.location!.searchParams.get('code'));
    // Now remembered for bob too, and still for ada.
    assert.ok((await v.follow(s.link(client, REDIRECT), [REDIRECT])).stopped?.searchParams.get('code'));
    s.idp.user = { sub: 'idp-user-42', email: 'ada@example.test' };
    assert.ok((await v.follow(s.link(client, REDIRECT), [REDIRECT])).stopped?.searchParams.get('code'));
  } finally {
    await s.close();
  }
});

test('(e) the consent form: a wrong CSRF token, another browser, another site or a second post are refused', async () => {
  const s = await setup();
  try {
    const evil = await s.registerClient(ATTACKER);
    const victim = new Browser();
    const page = (await victim.follow(s.link(evil), [ATTACKER])).last;
    const form = consentForm(page);
    const wrongToken = await victim.answer(page, 'allow', { csrf_token: 'x'.repeat(32) });
    assert.equal(wrongToken.status, 403);
    assert.equal(wrongToken.location, undefined);
    const noToken = await victim.go(form.action, { form: { ticket: form.ticket, decision: 'allow' } });
    assert.equal(noToken.status, 400);
    // The attacker's own browser, with the victim's form fields (say they leaked): not this browser's page.
    const attacker = new Browser();
    await attacker.follow(s.link(evil), [ATTACKER]);
    assert.equal((await attacker.answer(page, 'allow')).status, 403);
    assert.equal((await new Browser().answer(page, 'allow')).status, 403, 'no cookie at all');
    // A cross-site post carrying the victim's cookie and even the right fields.
    const crossSite = await victim.go(form.action, {
      form: { ticket: form.ticket, csrf_token: form.csrf, decision: 'allow' },
      headers: { origin: 'https://attacker.example' },
    });
    assert.equal(crossSite.status, 403);
    assert.equal(s.idp.authorizations.length, 0, 'none of those went upstream');
    // None of them spent the page: the user's own Allow works, once.
    const allowed = await victim.answer(page, 'allow');
    assert.equal(allowed.status, 302);
    assert.equal(allowed.location!.origin, s.idp.origin);
    assert.equal((await victim.answer(page, 'allow')).status, 403, 'a form counts once');
  } finally {
    await s.close();
  }
});

test('the consent hook: pre-registered clients skip the page by default; a hook may allow or deny any client', async () => {
  const decisions: string[] = [];
  const s = await setup({
    consent: ({ client, registration }) => {
      decisions.push(`${registration}:${client.client_name ?? client.client_id}`);
      return client.client_name === 'Blocked' ? 'deny' : client.client_name === 'Trusted' ? 'allow' : 'ask';
    },
  });
  try {
    const b = new Browser();
    const blocked = await b.follow(s.link(await s.registerClient(ATTACKER, 'Blocked')), [ATTACKER]);
    assert.equal(blocked.stopped?.searchParams.get('error'), 'access_denied');
    const trusted = await b.follow(s.link(await s.registerClient(REDIRECT, 'Trusted'), REDIRECT), [REDIRECT]);
    assert.ok(trusted.stopped?.searchParams.get('code'));
    // With a hook, even the pre-registered client is what the hook says: here, ask.
    assert.equal((await b.follow(s.link('app', REDIRECT), [REDIRECT])).last.status, 200);
    assert.deepEqual(decisions, ['dynamic:Blocked', 'dynamic:Trusted', 'pre-registered:app']);
  } finally {
    await s.close();
  }
  assert.throws(() => createAuthorizationServer({ login: () => ({ deny: true }), consent: () => 'allow' }), /proxy mode/);
});

test('over https the cookies are __Host- prefixed and Secure, and only the prefixed ones count', async () => {
  const idp = await startIdp();
  const issuer = 'https://auth.example.test';
  const server = createAuthorizationServer({
    issuer,
    upstream: oidcUpstream({ issuer: idp.origin, clientId: 'our-client', clientSecret: 'upstream-secret' }),
    onError: () => {},
  });
  try {
    const reg = await server.fetch(
      new Request(`${issuer}/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }),
      }),
    );
    const clientId = ((await reg.json()) as { client_id: string }).client_id;
    const page = await server.fetch(
      new Request(authorizeUrl(issuer, { client_id: clientId, redirect_uri: REDIRECT, challenge: pkce().challenge, method: 'S256' })),
    );
    assert.equal(page.status, 200);
    const browserCookie = page.headers.getSetCookie()[0]!;
    assert.match(browserCookie, /^__Host-mcpkit-browser=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=2592000; HttpOnly; SameSite=Lax; Secure$/);
    const cookie = browserCookie.split(';')[0]!;
    const f = consentForm({ url: '', status: 200, body: await page.text(), headers: page.headers });
    assert.equal(f.action, `${issuer}/consent`);
    const post = (cookieHeader: string) =>
      server.fetch(
        new Request(f.action, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookieHeader, origin: issuer },
          body: new URLSearchParams({ ticket: f.ticket, csrf_token: f.csrf, decision: 'allow' }),
        }),
      );
    assert.equal((await post(cookie.replace('__Host-', ''))).status, 403, 'the unprefixed name could be planted by a sibling domain');
    const allowed = await post(cookie);
    assert.equal(allowed.status, 302);
    const state = new URL(allowed.headers.get('location')!).searchParams.get('state')!;
    const stateCookie = allowed.headers.getSetCookie()[0]!;
    assert.match(stateCookie, /^__Host-mcpkit-state-[A-Za-z0-9_-]{16}=[A-Za-z0-9_-]+; Path=\/; Max-Age=600; HttpOnly; SameSite=Lax; Secure$/);
    const callback = (cookieHeader: string) =>
      server.fetch(new Request(`${issuer}/callback?state=${state}&code=up-code-x`, { headers: { cookie: cookieHeader } }));
    assert.equal((await callback(stateCookie.split(';')[0]!.replace('__Host-', ''))).status, 400);
  } finally {
    await idp.close();
  }
});
