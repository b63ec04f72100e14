// The skills extension (SEP-2640) end to end: a folder of skills served over stdio and HTTP, to
// a client in each era. Digests and sizes are checked against the files on disk, hashed here.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { McpClient } from '../../../src/client/client.js';
import { McpError } from '../../../src/jsonrpc/errors.js';
import { serve } from '../../../src/serving/node.js';
import { StreamableHttpClientTransport } from '../../../src/transports/http/client/streamable.js';
import { StdioClientTransport } from '../../../src/transports/stdio/client.js';
import { skillsServer } from '../../fixtures/skills-server.js';
import { tempDir, patient } from '../../support/index.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const EXT = 'io.modelcontextprotocol/skills';
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex');

const FILES: Record<string, string | Buffer> = {
  'pdf-processing/SKILL.md': [
    '---',
    'name: pdf-processing',
    'description: >',
    '  Extract, fill, and assemble',
    '  PDF documents',
    'license: Apache-2.0',
    'metadata:',
    '  version: "2.1.0"',
    '  reviewed: 2026',
    'allowed-tools: [Read, Bash]',
    '---',
    '',
    '# PDF processing',
    'See references/FORMS.md.',
    '',
  ].join('\n'),
  'pdf-processing/references/FORMS.md': '# Forms\n',
  'pdf-processing/assets/logo.png': PNG,
  'acme/billing/refunds/SKILL.md': '---\nname: refunds\ndescription: Process refunds\n---\nBody\n',
  'acme/billing/refunds/examples/email.md': 'Dear customer\n',
  // A skill nested in another: its files are the enclosing skill's supporting files too.
  'acme/billing/refunds/partial/SKILL.md': '---\nname: partial\ndescription: "Partial refunds: the \\"half\\" case"\n---\n',
};

const FRONTMATTER = {
  'skill://pdf-processing/SKILL.md': {
    name: 'pdf-processing',
    description: 'Extract, fill, and assemble PDF documents\n',
    license: 'Apache-2.0',
    metadata: { version: '2.1.0', reviewed: 2026 },
    'allowed-tools': ['Read', 'Bash'],
  },
  'skill://acme/billing/refunds/SKILL.md': { name: 'refunds', description: 'Process refunds' },
  'skill://acme/billing/refunds/partial/SKILL.md': { name: 'partial', description: 'Partial refunds: the "half" case' },
};

