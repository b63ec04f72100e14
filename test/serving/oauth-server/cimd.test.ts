// Client ID metadata documents as an SSRF vector, written as the attacks: a URL client id whose
// host name resolves to loopback (the resolver injected, as DNS would answer), a scan of ports
// through the server's answers, a DNS server that answers a public address first and 127.0.0.1
// on the next lookup, and a document that never finishes (the timeout on an injected clock).
// Each is driven over real HTTP against the server's endpoints, with real sockets behind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer, type Socket } from 'node:net';
import { isPublicAddress } from '../../../src/serving/oauth-server/addresses.js';
import type { HostLookup } from '../../../src/serving/oauth-server/cimd-fetch.js';
import { ManualClock } from '../../support/index.js';
import { authorizeUrl, pkce, REDIRECT, startAs, token } from './helpers.js';

const GENERIC = 'the client metadata document could not be fetched, or is not a valid client metadata document';

const listen = async <T extends Server | TcpServer>(server: T, host = '127.0.0.1', port = 0): Promise<number> => {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return (server.address() as AddressInfo).port;
};
const sockets = new WeakMap<TcpServer, Set<Socket>>();
const close = (server: Server | TcpServer) => {
  (server as Server).closeAllConnections?.();
  for (const s of sockets.get(server) ?? []) s.destroy();
  return new Promise<void>((r) => server.close(() => r()));
};

/** A raw TCP listener whose connections `close` ends too. */
function tcpServer(onConnection: (socket: Socket) => void): TcpServer {
  const open = new Set<Socket>();
  const server = createTcpServer((socket) => {
    open.add(socket);
    socket.on('close', () => open.delete(socket));
    socket.on('error', () => {});
    onConnection(socket);
  });
  sockets.set(server, open);
  return server;
}

/** A TCP listener that only counts who connects (and hangs up): "is anything reaching this port?". */
async function connectionCounter(host = '127.0.0.1', port = 0): Promise<{ port: number; count: () => number; server: TcpServer }> {
  let n = 0;
  const server = tcpServer((socket) => {
    n++;
    socket.destroy();
  });
  return { port: await listen(server, host, port), count: () => n, server };
}

/** What the token endpoint says to a public client naming `clientId` (it must fetch the document first). */
async function tokenAnswer(issuer: string, clientId: string): Promise<{ status: number; error: string; description: string }> {
  const t = await token(issuer, { grant_type: 'authorization_code', code: 'x', redirect_uri: REDIRECT, code_verifier: pkce().verifier, client_id: clientId });
  return { status: t.status, error: t.body.error!, description: t.body.error_description! };
}

const resolvesTo =
  (...addresses: string[]): HostLookup =>
  async () =>
    addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

test('a host name that resolves to 127.0.0.1 (or has any inside answer) is refused before any connection', async () => {
  const target = await connectionCounter();
  const errors: Error[] = [];
  let answers = resolvesTo('127.0.0.1');
  const as = await startAs({ onError: (e) => errors.push(e), clientIdMetadata: { lookup: (host) => answers(host) } });
  try {
    const id = `https://innocent.example.test:${target.port}/client.json`;
    for (const a of [
      ['127.0.0.1'],
      ['93.184.215.14', '127.0.0.1'], // one inside answer among public ones is enough
      ['::ffff:127.0.0.1'],
      ['169.254.169.254'],
      ['fd00::1'],
      ['100.64.0.1'],
    ]) {
      answers = resolvesTo(...a);
      const r = await tokenAnswer(as.issuer, id);
      assert.deepEqual(r, { status: 400, error: 'invalid_client', description: GENERIC }, a.join(','));
    }
    // An IP literal is held to the same rule, whatever its spelling.
    for (const host of ['127.0.0.1', '[::ffff:7f00:1]', '[::1]'])
      assert.equal((await tokenAnswer(as.issuer, `https://${host}:${target.port}/c.json`)).description, GENERIC);
    assert.equal(target.count(), 0, 'nothing connected to the loopback port');
    assert.match(errors[0]!.message, /resolves to 127\.0\.0\.1, which is not a public address/);
    // The page a user sees says as little.
    const page = await fetch(authorizeUrl(as.issuer, { client_id: id, redirect_uri: REDIRECT, challenge: pkce().challenge, method: 'S256' }), {
      redirect: 'manual',
    });
    assert.equal(page.status, 400);
    assert.match(await page.text(), /could not be fetched/);
  } finally {
    await as.close();
    await close(target.server);
  }
});

