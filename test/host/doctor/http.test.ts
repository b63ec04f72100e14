// The connection doctor against broken HTTP servers (test/fixtures/doctor/http-servers.ts), each
// a real node:http or https server on 127.0.0.1: the failing step, its code, and a summary and
// fix that name the cause. Silence and slowness are driven by a manual clock, never by waiting.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as servers from '../../fixtures/doctor/http-servers.js';
import { startDemoHttp } from '../../support/index.js';
import { diagnose } from '../../../src/host/doctor/diagnose.js';
import { assertFailure, run, selfSigned, SLOW_MS, start, TIMEOUT_MS } from './helpers.js';

/** Runs `body` against a fixture server, and closes the server whatever happens. */
async function using<T extends { close(): Promise<void> }>(starting: Promise<T>, body: (s: T) => Promise<void>): Promise<void> {
  const server = await starting;
  try {
    await body(server);
  } finally {
    await server.close();
  }
}

test('http-404: the URL is not the endpoint; the doctor finds /mcp and says so', () =>
  using(servers.notFound(), async (s) => {
    const d = await run(s.url);
    assertFailure(d, 'post', 'http-404', {
      summary: ['404 Not Found', `${s.origin}/api`],
      fix: ['usually at /mcp', `${s.origin}/mcp (Streamable HTTP) answers MCP: use that URL`],
    });
    assert.deepEqual(
      d.steps.map((x) => x.step),
      ['dns', 'connect', 'post'],
    );
  }));

test('http-404: the demo server at a wrong path (its 404 is written as JSON-RPC, still no endpoint); /mcp and /sse found', async () => {
  const demo = await startDemoHttp();
  try {
    const wrong = demo.url.replace('/mcp', '/api');
    const d = await run(wrong);
    assertFailure(d, 'post', 'http-404', {
      summary: ['404 Not Found', 'no MCP endpoint at /api'],
      fix: [`${demo.url} (Streamable HTTP) answers MCP: use that URL`, `${demo.url.replace('/mcp', '/sse')} (HTTP+SSE, the 2024-11-05 transport)`],
    });
  } finally {
    await demo.close();
  }
});

test('http-405: a GET-only URL (a health check), no MCP endpoint anywhere', () =>
  using(servers.methodNotAllowed(), async (s) => {
    const d = await run(s.url);
    assertFailure(d, 'post', 'http-405', {
      summary: ['405 Method Not Allowed', 'Allow: GET, HEAD', 'does not take POST'],
      fix: ['usually at /mcp', 'check the path'],
    });
  }));

test('http-406: the server refuses the Accept header MCP clients send', () =>
  using(servers.notAcceptable(), async (s) => {
    const d = await run(s.url);
    assertFailure(d, 'post', 'http-406', {
      summary: ['406 Not Acceptable', 'Accept must be exactly application/json'],
      fix: ['Accept: application/json, text/event-stream'],
    });
  }));

test('http-415: the endpoint does not take JSON', () =>
  using(servers.unsupportedMediaType(), async (s) => {
    const d = await run(s.url);
    assertFailure(d, 'post', 'http-415', { summary: ['415 Unsupported Media Type', 'application/x-www-form-urlencoded'], fix: ['POSTed as application/json'] });
  }));

test('redirect: /mcp answers 307 to /mcp/, which works; the fix names the final URL', () =>
  using(servers.redirecting(), async (s) => {
    const d = await run(s.url);
    assertFailure(d, 'post', 'redirect', {
      summary: ['307 Temporary Redirect', `a redirect to ${s.origin}/mcp/`],
      fix: [`use ${s.origin}/mcp/ as the URL: it answers MCP`],
    });
    // The walk went on at the new URL, to the end.
    for (const step of ['discover', 'initialize', 'list']) assert.ok(d.steps.find((x) => x.step === step)?.ok, step);
  }));

test('tls: a self-signed certificate', async () => {
  const cert = selfSigned();
  await using(servers.tls(cert), async (s) => {
    const d = await run(s.url);
    assertFailure(d, 'tls', 'tls', { summary: ['not trusted', 'self-signed'], fix: ['NODE_EXTRA_CA_CERTS'] });
    // The plain-http URL of the same port: it speaks TLS, and the fix says https.
    const http = await run(s.url.replace('https:', 'http:'));
    assertFailure(http, 'post', 'tls', { summary: ['speaks TLS'], fix: [`use ${s.url}`] });
  });
});

test('tls: an https URL to a port that speaks plain HTTP', () =>
  using(servers.plain(), async (s) => {
    const d = await run(s.url.replace('http:', 'https:'));
    assertFailure(d, 'tls', 'tls', { summary: ['does not speak TLS'], fix: [`did you mean ${s.url}?`] });
  }));

test('cors: a working MCP endpoint that a browser page cannot use', () =>
  using(servers.noCors(), async (s) => {
    const d = await run(s.url, { origin: 'http://localhost:5173' });
    assertFailure(d, 'preflight', 'cors', {
      summary: ['a browser at http://localhost:5173', 'no Access-Control-Allow-Origin'],
      fix: ['Access-Control-Allow-Origin', 'Mcp-Session-Id'],
    });
    // The server itself works: only the browser is shut out.
    for (const step of ['initialize', 'list']) assert.ok(d.steps.find((x) => x.step === step)?.ok, step);
    assert.equal(d.steps.find((x) => x.step === 'cors')?.code, 'cors');
  }));

