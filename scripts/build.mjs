// npm run build: a clean dist/ from src/ (tsc), the mcpkit binary made executable, no type
// declarations for the CLI's and the studio's internals (they are not an API; shipping them
// invites imports), and the studio's page bundled into dist/studio/assets.
// Source maps carry their sources inline, since src/ is not in the package.
import { chmodSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { buildStudioUi } from './studio-ui.mjs';

rmSync('dist', { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const r = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
if (r.status !== 0) process.exit(r.status ?? 1);
chmodSync('dist/cli/main.js', 0o755);
for (const internal of ['dist/cli', 'dist/studio']) {
  for (const entry of readdirSync(internal, { recursive: true, withFileTypes: true })) {
    if (entry.isFile() && entry.name.endsWith('.d.ts')) rmSync(join(entry.parentPath ?? entry.path, entry.name));
  }
}
// The studio's page: bundled, not compiled by tsc (tsconfig.build.json leaves src/studio/ui out).
const ui = await buildStudioUi('dist/studio/assets');
console.log(`studio page: ${(ui.jsGzip / 1024).toFixed(1)} KiB + ${(ui.cssGzip / 1024).toFixed(1)} KiB gzip (js + css)`);
