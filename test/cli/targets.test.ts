import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArguments } from '../../src/cli/args.js';
import { TargetError } from '../../src/pool/errors.js';
import { splitCommandLine, takeEnvAssignments } from '../../src/pool/shell-words.js';
import { resolveTarget } from '../../src/pool/targets.js';

test('splitCommandLine splits words as a POSIX shell does', () => {
  assert.deepEqual(splitCommandLine('npx -y  some-server --flag'), ['npx', '-y', 'some-server', '--flag']);
  assert.deepEqual(splitCommandLine(`node "my server.js" 'it''s' a\\ b`), ['node', 'my server.js', 'its', 'a b']);
  assert.deepEqual(splitCommandLine(`echo "say \\"hi\\" \\\\ \\$HOME" '\\n stays'`), ['echo', 'say "hi" \\ $HOME', '\\n stays']);
  assert.deepEqual(splitCommandLine(`a "" '' b`), ['a', '', '', 'b']);
  assert.deepEqual(splitCommandLine(`--name=it\\'s "--x=a b"`), ["--name=it's", '--x=a b']);
  assert.deepEqual(splitCommandLine('  '), []);
  assert.deepEqual(splitCommandLine('a\\\nb'), ['ab']);
  assert.deepEqual(splitCommandLine(`grep "|" '&&'`), ['grep', '|', '&&']);
});

test('splitCommandLine refuses unterminated quotes and shell operators', () => {
  assert.throws(() => splitCommandLine(`node "server.js`), /unterminated double quote/);
  assert.throws(() => splitCommandLine(`node 'server.js`), /unterminated single quote/);
  assert.throws(() => splitCommandLine('node server.js | tee log'), /shell operator/);
  assert.throws(() => splitCommandLine('a && b'), TargetError);
});

test('leading NAME=value words become the environment', () => {
  assert.deepEqual(takeEnvAssignments(['DEBUG=1', 'A_B=x=y', 'node', 'X=1']), { env: { DEBUG: '1', A_B: 'x=y' }, rest: ['node', 'X=1'] });
});

test('tool arguments: one JSON object, or key=value with JSON values when they parse', () => {
  assert.deepEqual(parseArguments(['{"n":5,"s":"x"}']), { n: 5, s: 'x' });
  assert.deepEqual(parseArguments(['n=5', 'message=hello world', 'ok=true', 'tags=["a"]', 'empty=', 'eq=a=b']), {
    n: 5,
    message: 'hello world',
    ok: true,
    tags: ['a'],
    empty: '',
    eq: 'a=b',
  });
  assert.deepEqual(parseArguments(['n=5'], { stringsOnly: true }), { n: '5' });
  assert.throws(() => parseArguments(['nokey']), /key=value/);
  assert.throws(() => parseArguments(['{not json']), /not valid JSON/);
  assert.throws(() => parseArguments(['[1]']), /key=value/);
});

test('resolveTarget: URLs, command lines, config names', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcpkit-targets-'));
  const home = join(dir, 'home');
  mkdirSync(join(home, '.cursor'), { recursive: true });
  const url = resolveTarget('http://127.0.0.1:3000/mcp', { headers: { 'X-A': '1' }, cwd: dir, home });
  assert.deepEqual(url, { kind: 'http', url: 'http://127.0.0.1:3000/mcp', headers: { 'X-A': '1' }, label: 'http://127.0.0.1:3000/mcp' });

  const cmd = resolveTarget(`DEBUG=1 npx -y "my server"`, { env: { B: '2' }, cwd: dir, home });
  assert.deepEqual(cmd, { kind: 'stdio', command: 'npx', args: ['-y', 'my server'], env: { DEBUG: '1', B: '2' }, label: `DEBUG=1 npx -y "my server"` });

  // The usual locations: ./.mcp.json first, then ~/.cursor/mcp.json.
  writeFileSync(
    join(home, '.cursor', 'mcp.json'),
    JSON.stringify({ mcpServers: { cursorOnly: { url: 'http://h/mcp', headers: { Authorization: 'Bearer t' } }, both: { command: 'b' } } }),
  );
  writeFileSync(join(dir, '.mcp.json'), JSON.stringify({ mcpServers: { both: { command: 'node', args: ['s.js'], env: { K: 'v' } } } }));
  assert.deepEqual(resolveTarget('both', { cwd: dir, home }), {
    kind: 'stdio',
    command: 'node',
    args: ['s.js'],
    env: { K: 'v' },
    cwd: undefined,
    label: 'both',
  });
  assert.deepEqual(resolveTarget('cursorOnly', { cwd: dir, home, headers: { 'X-B': '2' } }), {
    kind: 'http',
    url: 'http://h/mcp',
    headers: { Authorization: 'Bearer t', 'X-B': '2' },
    label: 'cursorOnly (http://h/mcp)',
  });
  // Not a configured name: a command.
  assert.equal(resolveTarget('some-binary', { cwd: dir, home }).kind, 'stdio');

  // --config FILE: only that file; VS Code's "servers" key works too; a missing name is explained.
  const vscode = join(dir, 'vscode.json');
  writeFileSync(vscode, JSON.stringify({ servers: { v: { type: 'stdio', command: 'srv' } } }));
  assert.equal((resolveTarget('v', { config: vscode, cwd: dir, home }) as { command: string }).command, 'srv');
  assert.throws(() => resolveTarget('nope', { config: vscode, cwd: dir, home }), /no server named "nope" in .*vscode\.json \(it has: v\)/);
  assert.throws(() => resolveTarget('x', { config: join(dir, 'missing.json'), cwd: dir, home }), /no such file/);
  assert.throws(() => resolveTarget('', {}), /empty/);
});

