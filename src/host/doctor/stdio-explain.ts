// What to tell a person about a stdio server that ended early or wrote to stdout what is not
// JSON-RPC: read from its own words (stderr, the stray lines), so the fix names the likely cause.

/**
 * Whether a server that ended during server/discover did so because of it: it ended cleanly, or
 * its stderr names the method (some legacy servers exit on any request before initialize). A
 * server that could not start fails with an error code and its reason instead.
 */
export function exitedOnProbe(reason: Error | undefined): boolean {
  const exit = reason as { exitCode?: number | null; signal?: string | null; stderr?: string } | undefined;
  if (!exit || exit.exitCode === undefined) return false;
  return (exit.stderr ?? '').includes('server/discover') || (exit.exitCode === 0 && !exit.signal && !exit.stderr);
}

/** An environment variable a server says it is missing. */
function missingVariable(stderr: string): string | undefined {
  const name = '([A-Z][A-Z0-9]*_[A-Z0-9_]+|[A-Z]{3,}[A-Z0-9_]*)';
  const after = new RegExp(`${name}[^\\n]{0,40}?\\b(is not set|not set|is missing|missing|is required|required|undefined|not defined|not found)`).exec(stderr);
  if (after) return after[1];
  const before = new RegExp(`\\b(missing|set|provide|required|requires|define)\\b[^\\n]{0,30}?\\b${name}\\b`).exec(stderr);
  return before?.[2];
}

/** The fix for a server that exited, from the tail of its stderr. */
export function exitFix(stderr: string): string {
  if (!stderr) return 'it said nothing: run the command by hand in a terminal to see how it fails';
  const variable = missingVariable(stderr);
  if (variable) {
    return `the server needs ${variable}: pass it with -e ${variable}=VALUE (or in the "env" of its config entry). A stdio server gets only PATH, HOME and a few basics from your environment, not your shell's other variables`;
  }
  if (/Cannot find (module|package)|ERR_MODULE_NOT_FOUND|ModuleNotFoundError|No module named/.test(stderr)) {
    return "a module it imports is missing: install the server's dependencies (npm install / pip install) in its folder, or check the path to its entry file";
  }
  if (/EADDRINUSE|address already in use/i.test(stderr)) {
    return 'it tried to listen on a network port: it is probably an HTTP server; start it on its own and connect to its URL instead of running it as a stdio command';
  }
  if (/\b404\b.*(not found|registry)|E404|is not in this registry/i.test(stderr)) {
    return 'the package manager could not find the package: check its name and version';
  }
  return 'its stderr (quoted in the summary) says why it stopped: fix that, then try again';
}

/** The fix for lines on stdout that are not JSON-RPC. */
export function strayFix(lines: string[]): string {
  const base = 'stdio servers must write only JSON-RPC messages to stdout; write logs and banners to stderr (console.error, or your logger set to stderr)';
  if (lines.some((l) => /listening|https?:\/\/|\bport\s+\d+|localhost:\d+/i.test(l))) {
    return `${base}. It looks like an HTTP server: if it serves MCP over HTTP, start it on its own and connect to its URL instead`;
  }
  if (lines.some((l) => /^\s*\{.*"(level|msg|time|timestamp)"/.test(l))) {
    return `${base}. This looks like a JSON logger (pino, winston, structlog...) writing to stdout: point its destination at stderr (fd 2)`;
  }
  return base;
}

/**
 * The line of a server's stderr that says what went wrong: the last error line (stack frames,
 * runtime banners and code excerpts left out), else the last line.
 */
export function stderrGist(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !/^at\s/.test(l) && !/^\^+$/.test(l) && !/^Node\.js v/.test(l) && !/^[{}]$/.test(l) && !/^code: /.test(l));
  const errors = lines.filter((l) => /\b\w*(Error|error|Exception|fatal|FATAL|panic)\b/.test(l) && !/^\s*throw\b/.test(l));
  const line = errors.at(-1) ?? lines.at(-1) ?? '';
  return line.length > 300 ? `${line.slice(0, 299)}…` : line;
}
