// Code mode end to end: a Host with `codeMode: true` between real MCP servers (mcpkit over HTTP
// and over stdio) and a scripted model endpoint of each wire format. The model is offered
// search_api and run_code only; it searches the API, runs a program, and every call the program
// makes goes through the host's approval, events and observer exactly as a direct call does.
// Only what the program returns reaches the model: the servers' payloads stay out of its context.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Host } from '../../../src/entries/host.js';
import type { HostEvent, HostObserver } from '../../../src/host/loop/types.js';
import { serve } from '../../../src/serving/node.js';
import { McpServer } from '../../../src/server/mcp-server.js';
import { chatTools, invoicesOf, makeCustomers, newLog, trackerTools } from '../../fixtures/host/work-servers.js';
import { z } from 'zod';
import {
  deferred,
  fixtureEntry,
  offeredTools,
  sentToolResults,
  startLoopRig,
  startScriptedAnthropic,
  textTurn,
  toolCallsTurn,
  waitFor,
  within,
} from '../../support/index.js';

const CLOSE_STALE_BUGS = `const { issues } = await tracker.list_issues({ label: 'bug' });
const stale = issues.filter((i) => i.updated_at < '2026-01-01');
const closed = [], skipped = [];
for (const i of stale) {
  try {
    await tracker.close_issue({ id: i.id, comment: 'No activity this year' });
    closed.push(i.id);
  } catch (e) {
    skipped.push(i.id + ': ' + e.message);
  }
}
await chat.post_message({ channel: 'eng', text: 'Closed stale bugs: ' + closed.join(', ') });
return { closed, skipped };`;

