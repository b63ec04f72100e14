// Who the client is (MCP authorization §4.3 items 16-17): pre-registered credentials, then a
// CIMD URL, then dynamic registration (its body), token endpoint client authentication (none,
// client_secret_basic, client_secret_post, private_key_jwt) and the client_credentials grant.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { OAuthClientAuth } from '../../../src/client/auth/oauth.js';
import { OAuthFlowError } from '../../../src/client/auth/errors.js';
import type { OAuthOptions } from '../../../src/client/auth/options.js';
import type { MockAsOptions } from '../../fixtures/oauth/authorization-server.js';
import { authorizations, browser, REDIRECT_URI, rpc, setup, tokenRequests, type Setup } from './fixture.js';

const CIMD_URL = 'https://client.example.com/oauth/client-metadata.json';

async function run(asOptions: MockAsOptions, options: Partial<OAuthOptions>, body: (s: Setup, status: number, auth: OAuthClientAuth) => Promise<void> | void) {
  const s = await setup(asOptions);
  try {
    const auth = new OAuthClientAuth(s.rs.url, { authorize: browser().authorize, redirectUri: REDIRECT_URI, ...options });
    const res = await rpc(auth.fetch, s.rs.url, 'tools/list');
    await res.body?.cancel();
    await body(s, res.status, auth);
  } finally {
    await s.close();
  }
}

const registrations = (s: Setup) => s.as.requests.filter((r) => r.path.endsWith('/register'));

test('a pre-registered client id wins over CIMD and dynamic registration', () =>
  run(
    { cimd: true, preRegistered: { client_id: 'pre-registered-client', client_secret: 'pre-registered-secret' } },
    { clientId: 'pre-registered-client', clientSecret: 'pre-registered-secret', clientMetadataUrl: CIMD_URL },
    (s, status) => {
      assert.equal(status, 200);
      assert.equal(registrations(s).length, 0);
      assert.equal(authorizations(s.as)[0]!.query.get('client_id'), 'pre-registered-client');
      // client_secret_basic by default for a client with a secret (the AS lists it).
      const tok = tokenRequests(s.as)[0]!;
      assert.equal(tok.headers.authorization, `Basic ${Buffer.from('pre-registered-client:pre-registered-secret').toString('base64')}`);
      assert.equal(tok.form!.get('client_secret'), null);
    },
  ));

test('CIMD when the AS supports it: the URL is the client id, nothing is registered', () =>
  run({ cimd: true }, { clientMetadataUrl: CIMD_URL }, (s, status) => {
    assert.equal(status, 200);
    assert.equal(registrations(s).length, 0);
    assert.equal(authorizations(s.as)[0]!.query.get('client_id'), CIMD_URL);
    const tok = tokenRequests(s.as)[0]!;
    assert.equal(tok.form!.get('client_id'), CIMD_URL);
    assert.equal(tok.headers.authorization, undefined);
  }));

test('CIMD not supported by the AS, or no CIMD URL: dynamic registration', async () => {
  await run({}, { clientMetadataUrl: CIMD_URL }, (s, status) => {
    assert.equal(status, 200);
    assert.equal(registrations(s).length, 1);
    assert.equal(authorizations(s.as)[0]!.query.get('client_id'), 'client-1');
  });
  await run({ cimd: true }, {}, (s) => assert.equal(registrations(s).length, 1));
});

test('a CIMD URL must be https with a path', async () => {
  for (const url of ['https://client.example.com/', 'https://client.example.com']) {
    await run({ cimd: true }, { clientMetadataUrl: url }, () => {}).then(
      () => assert.fail(`${url} accepted`),
      (err: Error) => assert.ok(err instanceof OAuthFlowError && /https with a path/.test(err.message), err.message),
    );
  }
});

test('dynamic registration body: redirect_uris, grant_types, response_types, application_type native for loopback', () =>
  run({}, { clientMetadata: { client_name: 'My App', logo_uri: 'https://app.example.com/logo.png' } }, (s) => {
    const body = registrations(s)[0]!.json!;
    assert.deepEqual(body['redirect_uris'], [REDIRECT_URI]);
    assert.deepEqual(body['grant_types'], ['authorization_code', 'refresh_token']);
    assert.deepEqual(body['response_types'], ['code']);
    assert.equal(body['application_type'], 'native');
    assert.equal(body['token_endpoint_auth_method'], 'none', 'a public client when the AS allows none');
    assert.equal(body['client_name'], 'My App');
    assert.equal(body['logo_uri'], 'https://app.example.com/logo.png');
  }));

