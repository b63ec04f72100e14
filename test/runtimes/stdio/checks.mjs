// The stdio checks of the runtime matrix, run with mcpkit's stdio client (dist/) against the stdio
// server (server.mjs). The same list runs in both directions: from Node against the server run
// by Bun or Deno, and inside Bun or Deno (client.mjs) against the server run by Node, so each
// runtime is measured as a stdio server and as a stdio client. `target(extra)` is the command
// line `{ command, args }` that starts the server, with `extra` appended to its arguments.
import assert from 'node:assert/strict';
import { McpClient } from '../../../dist/entries/client.js';
import { connect, ServerExitedError, StdioClientTransport } from '../../../dist/entries/stdio.js';

const INFO = { name: 'runtime-matrix-stdio-client', version: '1.0.0' };

function text(result) {
  return result.content.map((c) => c.text).join('');
}

async function withClient(target, options, fn) {
  const client = await connect(target(), { ...INFO, ...options });
  try {
    return await fn(client);
  } finally {
    await client.close();
  }
}

/** Everything a stream yields until it ends, as text. */
async function drain(stream) {
  let out = '';
  for await (const chunk of stream) out += chunk;
  return out;
}

/** name → check(target, serverRuntime), where serverRuntime names what runs the server ('bun', 'deno', 'node'). */
export const STDIO_CHECKS = {
  'stdio: handshake, tools/list, the runtime serving': async (target, serverRuntime) => {
    await withClient(target, { era: 'handshake' }, async (client) => {
      assert.equal(client.era, 'handshake');
      assert.equal(client.serverInfo.name, 'runtime-matrix-stdio');
      const names = (await client.listTools()).tools.map((t) => t.name).sort();
      assert.deepEqual(names, ['ask', 'chatty', 'echo', 'progress', 'runtime', 'sum']);
      assert.equal(text(await client.callTool('runtime', {})), serverRuntime);
    });
  },
  'stdio: 2026-07-28 (era auto): server/discover, no initialize': async (target) => {
    await withClient(target, { era: 'auto' }, async (client) => {
      assert.equal(client.era, 'modern');
      assert.equal(client.protocolVersion, '2026-07-28');
    });
  },
  'stdio: tools/call streams progress': async (target) => {
    for (const era of ['handshake', 'modern']) {
      await withClient(target, { era }, async (client) => {
        const seen = [];
        const result = await client.callTool('progress', { steps: 3 }, { onprogress: (p) => seen.push(p.progress) });
        assert.equal(text(result), 'did 3', era);
        assert.deepEqual(seen, [1, 2, 3], era);
      });
    }
  },
  'stdio: elicitation (a server request, and an input round)': async (target) => {
    for (const era of ['handshake', 'modern']) {
      const elicitation = async (params) => ({ action: 'accept', content: { name: `${params.message} Ada` } });
      await withClient(target, { era, elicitation }, async (client) => {
        assert.equal(text(await client.callTool('ask', {})), 'hello Your name? Ada', era);
      });
    }
  },
  'stdio: a plain JSON Schema input (ajv), and a refused one': async (target) => {
    await withClient(target, { era: 'handshake' }, async (client) => {
      assert.equal(text(await client.callTool('sum', { a: 2, b: 3 })), '5');
      const bad = await client.callTool('sum', { a: 'two', b: 3 });
      assert.equal(bad.isError, true);
    });
  },
  'stdio: 16 concurrent calls and a 1 MiB message each way': async (target) => {
    await withClient(target, { era: 'handshake' }, async (client) => {
      const texts = await Promise.all(Array.from({ length: 16 }, (_, i) => client.callTool('echo', { text: `n${i}` }).then(text)));
      assert.deepEqual(
        texts,
        Array.from({ length: 16 }, (_, i) => `n${i}`),
      );
      // Larger than any pipe buffer: both sides must reassemble lines from many chunks.
      const big = 'x'.repeat(1024 * 1024);
      assert.equal(text(await client.callTool('echo', { text: big })).length, big.length);
    });
  },
  'stdio: console.log in a tool goes to stderr; stdin EOF ends the server': async (target) => {
    // Built by hand to read the server's stderr, and with a shutdown grace far above the check's
    // ceiling: a server that did not exit on EOF would be killed only after the check failed.
    const transport = new StdioClientTransport({ ...target(), stderr: 'pipe', shutdownTimeoutMs: 120_000 });
    const stderr = drain(transport.stderr);
    const client = new McpClient({ ...INFO, era: 'handshake' });
    await client.connect(transport);
    assert.equal(text(await client.callTool('chatty', {})), 'said it');
    await client.ping();
    await client.close();
    const log = await stderr;
    assert.match(log, /chatty: a line for the log/);
    assert.match(log, /stdio-server: exit 0/, 'the server exited by itself, with code 0');
  },
  'stdio: a server that fails at start: ServerExitedError quoting its stderr': async (target) => {
    await assert.rejects(
      connect({ ...target(['--crash']), stderr: 'pipe' }, { ...INFO, era: 'auto' }),
      (e) => e instanceof ServerExitedError && e.exitCode === 3 && /missing API_TOKEN/.test(e.stderr),
    );
  },
};

/** Runs every check; resolves to { passed, passedNames, failed: [{ name, error }], total }. */
export async function runStdioChecks(target, serverRuntime, { timeoutMs = 30_000 } = {}) {
  const failed = [];
  const passedNames = [];
  for (const [name, check] of Object.entries(STDIO_CHECKS)) {
    let timer;
    const limit = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${name}: no answer within ${timeoutMs / 1000} s`)), timeoutMs);
    });
    try {
      await Promise.race([check(target, serverRuntime), limit]);
      passedNames.push(name);
    } catch (error) {
      failed.push({ name, error });
    } finally {
      clearTimeout(timer);
    }
  }
  return { passed: passedNames.length, passedNames, failed, total: Object.keys(STDIO_CHECKS).length };
}
