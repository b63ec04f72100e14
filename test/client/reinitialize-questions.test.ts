// A question a server asked in a session that has since ended is not answered into the next one.
// The attack on a relay (`mcpkit bridge --stdio-to-http`): the server asks elicitation in session
// A; A ends (the server restarted) and the client starts session B; the user's late answer to A's
// question was posted into B, where the id can name one of B's own requests. Now the question's
// signal fires when its session is replaced, and no answer to it is sent at all.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deferred, waitFor } from '../support/index.js';
import { deleteSession, openClient, startOurServer, text } from './http-fixture.js';

test("the answer to an old session's question is not sent into the new session; the question's signal fires", async () => {
  const s = await startOurServer();
  const answers: string[] = [];
  const recording: typeof fetch = (input, init) => {
    const body = typeof init?.body === 'string' ? init.body : '';
    if (init?.method === 'POST' && /"result"|"error"/.test(body) && !/"method"/.test(body)) answers.push(body);
    return fetch(input, init);
  };
  const asked = deferred<AbortSignal>();
  const late = deferred<void>();
  const { client, transport } = await openClient(
    s.url,
    { fetch: recording },
    {
      era: 'handshake',
      elicitation: async (_params, { signal }) => {
        asked.resolve(signal);
        await late.promise;
        return { action: 'accept', content: { name: 'late' } };
      },
    },
  );
  try {
    const old = transport.sessionId!;
    const call = client.callTool('ask', {}).then(
      () => 'answered',
      () => 'failed',
    );
    const signal = await asked.promise;
    // The session ends while the user thinks; the next request starts another.
    await deleteSession(s.url, old);
    assert.equal(text(await client.callTool('echo', { text: 'next' })), 'next');
    assert.notEqual(transport.sessionId, old);
    assert.equal(signal.aborted, true, "the old session's question was called off");
    // The user answers now, too late.
    late.resolve();
    assert.equal(await call, 'failed', 'the call of the old session does not complete');
    // Something sent after the answer would have been: when it is through, so was any answer.
    assert.equal(text(await client.callTool('echo', { text: 'after' })), 'after');
    await waitFor(() => s.methods.filter((m) => m === 'tools/call').length >= 3);
    assert.deepEqual(answers, [], 'no answer was posted');
  } finally {
    await client.close();
    await s.close();
  }
});
