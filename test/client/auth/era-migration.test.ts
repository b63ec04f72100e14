// The conformance scenario auth/authorization-server-migration without the suite: a
// 2026-07-28-only server behind OAuth whose PRM moves to a second authorization server right
// after the first authenticated request. The era probe is that first request, and the sign-in
// happens inside it (401, discovery, registration, authorization, token, the probe again). Under
// `--suite all` on a busy machine that took longer than probeTimeoutMs, and the client took the
// unanswered probe for a handshake-era server: it sent `initialize`, which a 2026-07-28-only
// server refuses, and never got to the migration. The probe now waits under requestTimeoutMs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connectHttp } from '../../../src/client/connect-http.js';
import { startMockAs } from '../../fixtures/oauth/authorization-server.js';
import { authorizations, browser, REDIRECT_URI, startRs } from './fixture.js';

test('a sign-in inside the era probe outlasting probeTimeoutMs: still 2026-07-28, and the AS migration after it re-registers', async () => {
  // A client pre-registered at as1 only shifts its dynamic ids, so ids at as1 and as2 differ.
  const as1 = await startMockAs({ preRegistered: { client_id: 'as1-only' } });
  const as2 = await startMockAs();
  const rs = await startRs(as1, { modernOnly: true, migrateTo: as2 });
  try {
    // probeTimeoutMs: 1 stands in for the loaded machine: no sign-in (five HTTP exchanges) fits in it.
    const { client } = await connectHttp(
      rs.url,
      { name: 'c', version: '1', era: 'auto', probeTimeoutMs: 1 },
      { auth: { authorize: browser().authorize, redirectUri: REDIRECT_URI } },
    );
    try {
      assert.equal(client.era, 'modern');
      assert.deepEqual(
        (await client.listTools()).tools.map((t) => t.name),
        ['echo', 'admin'],
      );
      assert.deepEqual((await client.callTool('echo', { text: 'hi' })).content, [{ type: 'text', text: 'hi' }]);
    } finally {
      await client.close();
    }
    // Never an initialize: the probe's answer, after the sign-in, said 2026-07-28.
    assert.deepEqual(
      rs.mcpRequests().map((r) => `${r.rpc} ${r.status}`),
      ['server/discover 401', 'server/discover 200', 'tools/list 401', 'tools/list 200', 'tools/call 200'],
    );
    // The refused token sent the client to the PRM again, and on to a registration of its own at as2.
    assert.deepEqual(
      as2.paths().filter((p) => !p.startsWith('/.well-known')),
      ['/register', '/authorize', '/token'],
    );
    const as1Client = authorizations(as1)[0]!.query.get('client_id')!;
    const as2Client = authorizations(as2)[0]!.query.get('client_id')!;
    assert.notEqual(as2Client, as1Client);
    assert.ok(!as2.requests.some((r) => `${r.query} ${r.form ?? ''} ${r.headers.authorization ?? ''}`.includes(as1Client)));
    assert.ok(rs.mcpRequests().at(-1)!.authorization?.startsWith('Bearer '));
    assert.ok(as2.check(rs.mcpRequests().at(-1)!.authorization!.slice('Bearer '.length)));
  } finally {
    await Promise.all([rs.close(), as1.close(), as2.close()]);
  }
});
