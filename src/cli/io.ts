// Everything the CLI takes from its process, passed in: the streams, the environment, the
// working directory and the signals. `run(argv, io)` runs a command against any of these (tests
// call it in-process with captured streams); only main.ts binds them to the real process.

export interface CliWritable extends NodeJS.WritableStream {
  isTTY?: boolean;
}
export interface CliReadable extends NodeJS.ReadableStream {
  isTTY?: boolean;
}

export type CliSignal = 'SIGINT' | 'SIGTERM';

export interface CliIo {
  stdout: CliWritable;
  stderr: CliWritable;
  stdin: CliReadable;
  env: Record<string, string | undefined>;
  cwd: string;
  /** Subscribes to Ctrl-C and termination requests; returns the unsubscribe. */
  onSignal(handler: (signal: CliSignal) => void): () => void;
  /**
   * Quits at once, with no cleanup (a second Ctrl-C). The process exits; an in-process caller
   * decides for itself (the command's promise is abandoned).
   */
  exitNow(code: number): void;
}

/** The real process's streams, environment and signals. */
export function processIo(): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
    onSignal(handler) {
      const int = () => handler('SIGINT');
      const term = () => handler('SIGTERM');
      process.on('SIGINT', int);
      process.on('SIGTERM', term);
      return () => {
        process.off('SIGINT', int);
        process.off('SIGTERM', term);
      };
    },
    exitNow: (code) => process.exit(code),
  };
}
