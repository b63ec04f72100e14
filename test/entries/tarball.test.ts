// The package as a user gets it (issue 13, items 10 and 11): `npm pack`, the tarball installed in
// a fresh project, strict ESM and CommonJS consumers compiled against its declarations with
// skipLibCheck off, and the README's quick starts run from it. Reads the dist/ that
// `npm run build` made, as CI does before the tests.
//
// The install needs no network on a machine that ran `npm ci`: the project gets a lockfile cut
// from ours, so npm takes every tarball from its cache (--prefer-offline still fetches what the
// cache lacks).
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { tempDir } from '../support/index.js';
import { ROOT } from './graph.js';

interface Lock {
  packages: Record<string, { version?: string; dependencies?: Record<string, string>; optionalDependencies?: Record<string, string>; [key: string]: unknown }>;
}
interface Manifest {
  name: string;
  version: string;
  dependencies: Record<string, string>;
  exports: Record<string, unknown>;
  bin: Record<string, string>;
}

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Manifest;
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as Lock;
const runtimeExports = JSON.parse(readFileSync(join(ROOT, 'test/entries/exports.json'), 'utf8')) as Record<string, string[]>;
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
/** Subpath -> import specifier: '.' -> 'mcpkit', './server' -> 'mcpkit/server'. */
const SPECIFIERS = Object.keys(pkg.exports)
  .filter((k) => k !== './package.json')
  .map((k) => (k === '.' ? pkg.name : `${pkg.name}/${k.slice(2)}`));

// ---- the README's quick starts, the code the test runs ----

/** The README's ```ts and ```js blocks, each with the heading (## or ###) it stands under. */
function readmeBlocks(): Array<{ heading: string; code: string }> {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const out: Array<{ heading: string; code: string }> = [];
  let heading = '';
  const lines = readme.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const h = /^#{1,3} (.+)$/.exec(line);
    if (h) heading = h[1]!;
    else if (line === '```ts' || line === '```js') {
      const end = lines.indexOf('```', i + 1);
      out.push({ heading, code: `${lines.slice(i + 1, end).join('\n')}\n` });
      i = end;
    }
  }
  return out;
}

/** The one README block whose first line names this file (`// weather-server.mjs`). */
function blockSavedAs(file: string): string {
  const found = readmeBlocks().filter((b) => b.code.startsWith(`// ${file}\n`));
  assert.equal(found.length, 1, `README.md has one block saved as ${file}`);
  return found[0]!.code;
}

/** The README blocks under this heading. */
function blocksUnder(heading: string): string[] {
  const found = readmeBlocks().filter((b) => b.heading === heading);
  assert.ok(found.length > 0, `README.md has a code block under "${heading}"`);
  return found.map((b) => b.code);
}

/**
 * The file a quick start is to be saved as: what its first line names (`// weather-server.mjs`),
 * else what a reader who is told nothing does: a `.js` file.
 */
function savedAs(block: string, otherwise: string): string {
  return /^\/\/ ([\w.-]+\.[cm]?js)\s*$/m.exec(block.split('\n')[0]!)?.[1] ?? otherwise;
}

/** The TypeScript twin of a quick start's file, compiled to that file by tsc (`.mjs` from `.mts`). */
const typed = (file: string) => file.replace(/\.([cm]?)js$/, '.$1ts');

/** `text` with `from` replaced, failing loudly when the README no longer has it. */
function edit(text: string, from: string, to: string): string {
  assert.ok(text.includes(from), `the README quick start still contains ${JSON.stringify(from)}`);
  return text.replace(from, to);
}

// The server and the client the README starts with, the server over HTTP, the testing kit.
const serverBlock = blockSavedAs('weather-server.mjs');
const clientBlock = blockSavedAs('client.mjs');
const [httpBlock] = blocksUnder('The server over HTTP');
const [testingBlock] = blocksUnder('Testing your server');
const STDIO_LINE = 'await serveStdio(server);';
const SERVER_FILE = savedAs(serverBlock!, 'weather-server.js');
const CLIENT_FILE = savedAs(clientBlock!, 'client.js');
/** How the client quick start starts the server: the file the server quick start is saved as. */
const SPAWN = `{ command: 'node', args: ['${SERVER_FILE}'] }`;
/** The server without its last line, for the quick starts that continue it. */
const serverDefinition = edit(serverBlock!, STDIO_LINE, '');

