// `mcpkit chat` as a user runs it: the built CLI (dist/cli/main.js, `npm run build` first) as a
// child process, a real stdio MCP server (test/fixtures/cli/weather-server.ts), and a scripted
// model endpoint speaking the OpenAI or the Anthropic wire format (test/support/llm.ts).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { startScriptedAnthropic, startScriptedOpenAI, textTurn, toolCallsTurn, errorTurn, type ScriptedLlm, waitFor, within } from '../support/index.js';
import { cleanEnv, mcpkit, ROOT, TSX, type Run } from './helpers.js';

const MAIN = join(ROOT, 'dist/cli/main.js');
const WEATHER = `"${process.execPath}" --import ${TSX} "${join(ROOT, 'test/fixtures/cli/weather-server.ts')}"`;

interface Chat {
  /** Writes a line to its stdin. */
  type(line: string): void;
  stdout(): string;
  stderr(): string;
  signal(signal: NodeJS.Signals): void;
  done: Promise<Run>;
}

/** `node dist/cli/main.js chat ARGS` with stdin piped: `input` written at once, `keepOpen` for more later. */
function chat(args: string[], options: { input?: string; keepOpen?: boolean; env?: NodeJS.ProcessEnv } = {}): Chat {
  const child = spawn(process.execPath, [MAIN, 'chat', ...args], { cwd: ROOT, env: options.env ?? cleanEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c));
  child.stderr.on('data', (c: Buffer) => (err += c));
  if (options.input) child.stdin.write(options.input);
  if (!options.keepOpen) child.stdin.end();
  const done = new Promise<Run>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout: out, stderr: err }));
  });
  return {
    type: (line) => child.stdin.write(`${line}\n`),
    stdout: () => out,
    stderr: () => err,
    signal: (s) => child.kill(s),
    done: within(done, () => `mcpkit chat ${args.join(' ')}\nstdout: ${out}\nstderr: ${err}`),
  };
}

/** Waits for `probe`; a failure shows what the chat printed. */
function until(probe: () => boolean, what: string, c: Chat): Promise<unknown> {
  return waitFor(() => {
    if (!probe()) throw new Error(`stdout: ${c.stdout()}\nstderr: ${c.stderr()}`);
    return true;
  }, what);
}

const model = (llm: ScriptedLlm, ...more: string[]) => ['--base-url', llm.baseUrl, '--model', 'scripted', ...more];
const noStack = (stderr: string) => assert.doesNotMatch(stderr, /\n\s+at /, stderr);

before(() => assert.ok(existsSync(MAIN), `${MAIN} is missing: run npm run build first`));

const llms: ScriptedLlm[] = [];
after(() => Promise.all(llms.map((l) => l.close())));
async function openai(...script: Parameters<typeof startScriptedOpenAI>[0]) {
  const llm = await startScriptedOpenAI(script);
  llms.push(llm);
  return llm;
}

