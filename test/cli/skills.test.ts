// mcpkit serve --skills DIR, mcpkit skills TARGET and mcpkit skill TARGET URI, in-process through
// the real CLI, over HTTP (both eras) and stdio.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { McpServer } from '../../src/server/mcp-server.js';
import { skills } from '../../src/extensions/skills/extension.js';
import { serve } from '../../src/serving/node.js';
import { tempDir, patient } from '../support/index.js';
import { CLI_LINE, mcpkit, startListening, type Running } from './helpers.js';

const SKILL_MD = '---\nname: git-workflow\ndescription: Follow the branching conventions\n---\nBranch from main.\n';
const dir = tempDir('cli-skills');
mkdirSync(join(dir, 'git-workflow', 'references'), { recursive: true });
writeFileSync(join(dir, 'git-workflow', 'SKILL.md'), SKILL_MD);
writeFileSync(join(dir, 'git-workflow', 'references', 'naming.md'), 'feature/NAME\n');

let server: Running;
before(async () => {
  server = await startListening(['serve', '--skills', dir, '--port', '0']);
});
after(async () => {
  await server?.stop();
});

for (const era of ['modern', 'handshake']) {
  test(`mcpkit skills and mcpkit skill against serve --skills (HTTP, ${era})`, async () => {
    const listed = await mcpkit(['skills', server.url, '--era', era]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.equal(listed.stdout, 'git-workflow  skill://git-workflow/SKILL.md  (2 files)\n  Follow the branching conventions\n');
    const json = JSON.parse((await mcpkit(['skills', server.url, '--era', era, '--json'])).stdout) as Array<{ resources: unknown[] }>;
    assert.equal(json[0].resources.length, 2);
    const one = await mcpkit(['skill', server.url, 'skill://git-workflow/SKILL.md', '--era', era]);
    assert.equal(one.code, 0, one.stderr);
    assert.equal(one.stdout, SKILL_MD);
    const unknown = await mcpkit(['skill', server.url, 'skill://nope/SKILL.md', '--era', era]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /Unknown skill: skill:\/\/nope\/SKILL\.md/);
    assert.doesNotMatch(unknown.stderr, /\n\s+at /, 'no stack trace');
  });
}

test('mcpkit skills over stdio: serve --skills --stdio as the TARGET', async () => {
  const r = await mcpkit(['skills', `${CLI_LINE} serve --stdio --skills "${dir}"`], { timeoutMs: patient(60_000) });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^git-workflow {2}skill:\/\/git-workflow\/SKILL\.md/);
});

test('mcpkit skill refuses a SKILL.md that does not match its entry, and prints none of it', async (t) => {
  const mcp = new McpServer({ name: 'tampered', version: '1', extensions: [skills({ skills: [{ files: { 'SKILL.md': SKILL_MD } }] })] });
  mcp.use(async (method, _p, _ctx, next) => {
    const r = await next();
    if (method !== 'resources/read') return r;
    const [c] = r.contents as Array<{ text: string }>;
    return { ...r, contents: [{ ...c, text: c.text.replace('main', 'prod') }] };
  });
  const running = await serve(mcp, { port: 0, host: '127.0.0.1' });
  t.after(() => running.close());
  const r = await mcpkit(['skill', running.url, 'skill://git-workflow/SKILL.md']);
  assert.equal(r.code, 1);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /^✖ not using the skill: skill:\/\/git-workflow\/SKILL\.md: digest sha256:[0-9a-f]{64} does not match the skill entry's/);
});

test('usage errors: skills on a server without the extension, --skills with a MODULE or a missing folder', async () => {
  const demo = await startListening(['serve', '--port', '0']);
  try {
    const r = await mcpkit(['skills', demo.url]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^✖ the server does not declare the skills extension \(io\.modelcontextprotocol\/skills\)\n$/);
  } finally {
    await demo.stop();
  }
  const both = await mcpkit(['serve', 'server.ts', '--skills', dir]);
  assert.equal(both.code, 2);
  assert.match(both.stderr, /serve --skills: serves a folder of skills on its own/);
  const missing = await mcpkit(['serve', '--skills', join(dir, 'nope')]);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /serve --skills: .*nope is not a directory/);
});

test('serve --skills checks the folder at start: a skill with a bad name is left out in one line, the others are served', async () => {
  const mixed = tempDir('cli-skills-mixed');
  mkdirSync(join(mixed, 'git-workflow'));
  writeFileSync(join(mixed, 'git-workflow', 'SKILL.md'), SKILL_MD);
  mkdirSync(join(mixed, 'Release_Notes'));
  writeFileSync(join(mixed, 'Release_Notes', 'SKILL.md'), '---\nname: Release_Notes\ndescription: Write the notes\n---\nList the changes.\n');
  const running = await startListening(['serve', '--skills', mixed, '--port', '0']);
  try {
    // Said once, at start, in one line that names the folder and the rule it breaks.
    const said = running
      .stderr()
      .split('\n')
      .filter((l) => l.includes('Release_Notes'));
    assert.equal(said.length, 1, running.stderr());
    assert.match(said[0]!, /Release_Notes.*"name" must be 1-64 lowercase letters/);
    assert.match(running.stderr(), /serving 1 skill from /);
    for (const era of ['modern', 'handshake']) {
      const listed = await mcpkit(['skills', running.url, '--era', era]);
      assert.equal(listed.code, 0, listed.stderr);
      assert.equal(listed.stdout, 'git-workflow  skill://git-workflow/SKILL.md  (1 file)\n  Follow the branching conventions\n');
      const one = await mcpkit(['skill', running.url, 'skill://git-workflow/SKILL.md', '--era', era]);
      assert.equal(one.code, 0, one.stderr);
      assert.equal(one.stdout, SKILL_MD);
    }
    // Nothing went wrong at request time: no error, no stack trace on the server's stderr.
    assert.doesNotMatch(running.stderr(), /\n\s+at |-32603|Internal error/);
  } finally {
    await running.stop();
  }
});

test('serve --skills on an empty folder says it serves 0 skills, and answers an empty list', async () => {
  const empty = tempDir('cli-skills-empty');
  const running = await startListening(['serve', '--skills', empty, '--port', '0']);
  try {
    assert.match(running.stderr(), /serving 0 skills from .*: no folder in it has a SKILL\.md/);
    const listed = await mcpkit(['skills', running.url]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.equal(listed.stdout, '(no skills listed)\n');
  } finally {
    await running.stop();
  }
});
