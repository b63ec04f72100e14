// The pure parts of sessions: JSON and capability diffs, a recording's replay plan (a call with
// input_required rounds answered by its last round; what the connection adds taken out of its
// params), the pairing of two sessions' calls, and the reading of a recording file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { TimelineEntry } from '../../src/studio/api-types.js';
import { answerDiff, catalogDiff, jsonDiff, pairCalls } from '../../src/studio/diff.js';
import { readRecording, replayPlan, withoutEnvelope, type PlannedCall } from '../../src/studio/recording.js';

let seq = 0;
function entry(dir: 'in' | 'out', kind: TimelineEntry['kind'], message: Record<string, unknown>, method?: string): TimelineEntry {
  return {
    seq: ++seq,
    time: seq,
    server: 's',
    dir,
    era: 'modern',
    kind,
    method: method ?? (message.method as string),
    id: message.id as number,
    size: 1,
    message,
  };
}

test('jsonDiff names each change by its path', () => {
  const a = { name: 'add', inputSchema: { properties: { a: { type: 'number' } }, required: ['a'] }, 'odd key': 1 };
  const b = { name: 'add', inputSchema: { properties: { a: { type: 'integer' }, c: {} }, required: ['a', 'c'] } };
  assert.deepEqual(jsonDiff(a, b), [
    { path: 'inputSchema.properties.a.type', kind: 'changed', before: 'number', after: 'integer' },
    { path: 'inputSchema.properties.c', kind: 'added', after: {} },
    { path: 'inputSchema.required[1]', kind: 'added', after: 'c' },
    { path: '["odd key"]', kind: 'removed', before: 1 },
  ]);
  assert.deepEqual(jsonDiff({ x: [1, { y: null }] }, { x: [1, { y: null }] }), []);
});

test('catalogDiff: added, removed, changed with the schema change, and lists on one side only', () => {
  const d = catalogDiff(
    { tools: [{ name: 'a' }, { name: 'b', inputSchema: { type: 'object' } }, { name: 'gone' }], prompts: [{ name: 'p' }] },
    { tools: [{ name: 'a' }, { name: 'b', inputSchema: { type: 'object', required: ['x'] } }, { name: 'new' }], resources: [] },
  );
  const tools = d.lists.tools!;
  assert.deepEqual(
    tools.added.map((t) => t.name),
    ['new'],
  );
  assert.deepEqual(
    tools.removed.map((t) => t.name),
    ['gone'],
  );
  assert.deepEqual(
    tools.changed.map((c) => [c.key, c.changes.map((x) => x.path)]),
    [['b', ['inputSchema.required']]],
  );
  assert.equal(tools.unchanged, 1);
  assert.deepEqual(d.notCompared.sort(), ['prompts', 'resources']);
  assert.equal(d.same, false);
  assert.equal(catalogDiff({ tools: [{ name: 'a' }] }, { tools: [{ name: 'a' }] }).same, true);
});

test('a replay plan: the last round answers a call with input rounds; the envelope is not sent again', () => {
  const entries = [
    entry('out', 'request', { id: 1, method: 'server/discover', params: {} }),
    entry('in', 'response', { id: 1, result: {} }, 'server/discover'),
    entry('out', 'request', {
      id: 2,
      method: 'tools/call',
      params: { name: 'greet', arguments: {}, _meta: { 'io.modelcontextprotocol/protocolVersion': 'x', progressToken: 7, mine: 1 } },
    }),
    entry('in', 'response', { id: 2, result: { resultType: 'input_required', inputRequests: {}, requestState: 'st' } }, 'tools/call'),
    entry('out', 'request', { id: 3, method: 'tools/call', params: { name: 'greet', arguments: {}, inputResponses: {}, requestState: 'st' } }),
    entry('in', 'response', { id: 3, result: { resultType: 'complete', content: [{ type: 'text', text: 'hi' }] } }, 'tools/call'),
    entry('out', 'notification', { method: 'notifications/cancelled', params: {} }),
    entry('out', 'request', { id: 4, method: 'tools/call', params: { name: 'fails', arguments: {} } }),
    entry('in', 'error', { id: 4, error: { code: -32602, message: 'bad' } }, 'tools/call'),
  ];
  const plan = replayPlan({ entries }, 's');
  assert.deepEqual(
    plan.map((c) => [c.method, c.skip !== undefined]),
    [
      ['server/discover', true],
      ['tools/call', false],
      ['tools/call', false],
    ],
  );
  assert.deepEqual(plan[1].params, { name: 'greet', arguments: {}, _meta: { mine: 1 } });
  assert.deepEqual(plan[1].recorded, { result: { resultType: 'complete', content: [{ type: 'text', text: 'hi' }] } });
  assert.deepEqual(plan[2].recorded, { error: { code: -32602, message: 'bad' } });
  // The era's plumbing is not a difference.
  assert.deepEqual(answerDiff(plan[1].recorded, { result: { content: [{ type: 'text', text: 'hi' }], _meta: { x: 1 } } }), []);
  assert.deepEqual(withoutEnvelope({ a: 1, _meta: { 'io.modelcontextprotocol/clientInfo': {} } }), { a: 1 });
});

test('two sessions paired in order by what each call names', () => {
  const c = (method: string, name: string, text: string): PlannedCall => ({
    seq: 0,
    server: 's',
    method,
    params: { name, arguments: {} },
    recorded: { result: { content: [{ type: 'text', text }] } },
  });
  const pairs = pairCalls(
    [c('tools/call', 'echo', 'x'), c('tools/call', 'add', '5'), c('tools/call', 'old', '')],
    [c('tools/call', 'echo', 'x'), c('tools/call', 'new', ''), c('tools/call', 'add', 'sum 5')],
  );
  assert.deepEqual(
    pairs.map((p) => [p.a?.params?.name, p.b?.params?.name, p.answer.map((x) => x.path)]),
    [
      ['echo', 'echo', []],
      [undefined, 'new', []],
      ['add', 'add', ['content[0].text']],
      ['old', undefined, []],
    ],
  );
});

test('a file that is not a recording says why', () => {
  assert.match((readRecording('{') as { error: string }).error, /not JSON/);
  assert.match((readRecording('{"entries": []}') as { error: string }).error, /not a studio recording/);
  assert.match((readRecording('{"format": "mcpkit-studio-recording", "version": 99, "servers": [], "entries": []}') as { error: string }).error, /version 99/);
  assert.match(
    (readRecording('{"format": "mcpkit-studio-recording", "version": 1, "servers": [], "entries": [{"dir": "up"}]}') as { error: string }).error,
    /entry 0/,
  );
  const ok = readRecording('{"format": "mcpkit-studio-recording", "version": 1, "recordedAt": "", "studio": "x", "servers": [], "entries": []}');
  assert.ok(!('error' in ok));
});
