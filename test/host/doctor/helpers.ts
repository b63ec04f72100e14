// Running the connection doctor against the fixtures of test/fixtures/doctor: the fixture paths,
// a manual clock with the doctor's waits as awaitable events, and a self-signed certificate.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { diagnose } from '../../../src/host/doctor/diagnose.js';
import type { Diagnosis, DiagnoseOptions, DoctorCode, DoctorEvent, DoctorTarget } from '../../../src/host/doctor/types.js';
import { ManualClock, tempDir, within } from '../../support/index.js';

/** A stdio fixture of test/fixtures/doctor/stdio, by file name. */
export function fixture(name: string): string {
  return fileURLToPath(new URL(`../../fixtures/doctor/stdio/${name}`, import.meta.url));
}

/** A stdio fixture run with this node. */
export function node(name: string, extra: { env?: Record<string, string> } = {}): DoctorTarget {
  return { command: process.execPath, args: [fixture(name)], ...extra };
}

/** The doctor's events, and a way to wait for the next one that matches. */
export class Events {
  readonly all: DoctorEvent[] = [];
  private waiters: Array<{ match: (e: DoctorEvent) => boolean; resolve: (e: DoctorEvent) => void }> = [];
  private used = 0;

  push = (e: DoctorEvent): void => {
    this.all.push(e);
    for (const w of [...this.waiters]) {
      if (w.match(e)) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve(e);
      }
    }
  };

  /** The next `waiting` event for `method` (one seen already but not yet awaited counts). */
  waiting(method: string): Promise<DoctorEvent & { type: 'waiting' }> {
    const match = (e: DoctorEvent) => e.type === 'waiting' && e.method === method;
    const idx = this.all.findIndex((e, i) => i >= this.used && match(e));
    if (idx >= 0) {
      this.used = idx + 1;
      return Promise.resolve(this.all[idx] as DoctorEvent & { type: 'waiting' });
    }
    return within(
      new Promise((resolve) =>
        this.waiters.push({
          match,
          resolve: (e) => {
            this.used = this.all.indexOf(e) + 1;
            resolve(e as DoctorEvent & { type: 'waiting' });
          },
        }),
      ),
      `the doctor waiting on ${method}`,
    );
  }

  pid(): number {
    const e = this.all.find((x) => x.type === 'spawned');
    assert.ok(e && e.type === 'spawned', 'no spawned event');
    return e.pid;
  }
}

export const SLOW_MS = 5000;
export const TIMEOUT_MS = 60_000;

/**
 * Starts a diagnosis on a manual clock: nothing is slow and nothing times out unless the test
 * moves the clock. Returns the running diagnosis, the clock and the events.
 */
export function start(target: DoctorTarget, options: DiagnoseOptions = {}) {
  const clock = new ManualClock();
  const events = new Events();
  const home = tempDir('doctor-home');
  const running = diagnose(target, { clock, slowMs: SLOW_MS, timeoutMs: TIMEOUT_MS, cwd: home, home, onEvent: events.push, ...options });
  return { clock, events, running: within(running, 'the diagnosis', 120_000) };
}

/** Diagnoses to the end on a manual clock. */
export function run(target: DoctorTarget, options: DiagnoseOptions = {}): Promise<Diagnosis> {
  return start(target, options).running;
}

/** Asserts the diagnosis failed at `step` with `code`, and that summary and fix say what they should. */
export function assertFailure(
  d: Diagnosis,
  step: string,
  code: DoctorCode,
  says: { summary?: Array<string | RegExp>; fix?: Array<string | RegExp> } = {},
): void {
  const shown = JSON.stringify(d, null, 2);
  assert.equal(d.ok, false, shown);
  assert.ok(d.failure, shown);
  assert.equal(d.failure.code, code, shown);
  assert.equal(d.failure.step, step, shown);
  const has = (text: string, p: string | RegExp) => (typeof p === 'string' ? text.includes(p) : p.test(text));
  for (const p of says.summary ?? []) assert.ok(has(d.failure.summary, p), `summary lacks ${p}:\n${shown}`);
  for (const p of says.fix ?? []) assert.ok(has(d.failure.fix, p), `fix lacks ${p}:\n${shown}`);
  // The failing step is in the list, where the failure says.
  assert.deepEqual(
    d.steps.find((s) => !s.ok),
    d.steps.find((s) => s.step === step && s.code === code),
  );
}

/** Asserts every step passed, and that these steps were taken. */
export function assertHealthy(d: Diagnosis, steps: string[]): void {
  const shown = JSON.stringify(d, null, 2);
  assert.equal(d.ok, true, shown);
  assert.equal(d.failure, undefined, shown);
  for (const s of steps)
    assert.ok(
      d.steps.some((x) => x.step === s && x.ok),
      `no passing ${s} step:\n${shown}`,
    );
}

/** A self-signed certificate for 127.0.0.1, made with the openssl command for this run. */
export function selfSigned(): { key: string; cert: string } {
  const dir = tempDir('doctor-tls');
  const key = join(dir, 'key.pem');
  const cert = join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '2',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  return { key: readFileSync(key, 'utf8'), cert: readFileSync(cert, 'utf8') };
}
