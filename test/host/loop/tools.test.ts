// The tools a conversation offers: with more than `deferTools.threshold`, only `search_tools`
// (ToolIndex: BM25F over names, descriptions, parameters and server instructions), whose finds are offered from then on; and the
// list read anew each step, so a server's list_changed between steps adds and withdraws tools,
// a call to a withdrawn one being an error message, not a crash.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import type { Host } from '../../../src/host/host.js';
import { ToolIndex } from '../../../src/host/loop/search.js';
import type { ToolRanker } from '../../../src/pool/search/tool-index.js';
import type { HostTool } from '../../../src/pool/tool-source.js';
import { startLoopRig, textTurn, toolCallsTurn, waitFor } from '../../support/index.js';

const toolNames = (body: any): string[] => body.tools?.map((t: any) => t.function?.name ?? t.name) ?? [];

test('300 tools: only search_tools is sent; what it finds is offered in the following steps and messages', async () => {
  const rig = await startLoopRig({
    flavor: 'anthropic',
    servers: {
      big: (mcp) => {
        for (let i = 0; i < 300; i++) {
          mcp.tool(
            `op_${String(i).padStart(3, '0')}`,
            { description: `Performs bookkeeping operation number ${i}`, input: { ledger: z.string().describe('Ledger id') } },
            () => 'ok',
          );
        }
        mcp.tool(
          'forecast',
          { description: 'Gives the weather forecast', input: { city: z.string().describe('City name, e.g. Hangzhou') } },
          ({ city }) => `Sunny in ${city}`,
        );
      },
    },
    script: [
      (req) => {
        assert.deepEqual(toolNames(req.body), ['search_tools']);
        assert.match(req.body.tools[0].description, /among 301 available ones/);
        return toolCallsTurn({ name: 'search_tools', arguments: { query: 'weather in a city', limit: 3 } });
      },
      (req) => {
        const found = req.body.messages.at(-1).content[0].content[0].text as string;
        assert.match(found, /^1 matching tool, which you can call now:\n/);
        const defs = JSON.parse(found.slice(found.indexOf('\n') + 1));
        assert.equal(defs[0].name, 'forecast');
        assert.equal(defs[0].parameters.properties.city.description, 'City name, e.g. Hangzhou');
        assert.deepEqual(toolNames(req.body), ['search_tools', 'forecast']);
        return toolCallsTurn({ name: 'forecast', arguments: { city: 'Hangzhou' } });
      },
      (req) => {
        assert.equal(req.body.messages.at(-1).content[0].content[0].text, 'Sunny in Hangzhou');
        return textTurn('Sunny.');
      },
      (req) => {
        assert.deepEqual(toolNames(req.body), ['search_tools', 'forecast'], 'still offered in the next message');
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

test('BM25: a name match ranks above a passing mention; words of parameters count; nothing matching, nothing returned', () => {
  const tool = (name: string, description: string, props: Record<string, string> = {}): HostTool => ({
    name,
    server: 's',
    tool: {
      name,
      description,
      inputSchema: { type: 'object', properties: Object.fromEntries(Object.entries(props).map(([k, d]) => [k, { type: 'string', description: d }])) },
    },
  });
  const index = new ToolIndex([
    tool('list_files', 'Lists a directory; see also read_file'),
    tool('readFile', 'Reads a file from disk', { path: 'Path of the file' }),
    tool('send_mail', 'Sends an email', { recipient: 'Email address to deliver to' }),
  ]);
  assert.deepEqual(
    index.search('read file').map((t) => t.name),
    ['readFile', 'list_files'],
  );
  assert.deepEqual(
    index.search('deliver').map((t) => t.name),
    ['send_mail'],
  );
  assert.deepEqual(index.search('kubernetes'), []);
});

test('list_changed between steps: the next step offers the new tool set; a call to a withdrawn tool is an error message', async () => {
  let host: Host | undefined;
  const rig = await startLoopRig({
    servers: {
      srv: (mcp) => {
        const gone = mcp.tool('gone', { input: {} }, () => 'still here');
        mcp.tool('first', { input: {} }, async () => {
          gone.remove();
          mcp.tool('second', { input: {} }, () => 'second ran');
          // The answer waits until the host has listed the tools again, so the next step sees them.
          await waitFor(() => host?.pool.resolve('second') !== undefined && host.pool.resolve('gone') === undefined, 'the host to list the tools again');
          return 'changed';
        });
      },
    },
    script: [
      (req) => {
        assert.deepEqual(toolNames(req.body), ['first', 'gone']);
        return toolCallsTurn({ name: 'first', arguments: {} });
      },
      (req) => {
        assert.deepEqual(toolNames(req.body), ['first', 'second']);
        return toolCallsTurn([
          { name: 'gone', arguments: {} },
          { name: 'second', arguments: {} },
        ]);
      },
      (req) => {
        const [gone, second] = req.body.messages.filter((m: any) => m.role === 'tool').slice(-2);
        assert.match(gone.content, /^Error: The tool gone is no longer available/);
        assert.equal(second.content, 'second ran');
        return toolCallsTurn({ name: 'gone', arguments: {} });
      },
      // A second call to the withdrawn tool is not a malformed call: no ModelError.
      textTurn('done'),
    ],
  });
  host = rig.host;
  try {
    const answer = await rig.host.conversation().send('go');
    assert.equal(answer.text, 'done');
    rig.llm.assertNoErrors();
    assert.ok(rig.of('server').some((e) => e.event.type === 'toolsChanged'));
  } finally {
    await rig.close();
  }
});

test('search_tools goes through ToolIndex: server instructions are searched, and a configured ranker is fused in', async () => {
  const asked: string[] = [];
  // A ranker that knows what BM25F cannot: an umbrella is about the weather.
  const ranker: ToolRanker = {
    async rank(query, tools, limit) {
      asked.push(query);
      return /umbrella/.test(query) ? tools.filter((t) => t.tool.name === 'forecast').slice(0, limit) : [];
    },
  };
  const rig = await startLoopRig({
    instructions: { billing: 'Money back to customers: refunds, chargebacks and credit notes.' },
    servers: {
      billing: (mcp) => {
        mcp.tool('reverse_charge', { description: 'Reverses a charge', input: { charge: z.string() } }, () => 'ok');
      },
      books: (mcp) => {
        for (let i = 0; i < 70; i++) mcp.tool(`ledger_${i}`, { description: `Bookkeeping operation ${i}`, input: {} }, () => 'ok');
      },
      sky: (mcp) => {
        mcp.tool('forecast', { description: 'Gives the weather forecast', input: { city: z.string() } }, () => 'Rain');
      },
    },
    host: { deferTools: { threshold: 10, ranker } },
    script: [
      () => toolCallsTurn({ name: 'search_tools', arguments: { query: 'refund', limit: 2 } }),
      (req) => {
        const found = req.body.messages.at(-1).content as string;
        assert.match(found, /^1 matching tool/, 'only the billing tool: its server said "refunds"');
        assert.match(found, /"name": "reverse_charge"/);
        return toolCallsTurn({ name: 'search_tools', arguments: { query: 'do I need an umbrella', limit: 1 } });
      },
      (req) => {
        const found = req.body.messages.at(-1).content as string;
        assert.match(found, /"name": "forecast"/);
        assert.ok(toolNames(req.body).includes('forecast'));
        return textTurn('Take one.');
      },
    ],
  });
  try {
    assert.equal((await rig.host.conversation().send('Refund, then: umbrella?')).text, 'Take one.');
    assert.deepEqual(asked, ['refund', 'do I need an umbrella']);
    rig.llm.assertNoErrors();
  } finally {
    await rig.close();
  }
});
