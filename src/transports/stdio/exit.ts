// What the stdio client transport knows when its server process ends without being asked to.
// Kept free of node: imports so that the client (any runtime) can recognise it.

/**
 * The `onclose` reason of a stdio client transport whose server exited unexpectedly: how it
 * ended, and the tail of its stderr when the transport could see it.
 */
export class ServerExitError extends Error {
  /** Exit code, or null when a signal ended it. */
  readonly exitCode: number | null;
  readonly signal: string | null;
  /** The last 2 KiB of its stderr, trimmed; '' when it wrote none or stderr was inherited. */
  readonly stderr: string;
  /** Whether stderr was captured at all (`'pipe'` or `'ignore'`; not `'inherit'`). */
  readonly stderrSeen: boolean;

  constructor(info: { exitCode: number | null; signal: string | null; stderr: string; stderrSeen: boolean }) {
    super(`MCP server process exited unexpectedly (code ${info.exitCode}, signal ${info.signal})${info.stderr ? `; last stderr: ${info.stderr}` : ''}`);
    this.name = 'ServerExitError';
    this.exitCode = info.exitCode;
    this.signal = info.signal;
    this.stderr = info.stderr;
    this.stderrSeen = info.stderrSeen;
  }

  /** "code 3" or "signal SIGKILL". */
  get how(): string {
    return this.signal ? `signal ${this.signal}` : `code ${this.exitCode}`;
  }
}