test('dynamic registration: application_type web for an https redirect URI', async () => {
  const s = await setup();
  try {
    let seen: URL | undefined;
    const auth = new OAuthClientAuth(s.rs.url, {
      redirectUri: 'https://app.example.com/oauth/callback',
      authorize: async (req) => {
        seen = req.url;
        throw new Error('stop here');
      },
    });
    await assert.rejects(rpc(auth.fetch, s.rs.url, 'tools/list'), /stop here/);
    assert.equal(registrations(s)[0]!.json!['application_type'], 'web');
    assert.equal(seen?.searchParams.get('redirect_uri'), 'https://app.example.com/oauth/callback');
  } finally {
    await s.close();
  }
});

test('token endpoint auth method chosen from the AS list at registration, then used at /token', async () => {
  const expectations: Array<[string[], string, (tok: ReturnType<typeof tokenRequests>[number]) => void]> = [
    [
      ['client_secret_basic'],
      'client_secret_basic',
      (tok) => {
        assert.match(tok.headers.authorization ?? '', /^Basic /);
        assert.equal(Buffer.from(tok.headers.authorization!.slice(6), 'base64').toString(), 'client-1:secret-client-1');
        assert.equal(tok.form!.get('client_secret'), null);
      },
    ],
    [
      ['client_secret_post'],
      'client_secret_post',
      (tok) => {
        assert.equal(tok.headers.authorization, undefined);
        assert.equal(tok.form!.get('client_id'), 'client-1');
        assert.equal(tok.form!.get('client_secret'), 'secret-client-1');
      },
    ],
    [
      ['none'],
      'none',
      (tok) => {
        assert.equal(tok.headers.authorization, undefined);
        assert.equal(tok.form!.get('client_id'), 'client-1');
        assert.equal(tok.form!.get('client_secret'), null);
      },
    ],
  ];
  for (const [methods, expected, check] of expectations) {
    await run({ authMethods: methods }, {}, (s, status) => {
      assert.equal(status, 200, expected);
      assert.equal(registrations(s)[0]!.json!['token_endpoint_auth_method'], expected);
      check(tokenRequests(s.as)[0]!);
    });
  }
});

test('the registration is saved and reused: a second sign-in does not register again', async () => {
  const s = await setup();
  try {
    const auth = new OAuthClientAuth(s.rs.url, { authorize: browser().authorize, redirectUri: REDIRECT_URI });
    (await rpc(auth.fetch, s.rs.url, 'tools/list')).body?.cancel();
    await auth.logout();
    assert.equal(auth.tokens, undefined);
    const res = await rpc(auth.fetch, s.rs.url, 'tools/list');
    await res.body?.cancel();
    assert.equal(res.status, 200);
    assert.equal(registrations(s).length, 1);
    assert.equal(authorizations(s.as).length, 2);
  } finally {
    await s.close();
  }
});

test('no registration endpoint and no client id: a clear error (mentioning CIMD when the AS supports it)', async () => {
  await run({ registration: false }, {}, () => assert.fail('signed in')).catch((err: Error) => {
    assert.ok(err instanceof OAuthFlowError && /clientId/.test(err.message), err.message);
  });
  await run({ registration: false, cimd: true }, {}, () => assert.fail('signed in')).catch((err: Error) => {
    assert.ok(err instanceof OAuthFlowError && /clientMetadataUrl/.test(err.message), err.message);
  });
});

test('client_credentials with client_secret_basic: no user, no /authorize, scope and resource sent', async () => {
  const s = await setup({ preRegistered: { client_id: 'svc', client_secret: 's3cret' } }, { scopesSupported: ['mcp:basic'] });
  try {
    const auth = new OAuthClientAuth(s.rs.url, { grant: 'client_credentials', clientId: 'svc', clientSecret: 's3cret' });
    const res = await rpc(auth.fetch, s.rs.url, 'tools/list');
    await res.body?.cancel();
    assert.equal(res.status, 200);
    assert.equal(authorizations(s.as).length, 0);
    const tok = tokenRequests(s.as)[0]!;
    assert.equal(tok.form!.get('grant_type'), 'client_credentials');
    assert.equal(tok.form!.get('scope'), 'mcp:basic', 'no offline_access for machines');
    assert.equal(tok.form!.get('resource'), `${s.rs.origin}/mcp`);
    assert.equal(Buffer.from(tok.headers.authorization!.slice(6), 'base64').toString(), 'svc:s3cret');
  } finally {
    await s.close();
  }
});

