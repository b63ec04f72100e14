// The record of one diagnosis: steps in the order they make sense to read, each timed on the
// injected clock, reported as they are taken; and the one way the doctor waits (on that clock,
// so tests move time by hand instead of waiting it out).
import type { DoctorCode, DoctorContext, DoctorStep } from './types.js';

export class Walk {
  readonly steps: DoctorStep[] = [];

  constructor(readonly ctx: DoctorContext) {}

  now(): number {
    return this.ctx.clock.now();
  }

  pass(step: string, since: number, detail: string): DoctorStep {
    return this.add({ step, ok: true, ms: this.now() - since, detail });
  }

  fail(step: string, since: number, code: DoctorCode, detail: string, fix: string): DoctorStep {
    return this.add({ step, ok: false, ms: this.now() - since, detail, code, fix });
  }

  /** Records a step (at `index`, for a step read before others that were taken first). */
  add(s: DoctorStep, index?: number): DoctorStep {
    if (index === undefined || index >= this.steps.length) this.steps.push(s);
    else this.steps.splice(index, 0, s);
    this.ctx.emit({ type: 'step', step: s });
    return s;
  }

  get failed(): boolean {
    return this.steps.some((s) => !s.ok);
  }

  /** Whether the caller asked to stop. */
  get aborted(): boolean {
    return this.ctx.signal?.aborted === true;
  }

  /**
   * `promise`, or 'timeout' once `ms` have passed on the clock, or 'aborted' when the caller's
   * signal fires first.
   */
  wait<T>(promise: Promise<T>, ms: number): Promise<T | 'timeout' | 'aborted'> {
    const { clock, signal } = this.ctx;
    if (signal?.aborted) return Promise.resolve('aborted');
    return new Promise((resolve) => {
      const done = (v: T | 'timeout' | 'aborted') => {
        clock.clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        resolve(v);
      };
      const onAbort = () => done('aborted');
      const timer = clock.setTimeout(() => done('timeout'), Math.max(0, ms));
      signal?.addEventListener('abort', onAbort, { once: true });
      promise.then(done, () => done('timeout'));
    });
  }
}

/** A text cut to `max` characters, on one line, for quoting what a server said. */
export function quote(text: string, max = 160): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

/** "12 ms", "3.4 s". */
export function duration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${Math.round(ms / 100) / 10} s`;
}
