// Watching a directory tree for `serve --watch`. Each directory gets its own non-recursive
// watcher, because a directory keeps its inode while editors, `sed -i` and atomic writers replace
// the files in it (write a temp file, rename it over the original). Node 20's recursive watch on
// Linux follows the files themselves and goes deaf after the first such save.
import { readdirSync, statSync, watch, type FSWatcher } from 'node:fs';
import { join, relative } from 'node:path';

/** node_modules, .git, dist, dotfiles (editor swap files, temp files of atomic saves), backups~. */
const IGNORED = /(^|[/\\])(node_modules|\.git|dist)([/\\]|$)|(^|[/\\])\.[^/\\]|~$/;

export interface TreeWatcher {
  close(): void;
}

/** Calls `onChange(path relative to root)` when a file under `root` is written, created, renamed or removed. */
export function watchTree(root: string, onChange: (file: string) => void): TreeWatcher {
  const watchers = new Map<string, FSWatcher>();
  let closed = false;

  const unwatch = (dir: string) => {
    for (const [d, w] of watchers) {
      if (d === dir || d.startsWith(`${dir}/`) || d.startsWith(`${dir}\\`)) {
        w.close();
        watchers.delete(d);
      }
    }
  };

  const add = (dir: string) => {
    if (closed || watchers.has(dir)) return;
    let w: FSWatcher;
    try {
      w = watch(dir, (_event, name) => {
        const file = name ? join(dir, String(name)) : dir;
        const rel = relative(root, file) || '.';
        if (IGNORED.test(rel)) return;
        // A new directory is watched too; a removed one (or a file) just stops being one.
        if (name && isDirectory(file)) add(file);
        else if (name && watchers.has(file)) unwatch(file);
        onChange(rel);
      });
    } catch {
      return; // gone already, or not readable: nothing to watch there
    }
    // Windows reports a watched directory's removal as an error (EPERM) rather than an event.
    w.on('error', () => unwatch(dir));
    watchers.set(dir, w);
    let entries: string[] = [];
    try {
      entries = readdirSync(dir, { withFileTypes: true })
        .filter((e) => e.isDirectory())
        .map((e) => e.name);
    } catch {
      // removed while we looked
    }
    for (const name of entries) {
      const sub = join(dir, name);
      if (!IGNORED.test(relative(root, sub))) add(sub);
    }
  };

  add(root);
  return {
    close() {
      closed = true;
      for (const w of watchers.values()) w.close();
      watchers.clear();
    },
  };
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
