// What the CLI says about a 401 depends on how the server signs callers in: OAuth sign-in is
// offered only to a server that advertises OAuth; an API-key server is asked for its header
// (issue 13, item 9). Without a terminal no sign-in is started, so each test sees the hint.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { McpServer } from '../../src/server/mcp-server.js';
import { serve, type RunningServer } from '../../src/serving/node.js';
import { apiKeyGuard } from '../../src/serving/http/security.js';
import { mcpkit } from './helpers.js';

function echoServer(): McpServer {
  const mcp = new McpServer({ name: 'guarded', version: '1.0.0' });
  mcp.tool('whoami', (_a, ctx) => `you are ${ctx.authInfo?.principal}`);
  return mcp;
}

describe('a 401 from an API-key server', () => {
  let running: RunningServer;
  before(async () => {
    running = await serve(echoServer(), { port: 0, host: '127.0.0.1', authenticate: apiKeyGuard({ keys: ['key-a'] }) });
  });
  after(() => running.close());

  test('without credentials: asks for them with -H, offers no OAuth sign-in', async () => {
    const r = await mcpkit(['tools', running.url]);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /wants credentials \(HTTP 401\) and offers no OAuth sign-in: pass them with -H, e.g\. -H "Authorization: Bearer KEY"/);
    assert.doesNotMatch(r.stderr, /--oauth|sign in from|--client-credentials/);
  });

  test('with a wrong key: says the credentials were refused, names the header', async () => {
    const r = await mcpkit(['tools', running.url, '-H', 'X-API-Key: nope']);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /refused the credentials it was sent \(HTTP 401\): check the X-API-Key header/);
    assert.doesNotMatch(r.stderr, /OAuth/);
    const ok = await mcpkit(['call', running.url, 'whoami', '-H', 'Authorization: Bearer key-a']);
    assert.equal(ok.code, 0, ok.stderr);
  });
});

describe('a 401 from an OAuth server', () => {
  let running: RunningServer;
  before(async () => {
    running = await serve(echoServer(), {
      port: 0,
      host: '127.0.0.1',
      oauth: { authorizationServers: ['https://as.example'], verifyToken: () => undefined },
    });
  });
  after(() => running.close());

  test('its challenge names its metadata: the sign-in is offered', async () => {
    const r = await mcpkit(['tools', running.url]);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /needs authorization \(HTTP 401\) and signs in with OAuth: sign in from a terminal or with --oauth/);
    const off = await mcpkit(['tools', running.url, '--no-oauth']);
    assert.match(off.stderr, /signs in with OAuth: drop --no-oauth to sign in/);
    const refused = await mcpkit(['tools', running.url, '-H', 'Authorization: Bearer stale']);
    assert.match(refused.stderr, /refused the credentials it was sent \(HTTP 401\): check the Authorization header; the server also signs in with OAuth/);
  });
});

describe('a 401 with a bare Bearer challenge, from a server whose metadata is at the well-known URL', () => {
  let http: Server;
  let url: string;
  before(async () => {
    http = createServer((req, res) => {
      if (req.url === '/.well-known/oauth-protected-resource/mcp') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ resource: url, authorization_servers: ['https://as.example'] }));
        return;
      }
      req.resume();
      res.writeHead(req.url === '/mcp' ? 401 : 404, { 'www-authenticate': 'Bearer', 'content-type': 'application/json' });
      res.end('{}');
    });
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(http.address() as { port: number }).port}/mcp`;
  });
  after(() => new Promise<void>((r) => http.close(() => r())));

  test('the sign-in is offered', async () => {
    const r = await mcpkit(['tools', url, '--era', 'handshake']);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /needs authorization \(HTTP 401\) and signs in with OAuth/);
  });
});