test('resolveTarget: another URL scheme, or an address without one, is said so (not "command not found")', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcpkit-targets-'));
  const o = { cwd: dir, home: dir };
  const scheme = /^unsupported URL scheme ([\w+.-]+): \(use http:\/\/ or https:\/\/\)$/;
  for (const [target, name] of [
    ['ftp://host/x', 'ftp'],
    ['ws://127.0.0.1:3000/mcp', 'ws'],
    ['FILE:///tmp/server.js', 'file'],
    ['svn+ssh://h/r', 'svn+ssh'],
  ]) {
    assert.throws(
      () => resolveTarget(target, o),
      (e: unknown) => e instanceof TargetError && scheme.exec(e.message)?.[1] === name,
      target,
    );
  }
  for (const [target, meant] of [
    ['localhost:3000/mcp', 'http://localhost:3000/mcp'],
    ['127.0.0.1:8080', 'http://127.0.0.1:8080'],
    ['[::1]:3000/mcp', 'http://[::1]:3000/mcp'],
    ['mcp.example.com:443/mcp?x=1', 'https://mcp.example.com:443/mcp?x=1'],
  ]) {
    assert.throws(
      () => resolveTarget(target, o),
      (e: unknown) => e instanceof TargetError && e.message === `"${target}" is neither a URL nor a command: did you mean ${meant}?`,
      target,
    );
  }
  // With --config too: the suggestion, not "no server named".
  const config = join(dir, 'c.json');
  writeFileSync(config, JSON.stringify({ mcpServers: { a: { command: 'a' } } }));
  assert.throws(() => resolveTarget('localhost:3000', { ...o, config }), /did you mean http:\/\/localhost:3000\?/);
  // A configured name that looks like an address is still the configured server.
  writeFileSync(join(dir, '.mcp.json'), JSON.stringify({ mcpServers: { 'box:8080': { url: 'http://box:8080/mcp' } } }));
  assert.equal(resolveTarget('box:8080', o).kind, 'http');
});

test('resolveTarget: real command lines are still commands', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcpkit-targets-'));
  const o = { cwd: dir, home: dir };
  writeFileSync(join(dir, 'server.js'), '');
  writeFileSync(join(dir, 'localhost:3000'), '');
  const commands: Array<[string, string]> = [
    ['node server.js', 'node'],
    ['npx -y @modelcontextprotocol/server-everything', 'npx'],
    ['./server.js', process.execPath],
    ['./missing.js', './missing.js'],
    ['uvx mcp-server-fetch', 'uvx'],
    ['docker run -i --rm mcp/fetch', 'docker'],
    ['"C:\\Program Files\\nodejs\\node.exe" server.js', 'C:\\Program Files\\nodejs\\node.exe'],
    ["'C:\\srv\\server.exe'", 'C:\\srv\\server.exe'],
    ['python3 -m server --url http://127.0.0.1:3000/mcp', 'python3'],
    ['image:latest', 'image:latest'],
    // A file of that name is there: it is what was meant.
    ['localhost:3000', 'localhost:3000'],
  ];
  for (const [line, command] of commands) {
    const t = resolveTarget(line, o);
    assert.equal(t.kind, 'stdio', line);
    assert.equal((t as { command: string }).command, command, line);
  }
});
