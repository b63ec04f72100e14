// The authorization server's own listener cuts slow clients (slowloris) as serve() does: a client
// trickling its headers or its body is disconnected once the timeout passes (408 or a close),
// instead of holding a connection for node's 300 s default. Waits on socket events only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serveAuthorizationServer } from '../../../src/serving/oauth-server/node.js';
import { autoApprove } from '../../../src/serving/oauth-server/server.js';
import { pastTinyTimeouts, trickle, within } from '../../support/index.js';

test('attack: a client trickling its headers or its token request body is disconnected', async (t) => {
  const running = await serveAuthorizationServer({ login: autoApprove('alice'), onError: () => {} }, { port: 0, headersTimeoutMs: 200, bodyTimeoutMs: 400 });
  t.after(() => running.close());
  const [headers, body] = await within(
    Promise.all([
      trickle(running.port, 'POST /token HTTP/1.1\r\nHost: 127.0.0.1\r\n', 'X-Slow: 1\r\n'),
      trickle(running.port, 'POST /token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 60000\r\n\r\n', 'a'),
    ]),
    'the authorization server to disconnect both slow clients',
  );
  for (const answer of [headers, body]) assert.ok(answer === '' || answer.startsWith('HTTP/1.1 408'), JSON.stringify(answer.slice(0, 80)));
  // A normal client is still served.
  const served = await pastTinyTimeouts(() => fetch(`${running.issuer}/.well-known/oauth-authorization-server`), 'a normal client to be served');
  assert.equal(served.status, 200);
});

test('the authorization server refuses a headers timeout longer than the body timeout', async () => {
  await assert.rejects(
    serveAuthorizationServer({ login: autoApprove('alice') }, { port: 0, headersTimeoutMs: 5000, bodyTimeoutMs: 1000 }),
    /headersTimeoutMs \(5000\) must not exceed bodyTimeoutMs/,
  );
});
