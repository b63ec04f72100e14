// Errors of the pool layer (servers, targets, tools) that callers tell apart by class.

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

/**
 * A tool call that could not be made or answered because its server is not there: not
 * connected (starting, failed, reconnecting), or lost while the call was in flight. The
 * message names the server and says why; `server` and `tool` say it to code.
 */
export class ServerUnavailableError extends Error {
  readonly server: string;
  readonly tool: string | undefined;
  constructor(server: string, tool: string | undefined, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ServerUnavailableError';
    this.server = server;
    this.tool = tool;
  }
}

/** A model-facing name that no tool has (any more). */
export class UnknownToolError extends Error {
  readonly toolName: string;
  constructor(name: string) {
    super(`No tool is named "${name}"`);
    this.name = 'UnknownToolError';
    this.toolName = name;
  }
}
