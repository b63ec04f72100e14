import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { connect } from '../../src/client/index.js';

test('examples/http-server.ts serves both eras of clients and its elicitation works', async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', 'examples/http-server.ts', '0'], { stdio: ['ignore', 'ignore', 'pipe'] });
  try {
    let err = '';
    child.stderr.setEncoding('utf8');
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr.on('data', (d: string) => {
        err += d;
        const m = /listening on (\S+)/.exec(err);
        if (m) resolve(m[1]);
      });
      child.once('exit', (code) => reject(new Error(`example exited with ${code}: ${err}`)));
    });
    const client = await connect(url, {
      elicitation: async () => ({ action: 'accept', content: {} }), // the schema default (false) is applied
    });
    try {
      const hello = await client.callTool('greet', { name: 'Ada' });
      assert.deepEqual(hello.content, [{ type: 'text', text: 'Hello, Ada!' }]);
      const kept = await client.callTool('confirm_delete', { path: '/tmp/x' });
      assert.deepEqual(kept.content, [{ type: 'text', text: 'kept it' }]);
    } finally {
      await client.close();
    }
  } finally {
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
});
