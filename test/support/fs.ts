// Temporary directories that go away when the test process ends.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made: string[] = [];
process.once('exit', () => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A fresh directory under the OS temp dir (prefix `mcpkit-PREFIX-`), removed at process exit. */
export function tempDir(prefix = 'test'): string {
  const dir = mkdtempSync(join(tmpdir(), `mcpkit-${prefix}-`));
  made.push(dir);
  return dir;
}
