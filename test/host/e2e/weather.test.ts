// The weather walkthrough end to end, through the Host with a scripted model and real servers:
// the model is offered the server's tools as functions, calls get_weather, the host calls the
// server, the tool message carries the result and the model's call id, the final answer comes
// back. Once per kind of server (the demo over HTTP, an mcpkit stdio child, an official-SDK
// stdio child, an official-SDK server over HTTP), with both wire formats. Then parallel calls to
// two servers (the one the model named first runs until the other has answered: run one after
// the other they would never finish), two servers offering the same tool name, and the servers
// read from an .mcp.json file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { z } from 'zod';
import { Host, type HostEvent } from '../../../src/entries/host.js';
import { McpServer } from '../../../src/server/mcp-server.js';
import { serve } from '../../../src/serving/node.js';
import { weatherFor } from '../../../src/cli/demo/data.js';
import { startOfficialWeatherHttp } from '../../fixtures/host/official-weather.js';
import {
  deferred,
  fixtureEntry,
  lastUserText,
  offeredSchema,
  offeredTools,
  REPO_ROOT,
  sentToolCalls,
  sentToolResults,
  startDemoHttp,
  startScriptedAnthropic,
  startScriptedOpenAI,
  tempDir,
  textTurn,
  toolCallsTurn,
  within,
  type ScriptedLlm,
  type Turn,
} from '../../support/index.js';

type Flavor = 'openai' | 'anthropic';

const start = (flavor: Flavor, turns: Turn[]): Promise<ScriptedLlm> => (flavor === 'openai' ? startScriptedOpenAI(turns) : startScriptedAnthropic(turns));
const model = (flavor: Flavor, llm: ScriptedLlm) => ({ provider: flavor, model: 'scripted', baseUrl: llm.baseUrl });
/** The id the scripted endpoint gives the `i`th call of turn `turn`. */
const callId = (flavor: Flavor, turn: number, i = 0) => (flavor === 'openai' ? `call_${turn}_${i}` : `toolu_${turn}_${i}`);

const QUESTION = 'What is the weather in Hangzhou?';

interface Walk {
  what: string;
  flavor: Flavor;
  /** The mcpServers entry, and what tears it down. */
  server(): Promise<{ entry: Record<string, unknown>; close(): Promise<void> }>;
  /** The `source` the fixture stamps on its answer (the demo stamps none). */
  source: string | undefined;
}

const walks: Walk[] = [
  {
    what: 'the demo server over HTTP, OpenAI-compatible model',
    flavor: 'openai',
    server: async () => {
      const demo = await startDemoHttp();
      return { entry: { url: demo.url, allow: ['get_weather', 'suggest_activity'] }, close: () => demo.close() };
    },
    source: undefined,
  },
  {
    what: 'an mcpkit stdio child, Anthropic model',
    flavor: 'anthropic',
    server: async () => ({ entry: fixtureEntry('weather'), close: async () => {} }),
    source: 'mcpkit',
  },
  {
    what: 'an official-SDK stdio child, OpenAI-compatible model',
    flavor: 'openai',
    server: async () => ({ entry: fixtureEntry('official'), close: async () => {} }),
    source: 'official-sdk',
  },
  {
    what: 'an official-SDK server over HTTP, Anthropic model',
    flavor: 'anthropic',
    server: async () => {
      const official = await startOfficialWeatherHttp();
      return { entry: { url: official.url }, close: () => official.close() };
    },
    source: 'official-sdk',
  },
];

