// Diagnosing a stdio server: start it, watch its stdout (only JSON-RPC belongs there) and its
// stderr, probe the era with server/discover, initialize when it is a handshake-era server,
// list, and say how it ended when it ended early.
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { StdioClientTransport } from '../../transports/stdio/client.js';
import type { ServerExitError } from '../../transports/stdio/exit.js';
import { defaultEnvironment } from '../../transports/stdio/process.js';
import { discoverStep, initializeParams, initializeStep, listMethod, listStep, modernParams, settledModern, type Answer, type Settled } from './protocol.js';
import { exitFix, exitedOnProbe, stderrGist, strayFix } from './stdio-explain.js';
import { TransportWire, type WireReply } from './wire.js';
import { duration, quote, type Walk } from './walk.js';

export interface StdioSpec {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  /** How the target is shown. */
  label: string;
  /** Said after "command not found" (e.g. that no config names a server by that word). */
  notFoundHint?: string;
}

export interface StdioResult {
  server?: Settled;
}

/** How much of the server's stderr is kept for the report. */
const STDERR_KEEP = 2048;

function answer(r: WireReply, since: number): Answer | undefined {
  if (r.kind === 'closed') return undefined;
  return r.kind === 'result' ? { kind: 'result', result: r.result, ms: r.at - since } : { kind: 'error', error: r.error, ms: r.at - since };
}