test('open port, closed port, not a web server, redirect, bad or large document: one and the same answer', async () => {
  let answer: { status: number; body: string; headers?: Record<string, string> } = { status: 404, body: 'no' };
  const web = createHttpServer((_req, res) => {
    res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
    res.end(answer.body);
  });
  const webPort = await listen(web);
  const banner = tcpServer((socket) => socket.end('SSH-2.0-OpenSSH_9.6\r\n'));
  const bannerPort = await listen(banner);
  const gone = await connectionCounter();
  await close(gone.server);
  const errors: Error[] = [];
  const as = await startAs({ onError: (e) => errors.push(e), clientIdMetadata: { allowInsecure: true } });
  try {
    const answers = [];
    const at = (port: number) => `http://127.0.0.1:${port}/client.json`;
    answers.push(await tokenAnswer(as.issuer, at(webPort))); // open, 404
    answers.push(await tokenAnswer(as.issuer, at(gone.port))); // closed
    answers.push(await tokenAnswer(as.issuer, at(bannerPort))); // open, not HTTP
    answer = { status: 302, body: '', headers: { location: 'http://169.254.169.254/' } };
    answers.push(await tokenAnswer(as.issuer, at(webPort)));
    answer = { status: 200, body: JSON.stringify({ client_id: 'https://other.example/c.json', redirect_uris: [REDIRECT] }) };
    answers.push(await tokenAnswer(as.issuer, at(webPort)));
    answer = { status: 200, body: JSON.stringify({ client_id: at(webPort), redirect_uris: [REDIRECT], pad: 'x'.repeat(6000) }) };
    answers.push(await tokenAnswer(as.issuer, at(webPort)));
    answer = { status: 200, body: JSON.stringify({ client_id: at(webPort), redirect_uris: [REDIRECT], token_endpoint_auth_method: 'client_secret_basic' }) };
    answers.push(await tokenAnswer(as.issuer, at(webPort)));
    answer = { status: 200, body: 'not json' };
    answers.push(await tokenAnswer(as.issuer, at(webPort)));
    for (const a of answers) assert.deepEqual(a, { status: 400, error: 'invalid_client', description: GENERIC });
    // The detail is the server's: in its log, each case told apart.
    const log = errors.map((e) => e.message).join('\n');
    for (const detail of [
      /answered HTTP 404/,
      /ECONNREFUSED/,
      /redirects are not followed/,
      /names client_id/,
      /larger than 5120 bytes/,
      /only public clients/,
      /is not JSON/,
    ])
      assert.match(log, detail);
    // The URL's own form is no secret (nothing was fetched) and still says what is wrong.
    assert.match((await tokenAnswer(as.issuer, `http://127.0.0.1:${webPort}/`)).description, /must have a path/);
  } finally {
    await as.close();
    await close(web);
    await close(banner);
  }
});

test('a rebinding resolver (first answer one address, then 127.0.0.1) cannot move the connection: it goes to the address checked', async () => {
  // The document's host is 127.0.0.2 here (a stand-in for the public address the check passed:
  // loopback is allowed in this test so that it can answer); 127.0.0.1 on the same port is the
  // internal service a second lookup would lead to.
  const id = (port: number) => `http://rebind.example.test:${port}/client.json`;
  const seen: string[] = [];
  const doc = createHttpServer((req, res) => {
    seen.push(`${req.socket.localAddress} ${req.headers.host}`);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ client_id: id(port), redirect_uris: [REDIRECT], client_name: 'rebound' }));
  });
  const port = await listen(doc, '127.0.0.2');
  const internal = await connectionCounter('127.0.0.1', port);
  let lookups = 0;
  const rebinding: HostLookup = async () => (lookups++ === 0 ? [{ address: '127.0.0.2', family: 4 }] : [{ address: '127.0.0.1', family: 4 }]);
  const as = await startAs({ clientIdMetadata: { allowInsecure: true, lookup: rebinding, cacheSec: 1 } });
  try {
    const p = pkce();
    const r = await fetch(authorizeUrl(as.issuer, { client_id: id(port), redirect_uri: REDIRECT, challenge: p.challenge, method: 'S256' }), {
      redirect: 'manual',
    });
    assert.equal(r.status, 302, await r.text());
    assert.ok(new URL(r.headers.get('location')!).searchParams.get('code'));
    assert.equal(lookups, 1, 'resolved once');
    assert.deepEqual(seen, [`127.0.0.2 rebind.example.test:${port}`], 'connected to the checked address, Host kept as the name');
    assert.equal(internal.count(), 0, 'nothing reached 127.0.0.1');
  } finally {
    await as.close();
    await close(doc);
    await close(internal.server);
  }
});

test('a document that never finishes: invalid_client when the timeout passes on the server clock, not a 500', async () => {
  const clock = new ManualClock();
  let stalled!: () => void;
  const started = new Promise<void>((r) => (stalled = r));
  const slow = createHttpServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"client_id":');
    stalled(); // headers and half a document sent; the rest never comes
  });
  const port = await listen(slow);
  const errors: Error[] = [];
  const as = await startAs({ clock, onError: (e) => errors.push(e), clientIdMetadata: { allowInsecure: true, timeoutMs: 2000 } });
  try {
    const pending = tokenAnswer(as.issuer, `http://127.0.0.1:${port}/slow.json`);
    await started;
    clock.advance(2000);
    assert.deepEqual(await pending, { status: 400, error: 'invalid_client', description: GENERIC });
    assert.match(errors.map((e) => e.message).join('\n'), /no complete answer within 2000 ms/);
  } finally {
    await as.close();
    await close(slow);
  }
});

test('isPublicAddress: only globally reachable unicast', () => {
  for (const a of ['93.184.215.14', '8.8.8.8', '2606:4700:4700::1111', '2a00:1450:4001:82a::200e', '::ffff:8.8.8.8']) assert.equal(isPublicAddress(a), true, a);
  for (const a of [
    '127.0.0.1',
    '127.1.2.3',
    '10.0.0.1',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '100.127.255.255',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '192.0.2.1',
    '198.18.0.1',
    '::',
    '::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    '::ffff:0:127.0.0.1',
    '64:ff9b::7f00:1',
    '64:ff9b::a9fe:a9fe',
    '2002:7f00:1::',
    'fc00::1',
    'fd12:3456::1',
    'fe80::1%eth0',
    'ff02::1',
    '2001:db8::1',
    '2001::1',
    '::127.0.0.1',
    'localhost',
    'not an address',
  ])
    assert.equal(isPublicAddress(a), false, a);
});