for (const walk of walks) {
  test(`weather walkthrough: ${walk.what}`, async () => {
    const { flavor } = walk;
    const expected = weatherFor('Hangzhou');
    const llm = await start(flavor, [
      (req) => {
        assert.equal(lastUserText(req), QUESTION);
        assert.ok(offeredTools(req).includes('get_weather'), `offered: ${offeredTools(req).join(', ')}`);
        const schema = offeredSchema(req, 'get_weather') as { properties: Record<string, { type: string }> };
        assert.equal(schema.properties.city.type, 'string');
        return toolCallsTurn({ name: 'get_weather', arguments: { city: 'Hangzhou' } }, { text: 'Let me look.' });
      },
      (req) => {
        assert.deepEqual(
          sentToolCalls(req).map((c) => [c.id, c.name, c.arguments]),
          [[callId(flavor, 0), 'get_weather', { city: 'Hangzhou' }]],
        );
        const [result] = sentToolResults(req);
        assert.equal(result.id, callId(flavor, 0));
        const weather = JSON.parse(result.text) as Record<string, unknown>;
        assert.equal(weather.city, expected.city);
        assert.equal(weather.condition, expected.condition);
        assert.equal(weather.temperatureC, expected.temperatureC);
        assert.equal(weather.source, walk.source);
        assert.notEqual(result.isError, true);
        return textTurn(`It is ${expected.condition} and ${expected.temperatureC} °C in Hangzhou.`);
      },
    ]);
    const server = await walk.server();
    const events: HostEvent[] = [];
    const host = new Host({
      servers: { weather: server.entry },
      model: model(flavor, llm),
      system: 'You answer weather questions.',
      onEvent: (e) => events.push(e),
    });
    try {
      await host.start();
      const answer = await host.conversation().send(QUESTION);
      llm.assertNoErrors();
      assert.equal(answer.text, `It is ${expected.condition} and ${expected.temperatureC} °C in Hangzhou.`);
      assert.equal(answer.steps, 2);
      assert.equal(answer.toolCalls.length, 1);
      const [call] = answer.toolCalls;
      assert.equal(call.id, callId(flavor, 0));
      assert.equal(call.name, 'get_weather');
      assert.equal(call.server, 'weather');
      assert.equal(call.tool, 'get_weather');
      assert.deepEqual(call.arguments, { city: 'Hangzhou' });
      assert.equal(call.error, undefined);
      assert.notEqual(call.result?.isError, true);
      // The system prompt went to the model, in the provider's own place for it.
      const first = llm.requests[0].body;
      if (flavor === 'openai') assert.deepEqual(first.messages[0], { role: 'system', content: 'You answer weather questions.' });
      else assert.match(JSON.stringify(first.system), /You answer weather questions\./);
      // What an application sees, in order.
      const kinds = events.filter((e) => e.type !== 'server' && e.type !== 'text').map((e) => e.type);
      assert.deepEqual(kinds, ['model_start', 'model_end', 'tool_call', 'approval', 'tool_result', 'model_start', 'model_end', 'answer']);
      const result = events.find((e) => e.type === 'tool_result');
      assert.ok(result?.type === 'tool_result');
      assert.equal(result.id, callId(flavor, 0));
      assert.equal(result.server, 'weather');
      assert.equal(result.isError, false);
      assert.equal(result.truncated, false);
      // Streamed text arrived in pieces that add up to what the model said.
      const text = events.flatMap((e) => (e.type === 'text' ? [e.delta] : [])).join('');
      assert.equal(text, `Let me look.It is ${expected.condition} and ${expected.temperatureC} °C in Hangzhou.`);
    } finally {
      await host.close();
      await server.close();
      await llm.close();
    }
  });
}

test('parallel calls to two servers (an HTTP one and a stdio child) run at once; each result carries its own call id', async () => {
  // `slow_lookup` answers only once get_weather's result is in: run in turn, the first never ends.
  const weatherDone = deferred<void>();
  const gate = new McpServer({ name: 'gate', version: '1.0.0' });
  let lookups = 0;
  gate.tool('slow_lookup', { description: 'Looks an address up', input: { street: z.string() } }, async ({ street }) => {
    lookups++;
    await weatherDone.promise;
    return `${street} is in Oslo`;
  });
  const http = await serve(gate, { port: 0 });
  const llm = await startScriptedAnthropic([
    (req) => {
      assert.deepEqual(offeredTools(req).sort(), ['get_weather', 'pid', 'slow_lookup', 'unlock_forecast', 'wait']);
      return toolCallsTurn([
        { name: 'slow_lookup', arguments: { street: 'Karl Johans gate' } },
        { name: 'get_weather', arguments: { city: 'Oslo' } },
      ]);
    },
    (req) => {
      // Both results in the one user message that follows the calls, in the order of the calls.
      const last = req.body.messages.at(-1);
      assert.equal(last.role, 'user');
      assert.deepEqual(
        last.content.map((b: { type: string; tool_use_id: string }) => [b.type, b.tool_use_id]),
        [
          ['tool_result', 'toolu_0_0'],
          ['tool_result', 'toolu_0_1'],
        ],
      );
      const [lookup, weather] = sentToolResults(req);
      assert.equal(lookup.text, 'Karl Johans gate is in Oslo');
      assert.equal(JSON.parse(weather.text).city, 'Oslo');
      return textTurn('Karl Johans gate is in Oslo, where it is ' + weatherFor('Oslo').condition + '.');
    },
  ]);
  const host = new Host({
    servers: { addresses: { url: http.url }, weather: fixtureEntry('weather') },
    model: model('anthropic', llm),
    onEvent: (e) => {
      if (e.type === 'tool_result' && e.name === 'get_weather') weatherDone.resolve();
    },
  });
  try {
    await host.start();
    const answer = await within(host.conversation().send('Where is Karl Johans gate, and what is the weather there?'), 'the two calls');
    llm.assertNoErrors();
    assert.equal(lookups, 1);
    assert.deepEqual(
      answer.toolCalls.map((c) => [c.id, c.server, c.tool]),
      [
        ['toolu_0_0', 'addresses', 'slow_lookup'],
        ['toolu_0_1', 'weather', 'get_weather'],
      ],
    );
    assert.match(answer.text, /^Karl Johans gate is in Oslo/);
  } finally {
    weatherDone.resolve();
    await host.close();
    await http.close();
    await llm.close();
  }
});

