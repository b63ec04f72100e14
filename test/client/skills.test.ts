// The client's skill helpers against our skills server: listing reads no file, every read is
// verified (listed, size, digest, frontmatter) and the first mismatch stops with a clear error.
// The tampering is done by request middleware on the server, as a compromised gateway would.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { JsonObject } from '../../src/jsonrpc/messages.js';
import { McpServer } from '../../src/server/mcp-server.js';
import { skills } from '../../src/extensions/skills/extension.js';
import { getSkill, listSkills, readSkillFile, SkillVerificationError, type SkillInfo } from '../../src/client/skills.js';
import { createTestPair } from '../../src/testing/index.js';

const SKILL_MD = '---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\n---\nRead references/FORMS.md.\n';
const FORMS = '# Forms\n';

type Tamper = (method: string, result: JsonObject) => JsonObject;

async function pair(t: TestContext, era: 'modern' | 'handshake', tamper?: Tamper) {
  const server = new McpServer({
    name: 's',
    version: '1',
    extensions: [skills({ skills: [{ files: { 'SKILL.md': SKILL_MD, 'references/FORMS.md': FORMS } }] })],
  });
  const methods: string[] = [];
  server.use(async (method, _params, _ctx, next) => {
    methods.push(method);
    const r = await next();
    return tamper ? tamper(method, r) : r;
  });
  const { client } = await createTestPair(server, { era });
  t.after(() => client.close());
  return { client, methods };
}

const textOf = (r: JsonObject) => (r.contents as Array<{ text: string }>)[0].text;
const withText = (r: JsonObject, text: string): JsonObject => ({ ...r, contents: [{ ...(r.contents as JsonObject[])[0], text }] });

for (const era of ['modern', 'handshake'] as const) {
  test(`${era}: listSkills reads no file; readSkillFile verifies SKILL.md and a supporting file`, async (t) => {
    const { client, methods } = await pair(t, era);
    const [skill] = await listSkills(client);
    assert.equal(skill.uri, 'skill://pdf-processing/SKILL.md');
    assert.deepEqual(methods, ['skills/list'], 'no file is fetched ahead of need');
    const md = await readSkillFile(client, skill);
    assert.equal(md.text, SKILL_MD);
    assert.equal(md.mimeType, 'text/markdown');
    const forms = await readSkillFile(client, skill, 'skill://pdf-processing/references/FORMS.md');
    assert.equal(forms.text, FORMS);
    assert.deepEqual(await getSkill(client, skill.uri), skill);
  });
}

async function mismatch(t: TestContext, tamper: Tamper, reason: SkillVerificationError['reason'], text: RegExp): Promise<void> {
  const { client, methods } = await pair(t, 'modern', tamper);
  const [skill] = await listSkills(client);
  await assert.rejects(readSkillFile(client, skill), (e: unknown) => e instanceof SkillVerificationError && e.reason === reason && text.test(e.message));
  // A caller that stops at the first mismatch never reaches the supporting file.
  assert.deepEqual(methods, ['skills/list', 'resources/read']);
}

test('a tampered SKILL.md of the same size fails the digest check', async (t) => {
  const swap = (s: string) => s.replace('Read', 'Rm -');
  await mismatch(t, (m, r) => (m === 'resources/read' ? withText(r, swap(textOf(r))) : r), 'digest', /digest sha256:[0-9a-f]{64} does not match/);
});

test('a padded SKILL.md fails the size check', async (t) => {
  await mismatch(t, (m, r) => (m === 'resources/read' ? withText(r, `${textOf(r)}extra`) : r), 'size', /bytes, but the skill entry says/);
});

test('a listing whose frontmatter differs from the file fails the frontmatter check', async (t) => {
  const tamper: Tamper = (m, r) => {
    if (m !== 'skills/list') return r;
    const [s] = r.skills as unknown as SkillInfo[];
    return { ...r, skills: [{ ...s, frontmatter: { ...s.frontmatter, description: 'Harmless helper' } }] } as unknown as JsonObject;
  };
  await mismatch(t, tamper, 'frontmatter', /frontmatter "description" differs/);
});

test('an unlisted file and a dynamic skill are refused before anything is read', async (t) => {
  const { client, methods } = await pair(t, 'modern');
  const [skill] = await listSkills(client);
  await assert.rejects(
    readSkillFile(client, skill, 'skill://pdf-processing/secret.md'),
    (e: unknown) => e instanceof SkillVerificationError && e.reason === 'unlisted',
  );
  await assert.rejects(
    readSkillFile(client, { ...skill, resources: 'dynamic' }),
    (e: unknown) => e instanceof SkillVerificationError && e.reason === 'dynamic',
  );
  assert.equal((await readSkillFile(client, { ...skill, resources: 'dynamic' }, skill.uri, { allowDynamic: true })).text, SKILL_MD);
  assert.deepEqual(methods, ['skills/list', 'resources/read']);
});

test('a malformed entry (resources missing) is refused at listing', async (t) => {
  const { client } = await pair(t, 'modern', (m, r) =>
    m === 'skills/list' ? ({ ...r, skills: (r.skills as JsonObject[]).map(({ resources: _r, ...s }) => s) } as JsonObject) : r,
  );
  await assert.rejects(listSkills(client), (e: unknown) => e instanceof SkillVerificationError && e.reason === 'malformed' && /neither a list/.test(e.message));
});
