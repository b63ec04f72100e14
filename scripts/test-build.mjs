// Compiles the TypeScript the tests run (src/, test/, examples/, conformance/) to JavaScript once,
// into a mirror of the checkout under the system's temporary folder, so that each test file's
// process loads plain JavaScript instead of starting tsx and transforming on the fly. tsx cost
// about 0.45 s of CPU per test file here (its start plus the transforms, even cached): on two cores
// and ~180 files, half of `npm test`'s CPU.
//
// The mirror: every other top-level entry of the checkout (package.json, node_modules, docs,
// dist, ...) is a symbolic link, so paths a test computes from its own location still reach the
// real files; the compiled folders hold each .ts beside its .js (a fixture started through tsx by
// path still exists) and every other file copied. Only files whose source is newer than their
// copy are compiled again; a file gone from the checkout is removed from the mirror.
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const COMPILED = ['src', 'test', 'examples', 'conformance'];
const SKIP = new Set(['.git', ...COMPILED]);

/** The mirror's folder for this checkout (one per checkout, so worktrees do not share one). */
export function mirrorOf(root) {
  return join(tmpdir(), `mcpkit-tests-${createHash('sha256').update(resolve(root)).digest('hex').slice(0, 12)}`);
}

/** Brings the mirror of `root` up to date; returns its path. */
export async function buildTests(root = process.cwd()) {
  root = resolve(root);
  const out = mirrorOf(root);
  mkdirSync(out, { recursive: true });
  const tsconfig = JSON.parse(readFileSync(join(root, 'tsconfig.json'), 'utf8'));
  for (const name of readdirSync(root)) {
    if (SKIP.has(name)) continue;
    const link = join(out, name);
    if (!existsSync(link) && !isLink(link)) symlinkSync(join(root, name), link);
  }
  const { transform } = await import('esbuild');
  const jobs = [];
  const seen = new Set();
  const walk = (dir) => {
    if (!existsSync(join(root, dir))) return;
    for (const name of readdirSync(join(root, dir))) {
      const rel = join(dir, name);
      const from = join(root, rel);
      const st = statSync(from);
      if (st.isDirectory()) {
        if (name === 'node_modules') continue;
        walk(rel);
        continue;
      }
      seen.add(rel);
      const to = join(out, rel);
      const fresh = existsSync(to) && statSync(to).mtimeMs >= st.mtimeMs;
      if (!fresh) {
        mkdirSync(dirname(to), { recursive: true });
        copyFileSync(from, to);
      }
      if (/\.(ts|tsx|mts)$/.test(name) && !name.endsWith('.d.ts')) {
        const js = rel.replace(/\.tsx?$/, '.js').replace(/\.mts$/, '.mjs');
        seen.add(js);
        if (!fresh || !existsSync(join(out, js))) jobs.push([rel, js]);
      }
    }
  };
  for (const dir of COMPILED) walk(dir);
  await Promise.all(
    jobs.map(async ([rel, js]) => {
      const source = readFileSync(join(root, rel), 'utf8');
      const result = await transform(source, {
        loader: rel.endsWith('x') ? 'tsx' : 'ts',
        format: 'esm',
        target: 'node20',
        sourcemap: 'inline',
        sourcefile: join(root, rel),
        tsconfigRaw: { compilerOptions: tsconfig.compilerOptions },
      });
      writeFileSync(join(out, js), result.code);
    }),
  );
  // Files gone from the checkout leave the mirror (a stale module must not satisfy an import).
  const prune = (dir) => {
    const at = join(out, dir);
    if (!existsSync(at)) return;
    for (const name of readdirSync(at)) {
      const rel = join(dir, name);
      if (lstatSync(join(out, rel)).isDirectory()) prune(rel);
      else if (!seen.has(rel)) rmSync(join(out, rel));
    }
  };
  for (const dir of COMPILED) prune(dir);
  return { out, compiled: jobs.length };
}

function isLink(p) {
  try {
    return lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}