// ---- processes ----

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function assertRan(r: Ran, what: string): string {
  assert.equal(r.code, 0, `${what} failed:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

/**
 * npm in the temporary project, without what the `npm test` around us exports: npm_config_local_prefix
 * and friends name this repository, and must not steer an install elsewhere.
 */
function npmEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!/^npm_(package_|lifecycle_|config_(local_prefix|prefix|global_prefix)$)/i.test(k)) env[k] = v;
  }
  return env;
}

/**
 * A lockfile for a project depending on the tarball, zod and the optional peers (@opentelemetry/api
 * for mcpkit/otel, the frameworks for the adapters), cut from ours (same versions, same integrity).
 */
function consumerLock(tarball: string, extra: Record<string, string>): Lock & Record<string, unknown> {
  const packages: Lock['packages'] = {
    '': { name: 'consumer', dependencies: { [pkg.name]: `file:${tarball}`, ...extra } },
    [`node_modules/${pkg.name}`]: {
      version: pkg.version,
      resolved: `file:${tarball}`,
      dependencies: pkg.dependencies,
      bin: pkg.bin,
    },
  };
  const queue = [...Object.keys(pkg.dependencies), ...Object.keys(extra)];
  while (queue.length > 0) {
    const name = queue.shift()!;
    const key = `node_modules/${name}`;
    if (packages[key]) continue;
    const found = lock.packages[key];
    assert.ok(found, `package-lock.json has ${key}`);
    for (const [path, entry] of Object.entries(lock.packages)) {
      if (path !== key && !path.startsWith(`${key}/`)) continue;
      const { dev: _dev, devOptional: _devOptional, peer: _peer, ...kept } = entry;
      packages[path] = kept;
      queue.push(...Object.keys(entry.dependencies ?? {}));
    }
  }
  return { name: 'consumer', lockfileVersion: 3, requires: true, packages };
}

// ---- the consumer project ----

const COMPILER = {
  target: 'ES2022',
  module: 'NodeNext',
  moduleResolution: 'NodeNext',
  // A Node project: no DOM lib, Node's globals from @types/node.
  lib: ['ES2023'],
  types: ['node'],
  typeRoots: [join(ROOT, 'node_modules/@types')],
  strict: true,
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
  skipLibCheck: false,
};

/** Imports every entry point and prints the names each one exports at runtime. */
function entriesModule(): string {
  const lines = SPECIFIERS.map((s, i) => `import * as e${i} from '${s}';`);
  lines.push(
    "import type { JsonRpcMessage, Transport } from 'mcpkit';",
    "import type { TestPairOptions } from 'mcpkit/testing';",
    '',
    '// A transport of its own, written the usual way (callbacks the engine sets), and options as',
    '// a strict project spells them: both have to compile under exactOptionalPropertyTypes.',
    'export class Loopback implements Transport {',
    "  onmessage?: Transport['onmessage'];",
    "  onclose?: Transport['onclose'];",
    "  onerror?: Transport['onerror'];",
    '  async start(): Promise<void> {}',
    '  async send(message: JsonRpcMessage | JsonRpcMessage[]): Promise<void> {',
    '    this.onmessage?.(message);',
    '  }',
    '  async close(): Promise<void> {',
    '    this.onclose?.();',
    '  }',
    '}',
    "export const options: TestPairOptions = { era: 'modern' };",
    '',
    `console.log(JSON.stringify({ ${SPECIFIERS.map((s, i) => `'${s}': Object.keys(e${i}).sort()`).join(', ')} }));`,
  );
  return `${lines.join('\n')}\n`;
}

const CJS_REQUIRE = `// CommonJS under "module": "nodenext": these imports become require() calls (require(esm)).
import { McpServer } from 'mcpkit/server';
import { createTestPair } from 'mcpkit/testing';
import { connect } from 'mcpkit';
import { z } from 'zod';

async function main(): Promise<void> {
  const server = new McpServer({ name: 'cjs', version: '1.0.0' });
  server.tool('greet', { input: { who: z.string() } }, ({ who }) => \`hello \${who}\`);
  const { client, close } = await createTestPair(server);
  const result = await client.callTool('greet', { who: 'require' });
  console.log(JSON.stringify({ content: result.content, commonjs: typeof module === 'object', connect: typeof connect }));
  await close();
}
void main();
`;

const CJS_IMPORT = `// CommonJS on any Node 20 and under "module": "node16": import() for values, and the types with
// their resolution mode.
import type { McpServer as Server } from 'mcpkit/server' with { 'resolution-mode': 'import' };

async function main(): Promise<void> {
  const { McpServer } = await import('mcpkit/server');
  const { createTestPair } = await import('mcpkit/testing');
  const server: Server = new McpServer({ name: 'cjs-import', version: '1.0.0' });
  server.tool('greet', () => 'hello import()');
  const { client, close } = await createTestPair(server);
  const result = await client.callTool('greet', {});
  console.log(JSON.stringify({ content: result.content, commonjs: typeof module === 'object' }));
  await close();
}
void main();
`;

function writeJson(path: string, value: unknown): void {
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
}

/** Every file a test looks at; set up once. */
interface Project {
  dir: string;
  /** A project made by `npm init -y`, with the quick starts pasted in. */
  fresh: string;
  installed: string;
  compiled: { nodenext: Ran; node16: Ran };
}

describe('the packed tarball, installed in a fresh project', () => {
  let project: Project;

  before(async () => {
    const dir = tempDir('tarball');
    const packed = assertRan(await run(NPM, ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], ROOT, npmEnv()), 'npm pack');
    const tarball = (JSON.parse(packed) as Array<{ filename: string }>)[0]!.filename;
    const extra: Record<string, string> = {};
    // The frameworks are optional peers of mcpkit/express, /hono and /fastify, whose declarations
    // import their types: a consumer of those entries has them installed.
    for (const name of ['zod', '@opentelemetry/api', 'express', '@types/express', 'hono', 'fastify']) {
      const version = lock.packages[`node_modules/${name}`]?.version;
      assert.ok(version, `package-lock.json has ${name}`);
      extra[name] = version;
    }
    writeJson(join(dir, 'package.json'), { name: 'consumer', private: true, type: 'module', dependencies: { [pkg.name]: `file:${tarball}`, ...extra } });
    writeJson(join(dir, 'package-lock.json'), consumerLock(tarball, extra));
    assertRan(
      await run(NPM, ['ci', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'], dir, npmEnv()),
      'npm ci of the tarball',
    );
    const installed = join(dir, 'node_modules', pkg.name);
    assert.ok(existsSync(join(installed, 'package.json')), 'the tarball was installed in the temporary project');

    // ESM: the quick starts as the README has them, and what runs them elsewhere.
    writeFileSync(join(dir, typed(SERVER_FILE)), serverBlock!);
    writeFileSync(join(dir, typed(CLIENT_FILE)), clientBlock!);
    writeFileSync(join(dir, 'http-server.ts'), `${serverDefinition}\n${edit(httpBlock!, 'port: 3000', 'port: 0')}\nconsole.log(running.url);\n`);
    writeFileSync(join(dir, 'client-http.ts'), edit(clientBlock!, SPAWN, 'String(process.argv[2])'));
    writeFileSync(join(dir, 'testing.ts'), `${serverDefinition}\n${testingBlock}`);
    writeFileSync(join(dir, 'entries.ts'), entriesModule());

    // CommonJS, in a folder whose package.json says so: NodeNext reads each file's format from it.
    const cjs = join(dir, 'cjs');
    mkdirSync(cjs);
    writeJson(join(cjs, 'package.json'), { type: 'commonjs' });
    writeFileSync(join(cjs, 'require.ts'), CJS_REQUIRE);
    writeFileSync(join(cjs, 'import.ts'), CJS_IMPORT);
    const files = [typed(SERVER_FILE), typed(CLIENT_FILE), 'http-server.ts', 'client-http.ts', 'testing.ts', 'entries.ts', 'cjs/require.ts', 'cjs/import.ts'];
    writeJson(join(dir, 'tsconfig.json'), { compilerOptions: COMPILER, files });
    // The declarations are ESM whoever imports them, and the program above checks them all; this
    // one only checks that node16's CommonJS reaches them through import() and resolution-mode.
    writeJson(join(cjs, 'tsconfig.node16.json'), {
      compilerOptions: { ...COMPILER, module: 'Node16', moduleResolution: 'Node16', skipLibCheck: true, noEmit: true },
      files: ['import.ts'],
    });

    const [nodenext, node16] = await Promise.all([
      run(process.execPath, [TSC, '-p', 'tsconfig.json'], dir),
      run(process.execPath, [TSC, '-p', 'tsconfig.node16.json'], cjs),
    ]);
    // A project as `npm init -y` makes it (npm 11: "type": "commonjs"), beside the installed
    // package, where a reader pastes the quick starts as the README gives them, uncompiled.
    const fresh = join(dir, 'fresh');
    mkdirSync(fresh);
    assertRan(await run(NPM, ['init', '-y'], fresh, npmEnv()), 'npm init -y');
    writeFileSync(join(fresh, SERVER_FILE), serverBlock!);
    writeFileSync(join(fresh, CLIENT_FILE), clientBlock!);
    project = { dir, fresh, installed, compiled: { nodenext, node16 } };
  });

  test('strict NodeNext (exactOptionalPropertyTypes, skipLibCheck off, no DOM lib) compiles the quick starts, every entry point, and CommonJS importing the package', () => {
    assertRan(project.compiled.nodenext, 'tsc of the consumer (nodenext)');
  });

  test('node16: CommonJS gets the types through import() and resolution-mode', () => {
    assertRan(project.compiled.node16, 'tsc of the CommonJS consumer (node16)');
  });

  test('every entry point loads from the package and exports what the source entries do', async () => {
    const out = JSON.parse(assertRan(await run(process.execPath, ['entries.js'], project.dir), 'entries.js')) as Record<string, string[]>;
    const expected = Object.fromEntries(SPECIFIERS.map((s) => [s, [...runtimeExports[s === pkg.name ? 'index' : s.slice(pkg.name.length + 1)]!].sort()]));
    assert.deepEqual(out, expected);
  });

  function assertClientOutput(out: string): void {
    // The tools it lists, and the result of the call.
    assert.match(out, /name: 'forecast',/);
    assert.match(out, /description: 'Forecast for a city'/);
    assert.match(out, /content: \[ \{ type: 'text', text: 'Sunny in Oslo' \} \]/);
    // connect() picks the 2026-07-28 era against an mcpkit server; its plumbing in results
    // (resultType, the server's identity in _meta) is taken off, so the result prints as in 2025.
    assert.match(out, /^\{ content: \[ \{ type: 'text', text: 'Sunny in Oslo' \} \] \}$/m);
    assert.doesNotMatch(out, /serverInfo|resultType/);
  }

  test('README quick starts: the client starts the stdio server and calls its tool', async () => {
    assertClientOutput(assertRan(await run(process.execPath, [CLIENT_FILE], project.dir), 'the client quick start'));
  });

  test('README quick starts, pasted as they are into a project made by npm init -y ("type": "commonjs"), run with node', async () => {
    const manifest = JSON.parse(readFileSync(join(project.fresh, 'package.json'), 'utf8')) as { type?: string };
    // The trap: npm's default project is CommonJS, where `import` in a .js file is a syntax error.
    assert.notEqual(manifest.type, 'module', 'npm init -y made a CommonJS project');
    assertClientOutput(assertRan(await run(process.execPath, [CLIENT_FILE], project.fresh), `node ${CLIENT_FILE} in a fresh project`));
  });

  test('the README says how to install the package, with what its quick starts import', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const line = /^npm install (.+?)\s*(?:#.*)?$/m.exec(readme);
    assert.ok(line, 'README.md has an "npm install ..." line');
    const names = line[1]!.split(/\s+/);
    assert.ok(names.includes(pkg.name), `the install line names ${pkg.name}: ${line[0]}`);
    // Every package the quick starts import, other than mcpkit's own entries and node's modules.
    const imported = new Set<string>();
    for (const block of [serverBlock!, clientBlock!])
      for (const m of block.matchAll(/from '([^']+)'/g)) if (!m[1]!.startsWith('node:')) imported.add(m[1]!.split('/')[0]!);
    for (const name of imported) assert.ok(names.includes(name), `the install line names ${name}, which the quick starts import: ${line[0]}`);
  });

  test('README quick starts: the same server over HTTP, and the client by URL', async () => {
    const server = spawn(process.execPath, ['http-server.js'], { cwd: project.dir, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const url = await firstLine(server, /^http:\/\/\S+$/m);
      assertClientOutput(assertRan(await run(process.execPath, ['client-http.js', url], project.dir), 'the client quick start by URL'));
    } finally {
      if (server.exitCode === null && server.signalCode === null) {
        const exited = new Promise((resolve) => server.once('exit', resolve));
        server.kill('SIGTERM');
        await exited;
      }
    }
  });

  test('README: the testing kit records the wire', async () => {
    const out = assertRan(await run(process.execPath, ['testing.js'], project.dir), 'the testing quick start');
    // createTestPair picks the era connect() would: 2026-07-28 against an mcpkit server, as the README says.
    for (const method of ['→ server/discover', '→ tools/call']) assert.ok(out.includes(`'${method}'`), `${method} in ${out}`);
    assert.ok(!out.includes('initialize'), `no handshake in ${out}`);
  });

  test('the mcpkit command from the package calls the quick-start server', async () => {
    const bin = join(project.dir, 'node_modules/.bin', Object.keys(pkg.bin)[0]!);
    accessSync(bin, constants.X_OK);
    const out = assertRan(await run(process.execPath, [bin, 'call', `node ${SERVER_FILE}`, 'forecast', '{"city":"Oslo"}'], project.dir), 'mcpkit call');
    assert.equal(out.trim(), 'Sunny in Oslo');
  });

  test('the packaged mcpkit --help offers what works from the package: serve --openapi, and no serve conformance (a source checkout only)', async () => {
    const bin = join(project.dir, 'node_modules/.bin', Object.keys(pkg.bin)[0]!);
    const top = assertRan(await run(process.execPath, [bin, '--help'], project.dir), 'mcpkit --help');
    assert.match(top, /^ {2}mcpkit serve --openapi SPEC /m);
    assert.doesNotMatch(top, /conformance/);
    const serve = assertRan(await run(process.execPath, [bin, 'serve', '--help'], project.dir), 'mcpkit serve --help');
    assert.doesNotMatch(serve, /conformance/);
    // Asked for anyway: one line saying why not.
    const asked = await run(process.execPath, [bin, 'serve', 'conformance'], project.dir);
    assert.equal(asked.code, 2);
    assert.match(asked.stderr, /^mcpkit: serve conformance: the conformance server ships with the source checkout only/);
  });

  test('telemetry asked for where the OpenTelemetry SDK is not installed: one line blaming what asked (--otel, or the variable set)', async () => {
    const bin = join(project.dir, 'node_modules/.bin', Object.keys(pkg.bin)[0]!);
    // The project has @opentelemetry/api (a peer of mcpkit/otel), not the Node SDK.
    assert.ok(!existsSync(join(project.dir, 'node_modules/@opentelemetry/sdk-node')));
    const flagged = await run(process.execPath, [bin, 'serve', '--stdio', '--otel'], project.dir);
    assert.equal(flagged.code, 1, flagged.stderr);
    assert.match(
      flagged.stderr,
      /^mcpkit: --otel asks for OpenTelemetry export, which needs the OpenTelemetry SDK, and it is not installed: npm install @opentelemetry\/api @opentelemetry\/sdk-node \(next to mcpkit\), or drop --otel\n$/,
    );
    const env = { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' };
    const variable = await run(process.execPath, [bin, 'serve', '--stdio'], project.dir, env);
    assert.equal(variable.code, 1, variable.stderr);
    assert.match(variable.stderr, /^mcpkit: OTEL_EXPORTER_OTLP_ENDPOINT \(set in the environment\) asks for .*, or unset OTEL_EXPORTER_OTLP_ENDPOINT\n$/);
  });

  test('CommonJS: require() of the package, and import() from CommonJS, both run', async () => {
    const cjs = join(project.dir, 'cjs');
    const required = JSON.parse(assertRan(await run(process.execPath, ['require.js'], cjs), 'require.js')) as Record<string, unknown>;
    assert.deepEqual(required, { content: [{ type: 'text', text: 'hello require' }], commonjs: true, connect: 'function' });
    const imported = JSON.parse(assertRan(await run(process.execPath, ['import.js'], cjs), 'import.js')) as Record<string, unknown>;
    assert.deepEqual(imported, { content: [{ type: 'text', text: 'hello import()' }], commonjs: true });
  });

  test('every installed .js points at a source map that is there, and every map carries the sources it names', () => {
    const dist = join(project.installed, 'dist');
    // The studio's page is a minified browser bundle the studio serves, not a module Node loads:
    // it ships without a map (a stack in the page's console is the page's own).
    const page = join(dist, 'studio', 'assets');
    const missing: string[] = [];
    let maps = 0;
    for (const entry of readdirSync(dist, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !entry.name.endsWith('.js')) continue;
      const file = join(entry.parentPath, entry.name);
      if (file.startsWith(page)) continue;
      const ref = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(readFileSync(file, 'utf8'));
      if (!ref) {
        missing.push(`${file}: no sourceMappingURL`);
        continue;
      }
      const mapPath = join(dirname(file), ref[1]!);
      if (!existsSync(mapPath)) {
        missing.push(`${file}: ${ref[1]} is not in the package`);
        continue;
      }
      maps++;
      const map = JSON.parse(readFileSync(mapPath, 'utf8')) as { sources: string[]; sourcesContent?: Array<string | null> };
      map.sources.forEach((source, i) => {
        if (typeof map.sourcesContent?.[i] !== 'string' && !existsSync(join(dirname(mapPath), source))) missing.push(`${mapPath}: ${source}`);
      });
    }
    assert.deepEqual(missing, []);
    assert.ok(maps > 50, `only ${maps} source maps`);
  });
});

/** The first match of `pattern` on the child's stdout; fails with its stderr if it exits first. */
function firstLine(child: ChildProcess, pattern: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const m = pattern.exec(out);
      if (m) resolve(m[0]);
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code} before printing ${pattern}: ${out}${err}`)));
  });
}
