// How to start this very mcpkit again, from anywhere: for the configs printed for hosts and
// written by `mcpkit install`, and for the command lines `serve` suggests. A host starts servers
// from its own working directory with its own PATH (a desktop app often has no nvm or npx on it),
// so everything is absolute: this node, then this CLI's script.
import { existsSync, realpathSync } from 'node:fs';
import { delimiter, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** main.js (or main.ts, run through a loader), next to this file. */
export const MAIN = fileURLToPath(new URL(`./main${extname(fileURLToPath(import.meta.url))}`, import.meta.url));

/** The node arguments that run the CLI: its script, behind tsx when the CLI runs from source. */
export function cliArgs(): string[] {
  if (!MAIN.endsWith('.ts')) return [MAIN];
  // From a source checkout: the loader, by absolute URL so that it resolves from any directory.
  return ['--import', import.meta.resolve('tsx'), MAIN];
}

/** The command and arguments that run `mcpkit ARGS` from any directory. */
export function cliCommand(args: string[] = []): { command: string; args: string[] } {
  return { command: process.execPath, args: [...cliArgs(), ...args] };
}

/**
 * What to type in a terminal to run mcpkit: `mcpkit` when the one on PATH is this one (a global
 * install), otherwise the absolute command (`npx mcpkit` works only inside the project).
 */
export function cliLine(env: Record<string, string | undefined>): string {
  if (process.platform !== 'win32' && !MAIN.endsWith('.ts')) {
    for (const dir of (env.PATH ?? '').split(delimiter)) {
      // npx and npm scripts put the project's node_modules/.bin first: not the user's own PATH.
      if (/node_modules[/\\]\.bin[/\\]?$/.test(dir)) continue;
      const bin = join(dir, 'mcpkit');
      if (dir && existsSync(bin) && sameFile(bin, MAIN)) return 'mcpkit';
    }
  }
  const { command, args } = cliCommand();
  return [command, ...args].map(shellQuote).join(' ');
}

function sameFile(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}

/** A word as a POSIX shell reads it back (single quotes when it has anything special). */
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** An address a client can connect to: a server bound to every interface is reached on loopback. */
export function reachableUrl(url: string): string {
  return url.replace(
    /^(https?:\/\/)(0\.0\.0\.0|\[::\])(?=[:/]|$)/,
    (_m, scheme: string, host: string) => `${scheme}${host === '0.0.0.0' ? '127.0.0.1' : '[::1]'}`,
  );
}
