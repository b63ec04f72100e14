// ctx.elicit with a Standard Schema (zod) as the form: sent as its JSON Schema, the accepted
// answer validated by it and typed as its output, in both eras (a server-to-client request in
// the handshake era; an input_required round in 2026-07-28).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { McpServer } from '../../src/server/mcp-server.js';
import type { ElicitAnswer } from '../../src/server/elicit.js';
import type { ElicitParams, ElicitResult } from '../../src/protocol/params.js';
import { createTestPair } from '../../src/testing/index.js';
import type { Equal, Expect } from '../support/index.js';
import { textOf } from './helpers.js';

const ERAS = ['handshake', 'modern'] as const;

const Booking = z.object({
  name: z.string().trim().min(1).describe('Who books'),
  seats: z.number().int().min(1).default(2),
  diet: z.enum(['any', 'vegetarian']).optional(),
});

function bookingServer(): McpServer {
  const server = new McpServer({ name: 'elicit-schema', version: '1.0.0', onerror: () => {} });
  server.tool('book', async (_a, ctx) => {
    const r = await ctx.elicit({ message: 'Booking details?', requestedSchema: Booking });
    type _Answer = Expect<Equal<typeof r, ElicitAnswer<{ name: string; seats: number; diet?: 'any' | 'vegetarian' | undefined }>>>;
    if (r.action !== 'accept') return `no booking (${r.action})`;
    // Typed as the schema's output: seats is a number (its default applied), name a string.
    const seats: number = r.content.seats;
    // @ts-expect-error the schema has no such field
    r.content.email;
    return `${r.content.name} x${seats}${r.content.diet ? ` (${r.content.diet})` : ''}`;
  });
  // A shape works as a form too.
  server.tool('confirm', async (_a, ctx) => {
    const r = await ctx.elicit({ message: 'Sure?', requestedSchema: { ok: z.boolean() } });
    return r.action === 'accept' ? `ok=${r.content.ok}` : r.action;
  });
  // A raw JSON Schema form is untyped, as before.
  server.tool('raw', async (_a, ctx) => {
    const r = await ctx.elicit({ message: 'Raw?', requestedSchema: { type: 'object', properties: { v: { type: 'string' } } } });
    type _Raw = Expect<Equal<typeof r, ElicitResult>>;
    return `${r.action} ${String(r.content?.v)}`;
  });
  server.tool('nested', async (_a, ctx) => {
    const r = await ctx.elicit({ message: 'Address?', requestedSchema: z.object({ address: z.object({ city: z.string() }) }) });
    return r.action;
  });
  server.tool('dated', async (_a, ctx) => (await ctx.elicit({ message: 'When?', requestedSchema: { when: z.date() } })).action);
  return server;
}

for (const era of ERAS) {
  test(`ctx.elicit with a zod schema (${era}): its JSON Schema is sent; the answer comes back validated and typed`, async () => {
    const asked: ElicitParams[] = [];
    let answer: ElicitResult = { action: 'accept', content: { name: '  Ann ', diet: 'vegetarian' } };
    const { client, close } = await createTestPair(bookingServer(), {
      era,
      elicitation: (params) => {
        asked.push(params);
        return answer;
      },
    });
    // The client fills the default (seats: 2) from the JSON Schema; trim is the schema's output.
    assert.equal(textOf(await client.callTool('book')), 'Ann x2 (vegetarian)');
    assert.equal(asked.length, 1);
    assert.ok(asked[0].mode !== 'url');
    assert.deepEqual(asked[0].requestedSchema, {
      type: 'object',
      properties: {
        name: { type: 'string', minLength: 1, description: 'Who books' },
        seats: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER, default: 2 },
        diet: { type: 'string', enum: ['any', 'vegetarian'] },
      },
      required: ['name'],
    });

    answer = { action: 'decline' };
    assert.equal(textOf(await client.callTool('book')), 'no booking (decline)');

    answer = { action: 'accept', content: { ok: true } };
    assert.equal(textOf(await client.callTool('confirm')), 'ok=true');
    const last = asked.at(-1);
    assert.ok(last && last.mode !== 'url');
    assert.deepEqual(last.requestedSchema, {
      type: 'object',
      properties: { ok: { type: 'boolean' } },
      required: ['ok'],
    });

    answer = { action: 'accept', content: { v: 'x' } };
    assert.equal(textOf(await client.callTool('raw')), 'accept x');
    await close();
  });

  test(`ctx.elicit with a zod schema (${era}): an answer the schema refuses is an error, not content`, async () => {
    const { client, close } = await createTestPair(bookingServer(), {
      era,
      elicitation: () => ({ action: 'accept', content: { name: 'Ann', seats: 0, diet: 'meat' } }),
    });
    const r = await client.callTool('book');
    assert.equal(r.isError, true);
    assert.match(textOf(r), /^Client answered elicitation with invalid content: "seats": .*; "diet": /);
    // Accepted with required fields missing: refused too.
    client.setElicitationHandler(() => ({ action: 'accept', content: {} }));
    const missing = await client.callTool('book');
    assert.equal(missing.isError, true);
    assert.match(textOf(missing), /"name" is required/);
    await close();
  });

  test(`ctx.elicit with a zod schema (${era}): a form a client cannot render fails in the server, before asking`, async () => {
    let asked = 0;
    const { client, close } = await createTestPair(bookingServer(), { era, elicitation: () => (asked++, { action: 'accept' }) });
    const r = await client.callTool('nested');
    assert.equal(r.isError, true);
    assert.match(textOf(r), /^Cannot elicit: Property "address" must be a primitive field .*got type "object"/);
    const dated = await client.callTool('dated');
    assert.equal(dated.isError, true);
    assert.match(textOf(dated), /^Cannot elicit: .*Date cannot be represented in JSON Schema\); a form holds only string, number/);
    assert.equal(asked, 0);
    await close();
  });
}