test('client_credentials is the default grant without an authorize callback; a wrong secret is an invalid_client error', async () => {
  const s = await setup({ preRegistered: { client_id: 'svc', client_secret: 's3cret' } });
  try {
    const auth = new OAuthClientAuth(s.rs.url, { clientId: 'svc', clientSecret: 'wrong' });
    await assert.rejects(rpc(auth.fetch, s.rs.url, 'tools/list'), (err: OAuthFlowError) => err instanceof OAuthFlowError && err.code === 'invalid_client');
    assert.equal(tokenRequests(s.as)[0]!.form!.get('grant_type'), 'client_credentials');
  } finally {
    await s.close();
  }
});

function ecKeys() {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    publicPem: publicKey.export({ type: 'spki', format: 'pem' }) as string,
  };
}

const jwtClaims = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;

test('private_key_jwt with client_credentials: an ES256 assertion the mock verifies (iss = sub = client_id, aud = issuer)', async () => {
  const keys = ecKeys();
  const s = await setup({
    authMethods: ['private_key_jwt'],
    preRegistered: { client_id: 'conformance-test-client', method: 'private_key_jwt', publicKeyPem: keys.publicPem },
  });
  try {
    const auth = new OAuthClientAuth(s.rs.url, {
      grant: 'client_credentials',
      clientId: 'conformance-test-client',
      privateKey: { key: keys.privatePem, algorithm: 'ES256', kid: 'k1' },
    });
    const res = await rpc(auth.fetch, s.rs.url, 'tools/list');
    await res.body?.cancel();
    assert.equal(res.status, 200);
    const form = tokenRequests(s.as)[0]!.form!;
    assert.equal(form.get('client_assertion_type'), 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer');
    const jwt = form.get('client_assertion')!;
    const header = JSON.parse(Buffer.from(jwt.split('.')[0]!, 'base64url').toString()) as Record<string, unknown>;
    assert.deepEqual(header, { alg: 'ES256', typ: 'JWT', kid: 'k1' });
    const claims = jwtClaims(jwt);
    assert.equal(claims['iss'], 'conformance-test-client');
    assert.equal(claims['sub'], 'conformance-test-client');
    assert.equal(claims['aud'], s.as.issuer);
    assert.ok(typeof claims['jti'] === 'string' && (claims['exp'] as number) > (claims['iat'] as number));
  } finally {
    await s.close();
  }
});

test('private_key_jwt with the authorization code grant (a pre-registered client with a key)', async () => {
  const keys = ecKeys();
  const s = await setup({ preRegistered: { client_id: 'app', method: 'private_key_jwt', publicKeyPem: keys.publicPem } });
  try {
    const auth = new OAuthClientAuth(s.rs.url, {
      authorize: browser().authorize,
      redirectUri: REDIRECT_URI,
      clientId: 'app',
      privateKey: { key: keys.privatePem, algorithm: 'ES256' },
    });
    const res = await rpc(auth.fetch, s.rs.url, 'tools/list');
    await res.body?.cancel();
    assert.equal(res.status, 200);
    assert.equal(tokenRequests(s.as)[0]!.form!.get('grant_type'), 'authorization_code');
    assert.ok(tokenRequests(s.as)[0]!.form!.get('client_assertion'));
  } finally {
    await s.close();
  }
});

test('private_key_jwt: a key that is not PKCS#8 PEM, or for another curve, is a clear OAuthFlowError', async () => {
  const s = await setup({ preRegistered: { client_id: 'svc', method: 'private_key_jwt' } });
  try {
    const sec1 = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'sec1', format: 'pem' }) as string;
    const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    for (const [key, expected] of [
      [sec1, /PKCS#8/],
      [p384, /could not be imported/],
      ['-----BEGIN PRIVATE KEY-----\n!!!\n-----END PRIVATE KEY-----', /not valid PEM|could not be imported/],
    ] as const) {
      const auth = new OAuthClientAuth(s.rs.url, { grant: 'client_credentials', clientId: 'svc', privateKey: { key, algorithm: 'ES256' } });
      await assert.rejects(rpc(auth.fetch, s.rs.url, 'tools/list'), (err: Error) => err instanceof OAuthFlowError && expected.test(err.message));
    }
    assert.equal(tokenRequests(s.as).length, 0);
  } finally {
    await s.close();
  }
});