describe('mcpkit chat -p: the weather walkthrough', () => {
  test('OpenAI wire: the tools go as functions, the result comes back with its tool_call_id, the answer is printed', async () => {
    const llm = await openai(
      (req) => {
        const fn = req.body.tools.find((t: { function: { name: string } }) => t.function.name === 'get_weather');
        assert.equal(fn.type, 'function');
        assert.equal(fn.function.description, 'Current weather of a city');
        assert.deepEqual(fn.function.parameters.required, ['city']);
        assert.deepEqual(req.body.messages.at(-1), { role: 'user', content: 'What is the weather in Hangzhou?' });
        return toolCallsTurn({ name: 'get_weather', arguments: { city: 'Hangzhou' } });
      },
      (req) => {
        const tool = req.body.messages.at(-1);
        assert.equal(tool.role, 'tool');
        assert.equal(tool.tool_call_id, 'call_0_0');
        assert.match(JSON.stringify(tool.content), /Hangzhou: 24°C, light rain/);
        assert.equal(req.body.messages[0].role, 'system');
        assert.equal(req.body.messages[0].content, 'Answer in one sentence.');
        return textTurn('It is 24°C with light rain in Hangzhou.');
      },
    );
    const r = await chat([...model(llm, '--server', WEATHER, '--system', 'Answer in one sentence.'), '-p', 'What is the weather in Hangzhou?']).done;
    llm.assertNoErrors();
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'It is 24°C with light rain in Hangzhou.\n');
    assert.match(r.stderr, /^→ \[1\] weather-server › get_weather \{"city":"Hangzhou"\}$/m);
    assert.match(r.stderr, /^progress 1\/2 \(50%\) asking the sky$/m);
    assert.match(r.stderr, /^✔ \[1\] get_weather \d+\.\ds\n {2}Hangzhou: 24°C, light rain$/m);
    assert.equal(llm.requests.length, 2);
  });

  test('--provider anthropic: tools with input_schema, a tool_result with the tool_use_id', async () => {
    const llm = await startScriptedAnthropic([
      (req) => {
        const tool = req.body.tools.find((t: { name: string }) => t.name === 'get_weather');
        assert.deepEqual(tool.input_schema.required, ['city']);
        return toolCallsTurn({ name: 'get_weather', arguments: { city: 'Hangzhou' } });
      },
      (req) => {
        const block = req.body.messages.at(-1).content[0];
        assert.equal(block.type, 'tool_result');
        assert.equal(block.tool_use_id, 'toolu_0_0');
        assert.match(JSON.stringify(block.content), /Hangzhou: 24°C, light rain/);
        return textTurn('Light rain, 24°C.');
      },
    ]);
    llms.push(llm);
    const r = await chat([...model(llm, '--provider', 'anthropic', '-s', WEATHER), '-p', 'Weather in Hangzhou?']).done;
    llm.assertNoErrors();
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'Light rain, 24°C.\n');
  });

  test('--json: the answer and every tool call', async () => {
    const llm = await openai(toolCallsTurn({ name: 'get_weather', arguments: { city: 'Oslo' } }), textTurn('Rainy.'));
    const r = await chat([...model(llm, '-s', WEATHER), '-p', 'Oslo?', '--json']).done;
    assert.equal(r.code, 0, r.stderr);
    const j = JSON.parse(r.stdout);
    assert.equal(j.answer, 'Rainy.');
    assert.equal(j.steps, 2);
    assert.equal(j.stopReason, 'end');
    assert.equal(j.toolCalls.length, 1);
    const [call] = j.toolCalls;
    assert.deepEqual(
      { id: call.id, name: call.name, server: call.server, tool: call.tool, arguments: call.arguments },
      {
        id: 'call_0_0',
        name: 'get_weather',
        server: 'weather-server',
        tool: 'get_weather',
        arguments: { city: 'Oslo' },
      },
    );
    assert.deepEqual(call.result.content, [{ type: 'text', text: 'Oslo: 24°C, light rain' }]);
  });

  test('--log-format json: stderr is one JSON line per tool call, result and model step', async () => {
    const llm = await openai(toolCallsTurn({ name: 'get_weather', arguments: { city: 'Oslo' } }), textTurn('Rainy.'));
    const r = await chat([...model(llm, '-s', WEATHER), '-p', 'Oslo?', '--log-format', 'json']).done;
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'Rainy.\n');
    const lines = r.stderr
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { msg: string; level: string; server?: string; tool?: string; isError?: boolean; stopReason?: string });
    assert.deepEqual(
      lines.map((l) => l.msg),
      ['model step', 'tool call', 'tool result', 'model step'],
    );
    assert.equal(lines[1].server, 'weather-server');
    assert.equal(lines[1].tool, 'get_weather');
    assert.equal(lines[2].isError, false);
    assert.equal(lines[3].stopReason, 'end');
  });

  test('without a terminal a call that needs approval is refused (the model is told), unless --yes', async () => {
    const refused = await openai(toolCallsTurn({ name: 'forget_city', arguments: { city: 'Oslo' } }), (req) => {
      // Nobody was asked: the model is told so, not that the user said no.
      const told = JSON.stringify(req.body.messages.at(-1).content);
      assert.match(told, /Calling forget_city needs the user's approval \(destructive tool\), and there is no way to ask for it here/);
      assert.doesNotMatch(told, /did not allow/);
      return textTurn('I was not allowed to.');
    });
    const r = await chat([...model(refused, '-s', WEATHER), '-p', 'Forget Oslo']).done;
    refused.assertNoErrors();
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'I was not allowed to.\n');
    assert.match(
      r.stderr,
      /weather-server › forget_city \{"city":"Oslo"\}: refused, it needs approval and there is no terminal to ask \(--yes approves such calls\)/,
    );

    const allowed = await openai(toolCallsTurn({ name: 'forget_city', arguments: { city: 'Oslo' } }), (req) => {
      assert.match(JSON.stringify(req.body.messages.at(-1).content), /forgot Oslo/);
      return textTurn('Forgotten.');
    });
    const y = await chat([...model(allowed, '-s', WEATHER), '-p', 'Forget Oslo', '--yes']).done;
    allowed.assertNoErrors();
    assert.equal(y.code, 0, y.stderr);
    assert.equal(y.stdout, 'Forgotten.\n');
  });
});

