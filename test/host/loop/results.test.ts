// The result-size limit: a long text result reaches the model as head + note + tail, the
// `read_full_result` tool is offered only while something was cut and reads the rest in pieces;
// images are never cut.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CutResults } from '../../../src/host/loop/results.js';
import { startLoopRig, textTurn, toolCallsTurn } from '../../support/index.js';

const PIXEL = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg==';
// 1000 characters a reader can place: "<0000>" ... each 10 characters long.
const LONG = Array.from({ length: 100 }, (_, i) => `<${String(i).padStart(4, '0')}>____`).join('');

const toolNames = (body: any): string[] => body.tools?.map((t: any) => t.function?.name ?? t.name) ?? [];

test('an oversized result: head and tail reach the model, read_full_result reads the rest, then is withdrawn in a new conversation', async () => {
  const rig = await startLoopRig({
    servers: {
      srv: (mcp) => {
        mcp.tool('big', { input: {} }, () => ({ content: [{ type: 'text', text: LONG }] }));
        mcp.tool('small', { input: {} }, () => 'tiny');
      },
    },
    host: { resultLimit: { maxChars: 200 } },
    script: [
      (req) => {
        assert.deepEqual(toolNames(req.body), ['big', 'small'], 'nothing was cut yet: no read_full_result');
        return toolCallsTurn([
          { name: 'big', arguments: {} },
          { name: 'small', arguments: {} },
        ]);
      },
      (req) => {
        assert.deepEqual(toolNames(req.body), ['big', 'small', 'read_full_result']);
        const [big, small] = req.body.messages.filter((m: any) => m.role === 'tool');
        assert.equal(small.content, 'tiny');
        assert.ok(big.content.startsWith(LONG.slice(0, 100)), 'the head');
        assert.ok(big.content.endsWith(LONG.slice(-100)), 'the tail');
        assert.ok(!big.content.includes('<0050>'), 'the middle is left out');
        assert.match(
          big.content,
          /\[\.\.\. 800 of 1000 characters left out here\. To read them call read_full_result with \{"id": "call_0_0", "offset": 100\} \.\.\.\]/,
        );
        return toolCallsTurn({ name: 'read_full_result', arguments: { id: 'call_0_0', offset: 100 } });
      },
      (req) => {
        const read = req.body.messages.at(-1);
        assert.equal(read.role, 'tool');
        assert.ok(read.content.startsWith('[characters 100..300 of 1000]\n<0010>____'));
        assert.match(read.content, /\[characters 300\.\.1000 remain: call read_full_result with \{"id": "call_0_0", "offset": 300\}\]$/);
        return toolCallsTurn({ name: 'read_full_result', arguments: { id: 'nope' } });
      },
      (req) => {
        assert.match(req.body.messages.at(-1).content, /^Error: No cut result has the id "nope"\. Ids of cut results: "call_0_0"\./);
        return textTurn('read it');
      },
      (req) => {
        assert.deepEqual(toolNames(req.body), ['big', 'small'], 'a new conversation has nothing cut');
        return textTurn('fresh');
      },
    ],
  });
  try {
    const answer = await rig.host.conversation().send('go');
    assert.equal(answer.text, 'read it');
    const results = rig.of('tool_result');
    assert.deepEqual(
      results.map((r) => [r.name, r.truncated]),
      [
        ['big', true],
        ['small', false],
      ],
    );
    // The event carries the server's whole result; only the model's copy is cut.
    assert.equal((results[0]!.result.content[0] as { text: string }).text, LONG);
    assert.equal((await rig.host.conversation().send('again')).text, 'fresh');
    rig.llm.assertNoErrors();
  } finally {
    await rig.close();
  }
});

test('images are never cut; the text beside them is', () => {
  const cut = new CutResults(50);
  const out = cut.limit('c1', [
    { type: 'text', text: 'x'.repeat(80) },
    { type: 'image', data: PIXEL.repeat(100), mimeType: 'image/png' },
    { type: 'text', text: 'y'.repeat(80) },
  ]);
  assert.equal(out.truncated, true);
  assert.equal(out.content.length, 2);
  assert.deepEqual(out.content[1], { type: 'image', data: PIXEL.repeat(100), mimeType: 'image/png' });
  const text = (out.content[0] as { text: string }).text;
  assert.ok(text.startsWith('x'.repeat(25)) && text.endsWith('y'.repeat(25)));
  assert.match(text, /112 of 162 characters left out/);
  // Under the limit: untouched, nothing kept.
  const small = cut.limit('c2', [{ type: 'text', text: 'short' }]);
  assert.equal(small.truncated, false);
  assert.equal(cut.size, 1);
  // A cut never splits a surrogate pair.
  const emoji = new CutResults(12).limit('c3', [{ type: 'text', text: '😀'.repeat(20) }]);
  assert.ok(!(emoji.content[0] as { text: string }).text.includes('\ufffd'));
  assert.doesNotMatch((emoji.content[0] as { text: string }).text, /[\ud800-\udbff](?![\udc00-\udfff])/);
});
