// mcpkit install HOST TARGET: each host's file and entry shape, merging into a file that holds
// other servers and settings (backup, nothing lost), refusals that leave the file alone, --force,
// --print, and an installed entry that a host can start from another directory.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectStdio } from '../../src/client/connect-stdio.js';
import { hostConfigPath } from '../../src/cli/host-config.js';
import { cleanEnv, mcpkit, ROOT } from './helpers.js';
import { tempDir } from '../support/index.js';

const SERVER_INDEX = join(ROOT, 'src/entries/server.ts');

/** A project folder with a server module whose tool answers with an environment variable. */
function project(): { dir: string; module: string; env: NodeJS.ProcessEnv; home: string } {
  const dir = tempDir('install');
  const module = join(dir, 'weather.ts');
  writeFileSync(
    module,
    `import { McpServer } from ${JSON.stringify(SERVER_INDEX)};
export const server = new McpServer({ name: 'weather', version: '1.0.0' });
server.tool('forecast', { description: 'Forecast' }, () => \`sunny for \${process.env.WHO ?? 'nobody'}\`);
`,
  );
  const env = cleanEnv();
  return { dir, module, env, home: env.HOME! };
}

/** A host's `${...}` reference, written literally. */
const ref = (inner: string) => `\${${inner}}`;

type Entry = { type?: string; command?: string; args?: string[]; env?: Record<string, string>; url?: string; headers?: Record<string, string> };

function readJson(file: string): Record<string, Record<string, Entry>> & Record<string, unknown> {
  return JSON.parse(readFileSync(file, 'utf8'));
}

function backups(file: string): string[] {
  const dir = join(file, '..');
  const base = file.slice(dir.length + 1);
  return readdirSync(dir)
    .filter((f) => f.startsWith(`${base}.`) && f.endsWith('.bak'))
    .map((f) => join(dir, f));
}

