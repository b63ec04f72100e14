// Splits a command line the way a POSIX shell splits words, without running a shell: quotes and
// backslash escapes are honoured; nothing is expanded ($VAR, globs, ~) and operators are refused.
import { TargetError } from './errors.js';

const OPERATORS = new Set(['|', '||', '&', '&&', ';', '<', '>', '>>', '2>', '2>&1', '|&']);

/**
 * `'npx -y "my server" --name=it\'s'` → `['npx', '-y', 'my server', "--name=it's"]`.
 * Single quotes keep everything literally; double quotes let `\` escape `"`, `\`, `$`, `` ` ``
 * and a newline; outside quotes `\` escapes any character. An unterminated quote is an error.
 */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  /** Whether the current word had any quoted part (a bare `|` is an operator, `"|"` is not). */
  let quoted = false;
  let i = 0;
  const end = () => {
    if (!inWord) return;
    if (!quoted && OPERATORS.has(word)) {
      throw new TargetError(
        `"${word}" in a command line is a shell operator; mcpkit starts the command directly, without a shell (quote it to pass it as an argument)`,
      );
    }
    words.push(word);
    word = '';
    inWord = false;
    quoted = false;
  };
  while (i < line.length) {
    const c = line[i];
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      end();
      i++;
    } else if (c === "'") {
      const close = line.indexOf("'", i + 1);
      if (close < 0) throw new TargetError(`unterminated single quote in command line: ${line}`);
      word += line.slice(i + 1, close);
      inWord = quoted = true;
      i = close + 1;
    } else if (c === '"') {
      inWord = quoted = true;
      i++;
      for (;;) {
        if (i >= line.length) throw new TargetError(`unterminated double quote in command line: ${line}`);
        const d = line[i];
        if (d === '"') {
          i++;
          break;
        }
        if (d === '\\' && i + 1 < line.length && '"\\$`\n'.includes(line[i + 1])) {
          if (line[i + 1] !== '\n') word += line[i + 1];
          i += 2;
          continue;
        }
        word += d;
        i++;
      }
    } else if (c === '\\') {
      if (i + 1 >= line.length) throw new TargetError(`command line ends with a lone backslash: ${line}`);
      // Backslash-newline is a line continuation; any other escaped character is literal.
      if (line[i + 1] !== '\n') {
        word += line[i + 1];
        inWord = quoted = true;
      }
      i += 2;
    } else {
      word += c;
      inWord = true;
      i++;
    }
  }
  end();
  return words;
}

/** Leading `NAME=value` words set the environment, as in a shell: `DEBUG=1 node s.js`. */
export function takeEnvAssignments(words: string[]): { env: Record<string, string>; rest: string[] } {
  const env: Record<string, string> = {};
  let k = 0;
  for (; k < words.length - 1; k++) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(words[k]);
    if (!m) break;
    env[m[1]] = m[2];
  }
  return { env, rest: words.slice(k) };
}
