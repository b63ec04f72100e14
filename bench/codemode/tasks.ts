// Model steps and tokens of multi-step tasks, with plain tool calls and with code mode: a Host
// (real, over HTTP to the three work servers of test/fixtures/host/work-servers.ts) driven by a
// scripted OpenAI-wire endpoint (test/support/llm.ts). Each script plays a competent model: in
// plain mode it batches independent calls into one step (parallel tool calls) and reads the
// data it is sent to decide the next calls; in code mode it searches the API once, then runs one
// program. Tokens (o200k_base, gpt-tokenizer) are counted on what crosses the wire: input = the
// messages and tools of every request (each step resends the history, as APIs bill it, with no
// prompt caching), output = the text and tool-call arguments the model wrote.
//
//   node --import tsx bench/codemode/tasks.ts
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { runProgram } from '../../src/codemode/sandbox.js';
import { Host } from '../../src/host/host.js';
import { serve, type RunningServer } from '../../src/serving/node.js';
import { McpServer } from '../../src/server/mcp-server.js';
import { chatTools, crmTools, newLog, trackerTools, type WorkLog } from '../../test/fixtures/host/work-servers.js';
import { sentToolResults, startScriptedOpenAI, textTurn, toolCallsTurn, type ScriptedRequest, type Turn, type TurnReply } from '../../test/support/index.js';

const tokens = (v: unknown) => encode(typeof v === 'string' ? v : JSON.stringify(v)).length;
/** The JSON a tool result carries (its first text). */
const data = (req: ScriptedRequest, back = 1): any => JSON.parse(sentToolResults(req).at(-back)!.text.split('\n\nStructured result:')[0]);
const call = (name: string, args: Record<string, unknown> = {}) => ({ name, arguments: args });

interface Task {
  name: string;
  question: string;
  /** Plain mode's script, or the name of the task whose plain run this one is compared with. */
  plain: Turn[] | string;
  code: Turn[];
  check(log: WorkLog, answer: string): void;
}

const STALE = '2026-01-01';
const search = (query: string) => toolCallsTurn(call('search_api', { query, limit: 5 }));
const run = (code: string) => toolCallsTurn(call('run_code', { code }));
const answerFromProgram =
  (prefix: string): Turn =>
  (req) =>
    textTurn(`${prefix} ${sentToolResults(req).at(-1)!.text.split('\n')[1]}`);

