// mcpkit serve --skills DIR, mcpkit skills TARGET and mcpkit skill TARGET URI, in-process through
// the real CLI, over HTTP (both eras) and stdio.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { McpServer } from '../../src/server/mcp-server.js';
import { skills } from '../../src/extensions/skills/extension.js';
import { serve } from '../../src/hosting/node.js';
import { tempDir } from '../support/index.js';
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
  const r = await mcpkit(['skills', `${CLI_LINE} serve --stdio --skills "${dir}"`], { timeoutMs: 60_000 });
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
