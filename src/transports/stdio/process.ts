/** Process helpers for the stdio client: the child's environment, spawn errors, stderr tail. */

/**
 * Variables a server inherits from our environment by default. Everything else (API keys,
 * tokens, cloud credentials that commonly sit in a developer's shell) is withheld unless passed
 * explicitly in `env`: an MCP server is often third-party code and should get only the secrets
 * it is configured with. These are the variables programs need to run at all: find executables
 * (PATH), locate the user's home and temp directories, pick a locale and terminal, and on
 * Windows find the system directories.
 */
export const DEFAULT_INHERITED_ENV_VARS: readonly string[] =
  process.platform === 'win32'
    ? [
        'APPDATA',
        'COMSPEC',
        'HOMEDRIVE',
        'HOMEPATH',
        'LOCALAPPDATA',
        'PATH',
        'PATHEXT',
        'PROCESSOR_ARCHITECTURE',
        'PROGRAMDATA',
        'PROGRAMFILES',
        'PROGRAMFILES(X86)',
        'SYSTEMDRIVE',
        'SYSTEMROOT',
        'TEMP',
        'TMP',
        'USERNAME',
        'USERPROFILE',
        'WINDIR',
      ]
    : ['HOME', 'LANG', 'LC_ALL', 'LC_CTYPE', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'TMPDIR', 'TZ', 'USER'];

/** The safe subset of `process.env` described by {@link DEFAULT_INHERITED_ENV_VARS}. */
export function defaultEnvironment(from: Record<string, string | undefined> = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of DEFAULT_INHERITED_ENV_VARS) {
    const value = from[key];
    if (value === undefined) continue;
    // Exported shell functions ("() { ...") are code, not configuration; never pass them on.
    if (value.startsWith('()')) continue;
    env[key] = value;
  }
  return env;
}

/** Turns a spawn failure into an Error a user can act on; the original is kept as `cause`. */
export function describeSpawnError(command: string, e: unknown): Error {
  const code = (e as NodeJS.ErrnoException | null)?.code;
  const detail = code === 'ENOENT' ? 'command not found' : code === 'EACCES' ? 'permission denied' : e instanceof Error ? e.message : String(e);
  return new Error(`Cannot start MCP server "${command}": ${detail}`, { cause: e });
}

/** Keeps the last `limit` bytes written to the child's stderr, for crash reports. */
export class StderrTail {
  private buf: Buffer = Buffer.alloc(0);
  constructor(private readonly limit = 2048) {}

  add(chunk: Buffer): void {
    if (chunk.length >= this.limit) {
      this.buf = Buffer.from(chunk.subarray(chunk.length - this.limit));
      return;
    }
    const joined = Buffer.concat([this.buf, chunk]);
    this.buf = joined.length > this.limit ? Buffer.from(joined.subarray(joined.length - this.limit)) : joined;
  }

  /** The tail as text, trimmed. A character cut at the start shows as U+FFFD. */
  text(): string {
    return this.buf.toString('utf8').trim();
  }
}