export async function diagnoseStdio(walk: Walk, spec: StdioSpec, baseEnv: Record<string, string | undefined>, probe = true): Promise<StdioResult> {
  const cwd = spec.cwd ?? process.cwd();
  const since = walk.now();
  const stepName = probe ? 'spawn' : 'restart';
  if (!existsSync(cwd)) {
    walk.fail(stepName, since, 'spawn-failed', `the working directory ${cwd} does not exist`, 'fix the "cwd" of the server entry, or create the directory');
    return {};
  }
  const transport = new StdioClientTransport({
    command: spec.command,
    args: spec.args,
    env: { ...defaultEnvironment(baseEnv), ...spec.env },
    cwd,
    stderr: 'pipe',
    shutdownTimeoutMs: 1000,
  });
  let stderr = '';
  transport.stderr?.on('data', (c: Buffer) => {
    stderr = (stderr + c.toString('utf8')).slice(-STDERR_KEEP);
  });
  const wire = new TransportWire(transport, walk.ctx.clock);
  try {
    await transport.start();
  } catch (err) {
    spawnFailure(walk, stepName, since, spec, cwd, err);
    return {};
  }
  const pid = transport.pid ?? 0;
  walk.pass(stepName, since, `started ${spec.label} (pid ${pid})`);
  walk.ctx.emit({ type: 'spawned', pid });
  const stdoutAt = walk.steps.length;
  // Steps whose words depend on all the server wrote on stderr, finished once it has ended.
  const afterEnd: Array<() => void> = [];
  let run: Settled | 'restart' | undefined;
  try {
    run = await converse(walk, wire, probe);
  } finally {
    await transport.close().catch(() => {});
    // Its pipes are drained at exit; one more turn lets the last chunk through our stream.
    await new Promise<void>((r) => setImmediate(r));
  }
  if (run === 'restart') return diagnoseStdio(walk, spec, baseEnv, false);
  for (const f of afterEnd) f();
  stdoutStep(walk, wire, since, stdoutAt);
  return { server: run };

  /** The exchange itself; the settled handshake, or 'restart', or undefined after a failure. */
  async function converse(walk: Walk, wire: TransportWire, probe: boolean): Promise<Settled | 'restart' | undefined> {
    const { slowMs, timeoutMs } = walk.ctx;
    const t0 = walk.now();
    const exited = (step: string, method: string, answered: boolean) => exitStep(walk, wire, step, t0, method, answered);
    let discover: Promise<WireReply> | undefined;
    let init: { reply: Promise<WireReply>; sent: number } | undefined;
    const sendInit = () => {
      init = { reply: wire.request('initialize', initializeParams()), sent: walk.now() };
      walk.ctx.emit({ type: 'waiting', step: 'start', method: 'initialize', slowMs, timeoutMs });
    };
    let first: { which: 'discover' | 'initialize'; reply: WireReply } | 'timeout' | 'aborted';
    if (probe) {
      discover = wire.request('server/discover', modernParams());
      walk.ctx.emit({ type: 'waiting', step: 'start', method: 'server/discover', slowMs, timeoutMs });
      const r = await walk.wait(discover, slowMs);
      if (r === 'timeout') {
        // Silence may be a slow start or a server that ignores methods it does not know:
        // initialize goes out too, as a client's era probe does, and whichever answers decides.
        sendInit();
        const pair = Promise.race([
          discover.then((reply) => ({ which: 'discover' as const, reply })),
          init!.reply.then((reply) => ({ which: 'initialize' as const, reply })),
        ]);
        first = await walk.wait(pair, timeoutMs - slowMs);
      } else first = r === 'aborted' ? r : { which: 'discover', reply: r };
    } else {
      sendInit();
      const r = await walk.wait(init!.reply, timeoutMs);
      first = r === 'timeout' || r === 'aborted' ? r : { which: 'initialize', reply: r };
    }
    if (first === 'aborted') return undefined;
    if (first === 'timeout') {
      const step = walk.fail(
        'start',
        t0,
        'no-answer',
        `the server is running but answered nothing within ${duration(timeoutMs)} (sent ${probe ? 'server/discover, then initialize' : 'initialize'})`,
        'a stdio server reads JSON-RPC lines on stdin and answers on stdout: check that this command starts an MCP server in stdio mode (some need a flag such as --stdio or a "stdio" subcommand), and that it is not waiting for input of its own',
      );
      afterEnd.push(() => {
        step.detail += stderr.trim() ? `; its stderr says: "${stderrGist(stderr)}"` : '; it wrote nothing on stderr';
      });
      return undefined;
    }
    if (first.reply.kind === 'closed') {
      if (first.which === 'discover' && probe && exitedOnProbe(wire.closed?.reason)) {
        walk.pass(
          'discover',
          t0,
          'the server exited on server/discover without a word: a handshake-era server that exits on requests it does not know; started again with initialize only',
        );
        return 'restart';
      }
      exited('start', first.which === 'discover' ? 'server/discover' : 'initialize', false);
      return undefined;
    }
    const firstMs = first.reply.at - (first.which === 'initialize' && init ? init.sent : t0);
    if (firstMs > slowMs) {
      const step = walk.fail(
        'start',
        t0,
        'slow-start',
        `the server took ${duration(first.reply.at - t0)} to answer its first request`,
        `clients give up on a start this slow (many wait ${duration(slowMs)} or less): install the server's package instead of letting npx/uvx fetch it at start, and do slow setup after answering initialize`,
      );
      afterEnd.push(() => {
        if (/install|download|fetch|resolv/i.test(stderr)) step.detail += ' (its stderr mentions installing or downloading)';
      });
    } else walk.pass('start', t0, `first answer after ${duration(first.reply.at - t0)}`);
    let settled: Settled | undefined;
    if (first.which === 'discover') {
      const verdict = discoverStep(walk, t0, answer(first.reply, t0)!);
      if (verdict.era === 'none') return undefined;
      if (verdict.era === 'modern') settled = settledModern(verdict.result);
    } else
      walk.pass(
        'discover',
        t0,
        `no answer to server/discover within ${duration(slowMs)} while initialize was answered: a handshake-era server that ignores requests it does not know`,
      );
    if (!settled) {
      const since = walk.now();
      if (!init) sendInit();
      const r = first.which === 'initialize' ? first.reply : await walk.wait(init!.reply, timeoutMs);
      if (r === 'aborted') return undefined;
      if (r === 'timeout') {
        walk.fail(
          'initialize',
          since,
          'no-answer',
          `the server answered server/discover but not initialize within ${duration(timeoutMs)}`,
          'a handshake-era server must answer initialize: check its log (stderr)',
        );
        return undefined;
      }
      if (r.kind === 'closed') return void exited('initialize', 'initialize', true);
      settled = initializeStep(walk, init!.sent, answer(r, init!.sent)!);
      if (!settled) return undefined;
      wire.notify('notifications/initialized');
    }
    const list = listMethod(settled.capabilities);
    const since = walk.now();
    if (!list) {
      walk.pass('list', since, 'the server declares no tools, resources or prompts: nothing to list');
      return settled;
    }
    const params = settled.era === 'modern' ? modernParams() : {};
    const r = await walk.wait(wire.request(list.method, params), timeoutMs);
    if (r === 'aborted') return settled;
    if (r === 'timeout') {
      walk.fail(
        'list',
        since,
        'no-answer',
        `no answer to ${list.method} within ${duration(timeoutMs)}`,
        'the server hangs listing: its log (stderr) may say on what',
      );
      return settled;
    }
    if (r.kind === 'closed') {
      exited('list', list.method, true);
      return settled;
    }
    listStep(walk, since, list, answer(r, since)!);
    return settled;
  }
}

