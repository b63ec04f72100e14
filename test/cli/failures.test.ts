// Unexpected failures of a command are one line that says what and what to do, with no stack
// frames unless DEBUG is set (issue 13, item 4).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { mcpkit } from './helpers.js';

async function busyPort(): Promise<{ port: number; close: () => Promise<void> }> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  return { port, close: () => new Promise<void>((r) => s.close(() => r())) };
}

test('serve on a port in use: one line naming the address and what to do, exit 1, no stack frames', async () => {
  const busy = await busyPort();
  try {
    const r = await mcpkit(['serve', '--port', String(busy.port)], { env: {} });
    assert.equal(r.code, 1);
    assert.match(r.stderr, new RegExp(`127\\.0\\.0\\.1:${busy.port} is already in use: choose another port with --port`));
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack frames');
    const debug = await mcpkit(['serve', '--port', String(busy.port)], { env: { DEBUG: '1' } });
    assert.equal(debug.code, 1);
    assert.match(debug.stderr, /EADDRINUSE[\s\S]*\n\s+at /, 'DEBUG shows the frames');
  } finally {
    await busy.close();
  }
});

test('a target with another URL scheme, or without one, is a usage error that says so (exit 2)', async () => {
  const ftp = await mcpkit(['tools', 'ftp://host/x']);
  assert.equal(ftp.code, 2);
  assert.match(ftp.stderr, /unsupported URL scheme ftp: \(use http:\/\/ or https:\/\/\)/);
  assert.doesNotMatch(ftp.stderr, /command not found/);
  const bare = await mcpkit(['call', 'localhost:3000/mcp', 'echo', 'message=hi']);
  assert.equal(bare.code, 2);
  assert.match(bare.stderr, /"localhost:3000\/mcp" is neither a URL nor a command: did you mean http:\/\/localhost:3000\/mcp\?/);
});
