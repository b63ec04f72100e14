// The directory watcher behind `serve --watch`: it keeps seeing a file that editors and `sed -i`
// replace (a temp file renamed over it), that is deleted and made again, or that appears in a
// new directory.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { watchTree } from '../../src/cli/watch-tree.js';
import { tempDir, waitFor } from '../support/index.js';

/** A watched tree and the changes it has reported, so a test can wait for the next one. */
function watched() {
  const dir = tempDir('watch-tree');
  writeFileSync(join(dir, 'main.ts'), 'v0');
  const seen: string[] = [];
  const w = watchTree(dir, (file) => seen.push(file));
  /** Makes a change and waits until `file` is reported after it. */
  const change = async (what: string, file: string, act: () => void) => {
    const from = seen.length;
    act();
    await waitFor(() => seen.slice(from).includes(file), `${file} to be reported after ${what} (seen after it: ${seen.slice(from).join(', ')})`);
  };
  return { dir, seen, w, change };
}

test('a file replaced atomically, again and again, keeps being reported', async () => {
  const { dir, w, change } = watched();
  try {
    const file = join(dir, 'main.ts');
    for (let i = 1; i <= 3; i++) {
      await change(`atomic save ${i}`, 'main.ts', () => {
        writeFileSync(join(dir, `.main.ts.tmp${i}`), `v${i}`);
        renameSync(join(dir, `.main.ts.tmp${i}`), file);
      });
    }
    // `sed -i` writes a visible temp file beside the original, then renames it over.
    for (let i = 1; i <= 2; i++) {
      await change(`sed -i ${i}`, 'main.ts', () => {
        writeFileSync(join(dir, `sedX${i}`), `s${i}`);
        renameSync(join(dir, `sedX${i}`), file);
      });
    }
    await change('a plain write', 'main.ts', () => writeFileSync(file, 'plain'));
    await change('removal', 'main.ts', () => unlinkSync(file));
    await change('recreation', 'main.ts', () => writeFileSync(file, 'back'));
    await change('a write after recreation', 'main.ts', () => writeFileSync(file, 'again'));
  } finally {
    w.close();
  }
});

test('subdirectories, including new ones, are watched; node_modules and dotfiles are not', async () => {
  const { dir, seen, w, change } = watched();
  try {
    mkdirSync(join(dir, 'node_modules'));
    await change('a new directory', 'lib', () => mkdirSync(join(dir, 'lib')));
    await change('a file in it', join('lib', 'a.ts'), () => writeFileSync(join(dir, 'lib', 'a.ts'), 'a'));
    await change('an atomic save in it', join('lib', 'a.ts'), () => {
      writeFileSync(join(dir, 'lib', '.a.tmp'), 'b');
      renameSync(join(dir, 'lib', '.a.tmp'), join(dir, 'lib', 'a.ts'));
    });
    // What is ignored shows up nowhere, even next to a change that is reported.
    await change('an ignored write followed by a real one', 'main.ts', () => {
      writeFileSync(join(dir, 'node_modules', 'x.js'), 'x');
      writeFileSync(join(dir, '.swap'), 'x');
      writeFileSync(join(dir, 'main.ts~'), 'x');
      writeFileSync(join(dir, 'main.ts'), 'v1');
    });
    assert.deepEqual(
      seen.filter((f) => f.includes('node_modules') || f.startsWith('.') || f.endsWith('~')),
      [],
    );
    await change('removing a directory', 'lib', () => rmSync(join(dir, 'lib'), { recursive: true }));
    await change('a write after it', 'main.ts', () => writeFileSync(join(dir, 'main.ts'), 'v2'));
  } finally {
    w.close();
  }
});
