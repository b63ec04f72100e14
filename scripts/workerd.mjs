// A module worker for workerd, for the runtime matrix (scripts/runtimes.mjs) and the conformance
// server passes on workerd (scripts/conformance.mjs): bundled by esbuild for the browser platform
// (a Node built-in the bundle reaches fails the build: Workers without nodejs_compat have none),
// with one Durable Object class bound as env.SESSIONS, and a config for `workerd serve`.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CACHE } from './runtime-bins.mjs';

/**
 * Bundles `entry` into .cache/runtimes/<name>/ and writes its config; resolves to the config's
 * path. `className`: the Durable Object class the entry exports. `esbuild`: more build options.
 */
export async function workerdApp({ name, entry, className, esbuild = {} }) {
  const { build } = await import('esbuild');
  const dir = join(CACHE, name);
  mkdirSync(dir, { recursive: true });
  await build({
    entryPoints: [entry],
    outfile: join(dir, 'worker.mjs'),
    bundle: true,
    format: 'esm',
    platform: 'browser',
    conditions: ['workerd', 'worker', 'browser'],
    logLevel: 'error',
    ...esbuild,
  });
  const config = join(dir, 'config.capnp');
  writeFileSync(
    config,
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [(name = "main", worker = .mcp)],
  sockets = [(name = "http", address = "127.0.0.1:0", http = (), service = "main")],
);
const mcp :Workerd.Worker = (
  modules = [(name = "worker.mjs", esModule = embed "worker.mjs")],
  compatibilityDate = "2025-09-01",
  durableObjectNamespaces = [(className = "${className}", uniqueKey = "mcpkit-${name}")],
  durableObjectStorage = (inMemory = void),
  bindings = [(name = "SESSIONS", durableObjectNamespace = "${className}")],
);
`,
  );
  return config;
}

/** `workerd serve` arguments: any free port, reported as JSON on descriptor 3 (see workerdPort). */
export function workerdArgs(config) {
  return ['serve', config, '--socket-addr', 'http=127.0.0.1:0', '--control-fd', '3'];
}

/** Calls `onPort` with the port workerd bound, read from its control descriptor (one JSON object a line). */
export function workerdPort(child, onPort) {
  let buffered = '';
  let seen = false;
  child.stdio[3].on('data', (c) => {
    buffered += c;
    const m = /"port":\s*(\d+)/.exec(buffered);
    if (m && !seen) {
      seen = true;
      onPort(Number(m[1]));
    }
  });
}

/**
 * conformance/server.ts bundled for workerd (test/runtimes/hosts/conformance-worker.ts): its
 * Node-only imports stood in for. `skillDirectory` returns what the real one (dist/) reads from
 * conformance/skills/ now, so the skills scenarios see the same files; `serve` (its main, never
 * run in a Worker) throws. Resolves to the config's path.
 */
export async function conformanceWorker(root) {
  const { skillDirectory } = await import(pathToFileURL(join(root, 'dist/entries/node.js')).href);
  const defs = await skillDirectory(join(root, 'conformance/skills'))();
  const embedded = defs.map((d) => ({
    ...d,
    files: Object.fromEntries(Object.entries(d.files).map(([path, bytes]) => [path, Buffer.from(bytes).toString('base64')])),
  }));
  const stubs = {
    node: `const EMBEDDED = ${JSON.stringify(embedded)};
const bytes = (b64) => Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
export function skillDirectory() {
  return async () => EMBEDDED.map((d) => ({ ...d, files: Object.fromEntries(Object.entries(d.files).map(([p, b]) => [p, bytes(b)])) }));
}
export function serve() { throw new Error('mcpkit/node is not available in workerd'); }`,
    url: `export const fileURLToPath = (url) => String(url);
export const pathToFileURL = (path) => new URL('file://' + path);`,
  };
  const plugin = {
    name: 'conformance-node-stubs',
    setup(b) {
      b.onResolve({ filter: /^node:url$/ }, () => ({ path: 'url', namespace: 'stub' }));
      b.onResolve({ filter: /src\/entries\/node\.js$/ }, () => ({ path: 'node', namespace: 'stub' }));
      b.onLoad({ filter: /.*/, namespace: 'stub' }, (a) => ({ contents: stubs[a.path], loader: 'js' }));
    },
  };
  return workerdApp({
    name: 'workerd-conformance',
    entry: join(root, 'test/runtimes/hosts/conformance-worker.ts'),
    className: 'ConformanceSessions',
    // The server's "am I the main module" test reads process.argv (Workers have no process), and
    // it locates its skills from import.meta.url, which a Worker's module does not have as a URL.
    esbuild: { plugins: [plugin], define: { 'process.argv': '[]', 'import.meta.url': '"file:///conformance/server.js"' } },
  });
}
