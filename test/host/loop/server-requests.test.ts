// What servers ask the host, in both eras (2026-07-28's input_required rounds are turned into the
// same calls by the client): sampling answered by the host's model once the user allows it,
// refused without an approver; elicitation (form and URL modes) put to the user, declined when
// nobody can answer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ElicitationRequest, SamplingRequest } from '../../../src/host/loop/types.js';
import { startLoopRig, textTurn, toolCallsTurn } from '../../support/index.js';

for (const era of ['handshake', 'modern'] as const) {
  test(`${era}: a tool's sampling request is answered by the host's model after the user allows it`, async () => {
    const asked: SamplingRequest[] = [];
    const rig = await startLoopRig({
      servers: {
        srv: (mcp) =>
          mcp.tool('summarise', { input: {} }, async (_args, ctx) => {
            const r = await ctx.sample({
              messages: [{ role: 'user', content: { type: 'text', text: 'Summarise: MCP connects models to tools.' } }],
              systemPrompt: 'Be brief.',
              maxTokens: 50,
              temperature: 0.2,
            });
            return `summary: ${(r.content as { text: string }).text} (by ${r.model}, ${r.stopReason})`;
          }),
      },
      serverConfig: { srv: { era } },
      host: {
        interaction: {
          approveSampling: (request) => {
            asked.push(request);
            return true;
          },
        },
      },
      script: [
        toolCallsTurn({ name: 'summarise', arguments: {} }),
        // The sampling request, as the model endpoint sees it.
        (req) => {
          assert.deepEqual(req.body.messages, [
            { role: 'system', content: 'Be brief.' },
            { role: 'user', content: 'Summarise: MCP connects models to tools.' },
          ]);
          assert.equal(req.body.max_tokens ?? req.body.max_completion_tokens, 50);
          assert.equal(req.body.temperature, 0.2);
          assert.equal(req.body.tools, undefined, 'no tools offered to a sampling request without tools');
          return textTurn('Models meet tools.');
        },
        (req) => {
          assert.equal(req.body.messages.at(-1).content, 'summary: Models meet tools. (by scripted, endTurn)');
          return textTurn('done');
        },
      ],
    });
    try {
      assert.equal(rig.host.pool.server('srv')?.era, era);
      assert.equal((await rig.host.conversation().send('go')).text, 'done');
      rig.llm.assertNoErrors();
      assert.equal(asked.length, 1);
      assert.equal(asked[0]?.server, 'srv');
      assert.equal(asked[0]?.params.maxTokens, 50);
      assert.equal(rig.of('sampling').length, 1);
    } finally {
      await rig.close();
    }
  });

  test(`${era}: elicitation in form and URL modes reaches the user; the answers reach the tool`, async () => {
    const asked: ElicitationRequest[] = [];
    const rig = await startLoopRig({
      servers: {
        srv: (mcp) =>
          mcp.tool('signup', { input: {} }, async (_args, ctx) => {
            const form = await ctx.elicit({
              message: 'Your name?',
              requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
            });
            const url = await ctx.elicit({ mode: 'url', message: 'Sign in at the provider', url: 'https://example.com/auth', elicitationId: 'e1' });
            return `form ${form.action} ${JSON.stringify(form.content)}; url ${url.action}`;
          }),
      },
      serverConfig: { srv: { era } },
      host: {
        interaction: {
          elicit: (request) => {
            asked.push(request);
            return request.params.mode === 'url' ? { action: 'accept' } : { action: 'accept', content: { name: 'Ada' } };
          },
        },
      },
      script: [
        toolCallsTurn({ name: 'signup', arguments: {} }),
        (req) => {
          assert.equal(req.body.messages.at(-1).content, 'form accept {"name":"Ada"}; url accept');
          return textTurn('signed up');
        },
      ],
    });
    try {
      assert.equal(rig.host.pool.server('srv')?.era, era);
      assert.equal((await rig.host.conversation().send('go')).text, 'signed up');
      rig.llm.assertNoErrors();
      assert.deepEqual(
        asked.map((a) => [a.server, a.params.mode ?? 'form', a.params.message]),
        [
          ['srv', 'form', 'Your name?'],
          ['srv', 'url', 'Sign in at the provider'],
        ],
      );
      assert.equal(rig.of('elicitation').length, 2);
    } finally {
      await rig.close();
    }
  });
}

