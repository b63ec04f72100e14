// skills() with skills defined in code: pagination keeps entries whole, the server's cache hints
// reach skills/list and skills/get, bad definitions fail where they are written, a failing loader
// fails its requests (and is tried again), and the skills share resources/list and
// resources/read with the server's own resources.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { McpError } from '../../../src/jsonrpc/errors.js';
import { McpServer } from '../../../src/server/mcp-server.js';
import { skills, type SkillDefinition } from '../../../src/extensions/skills/extension.js';
import { createTestPair } from '../../../src/testing/index.js';

const skill = (name: string, path = name, extra: Record<string, string> = {}): SkillDefinition => ({
  path,
  files: { 'SKILL.md': `---\nname: ${name}\ndescription: The ${name} skill\n---\n`, ...extra },
});

test('skills/list pages by whole entries; nextCursor round-trips; a bad cursor is -32602', async (t) => {
  const defs = ['a-one', 'b-two', 'c-three'].map((n) => skill(n, n, { 'notes/x.md': n }));
  const server = new McpServer({ name: 's', version: '1', extensions: [skills({ skills: defs, pageSize: 2 })] });
  const { client } = await createTestPair(server, { era: 'modern' });
  t.after(() => client.close());
  const first = (await client.request('skills/list', {})) as { skills: Array<{ uri: string; resources: unknown[] }>; nextCursor?: string };
  assert.deepEqual(
    first.skills.map((s) => [s.uri, s.resources.length]),
    [
      ['skill://a-one/SKILL.md', 2],
      ['skill://b-two/SKILL.md', 2],
    ],
  );
  assert.equal(typeof first.nextCursor, 'string');
  const second = (await client.request('skills/list', { cursor: first.nextCursor })) as { skills: Array<{ uri: string }>; nextCursor?: string };
  assert.deepEqual(
    second.skills.map((s) => s.uri),
    ['skill://c-three/SKILL.md'],
  );
  assert.equal(second.nextCursor, undefined);
  await assert.rejects(client.request('skills/list', { cursor: 'nonsense' }), (e: unknown) => e instanceof McpError && e.code === -32602);
});

test("the server's configured cache hints reach skills/list and skills/get (2026-07-28)", async (t) => {
  const server = new McpServer({
    name: 's',
    version: '1',
    modern: { cache: { ttlMs: 1000, methods: { 'skills/list': { ttlMs: 60_000, scope: 'public' } } } },
    extensions: [skills({ skills: [skill('hinted')] })],
  });
  const { client } = await createTestPair(server, { era: 'modern' });
  t.after(() => client.close());
  const list = (await client.request('skills/list', {})) as Record<string, unknown>;
  assert.deepEqual([list.ttlMs, list.cacheScope], [60_000, 'public']);
  const got = (await client.request('skills/get', { uri: 'skill://hinted/SKILL.md' })) as Record<string, unknown>;
  assert.deepEqual([got.ttlMs, got.cacheScope], [1000, 'private']);
});

test('skills sit beside registered resources; a resource the server registers wins its URI', async (t) => {
  const server = new McpServer({ name: 's', version: '1', extensions: [skills({ skills: [skill('beside', 'beside', { 'x.md': 'skill copy' })] })] });
  server.resource('mine', 'note://one', () => 'one');
  server.resource('override', 'skill://beside/x.md', () => 'registered copy');
  const { client } = await createTestPair(server, { era: 'handshake' });
  t.after(() => client.close());
  const uris = (await client.listResources()).resources.map((r) => r.uri);
  assert.deepEqual(uris, ['note://one', 'skill://beside/x.md', 'skill://beside/SKILL.md', 'skill://beside/x.md']);
  assert.deepEqual((await client.readResource('skill://beside/x.md')).contents, [{ uri: 'skill://beside/x.md', text: 'registered copy' }]);
  assert.match(((await client.readResource('skill://beside/SKILL.md')).contents[0] as { text: string }).text, /name: beside/);
  // Unknown skill files are unknown resources: -32002 in the handshake era.
  await assert.rejects(client.readResource('skill://beside/none.md'), (e: unknown) => e instanceof McpError && e.code === -32002);
});

