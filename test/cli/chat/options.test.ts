// `mcpkit chat`'s command line as settings: servers and their names, the provider, the approval
// policy of each --approve mode, and the mistakes that are usage errors.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, UsageError } from '../../../src/cli/args.js';
import { approvalPolicy, CHAT_OPTIONS, chatSettings, serverName } from '../../../src/cli/chat/options.js';
import { resolveTarget } from '../../../src/pool/targets.js';
import { tempDir } from '../../support/index.js';

function settings(argv: string[], cwd = tempDir('chat-opts')) {
  return chatSettings(parse('chat', argv, CHAT_OPTIONS).values, cwd, cwd);
}

describe('server names', () => {
  const name = (spec: string, cwd = process.cwd()) => serverName(resolveTarget(spec, { cwd }), spec);
  test('from what a command line runs', () => {
    assert.equal(name('node weather.js'), 'weather');
    assert.equal(name('npx -y @modelcontextprotocol/server-everything'), 'server-everything');
    assert.equal(name('uvx mcp-server-fetch'), 'mcp-server-fetch');
    assert.equal(name('python3 -m my.server'), 'my_server');
    assert.equal(name('docker run -i --rm mcp/time'), 'time');
    assert.equal(name('my-server --port 3'), 'my-server');
    assert.equal(name('node --import file:///x/tsx/dist/esm/index.mjs test/weather-server.ts'), 'weather-server');
    assert.equal(name('python my_server.py --config conf.json'), 'my_server');
    assert.equal(name('node /home/me/weather-mcp/dist/index.js'), 'weather-mcp');
    assert.equal(name('node dist/index.js'), 'index');
  });
  test('from a URL', () => {
    assert.equal(name('http://localhost:3000/mcp'), 'localhost_3000');
    assert.equal(name('http://127.0.0.1:8080/mcp'), '127_0_0_1_8080');
    assert.equal(name('https://mcp.notion.com/mcp'), 'notion');
  });
  test("a config's name is kept", () => {
    const dir = tempDir('chat-names');
    const file = join(dir, 'servers.json');
    writeFileSync(file, JSON.stringify({ mcpServers: { docs: { url: 'http://localhost:9/mcp' }, fs: { command: 'node', args: ['fs.js'] } } }));
    assert.equal(serverName(resolveTarget('docs', { config: file, cwd: dir }), 'docs'), 'docs');
    assert.equal(serverName(resolveTarget('fs', { config: file, cwd: dir }), 'fs'), 'fs');
  });
});

