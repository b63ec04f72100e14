// How `mcpkit chat` shows a turn's events: the streamed answer, tool call lines, the progress
// bar (as lines without a terminal), results collapsed past a few lines, errors and servers.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { StatusLine } from '../../../src/cli/term.js';
import { ChatView, collapse } from '../../../src/cli/chat/view.js';

function setup(options: { stream?: boolean; verbose?: boolean; tty?: boolean } = {}) {
  const out = new PassThrough();
  const err = Object.assign(new PassThrough(), { isTTY: options.tty ?? false, columns: 80 });
  let o = '';
  let e = '';
  out.on('data', (c: Buffer) => (o += c));
  err.on('data', (c: Buffer) => (e += c));
  const status = new StatusLine(err, { NO_COLOR: '1', TERM: 'xterm' });
  const view = new ChatView({
    out,
    status,
    stream: options.stream ?? true,
    verbose: options.verbose ?? false,
    maxLines: 4,
    hint: (n) => `/show ${n} prints it all`,
  });
  return { view, status, out: () => o, err: () => e };
}

const text = (t: string) => ({ content: [{ type: 'text' as const, text: t }] });

describe('ChatView', () => {
  test('streams the answer on stdout and ends its line before a tool call is shown', () => {
    const t = setup();
    t.view.handle({ type: 'text', delta: 'Let me ' });
    t.view.handle({ type: 'text', delta: 'check.' });
    t.view.handle({ type: 'tool_call', id: 'c1', name: 'get_weather', server: 'weather', tool: 'get_weather', arguments: { city: 'Hangzhou' } });
    assert.equal(t.out(), 'Let me check.\n');
    assert.equal(t.err(), '→ [1] weather › get_weather {"city":"Hangzhou"}\n');
  });

  test('without streaming (-p), the text is left to the caller', () => {
    const t = setup({ stream: false });
    t.view.handle({ type: 'text', delta: 'hidden' });
    t.view.handle({ type: 'model_end', step: 0, response: { text: 'hidden', toolCalls: [], stopReason: 'end' } });
    assert.equal(t.out(), '');
  });

  test('progress becomes lines without a terminal; the result follows with its time', () => {
    const t = setup();
    t.view.handle({ type: 'tool_call', id: 'c1', name: 'count', server: 'demo', tool: 'count', arguments: {} });
    t.view.handle({ type: 'tool_progress', id: 'c1', progress: 1, total: 2, message: 'half' });
    t.view.handle({
      type: 'tool_result',
      id: 'c1',
      name: 'count',
      server: 'demo',
      result: text('Counted to 2.'),
      isError: false,
      truncated: false,
      durationMs: 1234,
    });
    assert.equal(t.err(), '→ [1] demo › count\nprogress 1/2 (50%) half\n✔ [1] count 1.2s\n  Counted to 2.\n');
  });

  test('on a terminal the bar is drawn, and replaced by the result line when the call ends', () => {
    const t = setup({ tty: true });
    t.view.handle({ type: 'tool_call', id: 'c1', name: 'count', server: 'demo', tool: 'count', arguments: {} });
    t.view.handle({ type: 'tool_progress', id: 'c1', progress: 1, total: 4 });
    t.view.handle({ type: 'tool_result', id: 'c1', name: 'count', server: 'demo', result: text('ok'), isError: false, truncated: false, durationMs: 10 });
    const shown = t.err().replaceAll('\r\x1b[K', '<redraw>');
    assert.match(shown, /^→ \[1\] demo › count\n<redraw>⠋ \[1\] count █+░+ 1\/4 {2}25%[^\n]*<redraw>✔ \[1\] count 0\.0s\n {2}ok\n$/);
  });

  test('a long result is collapsed with a hint, and kept whole for /show', () => {
    const t = setup();
    const long = Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n');
    t.view.handle({ type: 'tool_call', id: 'c1', name: 'ls', server: 'fs', tool: 'ls', arguments: { path: '.' } });
    t.view.handle({ type: 'tool_result', id: 'c1', name: 'ls', server: 'fs', result: text(long), isError: false, truncated: true, durationMs: 5 });
    assert.match(
      t.err(),
      /✔ \[1\] ls 0\.0s \(cut for the model: its head and tail were sent\)\n {2}line 1\n {2}line 2\n {2}line 3\n {2}… 7 more lines: \/show 1 prints it all\n$/,
    );
    assert.equal(t.view.full(1)?.text, long);
    assert.equal(t.view.full(2), undefined);
  });

  test('errors: an isError result, a call that could not be made, a refused call', () => {
    const t = setup();
    t.view.handle({ type: 'tool_call', id: 'a', name: 'rm', server: 'fs', tool: 'rm', arguments: {} });
    t.view.handle({
      type: 'tool_result',
      id: 'a',
      name: 'rm',
      server: 'fs',
      result: { ...text('no such file'), isError: true },
      isError: true,
      truncated: false,
      durationMs: 0,
    });
    t.view.handle({ type: 'tool_call', id: 'b', name: 'nope', server: 'fs', tool: 'nope', arguments: {} });
    t.view.handle({ type: 'tool_error', id: 'b', name: 'nope', message: 'No tool is named "nope"' });
    t.view.handle({ type: 'approval', id: 'c', name: 'rm', approved: false, by: 'user' });
    t.view.handle({ type: 'approval', id: 'd', name: 'rm', approved: false, by: 'policy' });
    t.view.handle({ type: 'approval', id: 'e', name: 'rm', approved: true, by: 'user' });
    t.view.handle({ type: 'tool_call', id: 'f', name: 'rm', server: 'fs', tool: 'rm', arguments: { path: '/tmp/x' } });
    t.view.handle({ type: 'approval', id: 'f', name: 'rm', approved: false, by: 'nobody' });
    const lines = t.err().split('\n');
    assert.ok(lines.includes('! fs › rm {"path":"/tmp/x"}: refused, it needs approval and there is no terminal to ask (--yes approves such calls)'), t.err());
    assert.ok(lines.includes('✖ [1] rm returned an error 0.0s'), t.err());
    assert.ok(lines.includes('  no such file'));
    assert.ok(lines.includes('✖ [2] nope: No tool is named "nope"'));
    assert.ok(lines.includes('✖ rm: not approved'));
    assert.ok(lines.includes('✖ rm: not allowed by the approval policy'));
    assert.equal(lines.filter((l) => l.includes('rm:')).length, 2);
    assert.equal(t.view.full(2)?.isError, true);
  });

  test('servers: failures always, stderr and connections only when verbose', () => {
    for (const verbose of [false, true]) {
      const t = setup({ verbose });
      t.view.handle({ type: 'server', event: { type: 'failed', server: 'w', error: new Error('command not found'), retryInMs: 2000 } });
      t.view.handle({ type: 'server', event: { type: 'stderr', server: 'w', line: 'booting' } });
      t.view.handle({ type: 'server', event: { type: 'connected', server: 'w', era: 'modern', protocolVersion: '2026-07-28', tools: 3 } });
      t.view.handle({ type: 'server', event: { type: 'closed', server: 'w', error: undefined } });
      const expected = [
        '! w: command not found (trying again in 2s)',
        ...(verbose ? ['w │ booting', '  w connected (modern 2026-07-28, 3 tools)'] : []),
        '! w went away',
        '',
      ];
      assert.deepEqual(t.err().split('\n'), expected);
    }
  });
});

describe('collapse', () => {
  test('short text is left alone; long lines are cut to the width', () => {
    assert.deepEqual(collapse('a\nb\n', 3, 80), { shown: 'a\nb', hidden: 0 });
    assert.deepEqual(collapse('a\nb\nc\nd', 3, 80), { shown: 'a\nb', hidden: 2 });
    assert.deepEqual(collapse('x'.repeat(20), 3, 10), { shown: `${'x'.repeat(9)}…`, hidden: 0 });
  });
});
