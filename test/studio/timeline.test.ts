// The protocol timeline as recorded: every JSON-RPC message both ways with its era and, for an
// answer, the latency since its request; the HTTP exchanges of HTTP servers with their headers,
// credentials masked; a message too large for the event stream fetched whole by its number.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { RunningServer } from '../../src/serving/node.js';
import { resolveTarget } from '../../src/pool/targets.js';
import type { RunningStudio } from '../../src/studio/http.js';
import { forStream, STREAM_BODY_LIMIT } from '../../src/studio/timeline.js';
import { startDemoHttp } from '../support/index.js';
import { apiCall, signIn, startTestStudio } from './helpers.js';

describe('the timeline', () => {
  let demo: RunningServer;
  let studio: RunningStudio;
  before(async () => {
    demo = await startDemoHttp();
    studio = await startTestStudio({
      servers: [{ name: 'demo', origin: 'command-line', target: resolveTarget(demo.url, { headers: { Authorization: 'Bearer TOP-SECRET-TOKEN' } }) }],
    });
    await studio.ready;
  });
  after(async () => {
    await studio?.close();
    await demo?.close();
  });

  test('a call and its answer, both ways, with the era and the latency', async () => {
    await studio.hub.client('demo')!.callTool('echo', { message: 'hi' });
    const all = studio.hub.timeline.since(0);
    const req = all.filter((e) => e.kind === 'request' && e.method === 'tools/call').at(-1)!;
    const res = all.find((e) => e.seq > req.seq && e.kind === 'response' && e.id === req.id)!;
    assert.equal(req.dir, 'out');
    assert.equal(res.dir, 'in');
    assert.equal(res.method, 'tools/call');
    assert.equal(req.era, 'modern');
    assert.equal(res.era, 'modern');
    assert.ok(typeof res.latencyMs === 'number' && res.latencyMs >= 0);
    assert.equal((res.message as any).result.content[0].text, 'hi');
  });

  test('the HTTP exchanges, with their headers, credentials masked', async () => {
    const all = studio.hub.timeline.since(0);
    const post = all.find((e) => e.kind === 'http' && e.dir === 'out' && e.method === 'POST /mcp');
    assert.ok(post, 'no HTTP request recorded');
    assert.equal((post.message as any).headers.authorization, 'Bearer ***');
    const answer = all.find((e) => e.kind === 'http' && e.dir === 'in' && /^200 POST \/mcp/.test(e.method ?? ''));
    assert.ok(answer && typeof answer.latencyMs === 'number', 'no HTTP answer recorded');
    assert.ok((answer.message as any).headers['content-type']);
    assert.doesNotMatch(JSON.stringify(all), /TOP-SECRET-TOKEN/);
    // Nor through the API.
    const s = await signIn(studio);
    assert.doesNotMatch((await apiCall(s, '/api/timeline')).body, /TOP-SECRET-TOKEN/);
  });

  test('a message too large for the event stream is fetched whole by its number', async () => {
    const big = 'x'.repeat(STREAM_BODY_LIMIT + 10);
    await studio.hub.client('demo')!.callTool('echo', { message: big });
    const entry = studio.hub.timeline.since(0).find((e) => e.kind === 'response' && e.size > STREAM_BODY_LIMIT)!;
    const streamed = forStream(entry);
    assert.equal(streamed.truncated, true);
    assert.equal(streamed.message, undefined);
    const s = await signIn(studio);
    const whole = JSON.parse((await apiCall(s, `/api/timeline/${entry.seq}`)).body);
    assert.equal(whole.message.result.content[0].text, big);
  });
});
