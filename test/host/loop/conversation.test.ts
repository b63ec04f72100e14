// The host loop against a real mcpkit server over HTTP and scripted model endpoints of both wire
// formats: parallel tool calls, results mapped into each format (isError, images, resource
// links, embedded resources, structuredContent), malformed calls answered and retried once, the
// step limit, and a failed message leaving the history as it was.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { ModelError } from '../../../src/host/model.js';
import { deferred, startLoopRig, textTurn, toolCallsTurn, type ScriptedRequest } from '../../support/index.js';

const PIXEL = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg==';

for (const flavor of ['openai', 'anthropic'] as const) {
  test(`${flavor}: two calls of one step run in parallel; results, errors and media reach the model in its format`, async () => {
    // Both calls must be in the server at once for either to finish: proof they run in parallel.
    const both = { a: deferred(), b: deferred() };
    let checked = false;
    const rig = await startLoopRig({
      flavor,
      servers: {
        srv: (mcp) => {
          mcp.tool('wait', { input: { key: z.enum(['a', 'b']) } }, async ({ key }) => {
            both[key].resolve();
            await Promise.all([both.a.promise, both.b.promise]);
            return `${key} done`;
          });
          mcp.tool('fail', { input: {} }, () => ({ content: [{ type: 'text', text: 'disk full' }], isError: true }));
          mcp.tool('picture', { input: {} }, () => ({
            content: [
              { type: 'image', data: PIXEL, mimeType: 'image/png' },
              { type: 'resource_link', uri: 'file:///tmp/report.txt', name: 'report', mimeType: 'text/plain', description: 'the full report' },
              { type: 'resource', resource: { uri: 'memo://1', mimeType: 'text/plain', text: 'memo body' } },
            ],
            structuredContent: { width: 1 },
          }));
        },
      },
      script: [
        toolCallsTurn([
          { name: 'wait', arguments: { key: 'a' } },
          { name: 'wait', arguments: { key: 'b' } },
          { name: 'fail', arguments: {} },
          { name: 'picture', arguments: {} },
        ]),
        (req: ScriptedRequest) => {
          const body = req.body;
          if (flavor === 'openai') {
            const tools = body.messages.filter((m: any) => m.role === 'tool');
            assert.deepEqual(
              tools.map((m: any) => m.tool_call_id),
              ['call_0_0', 'call_0_1', 'call_0_2', 'call_0_3'],
            );
            assert.equal(tools[0].content, 'a done');
            assert.match(tools[2].content, /^Error: disk full/);
            assert.match(tools[3].content, /Resource link: report <file:\/\/\/tmp\/report.txt> \(text\/plain\): the full report/);
            assert.match(tools[3].content, /Resource <memo:\/\/1> \(text\/plain\):\nmemo body/);
            assert.match(tools[3].content, /Structured result:\n\{\n {2}"width": 1\n\}/);
            // The image follows the tool messages in a user message (Chat Completions' tool role has no images).
            const image = body.messages.at(-1);
            assert.equal(image.role, 'user');
            assert.ok(JSON.stringify(image.content).includes(`data:image/png;base64,${PIXEL}`));
          } else {
            const results = body.messages.at(-1).content.filter((b: any) => b.type === 'tool_result');
            assert.deepEqual(
              results.map((b: any) => b.tool_use_id),
              ['toolu_0_0', 'toolu_0_1', 'toolu_0_2', 'toolu_0_3'],
            );
            assert.equal(results[2].is_error, true);
            assert.equal(results[2].content[0].text, 'disk full');
            const picture = results[3].content;
            assert.deepEqual(picture[0], { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PIXEL } });
            assert.ok(picture.some((b: any) => b.type === 'text' && b.text.includes('memo body')));
          }
          checked = true;
          return textTurn('All done.');
        },
      ],
    });
    try {
      const chat = rig.host.conversation();
      const answer = await chat.send('go');
      rig.llm.assertNoErrors();
      assert.ok(checked);
      assert.equal(answer.text, 'All done.');
      assert.equal(answer.steps, 2);
      assert.equal(answer.stopReason, 'end');
      assert.deepEqual(
        answer.toolCalls.map((c) => [c.name, c.server, c.result?.isError === true]),
        [
          ['wait', 'srv', false],
          ['wait', 'srv', false],
          ['fail', 'srv', true],
          ['picture', 'srv', false],
        ],
      );
      const results = rig.of('tool_result');
      assert.equal(results.length, 4);
      assert.equal(results.find((r) => r.name === 'fail')?.isError, true);
      assert.deepEqual(
        rig.of('model_start').map((e) => e.step),
        [1, 2],
      );
      assert.equal(rig.of('answer')[0]?.text, 'All done.');
      // user, assistant (4 calls), 4 tool messages, assistant
      assert.equal(chat.messages.length, 7);
    } finally {
      await rig.close();
    }
  });
}

