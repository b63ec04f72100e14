// ToolIndex ranking: field weights (a name match beats a mention in a long description), the
// server's name and instructions, other scripts, and an index kept up to date by add/remove/update
// ranking exactly as one built afresh.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ToolIndex } from '../../../src/pool/search/tool-index.js';
import type { HostTool } from '../../../src/pool/tool-source.js';

const tool = (name: string, description: string, server = 's', props: Record<string, string> = {}): HostTool => ({
  name: server === 's' ? name : `${server}_${name}`,
  server,
  tool: {
    name,
    description,
    inputSchema: { type: 'object', properties: Object.fromEntries(Object.entries(props).map(([k, d]) => [k, { type: 'string', description: d }])) },
  },
});
const names = (ts: readonly HostTool[]) => ts.map((t) => t.name);

const wordy = tool(
  'add_comment',
  'Adds a comment to an issue. Use it to discuss an issue, to create a record of a decision on an issue, or to create a reminder on an issue for later.',
);
const named = tool('create_issue', 'Opens a new ticket in the tracker.');

test('field weights: a match in the name beats repeated mentions in a description; with flat weights it would not', () => {
  // Field weights alone: no name-coverage bonus, no query expansion.
  const plain = { coverage: 0, expansion: 0 };
  const index = new ToolIndex([wordy, named], plain);
  assert.deepEqual(names(index.search('create issue')), ['create_issue', 'add_comment']);
  // The same index with every field weighted alike: the description's repeats win. This is what the weights change.
  const flat = new ToolIndex([wordy, named], {
    ...plain,
    weights: { name: 1, title: 1, description: 1, parameters: 1, parameterDescriptions: 1, server: 1, instructions: 1 },
  });
  assert.deepEqual(names(flat.search('create issue')), ['add_comment', 'create_issue']);
});

test('parameters, titles, server names and server instructions are searched', () => {
  const instructions: Record<string, string> = { billing: 'Stripe payments: invoices, refunds and customers.' };
  const index = new ToolIndex(
    [
      tool('list', 'Lists items', 'billing'),
      tool('list', 'Lists items', 'calendar'),
      tool('send', 'Sends a message', 'mail', { recipient: 'Email address to deliver to' }),
      { name: 'titled', server: 's', tool: { name: 'titled', title: 'Weather forecast', inputSchema: { type: 'object' } } },
    ],
    { instructions: (s) => instructions[s] },
  );
  assert.deepEqual(names(index.search('calendar')), ['calendar_list']);
  assert.deepEqual(names(index.search('refund')), ['billing_list'], 'only the billing server says refunds, in its instructions');
  assert.deepEqual(names(index.search('deliver')), ['mail_send']);
  assert.deepEqual(names(index.search('weather')), ['titled']);
  assert.deepEqual(index.search('kubernetes'), []);
  assert.deepEqual(index.search('list', 0), []);
});

test('the name-coverage bonus: a tool whose whole name the query says comes first', () => {
  const tools = [
    tool('create_issue_comment_reply', 'Creates a reply to an issue comment, to create a threaded issue discussion.'),
    tool('create_issue', 'Opens one.'),
    tool('other', 'Unrelated'),
  ];
  // BM25F alone prefers the tool whose description repeats the words...
  assert.equal(new ToolIndex(tools, { coverage: 0, expansion: 0 }).search('create issue')[0]?.name, 'create_issue_comment_reply');
  // ...the bonus for saying all of create_issue's name (and half of the other's) turns it round.
  assert.equal(new ToolIndex(tools, { expansion: 0 }).search('create issue')[0]?.name, 'create_issue');
});

test('query expansion: people\'s words find API words ("open a ticket" → create_issue; 删除 → delete)', () => {
  const tools = [tool('create_issue', 'Creates an issue'), tool('list_commits', 'Lists commits'), tool('delete_branch', 'Deletes a branch')];
  assert.equal(new ToolIndex(tools).search('open a ticket')[0]?.name, 'create_issue');
  assert.deepEqual(new ToolIndex(tools, { expansion: 0 }).search('open a ticket'), [], 'without expansion no word is shared');
  assert.equal(new ToolIndex(tools).search('删除分支')[0]?.name, 'delete_branch');
});

