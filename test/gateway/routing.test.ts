// Which client a backend's question goes to: the call named by its signal; otherwise the one
// client with calls in flight on that backend; never a guess between several.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { McpError } from '../../src/jsonrpc/errors.js';
import type { RequestContext } from '../../src/server/context.js';
import { InputRouter } from '../../src/gateway/routing.js';

const ctx = (name: string) => ({ signal: new AbortController().signal, name }) as unknown as RequestContext & { name: string };

test('a question is routed to its call, or to the only client in flight, and refused when that is ambiguous', () => {
  const router = new InputRouter();
  const a1 = ctx('a1');
  const a2 = ctx('a2');
  const b1 = ctx('b1');
  assert.throws(
    () => router.route('srv', undefined),
    (e: McpError) => /no call in progress on "srv"/.test(e.message),
  );
  const fa1 = router.begin('srv', a1, 'session:a');
  const fa2 = router.begin('srv', a2, 'session:a');
  // One client (two calls): its latest call gets it.
  assert.equal(router.route('srv', undefined), a2);
  const fb1 = router.begin('srv', b1, 'session:b');
  // Two clients: the signal still says exactly which call...
  assert.equal(router.route('srv', fb1.signal), b1);
  assert.equal(router.route('srv', fa1.signal), a1);
  // ...and without it nobody is guessed.
  assert.throws(
    () => router.route('srv', undefined),
    (e: McpError) => e instanceof McpError && /2 clients have calls in progress/.test(e.message),
  );
  // Calls on another backend do not count.
  assert.throws(() => router.route('other', undefined), /no call in progress on "other"/);
  fb1.end();
  assert.equal(router.route('srv', undefined), a2);
  fa1.end();
  fa2.end();
  assert.throws(() => router.route('srv', undefined), /no call in progress/);
});

test('cancelling the client request aborts the forwarded call', () => {
  const router = new InputRouter();
  const controller = new AbortController();
  const c = { signal: controller.signal } as unknown as RequestContext;
  const flight = router.begin('srv', c, 'session:a');
  assert.equal(flight.signal.aborted, false);
  controller.abort(new Error('client cancelled'));
  assert.equal(flight.signal.aborted, true);
  assert.equal((flight.signal.reason as Error).message, 'client cancelled');
  flight.end();
});
