// `mcpkit chat` traps a new user met (issue 28): servers named on the command line, every
// server down under -p, roots, and tracing across a stdio server. The built CLI
// (dist/cli/main.js, `npm run build` first) as a child process, real servers, and a scripted
// model endpoint (test/support/llm.ts).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { McpServer } from '../../src/server/mcp-server.js';
import { serve } from '../../src/serving/node.js';
import { startScriptedOpenAI, tempDir, textTurn, toolCallsTurn, within, type ScriptedLlm, type ScriptedRequest } from '../support/index.js';
import { cleanEnv, ROOT, TSX, type Run } from './helpers.js';

const MAIN = join(ROOT, 'dist/cli/main.js');
const WEATHER = `"${process.execPath}" --import ${TSX} "${join(ROOT, 'test/fixtures/cli/weather-server.ts')}"`;

/** `node dist/cli/main.js chat ARGS` to its end, stdin closed (no terminal). */
function chat(args: string[], env: NodeJS.ProcessEnv = cleanEnv()): Promise<Run> {
  const child = spawn(process.execPath, [MAIN, 'chat', ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c));
  child.stderr.on('data', (c: Buffer) => (err += c));
  const done = new Promise<Run>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout: out, stderr: err }));
  });
  return within(done, () => `mcpkit chat ${args.join(' ')}\nstdout: ${out}\nstderr: ${err}`);
}

/** A loopback port nobody listens on (bound, then let go). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

const offered = (req: ScriptedRequest): string[] => ((req.body.tools ?? []) as Array<{ function: { name: string } }>).map((t) => t.function.name).sort();

before(() => assert.ok(existsSync(MAIN), `${MAIN} is missing: run npm run build first`));
const llms: ScriptedLlm[] = [];
after(() => Promise.all(llms.map((l) => l.close())));
async function openai(...script: Parameters<typeof startScriptedOpenAI>[0]): Promise<ScriptedLlm> {
  const llm = await startScriptedOpenAI(script);
  llms.push(llm);
  return llm;
}
const model = (llm: ScriptedLlm) => ['--base-url', llm.baseUrl, '--model', 'scripted'];

test('chat -s NAME=TARGET with a mixed-case name: myNotes=COMMAND and notesA=URL are servers so named, not environment variables or commands', async (t) => {
  const notes = new McpServer({ name: 'notes', version: '1.0.0' });
  notes.tool('read_note', { description: 'Reads the note', annotations: { readOnlyHint: true } }, () => 'buy milk');
  const running = await serve(notes, { port: 0 });
  t.after(() => running.close());
  const llm = await openai(
    (req) => {
      assert.deepEqual(offered(req), ['forget_city', 'get_weather', 'long_report', 'pick_city', 'read_note', 'slow']);
      return toolCallsTurn([
        { name: 'get_weather', arguments: { city: 'Oslo' } },
        { name: 'read_note', arguments: {} },
      ]);
    },
    () => textTurn('Rain in Oslo; buy milk.'),
  );
  const r = await chat([...model(llm), '-s', `myNotes=${WEATHER}`, '-s', `notesA=${running.url}`, '-p', 'Weather and my note?']);
  llm.assertNoErrors();
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, 'Rain in Oslo; buy milk.\n');
  assert.match(r.stderr, /^→ \[\d\] myNotes › get_weather \{"city":"Oslo"\}$/m);
  assert.match(r.stderr, /^→ \[\d\] notesA › read_note$/m);
  // Nothing to say about how they were read: each is plainly a name.
  assert.doesNotMatch(r.stderr, /environment/);
});

test('chat -p with every server down: one line naming each server and why, exit code 1, and the model is not asked; --allow-no-tools asks it anyway', async () => {
  const llm = await openai((req) => {
    assert.deepEqual(offered(req), []);
    return textTurn('I have no tools.');
  });
  const refused = await freePort();
  const servers = ['-s', `http://127.0.0.1:${refused}/mcp`, '-s', `"${process.execPath}" ${join(ROOT, 'test/fixtures/stdio/crash-at-start.mjs')}`];
  const r = await chat([...model(llm), ...servers, '-p', 'Weather in Oslo?']);
  assert.equal(r.code, 1, r.stderr);
  assert.equal(r.stdout, '');
  assert.match(
    r.stderr,
    /^mcpkit: no server could be started, so the model would have no tools \(127_0_0_1_\d+: POST .* failed: .*ECONNREFUSED.*; crash-at-start: [^;]+\); --allow-no-tools asks it anyway$/m,
  );
  assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  assert.equal(llm.requests.length, 0, 'the model was not asked');
  const json = await chat([...model(llm), ...servers, '--json', '-p', 'Weather in Oslo?']);
  assert.equal(json.code, 1, json.stderr);
  assert.match((JSON.parse(json.stdout) as { error: { message: string } }).error.message, /^no server could be started/);
  assert.equal(llm.requests.length, 0, 'the model was not asked');
  const anyway = await chat([...model(llm), ...servers, '--allow-no-tools', '-p', 'Weather in Oslo?']);
  llm.assertNoErrors();
  assert.equal(anyway.code, 0, anyway.stderr);
  assert.equal(anyway.stdout, 'I have no tools.\n');
});

const ROOTS = `"${process.execPath}" --import ${TSX} "${join(ROOT, 'test/fixtures/cli/roots-server.ts')}"`;

/** What the `roots` tool of the roots fixture told the model, in one chat -p. */
async function rootsSeen(extra: string[]): Promise<string> {
  let seen = '';
  const llm = await openai(toolCallsTurn({ name: 'roots', arguments: {} }), (req) => {
    seen = JSON.stringify(req.body.messages.at(-1).content);
    return textTurn('ok');
  });
  const r = await chat([...model(llm), '-s', ROOTS, '--yes', ...extra, '-p', 'Which roots?']);
  llm.assertNoErrors();
  assert.equal(r.code, 0, r.stderr);
  return seen;
}

test('chat offers no roots unless --root says so: a server keeps to its own directories; --root DIR (repeatable) offers those', async () => {
  // chat runs in the repository: its working directory must not become a root by itself.
  const none = await rootsSeen([]);
  assert.doesNotMatch(none, /file:\/\//, none);
  assert.match(none, /roots/i, 'the tool says it has none');
  const a = tempDir('chat-root-a');
  const b = tempDir('chat-root-b');
  const two = await rootsSeen(['--root', a, '--root', b]);
  const roots = JSON.parse(JSON.parse(two) as string) as Array<{ uri: string; name: string }>;
  assert.deepEqual(
    roots.map((r) => r.uri),
    [pathToFileURL(a).href, pathToFileURL(b).href],
  );
  const bad = await chat(['--model', 'x', '--root', join(a, 'missing'), '-p', 'hi']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--root: .*missing is not a directory/);
});
