// `mcpkit chat --code-mode` as a user runs it: a child process, a real stdio MCP server and a
// scripted model. The model is offered search_api and run_code; the program it sends runs in the
// sandbox, its calls are shown and approved as direct calls are (no terminal and no --yes: the
// destructive one is refused), and --json reports the program's calls after its own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { offeredTools, sentToolResults, startScriptedOpenAI, textTurn, toolCallsTurn } from '../support/index.js';
import { mcpkitProcess, ROOT, TSX } from './helpers.js';

const WEATHER = `weather="${process.execPath}" --import ${TSX} "${join(ROOT, 'test/fixtures/cli/weather-server.ts')}"`;

const PROGRAM = `const out = [];
for (const city of ['Oslo', 'Lima', 'Pune']) out.push(await weather.get_weather({ city }));
try {
  await weather.forget_city({ city: 'Oslo' });
} catch (e) {
  out.push('refused: ' + e.message);
}
return out;`;

test('chat --code-mode -p --json: the program runs, read-only calls go through, the destructive one is refused without a terminal', async () => {
  const llm = await startScriptedOpenAI([
    (req) => {
      assert.deepEqual(offeredTools(req), ['search_api', 'run_code']);
      return toolCallsTurn({ name: 'run_code', arguments: { code: PROGRAM } });
    },
    (req) => {
      const [ran] = sentToolResults(req);
      const value = JSON.parse(/^Returned:\n(.*)\n\[4 tool calls made\]$/s.exec(ran.text)?.[1] ?? 'null');
      assert.deepEqual(value.slice(0, 3), ['Oslo: 24°C, light rain', 'Lima: 24°C, light rain', 'Pune: 24°C, light rain']);
      // Nobody could be asked (no terminal), and the program is told so, not that the user said no.
      assert.equal(
        value[3],
        "refused: weather.forget_city: Calling forget_city needs the user's approval (destructive tool), and there is no way to ask for it here.",
      );
      return textTurn('All three: 24°C and light rain.');
    },
  ]);
  try {
    const r = await mcpkitProcess([
      'chat',
      '--base-url',
      llm.baseUrl,
      '--model',
      'scripted',
      '--code-mode',
      '-s',
      WEATHER,
      '-p',
      'Weather in Oslo, Lima, Pune?',
      '--json',
    ]);
    llm.assertNoErrors();
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.equal(out.answer, 'All three: 24°C and light rain.');
    assert.deepEqual(
      out.toolCalls.map((c: { name: string; error?: string }) => `${c.name}${c.error ? ' (refused)' : ''}`),
      ['run_code', 'get_weather', 'get_weather', 'get_weather', 'forget_city (refused)'],
    );
    // The program is shown before its calls, then how it ended.
    assert.match(r.stderr, /→ program\n {2}const out = \[\];\n/);
    assert.match(r.stderr, /→ \[1\] weather › get_weather \{"city":"Oslo"\}/);
    assert.match(r.stderr, /✔ program 4 calls, \d+\.\ds\n {2}Returned:/);
  } finally {
    await llm.close();
  }
});