const TASKS: Task[] = [
  {
    name: '1. list, filter, act per item, notify',
    question: 'Close the bugs nobody touched since 2025 and tell #eng which ones.',
    plain: [
      toolCallsTurn(call('list_issues', { label: 'bug' })),
      (req) => {
        const stale = data(req).issues.filter((i: any) => i.updated_at < STALE);
        return toolCallsTurn(stale.map((i: any) => call('close_issue', { id: i.id, comment: 'No activity since 2025' })));
      },
      (req) => {
        const ids = sentToolResults(req)
          .filter((r) => r.text.startsWith('Closed #'))
          .map((r) => r.text.slice(8, -1));
        return toolCallsTurn(call('post_message', { channel: 'eng', text: `Closed stale bugs: ${ids.join(', ')}` }));
      },
      textTurn('Done: the stale bugs are closed and #eng knows which.'),
    ],
    code: [
      search('list issues close issue post message'),
      run(`const { issues } = await tracker.list_issues({ label: 'bug' });
const stale = issues.filter((i) => i.updated_at < '${STALE}');
for (const i of stale) await tracker.close_issue({ id: i.id, comment: 'No activity since 2025' });
await chat.post_message({ channel: 'eng', text: 'Closed stale bugs: ' + stale.map((i) => i.id).join(', ') });
return stale.map((i) => i.id);`),
      answerFromProgram('Closed and announced:'),
    ],
    check: (log) => {
      if (log.closed.join() !== '101,113,125,137' || log.posted.length !== 1) throw new Error(`task 1: ${JSON.stringify(log)}`);
    },
  },
  {
    name: '2. join two servers (per-customer calls)',
    question: 'Which EMEA customers have overdue invoices, and what is the email of their owner?',
    plain: [
      toolCallsTurn([call('list_customers', { region: 'emea' }), call('list_users')]),
      (req) => toolCallsTurn(data(req, 2).map((c: any) => call('get_invoices', { customer_id: c.id }))),
      (req) => {
        const results = sentToolResults(req);
        const customers = JSON.parse(results[0].text);
        const users = JSON.parse(results[1].text);
        const rows = customers
          .map((c: any, i: number) => ({ c, overdue: JSON.parse(results[2 + i].text).filter((x: any) => x.status === 'overdue').length }))
          .filter((r: any) => r.overdue > 0)
          .map((r: any) => `${r.c.name}: ${r.overdue} overdue, owner ${users.find((u: any) => u.handle === r.c.owner).email}`);
        return textTurn(rows.join('\n'));
      },
    ],
    code: [
      search('customers invoices users email'),
      run(`const customers = await crm.list_customers({ region: 'emea' });
const users = await chat.list_users();
const invoices = await Promise.all(customers.map((c) => crm.get_invoices({ customer_id: c.id })));
return customers
  .map((c, i) => ({ name: c.name, overdue: invoices[i].filter((x) => x.status === 'overdue').length, owner: users.find((u) => u.handle === c.owner).email }))
  .filter((r) => r.overdue > 0);`),
      answerFromProgram('Overdue:'),
    ],
    check: () => {},
  },
  {
    name: '3. filter by data of another server, act per item',
    question: 'Label every open customer issue assigned to an engineer as priority.',
    plain: [
      toolCallsTurn([call('list_issues', { label: 'customer' }), call('list_users')]),
      (req) => {
        const results = sentToolResults(req);
        const issues = JSON.parse(results[0].text.split('\n\nStructured result:')[0]).issues;
        const engineers = JSON.parse(results[1].text)
          .filter((u: any) => u.title === 'Engineer')
          .map((u: any) => u.handle);
        return toolCallsTurn(issues.filter((i: any) => engineers.includes(i.assignee)).map((i: any) => call('add_label', { id: i.id, label: 'priority' })));
      },
      textTurn('Labelled them priority.'),
    ],
    code: [
      search('list issues users add label'),
      run(`const { issues } = await tracker.list_issues({ label: 'customer' });
const engineers = (await chat.list_users()).filter((u) => u.title === 'Engineer').map((u) => u.handle);
const picked = issues.filter((i) => engineers.includes(i.assignee));
await Promise.all(picked.map((i) => tracker.add_label({ id: i.id, label: 'priority' })));
return picked.map((i) => i.id);`),
      answerFromProgram('Labelled:'),
    ],
    check: (log) => {
      if (log.labelled.length === 0) throw new Error('task 3 labelled nothing');
    },
  },
  {
    name: '4. aggregate a large list, post a summary',
    question: 'Post to #standup how many open issues each person has.',
    plain: [
      toolCallsTurn(call('list_issues')),
      (req) => {
        const counts: Record<string, number> = {};
        for (const i of data(req).issues) counts[i.assignee] = (counts[i.assignee] ?? 0) + 1;
        const text = Object.entries(counts)
          .map(([who, n]) => `${who}: ${n}`)
          .join(', ');
        return toolCallsTurn(call('post_message', { channel: 'standup', text: `Open issues: ${text}` }));
      },
      textTurn('Posted the counts to #standup.'),
    ],
    code: [
      search('list issues post message'),
      run(`const { issues } = await tracker.list_issues({});
const counts = {};
for (const i of issues) counts[i.assignee] = (counts[i.assignee] || 0) + 1;
const text = Object.entries(counts).map(([who, n]) => who + ': ' + n).join(', ');
await chat.post_message({ channel: 'standup', text: 'Open issues: ' + text });
return text;`),
      answerFromProgram('Posted:'),
    ],
    check: (log) => {
      if (log.posted.length !== 1) throw new Error('task 4 posted nothing');
    },
  },
  {
    name: '5. one lookup',
    question: 'What is the title of issue 113?',
    plain: [toolCallsTurn(call('get_issue', { id: 113 })), (req) => textTurn(`It is "${data(req).title}".`)],
    code: [search('get issue by number'), run('return (await tracker.get_issue({ id: 113 })).title;'), answerFromProgram('It is')],
    check: () => {},
  },
  {
    name: '6. as 4, the first program guesses the data wrong',
    question: 'Post to #standup how many open issues each person has.',
    plain: '4. aggregate a large list, post a summary',
    code: [
      search('list issues post message'),
      run(`const issues = await tracker.list_issues({});
const counts = {};
for (const i of issues) counts[i.assignee.name] = (counts[i.assignee.name] || 0) + 1;
return counts;`),
      run(`const { issues } = await tracker.list_issues({});
const counts = {};
for (const i of issues) counts[i.assignee] = (counts[i.assignee] || 0) + 1;
const text = Object.entries(counts).map(([who, n]) => who + ': ' + n).join(', ');
await chat.post_message({ channel: 'standup', text: 'Open issues: ' + text });
return text;`),
      answerFromProgram('Posted:'),
    ],
    check: (log) => {
      if (log.posted.length !== 1) throw new Error('task 6 posted nothing');
    },
  },
];