describe('mcpkit chat: failures are one line and exit code 1', () => {
  test('an endpoint nobody listens on', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const r = await chat(['--base-url', `http://127.0.0.1:${port}/v1`, '--model', 'x', '-p', 'hi']).done;
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      new RegExp(
        `^mcpkit: cannot reach http://127\\.0\\.0\\.1:${port}/v1/chat/completions: .*ECONNREFUSED.* \\(is the model server running\\? --base-url says where it is\\)\\n$`,
      ),
    );
    noStack(r.stderr);
  });

  test('a tool schema the endpoint refuses (400)', async () => {
    const llm = await openai(
      errorTurn(400, "Invalid schema for function 'get_weather': In context=(), 'additionalProperties' is required to be supplied and to be false.", {
        param: 'tools[0].function.parameters',
      }),
    );
    const r = await chat([...model(llm, '-s', WEATHER), '-p', 'hi']).done;
    assert.equal(r.code, 1);
    const lines = r.stderr.trim().split('\n');
    assert.match(lines.at(-1)!, /^mcpkit: .*refused a tool schema \(tool get_weather\) \(400\): Invalid schema for function 'get_weather'/);
    noStack(r.stderr);
  });

  test('tool calls the model keeps getting wrong', async () => {
    const bad = toolCallsTurn({ name: 'get_weather', arguments: '{"city": "Oslo"' });
    const llm = await openai(bad, bad, bad);
    const r = await chat([...model(llm, '-s', WEATHER), '-p', 'hi']).done;
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr.trim().split('\n').at(-1)!, /^mcpkit: .*malformed tool call/i);
    noStack(r.stderr);
  });

  test('no key for a remote endpoint: a usage error before anything starts', async () => {
    const r = await mcpkit(['chat', '--model', 'gpt-4.1-mini', '-p', 'hi']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^mcpkit: no API key for https:\/\/api\.openai\.com\/v1: set OPENAI_API_KEY/);
  });

  test('mcpkit help chat', async () => {
    const r = await mcpkit(['help', 'chat']);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /^Usage: mcpkit chat --model NAME/);
    assert.match((await mcpkit(['--help'])).stdout, /mcpkit chat --model NAME --server TARGET/);
  });
});

