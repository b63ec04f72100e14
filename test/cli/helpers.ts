// Runs the real CLI as a child process, the way a user does.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');
/** tsx by absolute URL, so that children started in another directory find it. */
export const TSX = import.meta.resolve('tsx');
export const CLI = ['--import', TSX, join(ROOT, 'src/cli/main.ts')];
/** The CLI as a command line (for TARGETs that start it over stdio). */
export const CLI_LINE = `"${process.execPath}" --import ${TSX} "${join(ROOT, 'src/cli/main.ts')}"`;
export const OFFICIAL_LINE = `"${process.execPath}" --import ${TSX} "${join(ROOT, 'test/fixtures/official-server.ts')}"`;

/** An environment with no config files to find (HOME, XDG) and no colours. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const home = mkdtempSync(join(tmpdir(), 'mcpkit-cli-home-'));
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), NO_COLOR: '1', ...extra };
  delete env.FORCE_COLOR;
  return env;
}

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `mcpkit ARGS` to completion. */
export function mcpkit(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string; timeoutMs?: number } = {}): Promise<Run> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [...CLI, ...args], { cwd: options.cwd ?? ROOT, env: options.env ?? cleanEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c));
    child.stderr.on('data', (c: Buffer) => (stderr += c));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`mcpkit ${args.join(' ')} timed out\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, options.timeoutMs ?? 60_000);
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
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  stop(): Promise<void>;
}

/** Runs the CLI and, when it prints a sign-in URL, completes the sign-in like a browser would. */
export function withBrowser(args: string[], env: NodeJS.ProcessEnv): Promise<Run & { signIns: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...CLI, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let signIns = 0;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`timed out\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, 30_000);
    child.stdout.on('data', (c: Buffer) => (stdout += c));
    child.stderr.on('data', (c: Buffer) => {
      stderr += c;
      const m = /visit:\s*\n\s*(http\S+)/.exec(stderr.slice(stderr.lastIndexOf('Sign in')));
      if (m && signIns === 0) {
        signIns++;
        void (async () => {
          const res = await fetch(m[1]!, { redirect: 'manual' });
          const back = res.headers.get('location');
          assert.ok(back, 'the authorization server redirects back');
          const landed = await fetch(back);
          assert.equal(landed.status, 200);
          assert.match(await landed.text(), /Signed in/);
        })().catch(reject);
      }
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, signIns });
    });
  });
}

/** Starts a long-running `mcpkit` (serve, bridge --http) and waits for the URL it prints. */
export function startListening(args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<Running> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [...CLI, ...args], { cwd: options.cwd ?? ROOT, env: options.env ?? cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let done = false;
    const timer = setTimeout(() => fail(new Error(`no URL printed by mcpkit ${args.join(' ')}\nstdout: ${out}\nstderr: ${err}`)), 20_000);
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