test('bad JSON arguments and an unknown tool are answered as errors; the model corrects itself', async () => {
  const rig = await startLoopRig({
    servers: { srv: (mcp) => mcp.tool('echo', { input: { text: z.string() } }, ({ text }) => text) },
    script: [
      toolCallsTurn(
        [
          { name: 'echo', arguments: '{"text": "unterminated' },
          { name: 'ecko', arguments: { text: 'x' } },
        ],
        { usage: { input: 100, output: 10 } },
      ),
      (req) => {
        const tools = req.body.messages.filter((m: any) => m.role === 'tool');
        assert.match(tools[0].content, /^Error: The arguments of the call to echo could not be read: they are not valid JSON/);
        assert.match(tools[1].content, /^Error: There is no tool named "ecko"\. The tools are: echo\./);
        return toolCallsTurn({ name: 'echo', arguments: { text: 'fixed' } }, { usage: { input: 200, output: 20 } });
      },
      textTurn('ok', { usage: { input: 300, output: 30 } }),
    ],
  });
  try {
    const answer = await rig.host.conversation().send('go');
    rig.llm.assertNoErrors();
    assert.equal(answer.text, 'ok');
    assert.deepEqual(answer.usage, { inputTokens: 600, outputTokens: 60 }, 'summed over the steps');
    assert.deepEqual(
      answer.toolCalls.map((c) => c.error === undefined),
      [false, false, true],
    );
    assert.equal(rig.of('tool_error').length, 2);
  } finally {
    await rig.close();
  }
});

test('malformed tool calls in two steps in a row: ModelError, and the history is as before the message', async () => {
  const rig = await startLoopRig({
    servers: { srv: (mcp) => mcp.tool('echo', { input: { text: z.string() } }, ({ text }) => text) },
    script: [textTurn('hello'), toolCallsTurn({ name: 'nope', arguments: {} }), toolCallsTurn({ name: 'echo', arguments: '[1,2]' })],
  });
  try {
    const chat = rig.host.conversation();
    await chat.send('hi');
    assert.equal(chat.messages.length, 2);
    await assert.rejects(chat.send('go'), (err: unknown) => {
      assert.ok(err instanceof ModelError);
      assert.match(
        err.message,
        /^The model made malformed tool calls in two steps in a row \(first: no tool is named "nope"; then: arguments of echo: they are not a JSON object\)/,
      );
      return true;
    });
    assert.equal(chat.messages.length, 2, 'the failed message left no trace');
  } finally {
    await rig.close();
  }
});

test('the step limit: the last step asks for an answer (tool_choice none); calls made anyway are not run', async () => {
  let calls = 0;
  const rig = await startLoopRig({
    servers: {
      srv: (mcp) =>
        mcp.tool('tick', { input: {} }, () => {
          calls++;
          return 'tick';
        }),
    },
    host: { maxSteps: 3 },
    script: [
      toolCallsTurn({ name: 'tick', arguments: {} }),
      (req) => {
        assert.equal(req.body.tool_choice, undefined);
        return toolCallsTurn({ name: 'tick', arguments: {} });
      },
      (req) => {
        assert.equal(req.body.tool_choice, 'none');
        return toolCallsTurn({ name: 'tick', arguments: {} }, { text: 'still going' });
      },
    ],
  });
  try {
    const chat = rig.host.conversation();
    const answer = await chat.send('loop forever');
    rig.llm.assertNoErrors();
    assert.equal(answer.stopReason, 'max_steps');
    assert.equal(answer.steps, 3);
    assert.equal(answer.text, 'still going');
    assert.equal(calls, 2);
    assert.match(answer.toolCalls[2]?.error ?? '', /^Not run: the limit of 3 steps/);
    // The history stays valid for the next message: every call has its tool message.
    const last = chat.messages.at(-1);
    assert.equal(last?.role, 'tool');
  } finally {
    await rig.close();
  }
});
