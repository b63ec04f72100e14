// A module that does not parse, shown the way a compiler shows it (file:line:column, the source
// line and a caret) rather than as a stack through the module loader.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { isAbsolute, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

interface Place {
  file: string;
  line: number;
  /** 1-based; unknown when the parser only names the line (an unexpected end of input). */
  column?: number;
  message: string;
}

/**
 * The syntax error behind a failed import of `file`, as text to show, or undefined when `err`
 * is no syntax error that can be placed (a missing export, an error thrown while running).
 */
export function describeSyntaxError(err: unknown, file: string, cwd: string): string | undefined {
  const place = placeOf(err, file);
  if (!place) return undefined;
  const shown = isAbsolute(place.file) && !relative(cwd, place.file).startsWith('..') ? relative(cwd, place.file) : place.file;
  let text = `a syntax error at ${shown}:${place.line}${place.column ? `:${place.column}` : ''}: ${place.message}`;
  const source = sourceLine(place.file, place.line);
  if (source?.trim()) {
    const gutter = String(place.line);
    text += `\n  ${gutter} | ${source}`;
    // Tabs stay tabs, so the caret lines up with the column in any terminal.
    if (place.column) text += `\n  ${' '.repeat(gutter.length)} | ${source.slice(0, place.column - 1).replace(/[^\t]/g, ' ')}^`;
  }
  return text;
}

function placeOf(err: unknown, file: string): Place | undefined {
  if (!(err instanceof Error)) return undefined;
  // esbuild, through tsx: "Transform failed with 1 error:\n/path/x.ts:3:10: ERROR: Unexpected ";"" (0-based column).
  const esbuild = /^(.+?):(\d+):(\d+): ERROR: (.+)$/m.exec(err.message);
  if (esbuild) return { file: esbuild[1], line: Number(esbuild[2]), column: Number(esbuild[3]) + 1, message: esbuild[4] };
  if (err.name !== 'SyntaxError') return undefined;
  // Node names the place in the stack of a CommonJS module, and not at all for an ES module:
  // there `node --check` says it the same way.
  const decorated = decoratedPlace(err.stack ?? '', err.message);
  if (decorated) return decorated;
  if (!/\.[mc]?js$/.test(file)) return undefined;
  const check = spawnSync(process.execPath, ['--check', file], { encoding: 'utf8' });
  return check.status === 0 ? undefined : decoratedPlace(check.stderr ?? '', err.message);
}

/** Reads "FILE:LINE\nsource\n   ^\n\nSyntaxError: message" (node's own arrow message). */
function decoratedPlace(text: string, message: string): Place | undefined {
  const m = /^(.+):(\d+)\n(.*)\n(.*)\n/.exec(text);
  if (!m) return undefined;
  const file = m[1].startsWith('file://') ? fileURLToPath(m[1]) : m[1];
  const caret = m[4].indexOf('^');
  return { file, line: Number(m[2]), column: caret >= 0 ? caret + 1 : undefined, message };
}

function sourceLine(file: string, line: number): string | undefined {
  try {
    return readFileSync(file, 'utf8').split(/\r?\n/)[line - 1];
  } catch {
    return undefined;
  }
}
