// What connect() throws when it cannot connect (issue 28, trap 7): a URL whose port refuses the
// connection is a LocalError of kind 'network' (docs/client.md: local problems are LocalErrors),
// in every era, and a later call that cannot reach the server is one too; a stdio target given
// to the runtime-neutral connect (mcpkit/client) says where stdio targets are connected.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type AddressInfo } from 'node:net';
import { connect as neutralConnect } from '../../src/entries/client.js';
import { connect as rootConnect } from '../../src/entries/index.js';
import { LocalError } from '../../src/jsonrpc/errors.js';
import { McpServer } from '../../src/server/mcp-server.js';
import { serve } from '../../src/serving/node.js';

/** A loopback port nobody listens on (bound, then let go): connecting to it is refused. */
function refusedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

for (const era of ['auto', 'modern', 'handshake'] as const) {
  test(`connect() to a refused port rejects with a LocalError of kind 'network' naming the URL (era ${era})`, async () => {
    const url = `http://127.0.0.1:${await refusedPort()}/mcp`;
    for (const connect of [neutralConnect, rootConnect]) {
      await assert.rejects(connect(url, { era }), (err: unknown) => {
        assert.ok(err instanceof LocalError, `a LocalError, got ${(err as Error)?.name}: ${(err as Error)?.message}`);
        assert.equal(err.kind, 'network');
        assert.match(err.message, new RegExp(`${url.replace(/[.]/g, '\\.')} failed: .*ECONNREFUSED`));
        return true;
      });
    }
  });
}

test("a call to a server that went away rejects with a LocalError of kind 'network' too", async () => {
  const mcp = new McpServer({ name: 'gone', version: '1.0.0' });
  mcp.tool('hello', () => 'hi');
  const running = await serve(mcp, { port: 0 });
  const client = await neutralConnect(running.url, { era: 'modern' });
  try {
    assert.equal((await client.callTool('hello', {})).isError, undefined);
    await running.close();
    await assert.rejects(client.callTool('hello', {}), (err: unknown) => err instanceof LocalError && err.kind === 'network');
  } finally {
    await client.close();
  }
});

test('connect({ command }) from mcpkit/client says that stdio targets come from mcpkit/stdio or mcpkit', async () => {
  await assert.rejects(
    neutralConnect({ command: 'node', args: ['server.js'] } as never),
    (err: unknown) =>
      err instanceof TypeError &&
      /connect\(\) from mcpkit\/client takes a URL or a transport; a stdio server \(\{ command \}\) is started by connect\(\) from 'mcpkit\/stdio' or 'mcpkit'/.test(
        err.message,
      ),
  );
});