test('listResources: false keeps skill files out of resources/list (they stay readable)', async (t) => {
  const server = new McpServer({ name: 's', version: '1', extensions: [skills({ skills: [skill('quiet')], listResources: false, directoryRead: false })] });
  const { client } = await createTestPair(server, { era: 'modern' });
  t.after(() => client.close());
  assert.deepEqual(client.serverCapabilities?.extensions?.['io.modelcontextprotocol/skills'], {});
  assert.deepEqual((await client.listResources()).resources, []);
  assert.equal((await client.readResource('skill://quiet/SKILL.md')).contents.length, 1);
  await assert.rejects(client.request('resources/directory/read', { uri: 'skill://quiet' }), (e: unknown) => e instanceof McpError && e.code === -32601);
});

test('bad definitions fail where they are written, naming the skill and the problem', () => {
  const bad = (def: SkillDefinition, text: RegExp) =>
    assert.throws(() => new McpServer({ name: 's', version: '1', extensions: [skills({ skills: [def] })] }), text);
  bad({ files: {} }, /Skill \(skill\): it has no SKILL\.md/);
  bad({ path: 'x', files: { 'SKILL.md': '# no frontmatter' } }, /Skill x: SKILL\.md does not begin with YAML frontmatter/);
  bad({ path: 'x', files: { 'SKILL.md': '---\nname: Bad_Name\ndescription: d\n---\n' } }, /frontmatter "name" must be 1-64 lowercase/);
  bad({ path: 'x', files: { 'SKILL.md': '---\nname: x\n---\n' } }, /Skill x: frontmatter "description" is required/);
  bad(
    { path: 'acme/other', files: { 'SKILL.md': '---\nname: x\ndescription: d\n---\n' } },
    /Skill acme\/other: the last path segment must be the frontmatter name "x"/,
  );
  bad({ path: 'x', files: { 'SKILL.md': '---\nname: x\ndescription: d\n---\n', '../up.md': '' } }, /a bad file path "\.\.\/up\.md"/);
  bad({ path: 'x', files: { 'SKILL.md': '---\nname: x\ndescription: &a d\n---\n' } }, /SKILL\.md frontmatter: line 2: "&"/);
});

test('a failing loader fails its requests with its message, and is called again by the next one', async (t) => {
  let calls = 0;
  const load = async () => {
    calls++;
    if (calls === 1) throw new Error('skills folder missing');
    return [skill('late')];
  };
  const server = new McpServer({ name: 's', version: '1', onerror: () => {}, extensions: [skills({ skills: load })] });
  const { client } = await createTestPair(server, { era: 'modern' });
  t.after(() => client.close());
  await assert.rejects(client.request('skills/list', {}), /skills folder missing/);
  const list = (await client.request('skills/list', {})) as { skills: Array<{ uri: string }> };
  assert.deepEqual(
    list.skills.map((s) => s.uri),
    ['skill://late/SKILL.md'],
  );
  assert.equal(calls, 2);
});

test('a custom frontmatter parser: its object is the entry, verbatim', async (t) => {
  const server = new McpServer({
    name: 's',
    version: '1',
    extensions: [
      skills({ skills: [skill('custom')], parseFrontmatter: (y) => ({ ...Object.fromEntries(y.split('\n').map((l) => l.split(': '))), extra: 1 }) }),
    ],
  });
  const { client } = await createTestPair(server, { era: 'handshake' });
  t.after(() => client.close());
  const got = (await client.request('skills/get', { uri: 'skill://custom/SKILL.md' })) as { skill: { frontmatter: unknown } };
  assert.deepEqual(got.skill.frontmatter, { name: 'custom', description: 'The custom skill', extra: 1 });
});
