// What `mcpkit chat` asks while a turn runs, answered over a piped stdin the way a script (or a
// person) would: approvals (y / n / always), elicitation forms and links, sampling; and what
// happens with nobody to ask.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { StatusLine } from '../../../src/cli/term.js';
import { chatInteraction, callLabel, parseApproval } from '../../../src/cli/chat/ask.js';
import { EndOfInput, LineInput } from '../../../src/cli/chat/input.js';
import { testIo } from '../helpers.js';

function setup(lines: string[] | undefined, yes = false) {
  const io = testIo({ input: lines === undefined ? '' : lines.map((l) => `${l}\n`).join('') });
  const status = new StatusLine(io.stderr, { NO_COLOR: '1' });
  const input = lines === undefined ? undefined : new LineInput(io);
  return { io, input, ask: chatInteraction({ input, status, yes }) };
}

const signal = new AbortController().signal;
const request = (name = 'delete_file') => ({ callId: 'c1', name, server: 'fs', tool: name, arguments: { path: '/tmp/x' }, reason: 'destructive tool' });

describe('LineInput over a pipe', () => {
  test('lines in order, each echoed after its question; then EndOfInput', async () => {
    const io = testIo({ input: 'one\ntwo\n' });
    const input = new LineInput(io);
    assert.equal(input.terminal, false);
    assert.equal(await input.question('a? '), 'one');
    assert.equal(await input.question('b? '), 'two');
    await assert.rejects(input.question('c? '), EndOfInput);
    await assert.rejects(input.question('d? '), EndOfInput);
    assert.equal(io.err(), 'a? one\nb? two\nc? \n');
  });

  test('a question given up on (abort) leaves its line to the next one', async () => {
    const stdin = new PassThrough();
    const io = { ...testIo(), stdin };
    const input = new LineInput(io);
    const ac = new AbortController();
    const first = input.question('approve? ', ac.signal);
    ac.abort(new Error('cancelled'));
    await assert.rejects(first, /cancelled/);
    stdin.write('hello\n');
    assert.equal(await input.question('you› '), 'hello');
    input.close();
    await assert.rejects(input.question('more? '), EndOfInput);
  });
});

describe('approval', () => {
  test('parseApproval', () => {
    assert.equal(parseApproval('Y'), true);
    assert.equal(parseApproval(' yes '), true);
    assert.equal(parseApproval(''), false);
    assert.equal(parseApproval('no'), false);
    assert.equal(parseApproval('a'), 'always');
    assert.equal(parseApproval('maybe'), undefined);
  });

  test('y runs it, n and an empty line refuse it, an unclear answer is asked again', async () => {
    const t = setup(['y', 'n', '', 'perhaps', 'yes']);
    assert.equal(await t.ask.approve!(request(), signal), true);
    assert.equal(await t.ask.approve!(request(), signal), false);
    assert.equal(await t.ask.approve!(request(), signal), false);
    assert.equal(await t.ask.approve!(request(), signal), true);
    const asked = t.io
      .err()
      .split('\n')
      .filter((l) => l.startsWith('? Run'));
    assert.equal(asked.length, 5);
    assert.equal(asked[0], '? Run fs › delete_file {"path":"/tmp/x"} (destructive tool)? [y]es / [N]o / [a]lways for this tool y');
  });

  test('always: that tool is not asked about again, others are', async () => {
    const t = setup(['a', 'n']);
    assert.equal(await t.ask.approve!(request(), signal), true);
    assert.equal(await t.ask.approve!(request(), signal), true);
    assert.equal(await t.ask.approve!(request('write_file'), signal), false);
    assert.equal(
      t.io
        .err()
        .split('\n')
        .filter((l) => l.startsWith('? Run')).length,
      2,
    );
  });

  test('the end of input refuses', async () => {
    const t = setup([]);
    assert.equal(await t.ask.approve!(request(), signal), false);
  });

  test('nobody to ask: no approve() at all (the loop then tells the model nobody could be asked), unless --yes', async () => {
    assert.equal(setup(undefined).ask.approve, undefined);
    assert.equal(await setup(undefined, true).ask.approve!(request(), signal), true);
  });
});

describe('elicitation', () => {
  const form = {
    mode: 'form' as const,
    message: 'Where to?',
    requestedSchema: {
      type: 'object' as const,
      properties: {
        city: { type: 'string' as const, title: 'City' },
        days: { type: 'integer' as const, title: 'Days' },
        unit: { type: 'string' as const, enum: ['celsius', 'fahrenheit'] },
      },
      required: ['city', 'days'],
    },
  };

  test('a form: fields typed by the schema, retyped until they fit, choices by number', async () => {
    const t = setup(['y', '', 'Hangzhou', 'three', '3', '2']);
    const r = await t.ask.elicit({ server: 'weather', params: form }, signal);
    assert.deepEqual(r, { action: 'accept', content: { city: 'Hangzhou', days: 3, unit: 'fahrenheit' } });
    const err = t.io.err();
    assert.match(err, /\? weather asks: Where to\?/);
    assert.match(err, /City\*: \n {4}required\n/);
    assert.match(err, /expected a whole number/);
    assert.match(err, / {4}1\) celsius\n {4}2\) fahrenheit/);
  });

  test('decline, cancel, and the end of input cancels', async () => {
    assert.deepEqual(await setup(['n']).ask.elicit({ server: 's', params: form }, signal), { action: 'decline' });
    assert.deepEqual(await setup(['c']).ask.elicit({ server: 's', params: form }, signal), { action: 'cancel' });
    assert.deepEqual(await setup(['y', 'Oslo']).ask.elicit({ server: 's', params: form }, signal), { action: 'cancel' });
  });

  test('a URL to open is shown as a link, and the answer says whether it was done', async () => {
    const t = setup(['']);
    const params = { mode: 'url' as const, message: 'Sign in to the calendar', url: 'https://example.com/auth?x=1', elicitationId: 'e1' };
    assert.deepEqual(await t.ask.elicit({ server: 'cal', params }, signal), { action: 'accept' });
    assert.match(t.io.err(), /Open this link to continue: https:\/\/example\.com\/auth\?x=1/);
  });

  test('nobody to ask: declined, saying so', async () => {
    const t = setup(undefined);
    assert.deepEqual(await t.ask.elicit({ server: 'weather', params: form }, signal), { action: 'decline' });
    assert.match(t.io.err(), /weather asked for input \("Where to\?"\) but there is no terminal to ask: declined/);
  });
});

describe('sampling approval', () => {
  const params = { messages: [{ role: 'user' as const, content: { type: 'text' as const, text: 'Summarise this' } }], maxTokens: 100 };
  test('asked, with what the server sends', async () => {
    const t = setup(['y', 'n']);
    assert.equal(await t.ask.approveSampling({ server: 'docs', params }, signal), true);
    assert.equal(await t.ask.approveSampling({ server: 'docs', params }, signal), false);
    assert.match(t.io.err(), /docs asks to use the model \(sampling, up to 100 tokens\): Summarise this/);
  });
  test('nobody to ask: refused unless --yes', async () => {
    assert.equal(await setup(undefined).ask.approveSampling({ server: 'docs', params }, signal), false);
    assert.equal(await setup(undefined, true).ask.approveSampling({ server: 'docs', params }, signal), true);
  });
});

test('callLabel keeps one line', () => {
  assert.equal(callLabel('s', 't', {}), 's › t');
  assert.equal(callLabel('s', 't', { a: 'x'.repeat(100) }, 40).length, 40);
});
