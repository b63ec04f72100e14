// Errors of the host layer that callers tell apart by class.

/**
 * A TARGET or config that cannot be used as given (empty, malformed, unknown server name): the
 * message says what was tried. The CLI reports it as a usage error (exit code 2).
 */
export class TargetError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TargetError';
  }
}