test('cors: a server that refuses a foreign Origin (the demo server, DNS-rebinding protection)', async () => {
  const demo = await startDemoHttp();
  try {
    const d = await run(demo.url, { origin: 'https://studio.example.com' });
    assertFailure(d, 'preflight', 'cors', { summary: ['https://studio.example.com'] });
    const post = d.steps.find((x) => x.step === 'post');
    assert.equal(post?.code, 'cors');
    assert.match(post!.detail, /refuses requests from origin https:\/\/studio\.example\.com \(HTTP 403/);
    assert.match(post!.fix!, /allowedOrigins/);
  } finally {
    await demo.close();
  }
});

test('unauthorized-no-metadata: 401 with no resource metadata (an API-key server)', () =>
  using(servers.unauthorizedNoMetadata(), async (s) => {
    const d = await run(s.url);
    assertFailure(d, 'resource-metadata', 'unauthorized-no-metadata', {
      summary: ['401 with no resource_metadata', '/.well-known/oauth-protected-resource'],
      fix: ['resource_metadata=', '-H "Authorization: Bearer KEY"'],
    });
  }));

test('redirect-uri-rejected: the authorization server refuses the redirect URI at registration', () =>
  using(servers.rejectsRedirectUri(), async (s) => {
    const d = await run(s.url, { redirectUri: 'http://127.0.0.1:40404/callback' });
    assertFailure(d, 'registration', 'redirect-uri-rejected', {
      summary: ['refused the redirect URI http://127.0.0.1:40404/callback', 'invalid_redirect_uri', 'must use https'],
      fix: ['loopback redirect URIs'],
    });
    for (const step of ['auth', 'resource-metadata', 'authorization-server']) assert.ok(d.steps.find((x) => x.step === step)?.ok, step);
  }));

test('sign-in-required: every link of the OAuth chain works; the client only has to sign in', () =>
  using(servers.needsSignIn(), async (s) => {
    const d = await run(s.url);
    assertFailure(d, 'sign-in', 'sign-in-required', { summary: ['everything a client needs to sign in is in place'], fix: ['--oauth'] });
    assert.match(d.steps.find((x) => x.step === 'registration')!.detail, /registered a client with redirect URI http:\/\/127\.0\.0\.1:33418\/callback/);
  }));

test('no-registration: the authorization server offers neither dynamic registration nor client ID metadata documents', () =>
  using(servers.noRegistration(), async (s) => {
    const d = await run(s.url);
    assertFailure(d, 'registration', 'no-registration', {
      summary: ['neither dynamic client registration nor client ID metadata documents'],
      fix: ['--client-id'],
    });
  }));

test('pkce-unsupported: the authorization server does not advertise S256', () =>
  using(servers.noPkce(), async (s) => {
    const d = await run(s.url);
    assertFailure(d, 'authorization-server', 'pkce-unsupported', { summary: ['does not list S256'], fix: ['must refuse'] });
  }));

test('unauthorized: the credentials sent with the request are refused', () =>
  using(servers.unauthorizedNoMetadata(), async (s) => {
    const d = await run({ url: s.url, headers: { Authorization: 'Bearer expired-token-123' } });
    assertFailure(d, 'auth', 'unauthorized', { summary: ['refused the credentials sent in the Authorization header'], fix: ['expired'] });
  }));

test('not-mcp: a JSON API', () =>
  using(servers.jsonApi(), async (s) => {
    const d = await run(s.url);
    assertFailure(d, 'post', 'not-mcp', { summary: ['JSON that is not JSON-RPC', '"status":"ok"', 'a JSON API'], fix: ['OpenAPI'] });
  }));

test('not-mcp: a web page', () =>
  using(servers.htmlPage(), async (s) => {
    const d = await run(s.url);
    assertFailure(d, 'post', 'not-mcp', { summary: ['200 OK (text/html)', 'a web page'], fix: ['usually at /mcp'] });
  }));

test('server-error: 500 with the reason in the body', () =>
  using(servers.serverError(), async (s) => {
    const d = await run(s.url);
    assertFailure(d, 'post', 'server-error', { summary: ['500 Internal Server Error', 'ECONNREFUSED 127.0.0.1:5432'], fix: ['its log'] });
  }));

test('version-mismatch: initialize answered with a revision nobody speaks', () =>
  using(servers.wrongVersion(), async (s) => {
    const d = await run(s.url);
    assertFailure(d, 'initialize', 'version-mismatch', { summary: ['protocol "1.0"'] });
  }));

test('no-answer: the connection is accepted and nothing answers (the clock runs out)', () =>
  using(servers.silent(), async (s) => {
    const { clock, events, running } = start(s.url);
    await events.waiting('server/discover');
    clock.advance(TIMEOUT_MS);
    const d = await running;
    assertFailure(d, 'post', 'no-answer', { summary: ['nothing answered within 60 s'], fix: ['stuck'] });
  }));

test('slow-start: the first answer comes after the slow mark (released by the test)', async () => {
  const s = await servers.slow();
  try {
    const { clock, events, running } = start(s.url);
    await events.waiting('server/discover');
    await s.held;
    clock.advance(SLOW_MS + 2000);
    s.release();
    const d = await running;
    assertFailure(d, 'post', 'slow-start', { summary: ['took 7 s to answer its first request'], fix: ['keep the server warm'] });
    for (const step of ['initialize', 'list']) assert.ok(d.steps.find((x) => x.step === step)?.ok, step);
  } finally {
    await s.close();
  }
});

test('connection-refused: nothing listens on the port', async () => {
  const url = await servers.closedPort();
  const d = await run(url);
  assertFailure(d, 'connect', 'connection-refused', { summary: ['nothing is listening on 127.0.0.1:'], fix: ['start the server'] });
});

test('dns: a host name that does not resolve', async () => {
  // The real clock: a resolver that hangs ends at the timeout, which counts as a DNS failure too.
  const d = await diagnose('http://mcpkit-doctor-test.invalid/mcp', { timeoutMs: 10_000 });
  assertFailure(d, 'dns', 'dns', { summary: ['mcpkit-doctor-test.invalid does not resolve'] });
});
