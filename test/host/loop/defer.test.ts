// Deferred loading by budget: tool definitions are deferred when there are more than
// `deferTools.threshold` of them, or when they are estimated to take more than `deferTools.share`
// of the model's context window, however few. Deferred, the model gets the host's search_tools
// (an OpenAI-compatible endpoint, or Anthropic without its tool search) or, with Anthropic's tool
// search tool, every definition marked `defer_loading` behind the API's own search, whose finds
// stay loaded through the history for the rest of the conversation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import type { McpServer } from '../../../src/server/mcp-server.js';
import { startLoopRig, textTurn, toolCallsTurn } from '../../support/index.js';

const toolNames = (body: any): string[] => body.tools?.map((t: any) => t.function?.name ?? t.name) ?? [];

/** Five tools with large schemas: about 2,000 tokens each (10 000 in all), estimated. */
function bigTools(mcp: McpServer): void {
  const field = (i: number) => z.string().describe(`Field number ${i} of the record: ${'a long explanation of what goes here, '.repeat(6)}`);
  for (const name of ['create_record', 'update_record', 'delete_record', 'find_records', 'export_records']) {
    const input: Record<string, z.ZodString> = {};
    for (let i = 0; i < 25; i++) input[`field_${i}`] = field(i);
    mcp.tool(name, { description: `${name.replace('_', 's a ')} in the records database`, input }, () => `${name} done`);
  }
}

for (const [label, host, deferred] of [
  ['a 32,768-token context (an unknown model): 10 000 tokens of definitions are more than 10 %, deferred', {}, true],
  ['contextWindow: 1 000 000: the same five are sent', { contextWindow: 1_000_000 }, false],
  ['share: 0.5 of 32,768 holds them: sent', { deferTools: { share: 0.5 } }, false],
  ['threshold: 3: more than three tools, deferred whatever the budget', { contextWindow: 1_000_000, deferTools: { threshold: 3 } }, true],
] as const) {
  test(`budget: ${label}`, async () => {
    const rig = await startLoopRig({
      servers: { db: bigTools },
      host: host as never,
      script: [
        (req) => {
          assert.deepEqual(
            toolNames(req.body).sort(),
            deferred ? ['search_tools'] : ['create_record', 'delete_record', 'export_records', 'find_records', 'update_record'],
          );
          return textTurn('ok');
        },
      ],
    });
    try {
      await rig.host.conversation().send('hi');
      rig.llm.assertNoErrors();
    } finally {
      await rig.close();
    }
  });
}

/** 80 tools: more than the threshold (64). */
function manyTools(mcp: McpServer): void {
  for (let i = 0; i < 79; i++) mcp.tool(`op_${String(i).padStart(2, '0')}`, { description: `Bookkeeping operation ${i}`, input: {} }, () => 'ok');
  mcp.tool('forecast', { description: 'Gives the weather forecast', input: { city: z.string() } }, ({ city }) => `Sunny in ${city}`);
}

test('OpenAI-compatible endpoint: the host defers behind its own search_tools; nothing of Anthropic’s on the wire', async () => {
  const rig = await startLoopRig({
    servers: { big: manyTools },
    provider: { toolSearch: true }, // an Anthropic option: ignored by the OpenAI provider
    script: [
      (req) => {
        assert.deepEqual(toolNames(req.body), ['search_tools']);
        assert.doesNotMatch(JSON.stringify(req.body), /defer_loading|tool_search_tool/);
        return toolCallsTurn({ name: 'search_tools', arguments: { query: 'weather forecast', limit: 1 } });
      },
      (req) => {
        assert.deepEqual(toolNames(req.body), ['search_tools', 'forecast']);
        return toolCallsTurn({ name: 'forecast', arguments: { city: 'Hangzhou' } });
      },
      textTurn('Sunny.'),
      (req) => {
        assert.deepEqual(toolNames(req.body), ['search_tools', 'forecast'], 'what was found stays offered in the next message');
        return textTurn('Still sunny.');
      },
    ],
  });
  try {
    const chat = rig.host.conversation();
    assert.equal((await chat.send('Weather in Hangzhou?')).text, 'Sunny.');
    assert.equal((await chat.send('And tomorrow?')).text, 'Still sunny.');
    rig.llm.assertNoErrors();
  } finally {
    await rig.close();
  }
});

