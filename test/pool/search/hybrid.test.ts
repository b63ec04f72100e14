// The embeddings ranker over real HTTP: a scripted OpenAI-compatible /embeddings endpoint on
// loopback answers deterministic vectors (a hashed bag of words, with a few words folded
// together as a real model would place synonyms and translations near each other). It checks
// the wire format, batching, the cache of tool vectors, fusion with BM25F, and failures.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EmbeddingRanker, EmbeddingsError, OpenAIEmbeddings } from '../../../src/pool/search/embeddings.js';
import { ToolIndex } from '../../../src/pool/search/tool-index.js';
import type { HostTool } from '../../../src/pool/tool-source.js';

const DIM = 64;
/** What the scripted model treats as one meaning. */
const SAME: Record<string, string> = { automobile: 'car', vehicle: 'car', 汽车: 'car', rent: 'book', hire: 'book', reserve: 'book' };

function hashed(text: string): number[] {
  const v = new Array<number>(DIM).fill(0);
  for (const raw of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    const w = SAME[raw] ?? raw;
    let h = 2166136261;
    for (let i = 0; i < w.length; i++) h = Math.imul(h ^ w.charCodeAt(i), 16777619);
    v[(h >>> 0) % DIM] += 1;
  }
  return v;
}

interface Endpoint {
  url: string;
  requests: Array<{ auth: string | undefined; model: unknown; input: string[] }>;
  fail: { status: number; body: string } | undefined;
  close(): Promise<void>;
}

async function endpoint(): Promise<Endpoint> {
  const ep: Endpoint = { url: '', requests: [], fail: undefined, close: async () => {} };
  const read = async (req: IncomingMessage) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  };
  const server = createServer(async (req, res) => {
    const body = await read(req);
    ep.requests.push({ auth: req.headers.authorization, model: body.model, input: body.input });
    if (req.url !== '/v1/embeddings' || req.method !== 'POST') {
      res.writeHead(404).end();
      return;
    }
    if (ep.fail) {
      res.writeHead(ep.fail.status, { 'content-type': 'application/json' }).end(ep.fail.body);
      return;
    }
    // In reverse order, with indexes: a client must sort by `index`, as OpenAI's API allows.
    const data = (body.input as string[]).map((text, index) => ({ object: 'embedding', index, embedding: hashed(text) })).reverse();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data, model: body.model }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  ep.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  ep.close = () =>
    new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return ep;
}

const tool = (name: string, description: string): HostTool => ({ name, server: 'travel', tool: { name, description, inputSchema: { type: 'object' } } });
const tools = [
  tool('book_car', 'Reserve a car for given dates'),
  tool('search_flights', 'Find flights between two airports'),
  tool('hotel_rooms', 'List free rooms in a hotel'),
  tool('cancel_booking', 'Cancel a reservation'),
  tool('weather', 'Forecast for a city'),
];

test('OpenAIEmbeddings: POST {baseUrl}/embeddings with model, key and batches; vectors put back in input order', async () => {
  const ep = await endpoint();
  try {
    const client = new OpenAIEmbeddings({ baseUrl: `${ep.url}/`, model: 'scripted-1', apiKey: 'sk-test', batchSize: 2 });
    const out = await client.embed(['a car', 'b', 'c']);
    assert.equal(out.length, 3);
    assert.deepEqual([...(out[0] as Float32Array)], hashed('a car'));
    assert.deepEqual([...(out[2] as Float32Array)], hashed('c'));
    assert.deepEqual(
      ep.requests.map((r) => r.input),
      [['a car', 'b'], ['c']],
    );
    assert.ok(ep.requests.every((r) => r.auth === 'Bearer sk-test' && r.model === 'scripted-1'));
  } finally {
    await ep.close();
  }
});

