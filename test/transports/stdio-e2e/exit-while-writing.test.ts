// A server that closes its stdin and then exits: the client's write fails with EPIPE before the
// exit is known. The send must fail with what explains it (the exit code and the server's stderr),
// not with the pipe's error: the connection doctor and `mcpkit inspect` name the failing step
// from it (a studio test saw "write EPIPE" instead of "exited with code 3" under load).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StdioClientTransport } from '../../../src/transports/stdio/client.js';
import { ServerExitError } from '../../../src/transports/stdio/exit.js';
import { deferred, within } from '../../support/index.js';

const CHILD = `
require('node:fs').closeSync(0);
process.on('SIGUSR2', () => process.exit(3));
process.stderr.write('boom: API_KEY is not set\\nstdin closed\\n');
setInterval(() => {}, 1000);
`;

test('a write that meets a closed stdin fails with the exit that follows, stderr quoted', async () => {
  const transport = new StdioClientTransport({ command: process.execPath, args: ['-e', CHILD], stderr: 'pipe' });
  const closed = deferred();
  let err = '';
  transport.stderr?.on('data', (c: Buffer) => {
    err += c;
    if (err.includes('stdin closed')) closed.resolve();
  });
  const piped = deferred<Error>();
  transport.onerror = (e) => piped.resolve(e);
  await transport.start();
  try {
    await within(closed.promise, 'the server to close its stdin');
    const sent = transport.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} });
    sent.catch(() => {});
    // The pipe's error is known first; only then does the server exit.
    assert.match((await within(piped.promise, 'the write to fail')).message, /EPIPE|closed/);
    process.kill(transport.pid!, 'SIGUSR2');
    const failure = await sent.then(
      () => assert.fail('the send succeeded'),
      (e: unknown) => e,
    );
    assert.ok(failure instanceof ServerExitError, String(failure));
    assert.equal(failure.exitCode, 3);
    assert.match(failure.stderr, /boom: API_KEY is not set/);
  } finally {
    await transport.close();
  }
});
