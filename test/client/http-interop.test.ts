// OUR client against OUR Streamable HTTP server: progress, list_changed on the GET stream,
// elicitation round-trips (stateful, responseMode auto and sse), and stateless mode. Sessions,
// the GET stream and server-to-client requests belong to the handshake era: those clients pin it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ElicitParams } from '../../src/protocol/params.js';
import type { ServeOptions } from '../../src/serving/node.js';
import { openClient, startOurServer, text, type OurServer } from './http-fixture.js';
import { waitFor } from '../support/index.js';

/** Whether the server has a connected standalone GET stream for this session (peeks inside). */
function getStreamOpen(s: OurServer, sessionId: string): boolean {
  const inner = s.running.handler.streamable as unknown as { sessions: Map<string, { transport: { standalone?: { connected: boolean } } }> };
  return inner.sessions.get(sessionId)?.transport.standalone?.connected === true;
}

for (const responseMode of ['auto', 'sse'] as const) {
  const options: ServeOptions = { responseMode };

  // Era-neutral: the default client (auto, which picks 2026-07-28 here) and a pinned handshake one.
  for (const era of ['auto', 'handshake'] as const) {
    test(`stateful, responseMode ${responseMode}, era ${era}: progress notifications reach onprogress before the result`, async () => {
      const s = await startOurServer(options);
      const { client, errors } = await openClient(s.url, {}, { era });
      try {
        assert.equal(client.era, era === 'auto' ? 'modern' : 'handshake');
        const seen: Array<[number, number | undefined, string | undefined]> = [];
        const r = await client.callTool('progress', { steps: 3 }, { onprogress: (p) => seen.push([p.progress, p.total, p.message]) });
        assert.equal(text(r), 'did 3');
        assert.deepEqual(seen, [
          [1, 3, 'step 1'],
          [2, 3, 'step 2'],
          [3, 3, 'step 3'],
        ]);
        assert.deepEqual(errors, []);
      } finally {
        await client.close();
        await s.close();
      }
    });
  }

  test(`stateful, responseMode ${responseMode}: tools/list_changed arrives on the standalone GET stream`, async () => {
    const s = await startOurServer(options);
    const { client, transport, errors } = await openClient(s.url, {}, { era: 'handshake' });
    try {
      const changed = new Promise<void>((resolve) => client.on('notifications/tools/list_changed', () => resolve()));
      await waitFor(() => getStreamOpen(s, transport.sessionId!), 'the GET stream');
      s.mcp.tool('late', () => 'late');
      await changed;
      const tools = await client.listTools();
      assert.ok(tools.tools.some((t) => t.name === 'late'));
      assert.equal(text(await client.callTool('late')), 'late');
      assert.deepEqual(errors, []);
    } finally {
      await client.close();
      await s.close();
    }
  });

  test(`stateful, responseMode ${responseMode}: elicitation round-trip (server asks, client answers by POST)`, async () => {
    const s = await startOurServer(options);
    const asked: ElicitParams[] = [];
    const { client, errors } = await openClient(
      s.url,
      {},
      {
        era: 'handshake',
        elicitation: (params) => {
          asked.push(params);
          return { action: 'accept', content: { name: 'Ada' } };
        },
      },
    );
    try {
      assert.equal(text(await client.callTool('ask')), 'hello Ada');
      assert.equal(asked.length, 1);
      assert.equal(asked[0].message, 'Your name?');
      // And a decline travels back just as well.
      client.setElicitationHandler(() => ({ action: 'decline' }));
      assert.equal(text(await client.callTool('ask')), 'decline');
      assert.deepEqual(errors, []);
    } finally {
      await client.close();
      await s.close();
    }
  });
}

test('stateless (stateful: false): no session id, no GET stream, calls and progress still work', async () => {
  const s = await startOurServer({ stateful: false });
  const wire: string[] = [];
  const recording: typeof fetch = (input, init) => {
    wire.push(`${init?.method ?? 'GET'} ${new Headers(init?.headers).get('mcp-session-id') ?? '-'}`);
    return fetch(input, init);
  };
  // The handshake era's stateless mode (a 2026-07-28 client is stateless anyway).
  const { client, transport, errors } = await openClient(s.url, { fetch: recording }, { era: 'handshake' });
  try {
    assert.equal(transport.sessionId, undefined);
    assert.equal(transport.protocolVersion, '2025-11-25');
    assert.equal(text(await client.callTool('echo', { text: 'stateless' })), 'stateless');
    const seen: number[] = [];
    assert.equal(text(await client.callTool('progress', { steps: 2 }, { onprogress: (p) => seen.push(p.progress) })), 'did 2');
    assert.deepEqual(seen, [1, 2], 'progress rides on the POST response stream');
    assert.ok((await client.listTools()).tools.some((t) => t.name === 'echo'));
    // The GET was refused (405: no standalone stream here), once, quietly.
    await waitFor(() => wire.includes('GET -'));
    assert.equal(wire.filter((w) => w.startsWith('GET')).length, 1);
    assert.ok(
      wire.every((w) => w.endsWith(' -')),
      'no session id ever sent',
    );
    assert.equal(s.running.handler.streamable.sessionCount, 0);
    assert.deepEqual(errors, []);
  } finally {
    await client.close();
    await s.close();
  }
  assert.ok(!wire.includes('DELETE -'), 'no session to DELETE');
});

test('stateless (stateful: false): a client with an elicitation handler is told the server cannot ask, not that it did not declare', async () => {
  const s = await startOurServer({ stateful: false });
  let asked = 0;
  const { client, errors } = await openClient(s.url, {}, { era: 'handshake', elicitation: () => (asked++, { action: 'decline' }) });
  try {
    const r = await client.callTool('ask');
    assert.equal(r.isError, true);
    assert.match(text(r) ?? '', /^Cannot elicit: this HTTP server is stateless \(no sessions\), so it cannot send requests to the client/);
    assert.equal(asked, 0);
    assert.deepEqual(errors, []);
  } finally {
    await client.close();
    await s.close();
  }
});