interface Measure {
  steps: number;
  input: number;
  output: number;
  toolCalls: number;
  ms: number;
}

async function measure(task: Task, mode: 'plain' | 'code'): Promise<Measure> {
  const log = newLog();
  let output = 0;
  const counted =
    (turn: Turn): Turn =>
    async (req) => {
      const reply: TurnReply = typeof turn === 'function' ? await turn(req) : turn;
      if (reply.kind === 'answer')
        output += tokens(reply.text ?? '') + (reply.toolCalls ?? []).reduce((n, c) => n + tokens(c.name) + tokens(c.arguments ?? {}), 0);
      return reply;
    };
  const llm = await startScriptedOpenAI((mode === 'plain' ? (task.plain as Turn[]) : task.code).map(counted));
  const servers: RunningServer[] = [];
  const config: Record<string, unknown> = {};
  for (const [name, setup] of Object.entries({ tracker: trackerTools(log), chat: chatTools(log), crm: crmTools() })) {
    const mcp = new McpServer({ name, version: '1.0.0' });
    setup(mcp);
    const s = await serve(mcp, { port: 0 });
    servers.push(s);
    config[name] = { url: s.url };
  }
  const host = new Host({
    servers: config,
    model: { provider: 'openai', model: 'scripted', baseUrl: llm.baseUrl },
    approval: { destructive: 'auto' },
    ...(mode === 'code' ? { codeMode: true } : { deferTools: false }),
  });
  try {
    await host.start();
    const started = performance.now();
    const answer = await host.conversation().send(task.question);
    const ms = performance.now() - started;
    llm.assertNoErrors();
    task.check(log, answer.text);
    const input = llm.requests.reduce((n, r) => n + tokens(r.body.messages) + tokens(r.body.tools ?? []), 0);
    const toolCalls = answer.toolCalls.filter((c) => c.name !== 'search_api' && c.name !== 'run_code').length;
    return { steps: answer.steps, input, output, toolCalls, ms };
  } finally {
    await host.close();
    await Promise.all(servers.map((s) => s.close()));
    await llm.close();
  }
}

// The first program of a process starts a worker and compiles the engine: measured apart.
const cold = performance.now();
await runProgram({ code: 'return 1;', api: new Map(), call: async () => null });
console.log(`first program of the process (worker start, engine load): ${Math.round(performance.now() - cold)} ms`);

const pct = (a: number, b: number) => `${b >= a ? '+' : '−'}${Math.abs(Math.round(((b - a) / a) * 100))} %`;
console.log('tokens: o200k_base (gpt-tokenizer); input summed over every request of the task\n');
console.log('| task | steps plain → code | input tokens plain → code | output tokens plain → code | tool calls | host time plain → code (ms) |');
console.log('| --- | --- | --- | --- | --- | --- |');
const plains = new Map<string, Measure>();
for (const task of TASKS) {
  const plain = typeof task.plain === 'string' ? plains.get(task.plain)! : await measure(task, 'plain');
  plains.set(task.name, plain);
  const code = await measure(task, 'code');
  console.log(
    `| ${task.name} | ${plain.steps} → ${code.steps} | ${plain.input.toLocaleString('en')} → ${code.input.toLocaleString('en')} (${pct(plain.input, code.input)}) | ${plain.output} → ${code.output} (${pct(plain.output, code.output)}) | ${plain.toolCalls} / ${code.toolCalls} | ${Math.round(plain.ms)} → ${Math.round(code.ms)} |`,
  );
}
process.exit(0);
