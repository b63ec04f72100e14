// Grants without a user: the JWT bearer grant (RFC 7523) with `assertion` (a workload identity
// token, SEP-1933), and `idJagAssertion` (SEP-990), which gets that assertion from the
// enterprise identity provider by token exchange (RFC 8693) for each authorization server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OAuthClientAuth } from '../../../src/client/auth/oauth.js';
import { OAuthFlowError } from '../../../src/client/auth/errors.js';
import { idJagAssertion } from '../../../src/client/auth/id-jag.js';
import type { AssertionTarget, OAuthOptions } from '../../../src/client/auth/options.js';
import { authorizations, browser, fakeNet, REDIRECT_URI, rpc, tokenRequests, type Setup, withSetup } from './fixture.js';

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const ID_JAG = 'urn:ietf:params:oauth:token-type:id-jag';
const IDP = 'https://idp.example.com/oauth2/token';

async function status(
  options: OAuthOptions,
  s: Setup,
  method = 'tools/list',
  params: Record<string, unknown> = {},
  auth = new OAuthClientAuth(s.rs.url, options),
) {
  const res = await rpc(auth.fetch, s.rs.url, method, params);
  await res.body?.cancel();
  return res.status;
}

const registrations = (s: Setup) => s.as.requests.filter((r) => r.path.endsWith('/register'));

test('JWT bearer grant with a fixed assertion: no user, no /authorize; grant_type, assertion, scope and resource at /token', () =>
  withSetup({ jwtBearer: (a) => a === 'workload-jwt', scopesSupported: ['mcp:basic', 'offline_access'] }, { scopesSupported: ['mcp:basic'] }, async (s) => {
    assert.equal(await status({ assertion: 'workload-jwt' }, s), 200);
    assert.equal(authorizations(s.as).length, 0);
    const form = tokenRequests(s.as)[0]!.form!;
    assert.equal(form.get('grant_type'), JWT_BEARER);
    assert.equal(form.get('assertion'), 'workload-jwt');
    assert.equal(form.get('scope'), 'mcp:basic', 'no offline_access without a user');
    assert.equal(form.get('resource'), `${s.rs.origin}/mcp`);
    // Registered for this grant only: no redirect URI, no response types.
    const body = registrations(s)[0]!.json!;
    assert.deepEqual(body['grant_types'], [JWT_BEARER]);
    assert.deepEqual(body['response_types'], []);
    assert.equal(body['redirect_uris'], undefined);
  }));

test('an assertion function is asked at each authorization, for the AS found by discovery and the scope wanted', () =>
  withSetup({ jwtBearer: (a) => a.startsWith('jwt-') }, { scopes: { 'tools/list': 'mcp:basic', 'tools/call:admin': 'mcp:write' } }, async (s) => {
    const targets: AssertionTarget[] = [];
    const auth = new OAuthClientAuth(s.rs.url, {
      assertion: async (target) => {
        targets.push(target);
        return `jwt-${targets.length}`;
      },
    });
    assert.equal(await status({}, s, 'tools/list', {}, auth), 200);
    assert.equal(await status({}, s, 'tools/call', { name: 'admin', arguments: {} }, auth), 200);
    const base = { issuer: s.as.issuer, resource: `${s.rs.origin}/mcp`, tokenEndpoint: `${s.as.issuer}/token` };
    assert.deepEqual(targets, [
      { ...base, scope: 'mcp:basic' },
      { ...base, scope: 'mcp:basic mcp:write' },
    ]);
    assert.deepEqual(
      tokenRequests(s.as).map((r) => r.form!.get('assertion')),
      ['jwt-1', 'jwt-2'],
    );
  }));

test('JWT bearer errors: a refused assertion (invalid_grant), an empty one, none at all', () =>
  withSetup({ jwtBearer: () => false }, {}, async (s) => {
    await assert.rejects(
      status({ assertion: 'stale-jwt' }, s),
      (err: OAuthFlowError) => err instanceof OAuthFlowError && err.code === 'invalid_grant' && err.status === 400,
    );
    const before = tokenRequests(s.as).length;
    await assert.rejects(status({ assertion: () => '' }, s), (err: Error) => err instanceof OAuthFlowError && /produced no assertion/.test(err.message));
    await assert.rejects(status({ grant: 'jwt-bearer' }, s), (err: Error) => err instanceof OAuthFlowError && /needs OAuthOptions.assertion/.test(err.message));
    assert.equal(tokenRequests(s.as).length, before, 'nothing sent without an assertion');
  }));

test('with both authorize and assertion the user signs in, unless grant says jwt-bearer', () =>
  withSetup({ jwtBearer: (a) => a === 'jwt' }, {}, async (s) => {
    const both = { authorize: browser().authorize, redirectUri: REDIRECT_URI, assertion: 'jwt' };
    assert.equal(await status(both, s), 200);
    assert.equal(authorizations(s.as).length, 1);
    assert.equal(await status({ ...both, grant: 'jwt-bearer' }, s), 200);
    assert.equal(authorizations(s.as).length, 1);
    assert.deepEqual(
      tokenRequests(s.as).map((r) => r.form!.get('grant_type')),
      ['authorization_code', JWT_BEARER],
    );
  }));