test('hybrid: the ranker finds what shares no word with the query; tool vectors are embedded once, in batches', async () => {
  const ep = await endpoint();
  try {
    const ranker = new EmbeddingRanker(new OpenAIEmbeddings({ baseUrl: ep.url, model: 'scripted-1', batchSize: 2 }));
    const index = new ToolIndex(tools, { ranker });
    // BM25F alone: no tool says "hire" or "automobile".
    assert.deepEqual(index.search('hire an automobile'), []);
    const found = await index.searchAsync('hire an automobile', 3);
    assert.equal(found[0]?.name, 'book_car');
    // The five tools in batches of two (at most), and the query on its own.
    const sent = ep.requests.map((r) => r.input);
    assert.deepEqual(
      sent.filter((i) => i[0] === 'hire an automobile'),
      [['hire an automobile']],
    );
    const batches = sent.filter((i) => i[0] !== 'hire an automobile');
    assert.deepEqual(batches.map((b) => b.length).sort(), [1, 2, 2]);
    assert.equal(new Set(batches.flat()).size, 5);
    // Another query: only the query goes out; the tool vectors are cached.
    const other = await index.searchAsync('汽车', 1);
    assert.equal(other[0]?.name, 'book_car');
    assert.equal(ep.requests.length, 5);
    assert.deepEqual(ep.requests[4]?.input, ['汽车']);
    // A tool listed anew with other text is embedded again; the rest are not.
    const relisted = [...tools.slice(0, 4), tool('weather', 'Forecast and rain radar for a city')];
    index.update(relisted);
    await index.searchAsync('rain radar', 2);
    assert.deepEqual(
      ep.requests.slice(5).map((r) => r.input),
      [['travel: weather\nForecast and rain radar for a city'], ['rain radar']],
    );
    // Fusion keeps BM25F's finds: a query both rank the same way puts that tool first.
    assert.equal((await index.searchAsync('cancel reservation', 1))[0]?.name, 'cancel_booking');
  } finally {
    await ep.close();
  }
});

test('a failing endpoint: searchAsync answers from BM25F and reports the error; the next search asks again', async () => {
  const ep = await endpoint();
  try {
    ep.fail = { status: 401, body: JSON.stringify({ error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } }) };
    const errors: unknown[] = [];
    const index = new ToolIndex(tools, {
      ranker: new EmbeddingRanker(new OpenAIEmbeddings({ baseUrl: ep.url, model: 'scripted-1' })),
      onRankerError: (e) => errors.push(e),
    });
    const found = await index.searchAsync('cancel reservation', 2);
    assert.deepEqual(
      found.map((t) => t.name),
      index.search('cancel reservation', 2).map((t) => t.name),
    );
    assert.equal(errors.length, 1);
    assert.ok(errors[0] instanceof EmbeddingsError);
    assert.equal((errors[0] as EmbeddingsError).status, 401);
    assert.match((errors[0] as Error).message, /answered 401: Incorrect API key provided/);
    // Not cached as a failure: once the endpoint works, the ranker is used.
    ep.fail = undefined;
    assert.equal((await index.searchAsync('hire an automobile', 1))[0]?.name, 'book_car');
    assert.equal(errors.length, 1);
  } finally {
    await ep.close();
  }
});

test('malformed answers and an unreachable endpoint are EmbeddingsErrors that say what happened', async () => {
  const ep = await endpoint();
  const client = new OpenAIEmbeddings({ baseUrl: ep.url, model: 'scripted-1' });
  try {
    ep.fail = { status: 200, body: '{"data":[{"index":0,"embedding":[1,"x"]}]}' };
    await assert.rejects(client.embed(['a']), (e: Error) => e instanceof EmbeddingsError && /malformed vector/.test(e.message));
    ep.fail = { status: 200, body: '{"data":[]}' };
    await assert.rejects(client.embed(['a']), /answered 0 vectors for 1 texts/);
    ep.fail = { status: 200, body: 'not json' };
    await assert.rejects(client.embed(['a']), /not JSON/);
  } finally {
    await ep.close();
  }
  // An endpoint that is gone (never used, so no pooled connection): the refusal is named.
  const gone = await endpoint();
  await gone.close();
  const dead = new OpenAIEmbeddings({ baseUrl: gone.url, model: 'scripted-1' });
  await assert.rejects(
    dead.embed(['a']),
    (e: Error) => e instanceof EmbeddingsError && /^Embeddings endpoint http:\/\/127\.0\.0\.1:\d+\/v1\/embeddings: .*ECONNREFUSED/.test(e.message),
  );
});

test("the caller's signal: no listener is left on it after a search, and aborting it stops the search", async () => {
  const ep = await endpoint();
  try {
    // A Host passes its own long-lived signal: a listener per request would pile up on it.
    const controller = new AbortController();
    const index = new ToolIndex(tools, { ranker: new EmbeddingRanker(new OpenAIEmbeddings({ baseUrl: ep.url, model: 'scripted-1' })) });
    assert.equal((await index.searchAsync('hire a car', 1, { signal: controller.signal }))[0]?.name, 'book_car');
    assert.equal(getEventListeners(controller.signal, 'abort').length, 0);
    controller.abort(new Error('stopped by the user'));
    await assert.rejects(index.searchAsync('another query', 1, { signal: controller.signal }), /stopped by the user/);
  } finally {
    await ep.close();
  }
});
