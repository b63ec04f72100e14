// `mcpkit serve MODULE --watch`: the server runs in a child process that is restarted when
// a file under MODULE's directory changes (a fresh process is the only way to reload ES modules
// and everything they import).
//
// Over HTTP the child simply listens again on the same port; clients see their session end
// (404) and re-initialize. Over stdio this process keeps the client's pipes: it replays the
// client's `initialize` to each new child (swallowing the answer), answers requests the old
// child never answered with an error, and tells the client that lists may have changed.
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { StatusLine } from './term.js';
import type { CliIo } from './io.js';
import { MAIN } from './self.js';
import { watchTree } from './watch-tree.js';

const DEBOUNCE_MS = 200;
/** Set in the child's environment, so that the config it prints for hosts keeps --watch. */
export const WATCHED_ENV = 'MCPKIT_SERVE_WATCHED';
/** Set for every child but the first: it says where it listens in one line, not the whole banner again. */
export const RESTARTED_ENV = 'MCPKIT_SERVE_RESTARTED';

type Msg = { id?: string | number | null; method?: string; params?: unknown };

export function superviseWatch(module: string, serveArgs: string[], stdio: boolean, io: CliIo): Promise<number> {
  const status = new StatusLine(io.stderr, io.env);
  const s = status.style;
  const dir = dirname(resolve(io.cwd, module));
  // The child is this same CLI (the binary, or main.ts under a loader such as tsx).
  const argv = [...process.execArgv, MAIN, 'serve', ...serveArgs];
  let finish!: (code: number) => void;
  const finished = new Promise<number>((r) => (finish = r));
  let child: ChildProcess | undefined;
  let generation = 0;
  let restarting = false;

  // ----------------------------------------------------------- stdio proxying
  let initLine: string | undefined;
  let initializedLine: string | undefined;
  const pending = new Set<string | number>();
  let replayId: string | undefined;
  let queue: string[] = [];

  const toClient = (line: string) => io.stdout.write(`${line}\n`);
  const failPending = (why: string) => {
    for (const id of pending) toClient(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32603, message: why } }));
    pending.clear();
  };
  const toChild = (line: string) => {
    if (replayId !== undefined || !child?.stdin?.writable) {
      queue.push(line);
      return;
    }
    child.stdin.write(`${line}\n`);
  };

  const start = () => {
    const gen = ++generation;
    // Piped, not inherited: our stdout/stderr may be streams of an in-process caller.
    const env = { ...io.env, [WATCHED_ENV]: '1', ...(gen > 1 ? { [RESTARTED_ENV]: '1' } : {}) };
    const c = spawn(process.execPath, argv, { cwd: io.cwd, env, stdio: [stdio ? 'pipe' : 'ignore', 'pipe', 'pipe'] });
    child = c;
    c.stderr?.pipe(io.stderr, { end: false });
    if (!stdio) c.stdout?.pipe(io.stdout, { end: false });
    c.on('exit', (code, signal) => {
      if (gen !== generation || restarting) return;
      child = undefined;
      if (stdio) failPending(`The server exited (code ${code}); mcpkit serve --watch restarts it when a file changes`);
      status.print(s.yellow(`↻ the server exited (${signal ?? `code ${code}`}); waiting for a change in ${dir}`));
    });
    if (!stdio || !c.stdout || !c.stdin) return;
    c.stdin.on('error', () => {});
    createInterface({ input: c.stdout, crlfDelay: Infinity }).on('line', (line) => {
      if (gen !== generation) return;
      const m = parse(line);
      if (m && replayId !== undefined && m.id === replayId && m.method === undefined) {
        // The replayed initialize is answered: the new child is ready for the client.
        replayId = undefined;
        if (initializedLine) c.stdin!.write(`${initializedLine}\n`);
        for (const kind of ['tools', 'resources', 'prompts']) toClient(JSON.stringify({ jsonrpc: '2.0', method: `notifications/${kind}/list_changed` }));
        const q = queue;
        queue = [];
        for (const l of q) toChild(l);
        return;
      }
      if (m && m.method === undefined && m.id !== undefined && m.id !== null) pending.delete(m.id);
      toClient(line);
    });
    if (initLine) {
      const init = parse(initLine)!;
      replayId = `mcpkit-watch-${gen}`;
      c.stdin.write(`${JSON.stringify({ ...init, id: replayId })}\n`);
    }
  };

  const restart = async (why: string) => {
    restarting = true;
    status.print(s.cyan(`↻ ${why}: restarting the server`));
    const old = child;
    if (old && old.exitCode === null && old.signalCode === null) {
      const exited = new Promise<void>((r) => old.once('exit', () => r()));
      old.kill('SIGTERM');
      const timer = setTimeout(() => old.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(timer);
    }
    if (stdio) failPending('The server restarted (mcpkit serve --watch) before answering');
    replayId = undefined;
    restarting = false;
    start();
  };

  let timer: ReturnType<typeof setTimeout> | undefined;
  let changed = '';
  const watcher = watchTree(dir, (file) => {
    changed = file === '.' ? 'a file' : file;
    clearTimeout(timer);
    timer = setTimeout(() => void restart(`${changed} changed`), DEBOUNCE_MS);
  });

  let unsubscribe = () => {};
  const stop = (code: number) => {
    unsubscribe();
    watcher.close();
    clearTimeout(timer);
    generation++;
    child?.kill('SIGTERM');
    finish(code);
  };
  unsubscribe = io.onSignal((signal) => stop(signal === 'SIGINT' ? 130 : 0));

  if (stdio) {
    createInterface({ input: io.stdin, crlfDelay: Infinity })
      .on('line', (line) => {
        if (line.trim() === '') return;
        const m = parse(line);
        if (m?.method === 'initialize' && m.id !== undefined) initLine = line;
        else if (m?.method === 'notifications/initialized') initializedLine = line;
        if (m?.method !== undefined && m.id !== undefined && m.id !== null) {
          if (!child) {
            toClient(
              JSON.stringify({
                jsonrpc: '2.0',
                id: m.id,
                error: { code: -32603, message: 'The server is not running (it exited); save a file to restart it' },
              }),
            );
            return;
          }
          pending.add(m.id);
        }
        toChild(line);
      })
      .on('close', () => {
        // The client closed our stdin: end the child the same way, then go.
        child?.stdin?.end();
        setTimeout(() => stop(0), 500).unref();
        child?.once('exit', () => stop(0));
        if (!child) stop(0);
      });
  }
  status.print(s.dim(`watching ${dir} for changes`));
  start();
  return finished;
}

function parse(line: string): Msg | undefined {
  try {
    const v = JSON.parse(line) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Msg) : undefined;
  } catch {
    return undefined;
  }
}