test('Anthropic with its tool search: every tool sent with defer_loading behind the search tool; the search kept in the history for later messages', async () => {
  const search = [
    { type: 'server_tool_use', id: 'srvtoolu_01', name: 'tool_search_tool_bm25', input: { query: 'weather forecast' } },
    {
      type: 'tool_search_tool_result',
      tool_use_id: 'srvtoolu_01',
      content: { type: 'tool_search_tool_search_result', tool_references: [{ type: 'tool_reference', tool_name: 'forecast' }] },
    },
  ];
  const deferredWire = (req: any) => {
    assert.deepEqual(req.body.tools[0], { type: 'tool_search_tool_bm25_20251119', name: 'tool_search_tool_bm25' });
    const rest = req.body.tools.slice(1);
    assert.equal(rest.length, 80);
    assert.ok(
      rest.every((t: any) => t.defer_loading === true && t.input_schema),
      'every definition deferred',
    );
    assert.ok(!toolNames(req.body).includes('search_tools'), 'no host search');
  };
  const rig = await startLoopRig({
    flavor: 'anthropic',
    provider: { toolSearch: 'bm25' },
    servers: { big: manyTools },
    script: [
      (req) => {
        deferredWire(req);
        // The API searched and the model called what it found, in one turn.
        return toolCallsTurn({ id: 'toolu_01', name: 'forecast', arguments: { city: 'Hangzhou' } }, { text: 'Let me look.', blocks: search });
      },
      (req) => {
        deferredWire(req);
        const [user, assistant, results] = req.body.messages;
        assert.equal(user.role, 'user');
        assert.deepEqual(assistant, {
          role: 'assistant',
          content: [...search, { type: 'text', text: 'Let me look.' }, { type: 'tool_use', id: 'toolu_01', name: 'forecast', input: { city: 'Hangzhou' } }],
        });
        assert.deepEqual(results.content[0], { type: 'tool_result', tool_use_id: 'toolu_01', content: [{ type: 'text', text: 'Sunny in Hangzhou' }] });
        return textTurn('Sunny.');
      },
      (req) => {
        deferredWire(req);
        assert.deepEqual(req.body.messages[1].content.slice(0, 2), search, 'the search stays in the history: forecast stays loaded');
        return textTurn('Still sunny.');
      },
    ],
  });
  try {
    const chat = rig.host.conversation();
    const answer = await chat.send('Weather in Hangzhou?');
    assert.equal(answer.text, 'Sunny.');
    // The API's own search is not a call of the host's.
    assert.deepEqual(
      answer.toolCalls.map((c) => [c.name, c.server]),
      [['forecast', 'big']],
    );
    assert.equal((await chat.send('And tomorrow?')).text, 'Still sunny.');
    rig.llm.assertNoErrors();
  } finally {
    await rig.close();
  }
});

test('deferTools.provider: false keeps the host’s search_tools with Anthropic’s tool search available', async () => {
  const rig = await startLoopRig({
    flavor: 'anthropic',
    provider: { toolSearch: 'bm25' },
    host: { deferTools: { provider: false } },
    servers: { big: manyTools },
    script: [
      (req) => {
        assert.deepEqual(toolNames(req.body), ['search_tools']);
        assert.doesNotMatch(JSON.stringify(req.body), /defer_loading|tool_search_tool/);
        return textTurn('ok');
      },
    ],
  });
  try {
    await rig.host.conversation().send('hi');
    rig.llm.assertNoErrors();
  } finally {
    await rig.close();
  }
});
