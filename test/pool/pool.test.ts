// ServerPool over stdio child processes: an mcpkit server and an official-SDK (v1) server side
// by side (a clashing tool name), allow/deny, a server that fails to start and comes up on a
// ManualClock-driven retry, a server killed mid-session and reconnected, and close() leaving
// no process behind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ServerPool, type PoolEvent, type PoolEventOf, type PoolEventType } from '../../src/pool/pool.js';
import { ServerUnavailableError, UnknownToolError } from '../../src/pool/errors.js';
import { ManualClock, tempDir, waitFor, within } from '../support/index.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const FIXTURE = fileURLToPath(new URL('../fixtures/host/pool-server.ts', import.meta.url));
const OFFICIAL = fileURLToPath(new URL('../fixtures/official-server.ts', import.meta.url));

/** A stdio mcpServers entry for the fixture; `tag` keeps its era-cache entry to this test. */
function fixture(tag: string, env: Record<string, string> = {}) {
  return { command: process.execPath, args: ['--import', 'tsx', FIXTURE, tag], env, cwd: ROOT };
}

/** Resolves with the next event of `type` that `match` accepts. */
function next<T extends PoolEventType>(pool: ServerPool, type: T, match: (e: PoolEventOf<T>) => boolean = () => true): Promise<PoolEventOf<T>> {
  return within(
    new Promise<PoolEventOf<T>>((resolve) => {
      const off = pool.on(type, (e) => {
        if (!match(e)) return;
        off();
        resolve(e);
      });
    }),
    `the pool's "${type}" event`,
  );
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const text = (r: { content: unknown[] }) => (r.content[0] as { text: string }).text;

test('an mcpkit and an official-SDK stdio server: a clashing tool is prefixed, the others are not; calls route back', async () => {
  const events: PoolEvent[] = [];
  const pool = new ServerPool({
    servers: {
      local: { ...fixture('clash'), deny: ['grow', 'w*'] },
      official: { command: process.execPath, args: ['--import', 'tsx', OFFICIAL], cwd: ROOT, allow: ['echo', 'add', 'c*'] },
    },
    onEvent: (e) => events.push(e),
  });
  try {
    await pool.start();
    const names = pool.tools().map((t) => t.name);
    assert.deepEqual(names, ['add', 'count', 'local_echo', 'official_echo', 'pid']);
    assert.equal(pool.resolve('local_echo')?.server, 'local');
    assert.equal(pool.resolve('official_echo')?.tool.name, 'echo');
    assert.equal(pool.resolve('grow'), undefined, 'denied');
    assert.equal(text(await pool.call('local_echo', { text: 'hi' })), 'hi');
    assert.equal(text(await pool.call('official_echo', { message: 'yo' })), 'yo');
    const sum = await pool.call('add', { a: 2, b: 3 });
    assert.deepEqual(sum.structuredContent, { sum: 5 });
    await assert.rejects(pool.call('nope', {}), UnknownToolError);
    const connected = events.filter((e): e is PoolEventOf<'connected'> => e.type === 'connected');
    assert.deepEqual(connected.map((e) => e.server).sort(), ['local', 'official']);
    assert.equal(connected.find((e) => e.server === 'official')?.era, 'handshake');
    // (local's era is not asserted: on a loaded machine its start may outlast the 3 s era probe,
    // and the handshake it then falls back to is as good.)
    assert.equal(connected.find((e) => e.server === 'local')?.tools, 2, 'echo and pid: grow and wait are denied');
    assert.equal(pool.server('local')?.tools, 2);
  } finally {
    await pool.close();
  }
});

test('names do not depend on which server connected first', async () => {
  const make = (order: string[]) => {
    const all: Record<string, unknown> = { a: fixture('order-a', { TOOLS: 'search,files.read' }), b: fixture('order-b', { TOOLS: 'search' }) };
    return new ServerPool({ servers: Object.fromEntries(order.map((k) => [k, all[k]])) });
  };
  const one = make(['a', 'b']);
  const two = make(['b', 'a']);
  try {
    // One after the other, in opposite orders.
    await one.start();
    await two.start();
    const list = (p: ServerPool) => p.tools().map((t) => `${t.name}=${t.server}/${t.tool.name}`);
    assert.deepEqual(list(one), list(two));
    assert.ok(list(one).includes('a_search=a/search'));
    assert.ok(
      list(one).some((x) => /^files_read_[a-z0-9]{8}=a\/files\.read$/.test(x)),
      list(one).join(' '),
    );
  } finally {
    await Promise.all([one.close(), two.close()]);
  }
});

test('a server that fails to start is reported and retried on the clock while the others work; then it comes up', async () => {
  const dir = tempDir('pool-start');
  const flag = join(dir, 'ready');
  const clock = new ManualClock();
  const pool = new ServerPool({
    servers: [
      { name: 'late', target: fixture('late', { REQUIRE_FILE: flag }) as never },
      { name: 'ok', target: { kind: 'stdio', label: 'ok', ...fixture('ok') } },
    ],
    clock,
    retry: { initialDelayMs: 1000 },
  });
  const failed = next(pool, 'failed');
  try {
    await pool.start();
    const f = await failed;
    assert.equal(f.server, 'late');
    assert.equal(f.retryInMs, 1000);
    assert.match(f.error.message, /exited with code 3 .*fatal: .*ready is missing/);
    assert.equal(pool.server('late')?.state, 'failed');
    assert.equal(pool.server('ok')?.state, 'connected');
    assert.equal(text(await pool.call('echo', { text: 'still here' })), 'still here');
    // A call to the failed server's tools: none are offered yet.
    assert.equal(pool.resolve('late_pid'), undefined);
    // The second attempt fails too: the delay doubles.
    const second = next(pool, 'failed');
    clock.advance(1000);
    assert.equal((await second).retryInMs, 2000);
    writeFileSync(flag, 'yes');
    const changed = new Promise<void>((resolve) => pool.onChange(resolve));
    const up = next(pool, 'connected', (e) => e.server === 'late');
    clock.advance(2000);
    await up;
    await within(changed, 'onChange');
    // Both offer echo and pid now: the newcomer's are prefixed, those already in use keep their names.
    assert.deepEqual(
      pool.tools().map((t) => t.name),
      ['echo', 'grow', 'late_echo', 'late_grow', 'late_pid', 'late_wait', 'pid', 'wait'],
    );
    assert.equal(pool.resolve('echo')?.server, 'ok');
    assert.equal(text(await pool.call('late_echo', { text: 'up' })), 'up');
  } finally {
    await pool.close();
  }
  assert.equal(clock.pending, 0, 'no timer left');
});

test('a stdio server killed mid-session: the call in flight fails naming the server, the next one after reconnecting works', async () => {
  const clock = new ManualClock();
  const pool = new ServerPool({ servers: { solo: fixture('killed') }, clock, retry: { initialDelayMs: 500 } });
  try {
    await pool.start();
    const first = Number(text(await pool.call('pid', {})));
    assert.equal(pool.server('solo')?.pid, first);
    const changes: number[] = [];
    pool.onChange(() => changes.push(pool.tools().length));
    const closed = next(pool, 'closed');
    const reconnecting = next(pool, 'reconnecting');
    // A call in flight: the server has started it (its progress came) when it is killed.
    let running: () => void = () => {};
    const started = new Promise<void>((resolve) => (running = resolve));
    const inflight = pool.call('wait', {}, { onprogress: () => running() });
    await within(started, 'the call to start on the server');
    process.kill(first, 'SIGKILL');
    const err = await inflight.catch((e: unknown) => e);
    assert.ok(err instanceof ServerUnavailableError, String(err));
    assert.equal(err.server, 'solo');
    assert.match(err.message, /^Server "solo" was lost during the call to "wait": .*; it is being reconnected$/);
    const c = await closed;
    assert.equal(c.server, 'solo');
    assert.equal((await reconnecting).inMs, 500);
    // While down: the tools stay listed (names keep their meaning), calls fail at once, clearly.
    assert.deepEqual(
      pool.tools().map((t) => t.name),
      ['echo', 'grow', 'pid', 'wait'],
    );
    const down = await pool.call('pid', {}).catch((e: unknown) => e);
    assert.ok(down instanceof ServerUnavailableError);
    assert.match(down.message, /Cannot call "pid": server "solo" is not connected .*; retrying in 500 ms/);
    const up = next(pool, 'connected');
    clock.advance(500);
    // The attempt is under way: a call now waits for it instead of failing.
    assert.equal(pool.server('solo')?.state, 'connecting');
    const during = pool.call('pid', {});
    await up;
    const second = Number(text(await during));
    assert.notEqual(second, first);
    assert.equal(alive(first), false);
    assert.deepEqual(changes, [], 'same tools, same names: nothing changed for the model');
  } finally {
    await pool.close();
  }
});

test('a tool added at runtime (list_changed over stdio, 2026-07-28 listen) is offered under a stable name; close() kills every child', async () => {
  // Pinned: under 'auto' a slow start may outlast the era probe and land in the handshake era.
  const pool = new ServerPool({ servers: { s: { ...fixture('grow-stdio'), era: 'modern' } } });
  let pid: number | undefined;
  try {
    await pool.start();
    pid = pool.server('s')?.pid;
    assert.equal(pool.server('s')?.era, 'modern');
    assert.ok(pid && alive(pid));
    const before = pool.tools().map((t) => t.name);
    const changed = new Promise<void>((resolve) => pool.onChange(resolve));
    assert.equal(text(await pool.call('grow', { name: 'fresh.tool' })), 'added fresh.tool');
    await within(changed, 'onChange after list_changed');
    const after = pool.tools().map((t) => t.name);
    for (const n of before) assert.ok(after.includes(n), `${n} kept`);
    const added = after.find((n) => !before.includes(n))!;
    assert.match(added, /^fresh_tool_[a-z0-9]{8}$/);
    assert.equal(text(await pool.call(added, { text: 'new' })), 'fresh.tool:new');
  } finally {
    await pool.close();
  }
  await waitFor(() => !alive(pid!), 'the child to be gone');
  assert.deepEqual(pool.tools(), []);
  await assert.rejects(pool.add({ name: 'x', target: 'http://127.0.0.1:1/mcp' }), /closed/);
});

test('config: a file of mcpServers with disabled entries and bad values', async () => {
  const dir = tempDir('pool-config');
  const file = join(dir, 'mcp.json');
  writeFileSync(file, JSON.stringify({ mcpServers: { on: { ...fixture('cfg'), prefix: 'always' }, off: { ...fixture('cfg-off'), disabled: true } } }));
  const pool = new ServerPool({ config: file });
  try {
    await pool.start();
    assert.equal(pool.server('on')?.state, 'connected');
    assert.equal(pool.server('off')?.state, 'closed');
    assert.deepEqual(
      pool.tools().map((t) => t.server),
      ['on', 'on', 'on', 'on'],
    );
    assert.deepEqual(
      pool.tools().map((t) => t.name),
      ['on_echo', 'on_grow', 'on_pid', 'on_wait'],
    );
  } finally {
    await pool.close();
  }
  assert.throws(() => new ServerPool({ servers: { x: { command: 'a', prefix: 'sometimes' } } }), /server "x": "prefix" must be one of always, on-clash, never/);
  assert.throws(() => new ServerPool({ servers: { x: { args: [] } } }), /server "x" has neither "command" nor "url"/);
  assert.throws(() => new ServerPool({ servers: { x: { command: 'a', allow: 'echo' } } }), /"allow" must be an array/);
  assert.throws(() => new ServerPool({ config: join(dir, 'missing.json') }), /no such file/);
});