describe('install: the file and entry of each host', () => {
  test('claude: the platform’s claude_desktop_config.json, command + args + env, all absolute', async () => {
    const p = project();
    const r = await mcpkit(['install', 'claude', 'weather.ts', '--env', 'WHO=me'], { cwd: p.dir, env: p.env });
    assert.equal(r.code, 0, r.stderr);
    const file = hostConfigPath('claude', { cwd: p.dir, env: p.env })!;
    assert.ok(file.startsWith(p.home), file);
    const e = readJson(file).mcpServers.weather;
    assert.equal(e.command, process.execPath);
    assert.ok(e.args!.includes(join(ROOT, 'src/cli/main.ts')), 'the CLI script by absolute path');
    assert.deepEqual(e.args!.slice(-3), ['serve', '--stdio', p.module]);
    assert.deepEqual(e.env, { WHO: 'me' });
    assert.equal(e.type, undefined);
    assert.match(r.stdout, /Added "weather" in Claude Desktop's config/);
  });

  test('claude: where the file is on each platform', () => {
    const env = { HOME: '/h', APPDATA: 'C:\\Users\\u\\AppData\\Roaming' };
    assert.equal(
      hostConfigPath('claude', { cwd: '/p', env, platform: 'darwin' }),
      join('/h', 'Library', 'Application Support', 'Claude', 'claude_desktop_config.json'),
    );
    assert.equal(hostConfigPath('claude', { cwd: '/p', env, platform: 'win32' }), join(env.APPDATA, 'Claude', 'claude_desktop_config.json'));
    assert.equal(hostConfigPath('claude', { cwd: '/p', env, platform: 'linux' }), join('/h', '.config', 'Claude', 'claude_desktop_config.json'));
    assert.equal(
      hostConfigPath('claude', { cwd: '/p', env: { ...env, XDG_CONFIG_HOME: '/x' }, platform: 'linux' }),
      join('/x', 'Claude', 'claude_desktop_config.json'),
    );
  });

  test('claude: a URL goes through the stdio bridge, headers and all (its file has no URL entries)', async () => {
    const p = project();
    const r = await mcpkit(['install', 'claude', 'https://mcp.example.com/mcp', '--api-key', 'k1', '--name', 'remote'], { cwd: p.dir, env: p.env });
    assert.equal(r.code, 0, r.stderr);
    const e = readJson(hostConfigPath('claude', { cwd: p.dir, env: p.env })!).mcpServers.remote;
    assert.equal(e.command, process.execPath);
    assert.deepEqual(e.args!.slice(-4), ['--stdio-to-http', 'https://mcp.example.com/mcp', '-H', 'Authorization: Bearer k1']);
    assert.equal(e.url, undefined);
  });

  test('cursor: ~/.cursor/mcp.json, or the project’s with --project; URLs as url + headers', async () => {
    const p = project();
    assert.equal((await mcpkit(['install', 'cursor', 'weather.ts'], { cwd: p.dir, env: p.env })).code, 0);
    const global = readJson(join(p.home, '.cursor', 'mcp.json')).mcpServers.weather;
    assert.equal(global.command, process.execPath);
    assert.deepEqual(global.args!.slice(-1), [p.module]);
    const r = await mcpkit(['install', 'cursor', 'http://127.0.0.1:3000/mcp', '-H', 'X-API-Key: k2', '--name', 'local', '--project'], {
      cwd: p.dir,
      env: p.env,
    });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(readJson(join(p.dir, '.cursor', 'mcp.json')).mcpServers.local, { url: 'http://127.0.0.1:3000/mcp', headers: { 'X-API-Key': 'k2' } });
  });

  test('vscode: .vscode/mcp.json under "servers", with type stdio / http', async () => {
    const p = project();
    assert.equal((await mcpkit(['install', 'vscode', 'weather.ts', '-e', 'WHO=vs'], { cwd: p.dir, env: p.env })).code, 0);
    assert.equal((await mcpkit(['install', 'vscode', 'https://mcp.example.com/mcp', '--api-key', 'k3'], { cwd: p.dir, env: p.env })).code, 0);
    const servers = readJson(join(p.dir, '.vscode', 'mcp.json')).servers;
    assert.equal(servers.weather.type, 'stdio');
    assert.equal(servers.weather.command, process.execPath);
    assert.deepEqual(servers.weather.env, { WHO: 'vs' });
    assert.deepEqual(servers['mcp.example.com'], {
      type: 'http',
      url: 'https://mcp.example.com/mcp',
      headers: { Authorization: `Bearer ${ref('input:mcp-example-com-api-key')}` },
    });
  });

  test('claude-code: the project’s .mcp.json, typed entries; a command line keeps its words, with paths made absolute', async () => {
    const p = project();
    writeFileSync(join(p.dir, 'plain.js'), '');
    const r = await mcpkit(['install', 'claude-code', 'DEBUG=1 node plain.js --verbose'], { cwd: p.dir, env: p.env });
    assert.equal(r.code, 0, r.stderr);
    assert.equal((await mcpkit(['install', 'claude-code', '--', 'npx', '-y', '@acme/tools@2'], { cwd: p.dir, env: p.env })).code, 0);
    const servers = readJson(join(p.dir, '.mcp.json')).mcpServers;
    assert.deepEqual(servers.plain, { type: 'stdio', command: process.execPath, args: [join(p.dir, 'plain.js'), '--verbose'], env: { DEBUG: '1' } });
    assert.deepEqual(servers.tools, { type: 'stdio', command: 'npx', args: ['-y', '@acme/tools@2'] });
  });

  test('mcp-json: prints the entry and writes nothing', async () => {
    const p = project();
    const r = await mcpkit(['install', 'mcp-json', 'weather.ts', '--watch', '--name', 'w'], { cwd: p.dir, env: p.env });
    assert.equal(r.code, 0, r.stderr);
    const e = (JSON.parse(r.stdout) as { mcpServers: Record<string, Entry> }).mcpServers.w;
    assert.deepEqual(e.args!.slice(-4), ['serve', '--stdio', p.module, '--watch']);
    assert.deepEqual(readdirSync(p.dir), ['weather.ts']);
  });

  test('bad input: a clear usage error', async () => {
    const p = project();
    for (const [args, message] of [
      [['install'], /which host/],
      [['install', 'zed', 'weather.ts'], /unknown host "zed"/],
      [['install', 'claude'], /give one TARGET/],
      [['install', 'claude', 'missing.ts'], /no such file/],
      [['install', 'claude', 'weather.ts', '--api-key', 'k'], /for a URL TARGET/],
      [['install', 'cursor', 'https://x.example/mcp', '--watch'], /--watch is for a module/],
      [['install', 'vscode', 'https://x.example/mcp', '-e', 'A=1'], /--env is for a server the host starts/],
    ] as const) {
      const r = await mcpkit([...args], { cwd: p.dir, env: p.env });
      assert.equal(r.code, 2, args.join(' '));
      assert.match(r.stderr, message);
      assert.doesNotMatch(r.stderr, /\n\s+at /);
    }
  });
});

describe('install: API keys stay out of shared files', () => {
  test('attack: vscode --api-key never writes the key into .vscode/mcp.json; VS Code prompts for it', async () => {
    const p = project();
    const file = join(p.dir, '.vscode', 'mcp.json');
    mkdirSync(join(file, '..'));
    writeFileSync(file, `${JSON.stringify({ inputs: [{ type: 'promptString', id: 'other', description: 'x' }], servers: {} }, null, 2)}\n`);
    const r = await mcpkit(['install', 'vscode', 'https://mcp.example.com/mcp', '--api-key', 'sk-live-SECRET', '--name', 'remote api'], {
      cwd: p.dir,
      env: p.env,
    });
    assert.equal(r.code, 0, r.stderr);
    const text = readFileSync(file, 'utf8');
    assert.doesNotMatch(text, /sk-live-SECRET/);
    assert.doesNotMatch(r.stdout + r.stderr, /sk-live-SECRET/, 'nor shown');
    const written = JSON.parse(text) as { inputs: unknown[]; servers: Record<string, Entry> };
    assert.deepEqual(written.inputs, [
      { type: 'promptString', id: 'other', description: 'x' },
      { type: 'promptString', id: 'remote-api-api-key', description: 'API key for the MCP server "remote api"', password: true },
    ]);
    assert.deepEqual(written.servers['remote api'].headers, { Authorization: `Bearer ${ref('input:remote-api-api-key')}` });
    assert.match(r.stdout, /VS Code asks for the API key the first time it starts "remote api" and keeps it in its secret storage/);
    // The same again changes nothing: the input is there once.
    const again = await mcpkit(['install', 'vscode', 'https://mcp.example.com/mcp', '--api-key', 'other-key', '--name', 'remote api'], {
      cwd: p.dir,
      env: p.env,
    });
    assert.match(again.stdout, /nothing changed/);
    assert.equal((readJson(file).inputs as unknown as unknown[]).length, 2);
    // An input of that id that is not ours is not replaced without --force.
    writeFileSync(file, JSON.stringify({ inputs: [{ type: 'promptString', id: 'x-api-key', description: 'mine' }] }));
    const clash = await mcpkit(['install', 'vscode', 'https://x.example/mcp', '--api-key', 'k', '--name', 'x'], { cwd: p.dir, env: p.env });
    assert.equal(clash.code, 1);
    assert.match(clash.stderr, /already has an input "x-api-key", different from this one; --force replaces it/);
  });

  test('--api-key-env writes a reference each host expands; hosts that expand none refuse it', async () => {
    const p = project();
    const url = 'https://mcp.example.com/mcp';
    for (const [host, file, key, expected] of [
      ['vscode', join(p.dir, '.vscode', 'mcp.json'), 'servers', `Bearer ${ref('env:ACME_KEY')}`],
      ['cursor', join(p.home, '.cursor', 'mcp.json'), 'mcpServers', `Bearer ${ref('env:ACME_KEY')}`],
      ['claude-code', join(p.dir, '.mcp.json'), 'mcpServers', `Bearer ${ref('ACME_KEY')}`],
    ] as const) {
      const r = await mcpkit(['install', host, url, '--api-key-env', 'ACME_KEY', '--name', 'acme'], { cwd: p.dir, env: p.env });
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(readJson(file)[key].acme.headers, { Authorization: expected }, host);
      assert.match(r.stdout, /reads the API key from the environment variable ACME_KEY/);
      assert.equal(r.stderr, '', 'no plain-text warning');
    }
    for (const [args, message] of [
      [['install', 'claude', url, '--api-key-env', 'ACME_KEY'], /Claude Desktop does not read environment variables in its config/],
      [['install', 'mcp-json', url, '--api-key-env', 'ACME_KEY'], /which host reads this entry is not known/],
      [['install', 'cursor', url, '--api-key-env', 'ACME-KEY'], /--api-key-env takes a variable name/],
      [['install', 'cursor', url, '--api-key-env', 'A', '--api-key', 'k'], /--api-key or --api-key-env, not both/],
      [['install', 'cursor', 'weather.ts', '--api-key-env', 'A'], /for a URL TARGET/],
    ] as const) {
      const r = await mcpkit([...args], { cwd: p.dir, env: p.env });
      assert.equal(r.code, 2, args.join(' '));
      assert.match(r.stderr, message);
    }
  });

  test('--api-key on a host with no secret store: written, with a warning naming the file; a new file is private', async () => {
    const p = project();
    const r = await mcpkit(['install', 'claude-code', 'https://mcp.example.com/mcp', '--api-key', 'k9'], { cwd: p.dir, env: p.env });
    assert.equal(r.code, 0, r.stderr);
    const file = join(p.dir, '.mcp.json');
    assert.equal(readJson(file).mcpServers['mcp.example.com'].headers!.Authorization, 'Bearer k9');
    assert.ok(r.stderr.includes(`! The API key is written in plain text in ${file}, a project file that is often committed`), r.stderr);
    assert.match(r.stderr, /--api-key-env VAR writes a reference instead, and Claude Code reads the key from the environment/);
    if (process.platform !== 'win32') assert.equal(statSync(file).mode & 0o777, 0o600);
    const claude = await mcpkit(['install', 'claude', 'https://mcp.example.com/mcp', '--api-key', 'k1'], { cwd: p.dir, env: p.env });
    assert.match(claude.stderr, /in plain text in .*claude_desktop_config\.json, and is on the command line of the bridge Claude Desktop starts/);
    const printed = await mcpkit(['install', 'mcp-json', 'https://mcp.example.com/mcp', '--api-key', 'k2'], { cwd: p.dir, env: p.env });
    assert.equal(JSON.parse(printed.stdout).mcpServers['mcp.example.com'].headers.Authorization, 'Bearer k2');
    assert.match(printed.stderr, /The API key is written in plain text in the entry printed\./);
  });
});

describe('install: merging into an existing file', () => {
  const existing = {
    globalShortcut: 'Ctrl+Space',
    mcpServers: { other: { command: 'other-server', args: ['--x'] }, weather: { command: 'old' } },
    preferences: { theme: 'dark' },
  };

  test('keeps other servers and settings, writes a backup of the old file, refuses to replace without --force', async () => {
    const p = project();
    const file = join(p.dir, '.mcp.json');
    const before = `${JSON.stringify(existing, null, 4)}\n`;
    writeFileSync(file, before);

    const refused = await mcpkit(['install', 'claude-code', 'weather.ts'], { cwd: p.dir, env: p.env });
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /already has a server named "weather"; --force replaces it/);
    assert.equal(readFileSync(file, 'utf8'), before, 'untouched');
    assert.deepEqual(backups(file), []);

    const r = await mcpkit(['install', 'claude-code', 'weather.ts', '--force'], { cwd: p.dir, env: p.env });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Replaced "weather"/);
    const after = readJson(file);
    assert.deepEqual(Object.keys(after), ['globalShortcut', 'mcpServers', 'preferences']);
    assert.equal(after.globalShortcut, 'Ctrl+Space');
    assert.deepEqual(after.preferences, { theme: 'dark' });
    assert.deepEqual(after.mcpServers.other, existing.mcpServers.other);
    assert.deepEqual(Object.keys(after.mcpServers), ['other', 'weather'], 'the replaced entry keeps its place');
    assert.equal(after.mcpServers.weather.command, process.execPath);
    assert.match(readFileSync(file, 'utf8'), /^ {4}"globalShortcut"/m, "the file's own indentation");
    const [backup, ...more] = backups(file);
    assert.deepEqual(more, []);
    assert.equal(readFileSync(backup, 'utf8'), before, 'the backup holds the old file');
    assert.match(r.stdout, new RegExp(`kept as ${backup.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));

    // The same entry again: nothing to do, no second backup.
    const again = await mcpkit(['install', 'claude-code', 'weather.ts'], { cwd: p.dir, env: p.env });
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /nothing changed/);
    assert.equal(backups(file).length, 1);
  });

  test('a file that is not valid JSON is refused and left exactly as it was', async () => {
    const p = project();
    const file = join(p.home, '.cursor', 'mcp.json');
    mkdirSync(join(file, '..'), { recursive: true });
    const broken = '{ "mcpServers": { "a": { "command": "x" } }\n';
    writeFileSync(file, broken);
    const r = await mcpkit(['install', 'cursor', 'weather.ts'], { cwd: p.dir, env: p.env });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /is not valid JSON .*it was left as it is/);
    assert.equal(readFileSync(file, 'utf8'), broken);
    assert.deepEqual(readdirSync(join(file, '..')), ['mcp.json'], 'no backup, no temp file');
  });

  test('a VS Code file with comments is left alone; --print shows the entry to paste', async () => {
    const p = project();
    const file = join(p.dir, '.vscode', 'mcp.json');
    mkdirSync(join(file, '..'));
    const jsonc = '{\n  // my servers\n  "servers": {},\n}\n';
    writeFileSync(file, jsonc);
    const r = await mcpkit(['install', 'vscode', 'weather.ts'], { cwd: p.dir, env: p.env });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /comments or trailing commas/);
    assert.equal(readFileSync(file, 'utf8'), jsonc);
    const printed = await mcpkit(['install', 'vscode', 'weather.ts', '--print'], { cwd: p.dir, env: p.env });
    assert.equal(printed.code, 0);
    assert.equal((JSON.parse(printed.stdout) as { servers: Record<string, Entry> }).servers.weather.type, 'stdio');
    assert.equal(readFileSync(file, 'utf8'), jsonc);
  });

  test('JSON that is not an object, or servers that are not an object, is refused', async () => {
    const p = project();
    const file = join(p.dir, '.mcp.json');
    for (const text of ['[1, 2]', '{ "mcpServers": [] }']) {
      writeFileSync(file, text);
      const r = await mcpkit(['install', 'claude-code', 'weather.ts'], { cwd: p.dir, env: p.env });
      assert.equal(r.code, 1, text);
      assert.match(r.stderr, /not (a JSON object|an object)/);
      assert.equal(readFileSync(file, 'utf8'), text);
    }
  });

  test('--print shows the merged file and changes nothing', async () => {
    const p = project();
    const file = join(p.dir, '.mcp.json');
    const before = JSON.stringify(existing);
    writeFileSync(file, before);
    const r = await mcpkit(['install', 'claude-code', 'weather.ts', '--print', '--name', 'w2'], { cwd: p.dir, env: p.env });
    assert.equal(r.code, 0, r.stderr);
    const shown = JSON.parse(r.stdout) as typeof existing & { mcpServers: Record<string, Entry> };
    assert.deepEqual(Object.keys(shown.mcpServers), ['other', 'weather', 'w2']);
    assert.equal(shown.preferences.theme, 'dark');
    assert.equal(readFileSync(file, 'utf8'), before);
    assert.deepEqual(backups(file), []);
  });
});

describe('install: a host can start what was installed', () => {
  /** Starts an entry the way a host does: its command, args and env, from another directory. */
  async function startLikeAHost(e: Entry): Promise<string> {
    const client = await connectStdio({ command: e.command!, args: e.args, env: e.env, cwd: tmpdir(), stderr: 'pipe' });
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(
        tools.map((t) => t.name),
        ['forecast'],
      );
      const r = await client.callTool('forecast');
      return (r.content[0] as { text: string }).text;
    } finally {
      await client.close();
    }
  }

  test('the written entry (command, args, env) works from another directory', async () => {
    const p = project();
    const r = await mcpkit(['install', 'claude-code', 'weather.ts', '--env', 'WHO=the host'], { cwd: p.dir, env: p.env });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(await startLikeAHost(readJson(join(p.dir, '.mcp.json')).mcpServers.weather), 'sunny for the host');
  });

  test('from the built package: node + dist/cli/main.js, no npx, no loader flags', async () => {
    const main = join(ROOT, 'dist/cli/main.js');
    assert.ok(existsSync(main), 'dist/cli/main.js exists (npm run build makes it, as CI does before the tests)');
    const p = project();
    const out = spawnSync(process.execPath, [main, 'install', 'mcp-json', 'weather.ts', '-e', 'WHO=dist'], { cwd: p.dir, env: p.env, encoding: 'utf8' });
    assert.equal(out.status, 0, out.stderr);
    const e = (JSON.parse(out.stdout) as { mcpServers: Record<string, Entry> }).mcpServers.weather;
    assert.deepEqual({ command: e.command, args: e.args }, { command: process.execPath, args: [main, 'serve', '--stdio', p.module] });
    assert.equal(await startLikeAHost(e), 'sunny for dist');
  });
});
