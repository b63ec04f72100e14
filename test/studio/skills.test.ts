// The Skills panel end to end in headless Chromium, against real servers: `mcpkit serve --skills
// DIR --stdio` as a child process (a folder of skills), and an HTTP server whose answers are
// tampered with on the way out, as a compromised gateway would (a SKILL.md of the same size with
// other words: a digest mismatch; a supporting file grown: a size mismatch). Listing reads no
// file; reading verifies; a mismatched file is flagged and its content never shown.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { skills } from '../../src/extensions/skills/extension.js';
import { serve, type RunningServer } from '../../src/serving/node.js';
import type { JsonObject } from '../../src/jsonrpc/messages.js';
import { McpServer } from '../../src/server/mcp-server.js';
import type { RunningStudio } from '../../src/studio/http.js';
import { resolveTarget } from '../../src/pool/targets.js';
import { CLI_LINE, ROOT } from '../cli/helpers.js';
import { tempDir } from '../support/index.js';
import { launchChromium, startTestStudio } from './helpers.js';

const SHOTS = join(ROOT, '.artifacts', 'studio');
const GIT_MD = '---\nname: git-workflow\ndescription: Follow the branching conventions\n---\nBranch from main. See references/naming.md.\n';
const NAMING = 'feature/NAME\nfix/NAME\n';
const PDF_MD = '---\nname: pdf-forms\ndescription: Fill PDF forms\nlicense: MIT\n---\nRead references/FIELDS.md first.\n';
const FIELDS = '# Fields\nname, date, signature\n';

describe('mcpkit studio: skills', () => {
  let tampered: RunningServer;
  let studio: RunningStudio;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];
  const reads: string[] = [];

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    const dir = tempDir('studio-skills');
    mkdirSync(join(dir, 'git-workflow', 'references'), { recursive: true });
    writeFileSync(join(dir, 'git-workflow', 'SKILL.md'), GIT_MD);
    writeFileSync(join(dir, 'git-workflow', 'references', 'naming.md'), NAMING);
    const mcp = new McpServer({
      name: 'tampered-skills',
      version: '1.0.0',
      extensions: [skills({ skills: [{ files: { 'SKILL.md': PDF_MD, 'references/FIELDS.md': FIELDS } }] })],
    });
    mcp.use(async (method, params, _ctx, next) => {
      const r = await next();
      if (method !== 'resources/read') return r;
      const uri = (params as { uri?: string } | undefined)?.uri ?? '';
      reads.push(uri);
      const [c] = r.contents as JsonObject[];
      // Same length, other words: only the digest can tell.
      if (uri.endsWith('/SKILL.md')) return { ...r, contents: [{ ...c, text: String(c.text).replace('first.', 'never.') }] };
      if (uri.endsWith('/FIELDS.md')) return { ...r, contents: [{ ...c, text: `${String(c.text)}password\n` }] };
      return r;
    });
    tampered = await serve(mcp, { port: 0 });
    const t = (spec: string) => resolveTarget(spec, { cwd: ROOT });
    studio = await startTestStudio({
      servers: [
        { name: 'skills', origin: 'command-line', target: t(`${CLI_LINE} serve --stdio --skills "${dir}"`) },
        { name: 'tampered', origin: 'command-line', target: t(tampered.url) },
      ],
    });
    await studio.ready;
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1360, height: 860 } });
    page.on('pageerror', (e) => pageErrors.push(e.message));
    await page.goto(studio.url);
  });
  after(async () => {
    await browser?.close();
    await studio?.close();
    await tampered?.close();
  });

  const shot = (name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`) });
  const check = (uri: string) => `.skill-files tr[data-file="${uri}"] [data-check]`;

  async function openSkills(server: string): Promise<void> {
    await page.waitForSelector(`[data-server="${server}"][data-state="connected"]`);
    await page.click(`[data-server="${server}"]`);
    await page.click('[data-tab="skills"]');
  }

  test('a folder of skills (serve --skills, stdio): listed, read, every file verified', async () => {
    await openSkills('skills');
    await page.click('[data-skill="skill://git-workflow/SKILL.md"]');
    await page.waitForSelector(`${check('skill://git-workflow/SKILL.md')}[data-check="verified"]`);
    assert.equal(await page.textContent('.skill-md'), GIT_MD);
    await page.click('button:has-text("Verify every file")');
    await page.waitForSelector(`${check('skill://git-workflow/references/naming.md')}[data-check="verified"]`);
    assert.match((await page.textContent('[data-testid="skill-summary"]')) ?? '', /^2 of 2 read files match the entry$/);
    await shot('skills');
  });

  test('attack: tampered files (a digest and a size that do not match) are flagged, and not shown', async () => {
    reads.length = 0;
    await openSkills('tampered');
    const listed = await page.waitForSelector('[data-skill="skill://pdf-forms/SKILL.md"]');
    assert.deepEqual(reads, [], 'listing read a file');
    await listed.click();
    const md = await page.waitForSelector(`${check('skill://pdf-forms/SKILL.md')}[data-check="mismatch"]`);
    assert.match((await md.textContent()) ?? '', /digest/);
    assert.equal(await page.$('.skill-md'), null, 'a SKILL.md that failed its digest was shown');
    assert.match((await page.textContent('.mismatch')) ?? '', /Not to be used: skill:\/\/pdf-forms\/SKILL\.md: digest sha256:[0-9a-f]{64} does not match/);
    assert.deepEqual(reads, ['skill://pdf-forms/SKILL.md'], 'a file was read ahead of need');
    await page.click('button:has-text("Verify every file")');
    const fields = await page.waitForSelector(`${check('skill://pdf-forms/references/FIELDS.md')}[data-check="mismatch"]`);
    assert.match((await fields.textContent()) ?? '', /size/);
    assert.doesNotMatch((await page.textContent('.skill-detail')) ?? '', /password|never\./);
    assert.match((await page.textContent('[data-testid="skill-summary"]')) ?? '', /0 of 2 read files match the entry, 2 do not/);
    await shot('skills-tampered');
  });

  test('no error in the page', () => {
    assert.deepEqual(pageErrors, []);
  });
});