function skillFolder(): string {
  const dir = tempDir('skills');
  for (const [path, content] of Object.entries(FILES)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  // Hidden entries are never served.
  writeFileSync(join(dir, 'pdf-processing', '.secret'), 'no');
  return dir;
}

const digest = (content: string | Buffer) => `sha256:${createHash('sha256').update(content).digest('hex')}`;
const file = (path: string) => ({ uri: `skill://${path}`, digest: digest(FILES[path]), size: Buffer.byteLength(FILES[path]) });

const EXPECTED = [
  {
    uri: 'skill://acme/billing/refunds/SKILL.md',
    frontmatter: FRONTMATTER['skill://acme/billing/refunds/SKILL.md'],
    resources: [file('acme/billing/refunds/SKILL.md'), file('acme/billing/refunds/examples/email.md'), file('acme/billing/refunds/partial/SKILL.md')],
  },
  {
    uri: 'skill://acme/billing/refunds/partial/SKILL.md',
    frontmatter: FRONTMATTER['skill://acme/billing/refunds/partial/SKILL.md'],
    resources: [file('acme/billing/refunds/partial/SKILL.md')],
  },
  {
    uri: 'skill://pdf-processing/SKILL.md',
    frontmatter: FRONTMATTER['skill://pdf-processing/SKILL.md'],
    resources: [file('pdf-processing/SKILL.md'), file('pdf-processing/assets/logo.png'), file('pdf-processing/references/FORMS.md')],
  },
];

type Era = 'modern' | 'handshake';

async function overHttp(t: TestContext, era: Era): Promise<McpClient> {
  const running = await serve(skillsServer(skillFolder()), { port: 0, host: '127.0.0.1' });
  const client = new McpClient({ name: 'skills-e2e', version: '1.0.0', era });
  await client.connect(new StreamableHttpClientTransport({ url: running.url }));
  t.after(async () => {
    await client.close();
    await running.close();
  });
  return client;
}

async function overStdio(t: TestContext, era: Era): Promise<McpClient> {
  // probeTimeoutMs: the fixture starts under tsx, slower than the default on a busy machine.
  const client = new McpClient({ name: 'skills-e2e', version: '1.0.0', era, probeTimeoutMs: patient(30_000) });
  const args = ['--import', 'tsx', 'test/fixtures/skills-server.ts', skillFolder()];
  await client.connect(new StdioClientTransport({ command: process.execPath, args, cwd: ROOT }));
  t.after(() => client.close());
  return client;
}

async function rejects(p: Promise<unknown>, code: number, text: RegExp): Promise<void> {
  await assert.rejects(p, (e: unknown) => e instanceof McpError && e.code === code && text.test(e.message));
}

async function story(client: McpClient, era: Era): Promise<void> {
  assert.equal(client.era, era);
  assert.deepEqual(client.serverCapabilities?.extensions?.[EXT], { directoryRead: true });
  assert.ok(client.serverCapabilities?.resources, 'skill files are resources: the capability is declared');

  const listed = (await client.request('skills/list', {})) as Record<string, unknown>;
  assert.deepEqual(listed.skills, EXPECTED);
  assert.equal(listed.nextCursor, undefined);
  // Cache hints are a 2026-07-28 thing.
  if (era === 'modern') assert.deepEqual([listed.ttlMs, listed.cacheScope], [0, 'private']);
  else assert.equal('ttlMs' in listed, false);

  const got = (await client.request('skills/get', { uri: 'skill://pdf-processing/SKILL.md' })) as Record<string, unknown>;
  assert.deepEqual(got.skill, EXPECTED[2]);
  assert.equal(got.nextCursor, undefined);
  if (era === 'modern') assert.deepEqual([got.ttlMs, got.cacheScope], [0, 'private']);
  await rejects(client.request('skills/get', { uri: 'skill://nothing-here/SKILL.md' }), -32602, /Unknown skill: skill:\/\/nothing-here\/SKILL\.md/);
  await rejects(client.request('skills/get', {}), -32602, /"uri"/);

  // Files through resources/read: the bytes the digests cover.
  const md = (await client.readResource('skill://pdf-processing/SKILL.md')).contents[0] as { text: string; mimeType: string };
  assert.equal(md.mimeType, 'text/markdown');
  assert.equal(digest(md.text), file('pdf-processing/SKILL.md').digest);
  const png = (await client.readResource('skill://pdf-processing/assets/logo.png')).contents[0] as { blob: string; mimeType: string };
  assert.equal(png.mimeType, 'image/png');
  assert.equal(digest(Buffer.from(png.blob, 'base64')), file('pdf-processing/assets/logo.png').digest);
  await assert.rejects(client.readResource('skill://pdf-processing/.secret'), McpError);

  // resources/list shows every file; SKILL.md under the frontmatter's name and description.
  const resources = (await client.listResources()).resources;
  assert.equal(resources.length, Object.keys(FILES).length);
  assert.deepEqual(
    resources.find((r) => r.uri === 'skill://acme/billing/refunds/SKILL.md'),
    {
      uri: 'skill://acme/billing/refunds/SKILL.md',
      name: 'refunds',
      description: 'Process refunds',
      mimeType: 'text/markdown',
      size: file('acme/billing/refunds/SKILL.md').size,
    },
  );

  const dir = (await client.request('resources/directory/read', { uri: 'skill://acme/billing/refunds' })) as {
    resources: Array<{ uri: string; mimeType: string }>;
  };
  assert.deepEqual(
    dir.resources.map((r) => [r.uri, r.mimeType]),
    [
      ['skill://acme/billing/refunds/SKILL.md', 'text/markdown'],
      ['skill://acme/billing/refunds/examples', 'inode/directory'],
      ['skill://acme/billing/refunds/partial', 'inode/directory'],
    ],
  );
  await rejects(client.request('resources/directory/read', { uri: 'skill://acme/billing/refunds/SKILL.md' }), -32602, /Not a directory/);
}

for (const era of ['modern', 'handshake'] as const) {
  test(`skills over HTTP, ${era} era: list, get, read, directory read`, async (t) => {
    await story(await overHttp(t, era), era);
  });
  test(`skills over stdio, ${era} era: list, get, read, directory read`, async (t) => {
    await story(await overStdio(t, era), era);
  });
}
