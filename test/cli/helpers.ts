// Runs the CLI the way a user does: in-process through run(argv, io) with captured streams (fast:
// no tsx start-up per command), or as a real child process for the few smoke tests that must
// see the binary itself (its start, exit codes, signals, stdio).
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { join, resolve } from 'node:path';
import type { CliIo, CliSignal } from '../../src/cli/io.js';
import { run } from '../../src/cli/run.js';
import { deferred, tempDir, within, patient } from '../support/index.js';

export const ROOT = resolve(import.meta.dirname, '../..');
/** tsx by absolute URL, so that children started in another directory find it. */
export const TSX = import.meta.resolve('tsx');
export const CLI = ['--import', TSX, join(ROOT, 'src/cli/main.ts')];
/** The CLI as a command line (for TARGETs that start it over stdio). */
export const CLI_LINE = `"${process.execPath}" --import ${TSX} "${join(ROOT, 'src/cli/main.ts')}"`;
export const OFFICIAL_LINE = `"${process.execPath}" --import ${TSX} "${join(ROOT, 'test/fixtures/official-server.ts')}"`;

/** An environment with no config files to find (HOME, XDG) and no colours. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const home = tempDir('cli-home');
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), NO_COLOR: '1', ...extra };
  delete env.FORCE_COLOR;
  return env;
}

/** An in-process CLI's streams (captured), environment and signals. */
export interface TestIo extends CliIo {
  out(): string;
  err(): string;
  /** Delivers SIGINT/SIGTERM to the command, as Ctrl-C or `kill` would. */
  signal(signal: CliSignal): void;
}

export function testIo(options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string } = {}): TestIo {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const stdin = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c: Buffer) => (out += c));
  stderr.on('data', (c: Buffer) => (err += c));
  stdin.end(options.input ?? '');
  const handlers = new Set<(s: CliSignal) => void>();
  return {
    stdout,
    stderr,
    stdin,
    env: options.env ?? cleanEnv(),
    cwd: options.cwd ?? ROOT,
    onSignal(handler) {
      handlers.add(handler);
      return () => handlers.delete(handler);
    },
    exitNow(code) {
      throw new Error(`the CLI asked to exit the process at once (code ${code})`);
    },
    out: () => out,
    err: () => err,
    signal: (s) => {
      for (const h of [...handlers]) h(s);
    },
  };
}

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `mcpkit ARGS` to completion, in-process. */
export async function mcpkit(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string; timeoutMs?: number } = {}): Promise<Run> {
  const io = testIo(options);
  const code = await within(run(args, io), () => `mcpkit ${args.join(' ')}\nstdout: ${io.out()}\nstderr: ${io.err()}`, options.timeoutMs);
  // Writes made just before the command resolved are delivered on the next turn.
  await new Promise<void>((r) => setImmediate(r));
  return { code, stdout: io.out(), stderr: io.err() };
}

/** Runs `mcpkit ARGS` to completion as a real child process (smoke tests). */
export function mcpkitProcess(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string; timeoutMs?: number } = {}): Promise<Run> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [...CLI, ...args], { cwd: options.cwd ?? ROOT, env: options.env ?? cleanEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c));
    child.stderr.on('data', (c: Buffer) => (stderr += c));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`mcpkit ${args.join(' ')} timed out\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, options.timeoutMs ?? patient(60_000));
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}

export interface Running {
  url: string;
  stdout(): string;
  stderr(): string;
  /** SIGTERM, then waits for the command (or the process) to end. */
  stop(): Promise<void>;
}

/** Runs the CLI in-process and, when it prints a sign-in URL, completes the sign-in like a browser would. */
export async function withBrowser(args: string[], env: NodeJS.ProcessEnv): Promise<Run & { signIns: number }> {
  const io = testIo({ env });
  let signIns = 0;
  const browser = deferred();
  io.stderr.on('data', () => {
    const stderr = io.err();
    const m = /visit:\s*\n\s*(http\S+)/.exec(stderr.slice(stderr.lastIndexOf('Sign in')));
    if (!m || signIns > 0) return;
    signIns++;
    void (async () => {
      const res = await fetch(m[1]!, { redirect: 'manual' });
      const back = res.headers.get('location');
      assert.ok(back, 'the authorization server redirects back');
      const landed = await fetch(back);
      assert.equal(landed.status, 200);
      assert.match(await landed.text(), /Signed in/);
    })().then(browser.resolve, browser.reject);
  });
  const failed = browser.promise.then(() => new Promise<never>(() => {}));
  const code = await within(Promise.race([run(args, io), failed]), () => `mcpkit ${args.join(' ')} (with a browser)\nstdout: ${io.out()}\nstderr: ${io.err()}`);
  await new Promise<void>((r) => setImmediate(r));
  return { code, stdout: io.out(), stderr: io.err(), signIns };
}

/** Starts a long-running `mcpkit` (serve, bridge --http) in-process and waits for the URL it prints. */
export async function startListening(args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<Running> {
  const io = testIo(options);
  const listening = deferred<string>();
  io.stdout.on('data', () => {
    const m = /listening on (http:\/\/\S+)/.exec(io.out());
    if (m) listening.resolve(m[1]);
  });
  const ended = run(args, io);
  const early = ended.then((code) => {
    throw new Error(`mcpkit ${args.join(' ')} exited (${code}) before listening\nstdout: ${io.out()}\nstderr: ${io.err()}`);
  });
  let url: string;
  try {
    url = await within(Promise.race([listening.promise, early]), () => `the URL printed by mcpkit ${args.join(' ')}\nstdout: ${io.out()}\nstderr: ${io.err()}`);
  } catch (err) {
    // No URL in time: stop the command anyway, or what it started (serve --watch's child server)
    // outlives the test and holds the file's process open.
    io.signal('SIGTERM');
    await within(ended, `mcpkit ${args.join(' ')} to stop after failing to start`).catch(() => {});
    throw err;
  }
  let stopped: Promise<void> | undefined;
  return {
    url,
    stdout: io.out,
    stderr: io.err,
    stop: () =>
      (stopped ??= (async () => {
        io.signal('SIGTERM');
        await within(ended, `mcpkit ${args.join(' ')} to stop`);
      })()),
  };
}

/** startListening as a real child process (smoke tests: signals, the binary's own exit). */
export function startListeningProcess(args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<Running & { child: ChildProcess }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [...CLI, ...args], { cwd: options.cwd ?? ROOT, env: options.env ?? cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let done = false;
    const timer = setTimeout(() => fail(new Error(`no URL printed by mcpkit ${args.join(' ')}\nstdout: ${out}\nstderr: ${err}`)), patient(30_000));
    const fail = (e: Error) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(e);
    };
    child.stderr.on('data', (c: Buffer) => (err += c));
    child.stdout.on('data', (c: Buffer) => {
      out += c;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m && !done) {
        done = true;
        clearTimeout(timer);
        resolvePromise({
          url: m[1],
          child,
          stdout: () => out,
          stderr: () => err,
          stop: () =>
            new Promise<void>((r) => {
              if (child.exitCode !== null || child.signalCode !== null) return r();
              child.once('exit', () => r());
              child.kill('SIGTERM');
            }),
        });
      }
    });
    child.on('exit', (code) => fail(new Error(`mcpkit ${args.join(' ')} exited (${code}) before listening\nstdout: ${out}\nstderr: ${err}`)));
  });
}
