// A 2026-07-28 multi round-trip request over real HTTP: the params a round's state is bound to
// are read from the request's own JSON text, and only when the handler asks for input (the
// HTTP core hands the text down instead of every request copying its params). What must hold:
// the binding is to the params as sent, even when something on the server changed them in
// place before the handler asked, and other params with the same state are still refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { McpServer } from '../../../src/server/mcp-server.js';
import { serve } from '../../../src/serving/node.js';
import { meta } from '../../server/modern/helpers.js';
import { modernToolCallHeaders } from '../../support/index.js';

const NAME_FORM = {
  message: 'What is your name?',
  requestedSchema: { type: 'object' as const, properties: { name: { type: 'string' as const } }, required: ['name'] },
};

async function start() {
  const mcp = new McpServer({ name: 'rounds', version: '1.0.0', onerror: () => {} });
  mcp.tool('greet', { input: { greeting: z.string() } }, async ({ greeting }, ctx) => {
    const r = await ctx.elicit(NAME_FORM);
    return `${greeting}, ${(r.content as { name: string }).name}!`;
  });
  // Request middleware that rewrites the arguments in place before the handler runs (and
  // before it asks): the state must still be bound to what the client sent.
  mcp.server.use(async (method, params, _ctx, next) => {
    const args = params?.arguments as { greeting?: string } | undefined;
    if (method === 'tools/call' && args?.greeting !== undefined) args.greeting = args.greeting.toUpperCase();
    return next();
  });
  const running = await serve(mcp, { port: 0, host: '127.0.0.1', stateful: false, responseMode: 'json' });
  const call = async (params: Record<string, unknown>) => {
    const res = await fetch(running.url, {
      method: 'POST',
      headers: modernToolCallHeaders('greet'),
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { ...params, _meta: meta({ elicitation: {} }) } }),
    });
    return { status: res.status, body: (await res.json()) as { result?: Record<string, any>; error?: { code: number; message: string } } };
  };
  return { running, call };
}

test('2026-07-28 over HTTP: a retry with the params as sent completes, though the server changed them in place before asking', async () => {
  const { running, call } = await start();
  try {
    const first = await call({ name: 'greet', arguments: { greeting: 'hi' } });
    assert.equal(first.status, 200);
    assert.equal(first.body.result?.resultType, 'input_required', JSON.stringify(first.body));
    const state = first.body.result!.requestState as string;
    const answers = { 'elicit-1': { action: 'accept', content: { name: 'Ada' } } };
    const done = await call({ name: 'greet', arguments: { greeting: 'hi' }, inputResponses: answers, requestState: state });
    assert.equal(done.status, 200);
    assert.equal(done.body.result?.resultType, 'complete', JSON.stringify(done.body));
    assert.equal(done.body.result?.content[0].text, 'HI, Ada!');
  } finally {
    await running.close();
  }
});

test('2026-07-28 over HTTP: a state presented with other params, or with the params as the server changed them, is -32602', async () => {
  const { running, call } = await start();
  try {
    const first = await call({ name: 'greet', arguments: { greeting: 'hi' } });
    const state = first.body.result!.requestState as string;
    const answers = { 'elicit-1': { action: 'accept', content: { name: 'Eve' } } };
    for (const greeting of ['yo', 'HI']) {
      const r = await call({ name: 'greet', arguments: { greeting }, inputResponses: answers, requestState: state });
      assert.equal(r.body.error?.code, -32602, `${greeting}: ${JSON.stringify(r.body)}`);
      assert.match(r.body.error!.message, /requestState/);
    }
  } finally {
    await running.close();
  }
});
