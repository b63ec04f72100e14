import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from '../../src/client/connect.js';
import { runExample } from './run-example.js';

test('examples/http-server.ts serves both eras of clients and its elicitation works', async () => {
  const example = await runExample('examples/http-server.ts', ['0']);
  try {
    const url = example.url;
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
    await example.stop();
  }
});
