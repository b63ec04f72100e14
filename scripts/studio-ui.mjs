// The studio's page (src/studio/ui) bundled for the browser: one studio.js and one studio.css,
// minified, nothing loaded from elsewhere at run time (the studio works offline). Used by
// `npm run build` (into dist/studio/assets) and by the studio's tests (into a temp folder).
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));

/** Builds the page into `outdir`; returns the sizes (bytes, minified and gzip). */
export async function buildStudioUi(outdir, { minify = true } = {}) {
  await build({
    absWorkingDir: ROOT,
    // The stylesheet is an entry of its own (not imported by the script): studio.js and studio.css.
    entryPoints: [
      { in: 'src/studio/ui/main.tsx', out: 'studio' },
      { in: 'src/studio/ui/studio.css', out: 'studio' },
    ],
    outdir,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify,
    sourcemap: false,
    jsx: 'automatic',
    jsxImportSource: 'preact',
    legalComments: 'eof',
    logLevel: 'warning',
  });
  const js = readFileSync(join(outdir, 'studio.js'));
  const css = readFileSync(join(outdir, 'studio.css'));
  return { js: js.length, css: css.length, jsGzip: gzipSync(js).length, cssGzip: gzipSync(css).length };
}
