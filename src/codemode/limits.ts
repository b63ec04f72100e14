// The shapes a sandbox run shares between the host, the worker that runs it, and the runner.
import type { Clock } from '../engine/clock.js';

export interface SandboxLimits {
  /** Memory of the program's heap, bytes. Default 32 MiB. */
  memoryBytes: number;
  /**
   * Stack, bytes (deep recursion ends with a stack overflow). Default 256 KiB: the engine's
   * frames also take the host's native stack, whose own overflow ends the run the same way.
   */
  stackBytes: number;
  /** Time the program itself computes, ms (waiting for tool calls is not counted). Default 2000. */
  cpuMs: number;
  /** Characters of printed output kept, and of the returned value's JSON. Default 20 000 each. */
  outputChars: number;
  /** Tool calls one run may make. Default 100. */
  toolCalls: number;
  /** Characters of one call's arguments as JSON. Default 1 000 000. */
  argsChars: number;
}

export const DEFAULT_LIMITS: Readonly<SandboxLimits> = {
  memoryBytes: 32 * 1024 * 1024,
  stackBytes: 256 * 1024,
  cpuMs: 2000,
  outputChars: 20_000,
  toolCalls: 100,
  argsChars: 1_000_000,
};

/** A call the program made, as the host gets it. */
export interface SandboxCall {
  namespace: string;
  name: string;
  /** The arguments, parsed from the program's JSON (an object). */
  args: Record<string, unknown>;
  /** 1 for the run's first call. */
  index: number;
  /** Aborted when the run is stopped (out of time, cancelled): the call should end. */
  signal: AbortSignal;
}

export interface RunProgramOptions {
  code: string;
  /** Function names by namespace: the program's globals. */
  api: ReadonlyMap<string, readonly string[]>;
  /**
   * Makes a call. Resolves with the value the program gets (anything JSON can carry); a rejection
   * becomes an Error in the program with the rejection's `name` and `message`.
   */
  call(call: SandboxCall): Promise<unknown>;
  /**
   * Reads the time for the compute limit, and for the program's clock. Default the system clock.
   * In a worker (`runProgram`), it arms the watchdog and gives the program its time; the compute
   * limit inside the worker is read from the worker's own clock.
   */
  clock?: Clock;
  /** What the program's `Date.now()` is. Default `clock.now()` at the start. */
  now?: number;
  /** Aborting it ends the run at once (`error.kind` `cancelled`). */
  signal?: AbortSignal;
  limits?: Partial<SandboxLimits>;
}

export type ProgramErrorKind = 'syntax' | 'exception' | 'timeout' | 'memory' | 'stack' | 'deadlock' | 'cancelled' | 'internal';

export interface ProgramError {
  kind: ProgramErrorKind;
  name: string;
  message: string;
  /** Line and column in the program (1-based), when known. */
  line?: number;
  column?: number;
}

export interface ProgramResult {
  ok: boolean;
  /** The returned value as JSON text (cut to `outputChars`); undefined when nothing was returned. */
  value: string | undefined;
  /** What the program printed (console.*), cut to `outputChars`. */
  output: string;
  /** The value or the output was longer than the limit and was cut. */
  truncated: boolean;
  error?: ProgramError;
  /** Calls the program made (refused ones included). */
  calls: number;
  /** Calls still running when the program settled: they were let finish, their results unseen. */
  unawaited: number;
  /** Calls made after the program had settled: refused, never made. */
  late: number;
  /** Time the program computed, by the clock given. */
  computeMs: number;
}

/** Why a call failed, as the program sees it (`err.name`, `err.message`). */
export class SandboxCallError extends Error {
  constructor(message: string, name = 'ToolError') {
    super(message);
    this.name = name;
  }
}

/** The optional packages the sandbox's engine comes from. */
export const ENGINE_PACKAGES = ['quickjs-emscripten-core', '@jitl/quickjs-wasmfile-release-sync'] as const;

/** Code mode was asked for, and the engine's packages are not installed. */
export class SandboxUnavailableError extends Error {
  constructor(cause: unknown) {
    super(
      `Code mode runs programs in QuickJS compiled to WebAssembly, from the optional packages ${ENGINE_PACKAGES.join(' and ')}, ` +
        `which could not be loaded: install them (npm install ${ENGINE_PACKAGES.join(' ')})`,
      { cause },
    );
    this.name = 'SandboxUnavailableError';
  }
}