test('two servers offering get_weather: the model sees both under server-prefixed names, is told so when it uses the bare name, and each call reaches its own server', async () => {
  const llm = await startScriptedOpenAI([
    (req) => {
      const names = offeredTools(req);
      assert.ok(names.includes('weather_get_weather') && names.includes('official_get_weather'), names.join(', '));
      assert.ok(!names.includes('get_weather'));
      // Tools that clash with nothing keep their own names.
      assert.ok(names.includes('pid') && names.includes('ask'), names.join(', '));
      // A model that read the tool's own name somewhere uses it.
      return toolCallsTurn({ name: 'get_weather', arguments: { city: 'Bergen' } });
    },
    (req) => {
      const [unknown] = sentToolResults(req);
      assert.equal(unknown.id, 'call_0_0');
      assert.match(unknown.text, /^Error: There is no tool named "get_weather"\. The tools are: .*\bofficial_get_weather\b/);
      assert.match(unknown.text, /\bweather_get_weather\b/);
      return toolCallsTurn([
        { name: 'official_get_weather', arguments: { city: 'Bergen' } },
        { name: 'weather_get_weather', arguments: { city: 'Bergen' } },
      ]);
    },
    (req) => {
      const results = sentToolResults(req).slice(1);
      assert.deepEqual(
        results.map((r) => [r.id, JSON.parse(r.text).source]),
        [
          ['call_1_0', 'official-sdk'],
          ['call_1_1', 'mcpkit'],
        ],
      );
      return textTurn('Both agree.');
    },
  ]);
  const calls: Array<Extract<HostEvent, { type: 'tool_call' | 'tool_error' }>> = [];
  const host = new Host({
    servers: { weather: fixtureEntry('weather'), official: fixtureEntry('official') },
    model: model('openai', llm),
    onEvent: (e) => (e.type === 'tool_call' || e.type === 'tool_error') && calls.push(e),
  });
  try {
    await host.start();
    const answer = await host.conversation().send('Weather in Bergen, from both sources?');
    llm.assertNoErrors();
    assert.equal(answer.text, 'Both agree.');
    assert.deepEqual(
      calls.map((e) => (e.type === 'tool_call' ? [e.name, e.server, e.tool] : [e.type, e.name])),
      [
        ['tool_error', 'get_weather'],
        ['official_get_weather', 'official', 'get_weather'],
        ['weather_get_weather', 'weather', 'get_weather'],
      ],
    );
    assert.deepEqual(
      answer.toolCalls.map((c) => [c.name, c.server]),
      [
        ['get_weather', undefined],
        ['official_get_weather', 'official'],
        ['weather_get_weather', 'weather'],
      ],
    );
  } finally {
    await host.close();
    await llm.close();
  }
});

test('the walkthrough from an .mcp.json file (a stdio entry with a relative cwd, an HTTP entry with allow)', async () => {
  const demo = await startDemoHttp();
  const dir = tempDir('host-e2e');
  const weather = fixtureEntry('weather') as { command: string; args: string[] };
  writeFileSync(
    join(dir, '.mcp.json'),
    JSON.stringify({
      mcpServers: {
        weather: { command: weather.command, args: weather.args, cwd: relative(dir, REPO_ROOT) },
        docs: { type: 'http', url: demo.url, allow: ['search_docs'] },
      },
    }),
  );
  const llm = await startScriptedOpenAI([
    (req) => {
      assert.deepEqual(offeredTools(req).sort(), ['get_weather', 'pid', 'search_docs', 'unlock_forecast', 'wait']);
      return toolCallsTurn([
        { name: 'get_weather', arguments: { city: 'Hangzhou' } },
        { name: 'search_docs', arguments: { keyword: 'stateless' } },
      ]);
    },
    (req) => {
      const [w, docs] = sentToolResults(req);
      assert.equal(JSON.parse(w.text).source, 'mcpkit');
      assert.match(docs.text, /stateless-era/);
      return textTurn('Done.');
    },
  ]);
  const host = new Host({ config: join(dir, '.mcp.json'), cwd: dir, model: model('openai', llm) });
  try {
    await host.start();
    assert.equal((await host.conversation().send('Weather, and docs on the stateless era?')).text, 'Done.');
    llm.assertNoErrors();
  } finally {
    await host.close();
    await demo.close();
    await llm.close();
  }
});