/** Records how the server ended, for the step during which it did. */
function exitStep(walk: Walk, wire: TransportWire, step: string, since: number, method: string, answered: boolean): void {
  const exit = wire.closed?.reason as ServerExitError | undefined;
  const how = exit?.signal ? `was killed by ${exit.signal}` : exit && exit.exitCode !== undefined ? `exited with code ${exit.exitCode}` : 'closed its stdout';
  const tail = exit?.stderr ?? '';
  const said = tail ? `; its stderr says: "${stderrGist(tail)}"` : '; it wrote nothing on stderr';
  walk.fail(
    step,
    since,
    answered ? 'exited' : 'exited-at-start',
    `the server ${how} ${answered ? 'while answering' : 'before answering'} ${method}${said}`,
    exitFix(tail),
  );
}

/** The `stdout` step: JSON-RPC only, or the first lines that were not. */
function stdoutStep(walk: Walk, wire: TransportWire, since: number, at: number): void {
  const started = walk.steps.find((s) => s.step === 'start');
  // A server that died at start died of that: its stray output is secondary, listed after.
  const index = started?.code === 'exited-at-start' ? undefined : at;
  if (wire.strayCount === 0) {
    walk.add({ step: 'stdout', ok: true, ms: 0, detail: `stdout carried only JSON-RPC (${wire.messages} message${wire.messages === 1 ? '' : 's'})` }, index);
    return;
  }
  const s = wire.strays[0];
  const what = s.kind === 'json' ? 'a JSON line that is not a JSON-RPC message' : 'a line that is not JSON';
  walk.add(
    {
      step: 'stdout',
      ok: false,
      ms: s.at - since,
      code: 'stdout-not-json',
      detail: `the server printed ${what} to stdout: "${quote(s.text, 120)}"${wire.strayCount > 1 ? ` (and ${wire.strayCount - 1} more)` : ''}`,
      fix: strayFix(wire.strays.map((x) => x.text)),
    },
    index,
  );
}

function spawnFailure(walk: Walk, step: string, since: number, spec: StdioSpec, cwd: string, err: unknown): void {
  const code = ((err as Error).cause as NodeJS.ErrnoException | undefined)?.code;
  const cmd = spec.command;
  const path = cmd.includes('/') || cmd.includes('\\') ? (isAbsolute(cmd) ? cmd : resolve(cwd, cmd)) : undefined;
  if (code === 'ENOENT') {
    if (path && existsSync(path)) {
      const interpreter = /^#![ \t]*([^\n]+)/.exec(readHead(path))?.[1].trim();
      walk.fail(
        step,
        since,
        'command-not-found',
        `${cmd} exists, but its interpreter${interpreter ? ` (${interpreter}, from its #! line)` : ''} was not found`,
        interpreter
          ? `install ${interpreter.split(/\s+/)[0].split('/').pop()}, or run the file with an interpreter you have`
          : 'run the file with its interpreter (node, python...)',
      );
      return;
    }
    walk.fail(
      step,
      since,
      'command-not-found',
      path ? `there is no file ${path}` : `the command \`${cmd}\` was not found on PATH${spec.notFoundHint ? ` (${spec.notFoundHint})` : ''}`,
      path
        ? 'check the path (relative paths are read from the working directory of the server entry)'
        : 'install it or give the full path; a server entry gets PATH from the environment mcpkit runs in, which a desktop app may not share with your shell',
    );
    return;
  }
  if (code === 'EACCES') {
    const dir = path && existsSync(path) && statSync(path).isDirectory();
    walk.fail(
      step,
      since,
      'permission-denied',
      dir ? `${cmd} is a directory, not a program` : `${cmd} is not executable (permission denied)`,
      dir ? 'name the program inside it' : `make it executable (chmod +x ${cmd}), or run it with its interpreter (e.g. node ${cmd})`,
    );
    return;
  }
  walk.fail(step, since, 'spawn-failed', `could not start ${cmd}: ${(err as Error).message}`, 'check the command and its working directory');
}

/** The first bytes of a file (its #! line), without reading the whole of it. */
function readHead(path: string): string {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const buf = Buffer.alloc(200);
    return buf.toString('utf8', 0, readSync(fd, buf, 0, buf.length, 0));
  } catch {
    return '';
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