test('nobody to ask: elicitation is declined, sampling refused with a message saying why', async () => {
  const rig = await startLoopRig({
    servers: {
      srv: (mcp) =>
        mcp.tool('ask', { input: {} }, async (_args, ctx) => {
          const answer = await ctx.elicit({ message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
          const sampled = await ctx
            .sample({ messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }], maxTokens: 10 })
            .then(() => 'answered')
            .catch((err: Error & { code?: number }) => `refused (${err.code}): ${err.message}`);
          return `elicit ${answer.action}; sample ${sampled}`;
        }),
    },
    serverConfig: { srv: { era: 'handshake' } },
    script: [
      toolCallsTurn({ name: 'ask', arguments: {} }),
      (req) => {
        assert.equal(
          req.body.messages.at(-1).content,
          'elicit decline; sample refused (-1): Sampling refused: this host asks the user before answering sampling requests, and it has no way to ask (no approveSampling)',
        );
        return textTurn('ok');
      },
    ],
  });
  try {
    assert.equal((await rig.host.conversation().send('go')).text, 'ok');
    rig.llm.assertNoErrors();
    assert.equal(rig.llm.requests.length, 2, 'the model was not asked for the sampling request');
  } finally {
    await rig.close();
  }
});

test('a sampling request that offers tools: the model may call them (tool_use back to the server), and reads their results', async () => {
  const rig = await startLoopRig({
    servers: {
      srv: (mcp) =>
        mcp.tool('agent', { input: {} }, async (_args, ctx) => {
          const tools = [
            { name: 'lookup', description: 'Looks a word up', inputSchema: { type: 'object' as const, properties: { word: { type: 'string' } } } },
          ];
          const first = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'Define MCP' } }], maxTokens: 100, tools });
          const use = (Array.isArray(first.content) ? first.content : [first.content]).find((b) => b.type === 'tool_use');
          assert.ok(use && use.type === 'tool_use');
          const second = await ctx.sample({
            messages: [
              { role: 'user', content: { type: 'text', text: 'Define MCP' } },
              { role: 'assistant', content: [use] },
              { role: 'user', content: [{ type: 'tool_result', toolUseId: use.id, content: [{ type: 'text', text: 'Model Context Protocol' }] }] },
            ],
            maxTokens: 100,
            tools,
            toolChoice: { mode: 'none' },
          });
          return `${first.stopReason} ${JSON.stringify(use.input)} then ${(second.content as { text: string }).text}`;
        }),
    },
    serverConfig: { srv: { era: 'handshake' } },
    host: { interaction: { approveSampling: () => true } },
    script: [
      toolCallsTurn({ name: 'agent', arguments: {} }),
      (req) => {
        assert.deepEqual(
          req.body.tools.map((t: any) => t.function.name),
          ['lookup'],
        );
        assert.equal(req.body.tool_choice, undefined, 'auto: left to the endpoint');
        return toolCallsTurn({ id: 'use_1', name: 'lookup', arguments: { word: 'MCP' } });
      },
      (req) => {
        assert.equal(req.body.tool_choice, 'none');
        assert.deepEqual(req.body.messages.at(-2).tool_calls[0].function, { name: 'lookup', arguments: '{"word":"MCP"}' });
        assert.deepEqual(req.body.messages.at(-1), { role: 'tool', tool_call_id: 'use_1', content: 'Model Context Protocol' });
        return textTurn('It is the Model Context Protocol.');
      },
      (req) => {
        assert.equal(req.body.messages.at(-1).content, 'toolUse {"word":"MCP"} then It is the Model Context Protocol.');
        return textTurn('done');
      },
    ],
  });
  try {
    assert.equal((await rig.host.conversation().send('go')).text, 'done');
    rig.llm.assertNoErrors();
  } finally {
    await rig.close();
  }
});