test('OpenAI over HTTP: search, then a program that lists, filters, closes each (approval per call) and posts; only its answer reaches the model', async () => {
  const log = newLog();
  const observed: string[] = [];
  const observer: HostObserver = {
    toolCall: (info, run) => {
      observed.push(`call ${info.id} ${info.server}/${info.tool}`);
      return run();
    },
    approval: (info, run) => {
      observed.push(`approval ${info.id} ${info.reason}`);
      return run();
    },
  };
  const rig = await startLoopRig({
    servers: { tracker: trackerTools(log), chat: chatTools(log) },
    host: {
      codeMode: true,
      observer,
      interaction: { approve: (request) => request.arguments.id !== 125 },
    },
    script: [
      (req) => {
        assert.deepEqual(offeredTools(req), ['search_api', 'run_code']);
        const run = req.body.tools[1].function;
        assert.match(run.description, /await namespace\.function/);
        assert.match(run.description, /tracker/);
        return toolCallsTurn({ name: 'search_api', arguments: { query: 'close an issue' } });
      },
      (req) => {
        const [found] = sentToolResults(req);
        assert.match(found.text, /declare namespace tracker \{/);
        assert.match(
          found.text,
          /function close_issue\(args: \{\n {4}\/\*\* Issue number \(integer\) \*\/\n {4}id: number;\n {4}comment\?: string;\n {2}\}\): Promise<unknown>;/,
        );
        return toolCallsTurn({ name: 'run_code', arguments: { code: CLOSE_STALE_BUGS } });
      },
      (req) => {
        const results = sentToolResults(req);
        const ran = results.at(-1)!;
        assert.equal(ran.id, 'call_1_0');
        assert.equal(
          ran.text,
          // OpenAI's tool messages carry no error flag: the provider marks errors in the text.
          'Returned:\n{"closed":[101,113,137],"skipped":["125: tracker.close_issue: The user did not allow calling close_issue."]}\n[6 tool calls made]',
        );
        // The 40 issues with their bodies never reached the model.
        assert.doesNotMatch(JSON.stringify(req.body.messages), /Steps to reproduce/);
        return textTurn('Closed 101, 113 and 137; 125 was not allowed.');
      },
    ],
  });
  try {
    const answer = await rig.host.conversation().send('Close the stale bugs and tell #eng.');
    rig.llm.assertNoErrors();
    assert.equal(answer.text, 'Closed 101, 113 and 137; 125 was not allowed.');
    assert.deepEqual(log.closed, [101, 113, 137]);
    assert.deepEqual(log.posted, [{ channel: 'eng', text: 'Closed stale bugs: 101, 113, 137' }]);
    // The model's two calls, then the program's six, in the order it made them.
    assert.deepEqual(
      answer.toolCalls.map((c) => `${c.id} ${c.name}${c.error ? ' (refused)' : ''}`),
      [
        'call_0_0 search_api',
        'call_1_0 run_code',
        'call_1_0.1 list_issues',
        'call_1_0.2 close_issue',
        'call_1_0.3 close_issue',
        'call_1_0.4 close_issue (refused)',
        'call_1_0.5 close_issue',
        'call_1_0.6 post_message',
      ],
    );
    assert.equal(answer.toolCalls[2].server, 'tracker');
    assert.deepEqual(answer.toolCalls[3].arguments, { id: 101, comment: 'No activity this year' });
    // The same events as direct calls: tool_call, approval (by policy or by the user), tool_result.
    const seq = rig.events
      .filter((e) => ['tool_call', 'approval', 'tool_result', 'tool_error'].includes(e.type))
      .map((e: HostEvent) => {
        if (e.type === 'approval') return `${e.type} ${e.id} ${e.approved} ${e.by}`;
        if (e.type === 'tool_call' || e.type === 'tool_result' || e.type === 'tool_error') return `${e.type} ${e.id}`;
        return e.type;
      });
    assert.deepEqual(seq, [
      'tool_call call_1_0.1',
      'approval call_1_0.1 true policy',
      'tool_result call_1_0.1',
      'tool_call call_1_0.2',
      'approval call_1_0.2 true user',
      'tool_result call_1_0.2',
      'tool_call call_1_0.3',
      'approval call_1_0.3 true user',
      'tool_result call_1_0.3',
      'tool_call call_1_0.4',
      'approval call_1_0.4 false user',
      'tool_error call_1_0.4',
      'tool_call call_1_0.5',
      'approval call_1_0.5 true user',
      'tool_result call_1_0.5',
      'tool_call call_1_0.6',
      'approval call_1_0.6 true policy',
      'tool_result call_1_0.6',
    ]);
    const [run] = rig.of('code_run');
    assert.equal(run.id, 'call_1_0');
    assert.equal(run.code, CLOSE_STALE_BUGS);
    const [ended] = rig.of('code_result');
    assert.equal(ended.calls, 6);
    assert.equal(ended.isError, false);
    // The observer saw each call of the program as it sees a direct one.
    assert.deepEqual(observed, [
      'call call_1_0.1 tracker/list_issues',
      'approval call_1_0.2 destructive tool',
      'call call_1_0.2 tracker/close_issue',
      'approval call_1_0.3 destructive tool',
      'call call_1_0.3 tracker/close_issue',
      'approval call_1_0.4 destructive tool',
      'approval call_1_0.5 destructive tool',
      'call call_1_0.5 tracker/close_issue',
      'call call_1_0.6 chat/post_message',
    ]);
  } finally {
    await rig.close();
  }
});

test('Anthropic, a stdio server and an HTTP server: one program joins their data (parallel calls), the model gets the joined rows', async () => {
  const log = newLog();
  const mcp = new McpServer({ name: 'chat', version: '1.0.0' });
  chatTools(log)(mcp);
  const chatServer = await serve(mcp, { port: 0 });
  const program = `const customers = await crm.list_customers({ region: 'emea' });
const users = await chat.list_users();
const email = Object.fromEntries(users.map((u) => [u.handle, u.email]));
const invoices = await Promise.all(customers.map((c) => crm.get_invoices({ customer_id: c.id })));
return customers
  .map((c, i) => ({ customer: c.name, owner: email[c.owner], overdue: invoices[i].filter((x) => x.status === 'overdue').length }))
  .filter((row) => row.overdue > 0);`;
  const emea = makeCustomers().filter((c) => c.region === 'emea');
  const expected = emea
    .map((c) => ({ customer: c.name, owner: `${c.owner}@example.com`, overdue: invoicesOf(c.id).filter((x) => x.status === 'overdue').length }))
    .filter((row) => row.overdue > 0);
  assert.ok(expected.length > 0 && expected.length < emea.length, 'the fixture has customers of both kinds');
  const llm = await startScriptedAnthropic([
    (req) => {
      assert.deepEqual(offeredTools(req), ['search_api', 'run_code']);
      // Few tools: run_code's description carries the whole API.
      const run = req.body.tools.find((t: any) => t.name === 'run_code');
      assert.match(run.description, /declare namespace crm \{/);
      assert.match(run.description, /function get_invoices\(args: \{/);
      return toolCallsTurn({ name: 'run_code', arguments: { code: program } });
    },
    (req) => {
      const [ran] = sentToolResults(req);
      assert.notEqual(ran.isError, true);
      assert.equal(ran.text, `Returned:\n${JSON.stringify(expected)}\n[${emea.length + 2} tool calls made]`);
      return textTurn('Done.');
    },
  ]);
  const host = new Host({
    servers: { crm: fixtureEntry('crm'), chat: { url: chatServer.url } },
    model: { provider: 'anthropic', model: 'scripted', baseUrl: llm.baseUrl },
    codeMode: true,
  });
  try {
    await host.start();
    const answer = await host.conversation().send('Which EMEA customers have overdue invoices, and who owns them?');
    llm.assertNoErrors();
    assert.equal(answer.text, 'Done.');
    const inner = answer.toolCalls.slice(1);
    assert.equal(inner.length, emea.length + 2);
    assert.deepEqual(
      inner.map((c) => c.server),
      ['crm', 'chat', ...emea.map(() => 'crm')],
    );
    assert.ok(inner.every((c) => c.result && !c.result.isError));
  } finally {
    await host.close();
    await chatServer.close();
    await llm.close();
  }
});

test('errors come back with their line: a syntax error, then a failed call the program did not catch', async () => {
  const log = newLog();
  const rig = await startLoopRig({
    servers: { tracker: trackerTools(log) },
    host: { codeMode: true },
    script: [
      toolCallsTurn({ name: 'run_code', arguments: { code: 'const n: number = 1;\nreturn n;' } }),
      (req) => {
        const [bad] = sentToolResults(req);
        assert.match(bad.text, /^Error: The program could not be read: SyntaxError at line 1, column \d+: .*Write plain JavaScript: no TypeScript types/);
        return toolCallsTurn({
          name: 'run_code',
          arguments: {
            code: 'const a = await tracker.get_issue({ id: 101 });\n\nconst b = await tracker.get_issue({ id: 9999 });\nreturn [a.title, b.title];',
          },
        });
      },
      (req) => {
        const failed = sentToolResults(req).at(-1)!;
        assert.match(failed.text, /^Error: The program failed at line 3, column 34: ToolError: tracker\.get_issue returned an error: No issue #9999\n/);
        assert.match(failed.text, /No issue #9999/);
        assert.match(failed.text, /\[2 tool calls made\]$/);
        return textTurn('Issue 9999 does not exist.');
      },
    ],
  });
  try {
    const answer = await rig.host.conversation().send('Compare 101 and 9999');
    rig.llm.assertNoErrors();
    assert.equal(answer.text, 'Issue 9999 does not exist.');
    const ended = rig.of('code_result');
    assert.deepEqual(
      ended.map((e) => e.isError),
      [true, true],
    );
  } finally {
    await rig.close();
  }
});

test('a policy glob denies a call the program makes: refused as a direct call is, the server never gets it', async () => {
  const log = newLog();
  const rig = await startLoopRig({
    servers: { tracker: trackerTools(log) },
    host: { codeMode: true, approval: { tools: { 'tracker/close_*': 'deny' } } },
    script: [
      toolCallsTurn({
        name: 'run_code',
        arguments: { code: 'await tracker.add_label({ id: 101, label: "stale" });\nawait tracker.close_issue({ id: 101 });\nreturn "closed";' },
      }),
      (req) => {
        const [ran] = sentToolResults(req);
        assert.equal(
          ran.text,
          'Error: The program failed at line 2, column 26: ToolError: tracker.close_issue: Calling close_issue is not allowed here (policy for "tracker/close_*").\n[2 tool calls made]',
        );
        return textTurn('Not allowed.');
      },
    ],
  });
  try {
    await rig.host.conversation().send('Label and close 101');
    rig.llm.assertNoErrors();
    assert.deepEqual(log.labelled, [{ id: 101, label: 'stale' }]);
    assert.deepEqual(log.closed, []);
    const approvals = rig.of('approval').map((e) => `${e.name} ${e.approved} ${e.by}`);
    assert.deepEqual(approvals, ['add_label true policy', 'close_issue false policy']);
  } finally {
    await rig.close();
  }
});

test("cancelling the message while a program's call runs ends the program and cancels the call on the server", async () => {
  const started = deferred();
  const cancelled = deferred();
  const rig = await startLoopRig({
    servers: {
      slow: (mcp) => {
        mcp.tool('block', { input: { n: z.number() }, annotations: { readOnlyHint: true } }, async (_args, ctx) => {
          started.resolve();
          await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
          cancelled.resolve();
          return 'cancelled';
        });
      },
    },
    host: { codeMode: true },
    script: [toolCallsTurn({ name: 'run_code', arguments: { code: 'const a = await slow.block({ n: 1 });\nreturn a;' } })],
  });
  try {
    const controller = new AbortController();
    const chat = rig.host.conversation();
    const sent = chat.send('go', { signal: controller.signal });
    await within(started.promise, 'the program to call block');
    controller.abort();
    await assert.rejects(sent, { name: 'AbortError' });
    await within(cancelled.promise, 'the server to see the call cancelled');
    await waitFor(() => rig.of('tool_error').length === 1, 'the cancelled call to be reported');
    assert.match(rig.of('tool_error')[0].message, /^Cancelled: /);
    assert.equal(chat.messages.length, 0);
  } finally {
    await rig.close();
  }
});