test('"news" is not "new" (no creating); a #channel is a channel; Spanish, German and French words find the API words', () => {
  const index = new ToolIndex([
    tool('news_search', 'Searches recent news articles'),
    tool('create_item', 'Creates a new item'),
    tool('get_channel_history', 'Messages of a conversation', 'slack'),
    tool('read_file', 'Reads a file'),
    tool('delete_file', 'Deletes a file'),
  ]);
  assert.deepEqual(names(index.search('latest news', 2)), ['news_search']);
  assert.equal(names(index.search('what was said in #general lately', 1))[0], 'slack_get_channel_history');
  assert.equal(names(index.search('buscar noticias', 1))[0], 'news_search');
  assert.equal(names(index.search('Lösche die Datei', 1))[0], 'delete_file');
  assert.equal(names(index.search('supprimer le fichier', 1))[0], 'delete_file');
});

test('inflections and identifiers: "created pull requests" finds create_pull_request', () => {
  const index = new ToolIndex([
    tool('create_pull_request', 'Opens a PR'),
    tool('list_commits', 'Lists commits of a branch'),
    tool('get_pull_request_status', 'Status checks of a PR'),
  ]);
  assert.equal(index.search('created pull requests')[0]?.name, 'create_pull_request');
  assert.equal(index.search('createPullRequest')[0]?.name, 'create_pull_request');
});

test('Chinese and Japanese: a tool described in the language is found from a sentence without spaces', () => {
  const index = new ToolIndex([
    tool('create_doc', '创建云文档，返回文档链接'),
    tool('send_message', '发送消息到群聊'),
    tool('read_file', 'ファイルの内容を読み込みます'),
    tool('write_file', 'ファイルに書き込みます'),
  ]);
  assert.equal(index.search('帮我创建一个文档')[0]?.name, 'create_doc');
  assert.equal(index.search('群里发个消息')[0]?.name, 'send_message');
  assert.equal(index.search('設定ファイルを読み込んで')[0]?.name, 'read_file');
});

test('equal scores keep the tools order; limit caps the list', () => {
  const index = new ToolIndex([tool('b_thing', 'widget'), tool('a_thing', 'widget'), tool('c_thing', 'widget')]);
  assert.deepEqual(names(index.search('widget')), ['b_thing', 'a_thing', 'c_thing']);
  assert.deepEqual(names(index.search('widget', 2)), ['b_thing', 'a_thing']);
  assert.equal(index.search('widget', Number.POSITIVE_INFINITY).length, 3);
  assert.deepEqual(index.search('widget', Number.NaN), []);
});

test('add, remove and update rank exactly like an index built afresh from the same tools', () => {
  const a = [tool('create_issue', 'Opens an issue', 'github'), tool('list_issues', 'Lists issues', 'github')];
  const b = [tool('create_issue', 'Creates an issue in a project', 'gitlab'), tool('merge', 'Merges a merge request', 'gitlab')];
  const c = [tool('send_message', 'Posts to a channel', 'slack')];
  const queries = ['create an issue', 'merge request', 'post to channel', 'issues'];
  const rank = (ix: ToolIndex) => queries.map((q) => ix.scored(q, 10).map((s) => `${s.tool.name}:${s.score.toFixed(6)}`));

  const index = new ToolIndex([...a, ...b]);
  index.add(c);
  index.remove((t) => t.server === 'github');
  assert.equal(index.size, 3);
  assert.deepEqual(rank(index), rank(new ToolIndex([...b, ...c])));

  // list_changed of one server: its tools listed anew, the others the same objects.
  const relisted = [...b, ...c.map((t) => ({ ...t, tool: { ...t.tool, description: 'Posts a message to a channel or a person' } }))];
  index.update(relisted);
  assert.deepEqual(rank(index), rank(new ToolIndex(relisted)));
  assert.deepEqual(names(index.tools), names(relisted));

  // Adding a tool under a name already indexed replaces it.
  index.add([tool('merge', 'Squashes commits', 'gitlab')]);
  assert.equal(index.size, 3);
  assert.deepEqual(index.search('request'), [], "the replaced tool's old words are gone");
  assert.equal(index.search('squash')[0]?.name, 'gitlab_merge');
});