describe('mcpkit chat, interactive over a piped stdin', () => {
  test('an approval answered, an elicitation form filled, a long result collapsed then shown', async () => {
    const llm = await openai(
      toolCallsTurn({ name: 'forget_city', arguments: { city: 'Hangzhou' } }),
      (req) => {
        assert.match(JSON.stringify(req.body.messages.at(-1).content), /forgot Hangzhou/);
        return textTurn('Hangzhou is forgotten.');
      },
      (req) => {
        assert.deepEqual(req.body.messages.at(-1), { role: 'user', content: 'Pick a city' });
        return toolCallsTurn({ name: 'pick_city', arguments: {} });
      },
      (req) => {
        assert.match(JSON.stringify(req.body.messages.at(-1).content), /picked \{\\"city\\":\\"Oslo\\",\\"days\\":3\}/);
        return textTurn('You picked Oslo.');
      },
      toolCallsTurn({ name: 'long_report', arguments: {} }),
      textTurn('That is the report.'),
      (req) => {
        assert.deepEqual(req.body.messages, [{ role: 'user', content: 'Fresh start' }], '/clear began a new conversation');
        return textTurn('Hello again.');
      },
    );
    const input = [
      'Forget Hangzhou',
      'y',
      'Pick a city',
      'y',
      'Oslo',
      '3',
      'Report please',
      '/show 3',
      '/tools',
      '/help',
      '/nope',
      '/clear',
      'Fresh start',
      '',
    ].join('\n');
    const r = await chat(model(llm, '-s', WEATHER), { input }).done;
    llm.assertNoErrors();
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'Hangzhou is forgotten.\nYou picked Oslo.\nThat is the report.\nHello again.\n');
    const err = r.stderr;
    assert.match(err, /^mcpkit chat · scripted via http:\/\/127\.0\.0\.1:\d+\/v1\nservers: weather-server \(5 tools\)\n/);
    assert.match(
      err,
      /you› Forget Hangzhou\n→ \[1\] weather-server › forget_city \{"city":"Hangzhou"\}\n\? Run weather-server › forget_city \{"city":"Hangzhou"\} \(destructive tool\)\? \[y\]es \/ \[N\]o \/ \[a\]lways for this tool y\n✔ \[1\] forget_city/,
    );
    assert.match(err, /\? weather-server asks: Which city\?\n {2}Answer\? \[Y\]es \/ \[n\]o to decline \/ \[c\]ancel y\n {2}City\*: Oslo\n {2}Days: 3\n/);
    assert.match(err, / {2}report line 7\n {2}… 33 more lines: \/show 3 prints it all\n/);
    assert.match(err, /you› \/show 3\n\[3\] weather-server › long_report\nreport line 1\n(report line \d+\n){38}report line 40\n/);
    assert.match(err, /you› \/tools\n(.*\n)*get_weather \(weather-server › get_weather\) {2}Current weather of a city\n/);
    assert.match(err, /you› \/help\n {2}\/show N {4}the whole result of tool call N\n/);
    assert.match(err, /you› \/nope\nunknown command \/nope\n {2}\/show N/);
    assert.match(err, /you› \/clear\nNew conversation\.\n/);
  });

  test('Ctrl-C cancels the running call (the server sees it) and returns to the prompt; at the prompt it leaves', async () => {
    const llm = await openai(toolCallsTurn({ name: 'slow', arguments: {} }), textTurn('after the cancel'));
    const c = chat(model(llm, '-s', WEATHER, '--verbose'), { keepOpen: true });
    c.type('Run the slow one');
    await until(() => /progress 1\b/.test(c.stderr()), "the slow call's progress", c);
    c.signal('SIGINT');
    await until(() => /weather-server │ slow: cancelled/.test(c.stderr()), "the server's cancellation", c);
    await until(() => /Cancelled\.\n/.test(c.stderr()), "the turn's end", c);
    c.type('And now?');
    await until(() => c.stdout().includes('after the cancel\n'), 'the next turn', c);
    // At the prompt, Ctrl-C leaves.
    await until(() => c.stderr().endsWith('you› '), 'the prompt', c);
    c.signal('SIGINT');
    const r = await c.done;
    assert.equal(r.code, 0, r.stderr);
    assert.equal(llm.requests.length, 2, 'the cancelled turn asked the model nothing more');
    // The second turn's history has the first message, no answer to it, and the new one.
    assert.deepEqual(llm.requests[1].body.messages.at(-1), { role: 'user', content: 'And now?' });
  });
});