describe('chatSettings', () => {
  test('--server TARGETs are named, repeats numbered; the model and endpoint are taken as given', () => {
    const s = settings(['--model', 'llama3.2', '--base-url', 'http://localhost:11434/v1', '-s', 'node a/weather.js', '--server', 'node b/weather.js']);
    assert.deepEqual(
      s.servers.map((x) => x.name),
      ['weather', 'weather_2'],
    );
    assert.equal(s.provider, 'openai');
    assert.equal(s.model, 'llama3.2');
    assert.equal(s.baseUrl, 'http://localhost:11434/v1');
    assert.equal(s.config, undefined);
    assert.equal(s.maxSteps, 20);
    assert.equal(s.toolTimeoutMs, 60_000);
    assert.equal(s.era, 'auto');
    assert.deepEqual(s.approval, { readOnly: 'auto', destructive: 'ask', default: 'ask' });
  });

  test('NAME=TARGET names a server; KEY=value before a command stays an environment variable', () => {
    const s = settings(['-m', 'x', '-s', 'docs=http://localhost:3000/mcp', '-s', 'DEBUG=1 node a/weather.js']);
    assert.deepEqual(
      s.servers.map((x) => x.name),
      ['docs', 'weather'],
    );
    assert.deepEqual(s.servers[1].target, { kind: 'stdio', command: 'node', args: ['a/weather.js'], env: { DEBUG: '1' }, label: 'DEBUG=1 node a/weather.js' });
  });

  test('NAME=TARGET takes any server name (mixed case, digits, -); only CAPITALS before a command are an environment variable, and that is said', () => {
    const s = settings([
      '-m',
      'x',
      '-s',
      'myNotes=node a/notes.js',
      '-s',
      'notesA=http://localhost:3000/mcp',
      '-s',
      'my-db=node b/db.js --ro',
      '-s',
      'NOTES=http://localhost:4000/mcp',
      '-s',
      'DEBUG=1 node c/weather.js',
    ]);
    assert.deepEqual(
      s.servers.map((x) => x.name),
      ['myNotes', 'notesA', 'my-db', 'NOTES', 'weather'],
    );
    assert.deepEqual(s.servers[0].target, { kind: 'stdio', command: 'node', args: ['a/notes.js'], env: {}, label: 'node a/notes.js' });
    assert.equal(s.servers[1].target.kind, 'http');
    assert.equal(s.servers[3].target.kind, 'http');
    assert.deepEqual(s.servers[4].target, { kind: 'stdio', command: 'node', args: ['c/weather.js'], env: { DEBUG: '1' }, label: 'DEBUG=1 node c/weather.js' });
    // The one reading that is not a name is said, in one line.
    assert.equal(s.notes.length, 1);
    assert.match(s.notes[0]!, /^--server "DEBUG=1 node c\/weather\.js": DEBUG=1 is set in the environment of "node c\/weather\.js"/);
    assert.throws(
      () => settings(['-m', 'x', '-s', 'notes=']),
      (e: Error) => e instanceof UsageError && /notes= names a server, and needs its TARGET/.test(e.message),
    );
  });

  test("a server picked from --config keeps its entry's allow, deny and timeout", () => {
    const dir = tempDir('chat-pick');
    writeFileSync(
      join(dir, 'servers.json'),
      JSON.stringify({ mcpServers: { fs: { command: 'node', args: ['fs.js'], deny: ['rm'], timeoutMs: 5000 }, other: { url: 'http://localhost:9/mcp' } } }),
    );
    const s = settings(['-m', 'x', '--config', 'servers.json', '-s', 'fs'], dir);
    assert.equal(s.config, undefined, 'only the servers named');
    assert.equal(s.servers.length, 1);
    assert.equal(s.servers[0].name, 'fs');
    assert.deepEqual(s.servers[0].deny, ['rm']);
    assert.equal(s.servers[0].timeoutMs, 5000);
    assert.equal(s.servers[0].target.kind, 'stdio');
  });

  test('--config alone uses all its servers; ./.mcp.json when nothing is given', () => {
    const dir = tempDir('chat-cfg');
    assert.equal(settings(['-m', 'x', '--config', 'other.json'], dir).config, 'other.json');
    assert.equal(settings(['-m', 'x'], dir).config, undefined);
    writeFileSync(join(dir, '.mcp.json'), '{"mcpServers":{}}');
    assert.equal(settings(['-m', 'x'], dir).config, join(dir, '.mcp.json'));
  });

  test('the provider: named, or anthropic for a claude model without an endpoint', () => {
    assert.equal(settings(['-m', 'claude-sonnet-4-5']).provider, 'anthropic');
    assert.equal(settings(['-m', 'claude-sonnet-4-5', '--base-url', 'https://openrouter.ai/api/v1']).provider, 'openai');
    assert.equal(settings(['-m', 'x', '--provider', 'anthropic']).provider, 'anthropic');
  });

  test('options carried over', () => {
    const s = settings([
      '-m',
      'x',
      '--system',
      'Be brief.',
      '-p',
      'hi',
      '--json',
      '--yes',
      '--max-steps',
      '3',
      '--era',
      'handshake',
      '--prefix',
      'always',
      '--timeout',
      '0',
      '--code-mode',
      '--context-window',
      '8192',
    ]);
    assert.equal(s.system, 'Be brief.');
    assert.equal(s.print, 'hi');
    assert.equal(s.json, true);
    assert.equal(s.yes, true);
    assert.equal(s.maxSteps, 3);
    assert.equal(s.era, 'handshake');
    assert.equal(s.prefix, 'always');
    assert.equal(s.toolTimeoutMs, 0);
    assert.equal(s.codeMode, true);
    assert.equal(s.contextWindow, 8192);
    assert.equal(settings(['-m', 'x']).codeMode, false);
    assert.equal(settings(['-m', 'x']).contextWindow, undefined);
  });

  test('usage errors', () => {
    const bad: Array<[string[], RegExp]> = [
      [[], /--model NAME is required/],
      [['-m', 'x', '--context-window', '12k'], /--context-window: expected a whole number/],
      [['-m', 'x', '--provider', 'gemini'], /--provider: openai or anthropic/],
      [['-m', 'x', '--approve', 'sometimes'], /--approve: one of auto, ask, never/],
      [['-m', 'x', '--prefix', 'maybe'], /--prefix: one of always, on-clash, never/],
      [['-m', 'x', '--json'], /--json goes with -p/],
      [['-m', 'x', '--max-steps', '0'], /--max-steps: expected a whole number from 1/],
      [['-m', 'x', '--era', 'old'], /--era: one of auto, modern, handshake/],
      [['-m', 'x', '-s', ''], /the TARGET is empty/],
    ];
    for (const [argv, message] of bad)
      assert.throws(
        () => settings(argv),
        (e: Error) => (e instanceof UsageError || e.name === 'TargetError') && message.test(e.message),
        argv.join(' '),
      );
  });
});

test('approvalPolicy per --approve mode', () => {
  assert.deepEqual(approvalPolicy('auto'), { readOnly: 'auto', destructive: 'auto', default: 'auto' });
  assert.deepEqual(approvalPolicy('ask'), { readOnly: 'ask', destructive: 'ask', default: 'ask' });
  assert.deepEqual(approvalPolicy('never'), { readOnly: 'deny', destructive: 'deny', default: 'deny' });
});
