// Shared pieces of the code-mode sandbox tests: a clock that moves a millisecond each time it is
// read (an endless loop reads it again and again, so its time runs out without any wall-clock
// wait), and a run against a small API whose calls are recorded, in a worker as the host runs
// programs (`runProgram`), or on the test's thread with that clock (`runInThread`).
import { ManualClock } from '../../src/testing/clock.js';
import { runInThread } from '../../src/codemode/runner.js';
import { runProgram, type ProgramResult, type RunProgramOptions, type SandboxCall } from '../../src/codemode/sandbox.js';

/** A ManualClock that advances `step` ms whenever it is read. */
export class TickingClock extends ManualClock {
  constructor(private readonly step = 1) {
    super(1_800_000_000_000);
  }
  override now(): number {
    const t = super.now();
    this.advance(this.step);
    return t;
  }
}

export const API = new Map<string, string[]>([
  ['files', ['read', 'remove']],
  ['mail', ['send']],
]);

export interface Ran extends ProgramResult {
  /** The calls the host was asked to make, in order. */
  seen: SandboxCall[];
}

export type RunOptions = Partial<Omit<RunProgramOptions, 'code' | 'api'>> & {
  answer?: (c: SandboxCall) => unknown;
  /** `worker` (default): as the host runs programs; `thread`: here, with a TickingClock unless a clock is given. */
  where?: 'worker' | 'thread';
};

/** Runs `code` with the test API; `answer` gives each call's result (default: echo the arguments). */
export async function run(code: string, options: RunOptions = {}): Promise<Ran> {
  const seen: SandboxCall[] = [];
  const { answer, where = 'worker', ...rest } = options;
  const o: RunProgramOptions = {
    code,
    api: API,
    ...rest,
    // On this thread the ticking clock runs out 200 ms quickly; in a worker the clock is real and
    // the machine may be busy: a program that is not meant to run out of time gets 10 s.
    limits: { cpuMs: where === 'thread' ? 200 : 10_000, ...rest.limits },
    call:
      rest.call ??
      (async (c) => {
        seen.push(c);
        return answer ? answer(c) : { called: `${c.namespace}.${c.name}`, args: c.args };
      }),
  };
  const result = where === 'thread' ? await runInThread({ clock: new TickingClock(), ...o }) : await runProgram(o);
  return { ...result, seen };
}
