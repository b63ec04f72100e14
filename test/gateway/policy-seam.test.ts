// The gateway asks its policy at the right places: identify on every request, visible for every
// listed item and before a call, admit before a call is forwarded (a refusal is a JSON-RPC error
// carrying retryAfterMs, and the backend never sees the call), record after every call.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from '../../src/client/connect.js';
import { McpError } from '../../src/jsonrpc/errors.js';
import { createGateway } from '../../src/gateway/gateway.js';
import { GATEWAY_REFUSED } from '../../src/gateway/front.js';
import type { CallRecord, GatewayItem, GatewayPolicy } from '../../src/gateway/policy-types.js';
import { gatewayBackend as stdioBackend } from '../support/index.js';

test('identify, visible, admit and record are called where the seam says', async (t) => {
  const asked: string[] = [];
  const records: CallRecord[] = [];
  const admitted: GatewayItem[] = [];
  const policy: GatewayPolicy = {
    identify: (auth) => {
      asked.push('identify');
      return { id: auth?.principal ?? 'anonymous', scopes: [], claims: {}, auth };
    },
    visible: (_caller, item) => item.name !== 'local_pid',
    admit: async (_caller, item) => {
      admitted.push(item);
      return item.name === 'local_wait' ? { ok: false, reason: 'rate limit: 1 call a minute', retryAfterMs: 42_000 } : { ok: true };
    },
    record: (entry) => records.push(entry),
  };
  const gateway = createGateway({ servers: { local: stdioBackend('policy') }, policy });
  const running = await gateway.listen({ port: 0 });
  t.after(() => gateway.close());
  await gateway.ready;
  const client = await connect(running.url, { era: 'handshake' });
  t.after(() => client.close());

  const names = (await client.listTools()).tools.map((x) => x.name);
  assert.ok(names.includes('local_echo'));
  assert.ok(!names.includes('local_pid'), 'an invisible tool is not listed');
  // An invisible tool cannot be called either: to the caller it does not exist, and it is not admitted.
  await assert.rejects(client.callTool('local_pid', {}), (e: McpError) => e.code === -32602);
  assert.ok(!admitted.some((i) => i.name === 'local_pid'));

  const echoed = await client.callTool('local_echo', { text: 'a' });
  assert.equal((echoed.content[0] as { text: string }).text, 'echo:a');
  assert.deepEqual(admitted.at(-1), { kind: 'tool', name: 'local_echo', server: 'local', original: 'echo' });

  const refused = await client.callTool('local_wait', {}).catch((e: unknown) => e);
  assert.ok(refused instanceof McpError, String(refused));
  assert.equal(refused.code, GATEWAY_REFUSED);
  assert.equal(refused.message, 'rate limit: 1 call a minute');
  assert.deepEqual(refused.data, { reason: 'rate limit: 1 call a minute', retryAfterMs: 42_000 });

  assert.deepEqual(
    records.map((r) => [r.caller, r.method, r.item?.name, r.outcome]),
    [
      ['anonymous', 'tools/call', 'local_echo', 'ok'],
      ['anonymous', 'tools/call', 'local_wait', 'refused'],
    ],
  );
  assert.equal(records[1].error, 'rate limit: 1 call a minute');
  // A handshake-era client's calls are recorded with its session, all the same one.
  assert.match(String(records[0].session), /^session:\d+$/);
  assert.equal(records[1].session, records[0].session);
  assert.ok(asked.length >= 4, 'every request identifies its caller');
});
