// serveStdio sends console output to stderr: a console.log in a tool would otherwise corrupt the
// protocol stream on stdout (issue 13, item 6). A real child process, as users run it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StdioClientTransport } from '../../src/transports/stdio/client.js';
import { McpClient } from '../../src/client/client.js';
import { waitFor } from '../support/index.js';

test('a console.log inside a stdio tool goes to stderr; the call still succeeds', async () => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', 'test/fixtures/stdio/console-server.ts'],
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const client = new McpClient({ name: 'c', version: '1', era: 'handshake' });
  await client.connect(transport);
  try {
    const r = await client.callTool('chatty', {});
    assert.deepEqual(r.content, [{ type: 'text', text: 'done' }]);
    await waitFor(() => stderr.includes('an object'), 'the console output on stderr');
    assert.match(stderr, /a stray log line from the tool/);
  } finally {
    await client.close();
  }
});
