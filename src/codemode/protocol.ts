// The messages between the host (sandbox.ts) and a sandbox worker (worker.ts).
import type { ProgramResult, SandboxLimits } from './limits.js';

export type HostMessage =
  | { type: 'run'; run: number; code: string; api: Array<[string, readonly string[]]>; now: number; limits: SandboxLimits }
  /** A call's outcome: its value for the program, or the error it throws there. */
  | { type: 'answer'; run: number; index: number; ok: true; value: unknown }
  | { type: 'answer'; run: number; index: number; ok: false; name: string; message: string };

export type WorkerMessage =
  | { type: 'call'; run: number; index: number; namespace: string; name: string; args: Record<string, unknown> }
  /** The call's promise was dropped (the run was stopped): the host may end the call. */
  | { type: 'abort'; run: number; index: number }
  /** The engine is up: the program starts computing. */
  | { type: 'started'; run: number }
  /** The program waits for calls: it computes nothing until one is answered. `answered`: answers it had received by then. */
  | { type: 'idle'; run: number; computeMs: number; answered: number }
  | { type: 'done'; run: number; result: ProgramResult }
  /** The run could not happen (the engine failed to load). */
  | { type: 'failed'; run: number; name: string; message: string };