/** An identity provider's token endpoint on the fake network, answering with `answer`. */
function idp(
  answer: (form: URLSearchParams) => Response | unknown = (f) => ({
    access_token: `id-jag-for-${f.get('audience')}`,
    issued_token_type: ID_JAG,
    token_type: 'N_A',
  }),
) {
  const seen: { form: URLSearchParams; authorization: string | null }[] = [];
  const net = fakeNet({
    [IDP]: async (req) => {
      const form = new URLSearchParams(await req.text());
      seen.push({ form, authorization: req.headers.get('authorization') });
      return answer(form);
    },
  });
  return { fetch: net.fetch, seen };
}

test('idJagAssertion: the ID token is exchanged at the IdP for an ID-JAG naming the AS, which the AS takes as the assertion', async () => {
  const provider = idp();
  let issuer = '';
  await withSetup(
    { jwtBearer: (a) => a === `id-jag-for-${issuer}`, preRegistered: { client_id: 'mcp-client', client_secret: 'mcp-secret' } },
    { scopesSupported: ['mcp:basic'] },
    async (s) => {
      issuer = s.as.issuer;
      const assertion = idJagAssertion({ tokenEndpoint: IDP, idToken: 'user-id-token', clientId: 'idp-client', fetch: provider.fetch });
      assert.equal(await status({ assertion, clientId: 'mcp-client', clientSecret: 'mcp-secret' }, s), 200);
      const [{ form, authorization }] = provider.seen as [(typeof provider.seen)[number]];
      assert.deepEqual(Object.fromEntries(form), {
        grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
        requested_token_type: ID_JAG,
        audience: s.as.issuer,
        resource: `${s.rs.origin}/mcp`,
        subject_token: 'user-id-token',
        subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
        scope: 'mcp:basic',
        client_id: 'idp-client',
      });
      assert.equal(authorization, null, 'no secret: the client id goes in the form');
      // At the MCP server's AS: the ID-JAG as a JWT bearer assertion, with the client's own credentials.
      const tok = tokenRequests(s.as)[0]!;
      assert.equal(tok.form!.get('assertion'), `id-jag-for-${s.as.issuer}`);
      assert.ok(tok.headers.authorization?.startsWith('Basic '));
      assert.equal(authorizations(s.as).length, 0);
    },
  );
});

test('idJagAssertion: a client secret goes as HTTP Basic; an idToken function is asked each time', async () => {
  const provider = idp();
  let n = 0;
  const assertion = idJagAssertion({
    tokenEndpoint: IDP,
    idToken: async () => `id-token-${++n}`,
    clientId: 'idp client',
    clientSecret: 's3cr:t',
    fetch: provider.fetch,
  });
  const target = { issuer: 'https://as.example.com', resource: 'https://mcp.example.com/mcp', tokenEndpoint: 'https://as.example.com/token' };
  assert.equal(await assertion(target), 'id-jag-for-https://as.example.com');
  assert.equal(await assertion({ ...target, issuer: 'https://as2.example.com' }), 'id-jag-for-https://as2.example.com');
  assert.deepEqual(
    provider.seen.map((x) => x.form.get('subject_token')),
    ['id-token-1', 'id-token-2'],
  );
  assert.equal(provider.seen[0]!.authorization, `Basic ${Buffer.from('idp+client:s3cr%3At').toString('base64')}`);
  assert.equal(provider.seen[0]!.form.get('client_id'), null);
  assert.equal(provider.seen[0]!.form.has('scope'), false, 'no scope asked for: none sent');
});

test('idJagAssertion errors: refused by the IdP (with its code), another token type, no token, no network', async () => {
  const target = { issuer: 'https://as.example.com', resource: 'https://mcp.example.com/mcp', tokenEndpoint: 'https://as.example.com/token' };
  const run = (answer: Parameters<typeof idp>[0]) => idJagAssertion({ tokenEndpoint: IDP, idToken: 't', clientId: 'c', fetch: idp(answer).fetch })(target);
  await assert.rejects(
    run(() => Response.json({ error: 'invalid_grant' }, { status: 400 })),
    (err: OAuthFlowError) => err instanceof OAuthFlowError && err.code === 'invalid_grant' && err.status === 400,
  );
  await assert.rejects(
    run(() => ({ access_token: 'x', issued_token_type: 'urn:ietf:params:oauth:token-type:access_token' })),
    (err: Error) => /not an ID-JAG/.test(err.message),
  );
  await assert.rejects(
    run(() => ({ issued_token_type: ID_JAG })),
    (err: Error) => err instanceof OAuthFlowError && /refused the token exchange/.test(err.message),
  );
  const offline = idJagAssertion({ tokenEndpoint: IDP, idToken: 't', clientId: 'c', fetch: async () => Promise.reject(new TypeError('fetch failed')) });
  await assert.rejects(offline(target), (err: Error) => err instanceof OAuthFlowError && /token exchange at .* failed: fetch failed/.test(err.message));
});
