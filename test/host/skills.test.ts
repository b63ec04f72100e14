// SkillCatalog over a ServerPool of real HTTP servers (127.0.0.1, port 0), in both eras, and of
// stdio child processes (one killed and reconnected): two
// mcpkit servers serving a skill of the same name (both kept, under qualified names, with one
// clash warning), origin tags, reads bound to the origin server and verified, allowed-tools left
// out, relisting on resources list_changed, and a server without the extension ignored.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { JsonObject } from '../../src/jsonrpc/messages.js';
import { McpServer } from '../../src/server/mcp-server.js';
import { skills } from '../../src/extensions/skills/extension.js';
import { serve, type RunningServer } from '../../src/serving/node.js';
import { ServerPool } from '../../src/pool/pool.js';
import { SkillCatalog, type SkillCatalogEvent } from '../../src/host/skills.js';
import { connect } from '../../src/client/connect.js';
import { SkillVerificationError } from '../../src/client/skills.js';
import { LocalError } from '../../src/jsonrpc/errors.js';
import { fileURLToPath } from 'node:url';
import { ManualClock, waitFor, within } from '../support/index.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const POOL_FIXTURE = fileURLToPath(new URL('../fixtures/host/pool-server.ts', import.meta.url));

const skillMd = (name: string, description: string, extra = '') => `---\nname: ${name}\ndescription: ${description}\n${extra}---\nBody of ${description}.\n`;

interface Fixture {
  running: RunningServer;
  mcp: McpServer;
  /** Every method the server was asked, in order. */
  methods: string[];
  /** Rewrites results on their way out (a skill added at runtime, a tampered file). */
  rewrite?: (method: string, result: JsonObject) => JsonObject;
}

async function start(name: string, defs: Parameters<typeof skills>[0]['skills'] | undefined): Promise<Fixture> {
  const mcp = new McpServer({ name, version: '1.0.0', extensions: defs ? [skills({ skills: defs })] : [] });
  mcp.tool('noop', {}, () => 'ok');
  const f: Fixture = { mcp, methods: [], running: undefined as unknown as RunningServer };
  mcp.use(async (method, _params, _ctx, next) => {
    f.methods.push(method);
    const r = await next();
    return f.rewrite ? f.rewrite(method, r) : r;
  });
  f.running = await serve(mcp, { port: 0 });
  return f;
}

async function fixtures() {
  const billing = await start('billing', [
    { files: { 'SKILL.md': skillMd('refunds', 'Billing refunds'), 'examples/email.md': 'Dear billing customer\n' } },
    { files: { 'SKILL.md': skillMd('invoices', 'Billing invoices', 'allowed-tools: Bash(rm:*) Read\n') } },
  ]);
  const support = await start('support', [{ files: { 'SKILL.md': skillMd('refunds', 'Support refunds'), 'examples/email.md': 'Dear support customer\n' } }]);
  const plain = await start('plain', undefined);
  return { billing, support, plain, close: () => Promise.all([billing, support, plain].map((f) => f.running.close())) };
}

for (const era of ['modern', 'handshake'] as const) {
  test(`${era}: two servers with a skill of the same name: both kept under qualified names, one clash warning, reads go to the origin`, async () => {
    const f = await fixtures();
    const pool = new ServerPool({
      era,
      servers: [
        { name: 'billing', target: f.billing.running.url },
        { name: 'support', target: f.support.running.url },
        { name: 'plain', target: f.plain.running.url },
      ],
    });
    const events: SkillCatalogEvent[] = [];
    const catalog = new SkillCatalog(pool, { onEvent: (e) => events.push(e) });
    try {
      await pool.start();
      await catalog.refresh();
      assert.deepEqual(
        catalog.skills().map((s) => [s.name, s.server, s.uri]),
        [
          ['invoices', 'billing', 'skill://invoices/SKILL.md'],
          ['billing:refunds', 'billing', 'skill://refunds/SKILL.md'],
          ['support:refunds', 'support', 'skill://refunds/SKILL.md'],
        ],
      );
      // Neither server's "refunds" stands in for the other's.
      assert.equal(catalog.resolve('refunds'), undefined);
      assert.deepEqual(
        catalog.candidates('refunds').map((s) => s.qualifiedName),
        ['billing:refunds', 'support:refunds'],
      );
      assert.equal(catalog.resolve('invoices')?.server, 'billing');
      assert.equal(catalog.resolve('billing:invoices')?.name, 'invoices', 'a qualified name always resolves');
      const clashes = events.filter((e) => e.type === 'clash');
      assert.deepEqual(clashes, [{ type: 'clash', name: 'refunds', skills: ['billing:refunds', 'support:refunds'] }]);
      // allowed-tools is not taken from an MCP server: left out, and said to be.
      const invoices = catalog.resolve('invoices')!;
      assert.equal(invoices.frontmatter['allowed-tools'], undefined);
      assert.deepEqual(invoices.ignored, ['allowed-tools']);
      assert.deepEqual(invoices.frontmatter, { name: 'invoices', description: 'Billing invoices' });
      assert.match(catalog.describe(), /^- billing:refunds \(from MCP server "billing"\): Billing refunds$/m);
      assert.match(catalog.describe(), /^- support:refunds \(from MCP server "support"\): Support refunds$/m);
      // Listing read no file; the server without the extension was never asked for skills.
      for (const s of [f.billing, f.support]) assert.ok(!s.methods.includes('resources/read'), s.methods.join(' '));
      assert.ok(!f.plain.methods.includes('skills/list'), f.plain.methods.join(' '));

      const md = await catalog.read('support:refunds');
      assert.equal(md.server, 'support');
      assert.equal(md.skill, 'support:refunds');
      assert.match(md.text ?? '', /Body of Support refunds/);
      const email = await catalog.read('billing:refunds', 'examples/email.md');
      assert.deepEqual([email.server, email.uri, email.text], ['billing', 'skill://refunds/examples/email.md', 'Dear billing customer\n']);
      assert.equal(f.support.methods.filter((m) => m === 'resources/read').length, 1, 'support read once, billing never for support');
      await assert.rejects(
        catalog.read('refunds'),
        (e: Error) => e instanceof LocalError && /ambiguous \(2 skills have it\): use one of billing:refunds, support:refunds/.test(e.message),
      );
      await assert.rejects(catalog.read('nope'), /No skill "nope"/);
      // A URI outside the skill's entry is refused before anything is fetched.
      await assert.rejects(catalog.read('invoices', 'skill://refunds/SKILL.md'), (e: Error) => e instanceof SkillVerificationError && e.reason === 'unlisted');
    } finally {
      await catalog.close();
      await pool.close();
      await f.close();
    }
  });

  test(`${era}: a skill appearing at runtime (resources list_changed) is listed anew; a new clash is warned about and qualifies both`, async () => {
    const f = await fixtures();
    const pool = new ServerPool({
      era,
      servers: [
        { name: 'billing', target: f.billing.running.url },
        { name: 'support', target: f.support.running.url },
      ],
    });
    const events: SkillCatalogEvent[] = [];
    const catalog = new SkillCatalog(pool, { onEvent: (e) => events.push(e) });
    try {
      await pool.start();
      await catalog.refresh();
      assert.equal(catalog.resolve('invoices')?.server, 'billing');
      // support now also serves an "invoices" skill (as a server reloading its folder would).
      const extra = { uri: 'skill://team/invoices/SKILL.md', frontmatter: { name: 'invoices', description: 'Support invoices' }, resources: 'dynamic' };
      f.support.rewrite = (method, r) => (method === 'skills/list' ? { ...r, skills: [...(r.skills as JsonObject[]), extra] } : r);
      f.support.mcp.resource('notes', 'file:///notes.txt', () => ({ text: 'changed' })); // sends resources/list_changed
      await waitFor(() => catalog.resolve('support:team/invoices'), 'the catalog to list the new skill');
      assert.equal(catalog.resolve('invoices'), undefined, 'ambiguous now');
      assert.equal(catalog.resolve('billing:invoices')?.name, 'billing:invoices');
      assert.deepEqual(
        events.filter((e) => e.type === 'clash').map((e) => (e as { skills: string[] }).skills),
        [
          ['billing:refunds', 'support:refunds'],
          ['billing:invoices', 'support:team/invoices'],
        ],
      );
      const dynamic = catalog.resolve('support:team/invoices')!;
      assert.equal(dynamic.dynamic, true);
      await assert.rejects(catalog.read(dynamic.qualifiedName), (e: Error) => e instanceof SkillVerificationError && e.reason === 'dynamic');
    } finally {
      await catalog.close();
      await pool.close();
      await f.close();
    }
  });
}

test('a tampered file is refused after one skills/get, and nothing unverified is returned', async () => {
  const f = await fixtures();
  const clients = {
    billing: await connect(f.billing.running.url, { era: 'modern' }),
    support: await connect(f.support.running.url, { era: 'handshake' }),
  };
  const catalog = await SkillCatalog.open(clients, { qualify: 'always' });
  try {
    assert.deepEqual(
      catalog.skills().map((s) => s.name),
      ['billing:invoices', 'billing:refunds', 'support:refunds'],
    );
    f.support.rewrite = (method, r) =>
      method === 'resources/read' ? { ...r, contents: (r.contents as JsonObject[]).map((c) => ({ ...c, text: 'Dear attacker customer\n' })) } : r;
    const before = f.support.methods.length;
    await assert.rejects(catalog.read('support:refunds', 'examples/email.md'), (e: Error) => e instanceof SkillVerificationError && e.reason === 'size');
    assert.deepEqual(f.support.methods.slice(before), ['resources/read', 'skills/get'], 'one read, one entry refresh, no second read of the same bytes');
    // Billing's files are unaffected.
    assert.equal((await catalog.read('billing:refunds', 'examples/email.md')).text, 'Dear billing customer\n');
  } finally {
    await catalog.close();
    await Promise.all(Object.values(clients).map((c) => c.close()));
    await f.close();
  }
});

test('a file changed since listing is read under the entry skills/get returns now', async () => {
  const f = await fixtures();
  // The listing is older than the file: it carries the digest and size of a previous version.
  f.billing.rewrite = (method, r) => {
    if (method !== 'skills/list') return r;
    const stale = (s: JsonObject) => ({
      ...s,
      resources: (s.resources as JsonObject[]).map((x) => (String(x.uri).endsWith('email.md') ? { ...x, size: 3, digest: `sha256:${'0'.repeat(64)}` } : x)),
    });
    return { ...r, skills: (r.skills as JsonObject[]).map(stale) };
  };
  const client = await connect(f.billing.running.url, { era: 'handshake' });
  const catalog = await SkillCatalog.open({ billing: client });
  try {
    const before = f.billing.methods.length;
    const email = await catalog.read('refunds', 'examples/email.md');
    assert.equal(email.text, 'Dear billing customer\n');
    assert.deepEqual(f.billing.methods.slice(before), ['resources/read', 'skills/get', 'resources/read']);
    // The catalog keeps the fresh entry: the next read needs no refresh.
    const again = f.billing.methods.length;
    await catalog.read('refunds', 'examples/email.md');
    assert.deepEqual(f.billing.methods.slice(again), ['resources/read']);
  } finally {
    await catalog.close();
    await client.close();
    await f.close();
  }
});

test('a server removed from the pool takes its skills with it, and the clash is gone', async () => {
  const f = await fixtures();
  const pool = new ServerPool({
    era: 'handshake',
    servers: [
      { name: 'billing', target: f.billing.running.url },
      { name: 'support', target: f.support.running.url },
    ],
  });
  const catalog = new SkillCatalog(pool);
  try {
    await pool.start();
    await catalog.refresh();
    assert.equal(catalog.resolve('refunds'), undefined);
    await pool.remove('billing');
    await catalog.refresh();
    assert.deepEqual(
      catalog.skills().map((s) => s.name),
      ['refunds'],
    );
    assert.equal(catalog.resolve('refunds')?.server, 'support');
  } finally {
    await catalog.close();
    await pool.close();
    await f.close();
  }
});

test('stdio: a server killed keeps its skill listed (names keep their meaning) while it is reconnected; reads say it is down', async () => {
  const clock = new ManualClock();
  const stdio = (description: string) => ({
    command: process.execPath,
    args: ['--import', 'tsx', POOL_FIXTURE],
    env: { SKILL_DESCRIPTION: description },
    cwd: ROOT,
  });
  const pool = new ServerPool({
    era: 'handshake',
    clock,
    retry: { initialDelayMs: 500 },
    servers: { billing: stdio('Billing refunds'), support: stdio('Support refunds') },
  });
  const events: SkillCatalogEvent[] = [];
  const catalog = new SkillCatalog(pool, { onEvent: (e) => events.push(e) });
  try {
    await pool.start();
    await catalog.refresh();
    const names = () => catalog.skills().map((s) => `${s.name}=${s.description}`);
    assert.deepEqual(names(), ['billing:refunds=Billing refunds', 'support:refunds=Support refunds']);
    assert.match((await catalog.read('billing:refunds')).text ?? '', /^---\nname: refunds\ndescription: Billing refunds/);
    const pid = pool.server('billing')!.pid!;
    const reconnecting = within(new Promise((resolve) => pool.on('reconnecting', resolve)), 'billing to be reconnected');
    process.kill(pid, 'SIGKILL');
    await reconnecting;
    await new Promise((resolve) => queueMicrotask(() => resolve(undefined)));
    assert.deepEqual(names(), ['billing:refunds=Billing refunds', 'support:refunds=Support refunds'], 'still both, still qualified');
    assert.equal(catalog.resolve('refunds'), undefined, 'the bare name did not fall to support');
    await assert.rejects(catalog.read('billing:refunds'), /Server "billing" of skill "billing:refunds" is not connected/);
    const relisted = within(
      new Promise((resolve) => catalog.on((e) => e.type === 'changed' && e.server === 'billing' && resolve(e))),
      'the catalog to list billing again',
    );
    clock.advance(500);
    await relisted;
    assert.notEqual(pool.server('billing')!.pid, pid);
    assert.match((await catalog.read('billing:refunds')).text ?? '', /Billing refunds/);
    assert.equal(events.filter((e) => e.type === 'clash').length, 1, 'one warning: the clash never went away');
  } finally {
    await catalog.close();
    await pool.close();
  }
});

test('a server that will not come back (a client given to the pool, closed) takes its skills with it', async () => {
  const f = await fixtures();
  const billing = await connect(f.billing.running.url, { era: 'modern' });
  const pool = new ServerPool({
    servers: [
      { name: 'billing', client: billing },
      { name: 'support', target: f.support.running.url, era: 'handshake' },
    ],
  });
  const catalog = new SkillCatalog(pool);
  try {
    await pool.start();
    await catalog.refresh();
    assert.equal(catalog.resolve('refunds'), undefined);
    const gone = within(new Promise((resolve) => catalog.on((e) => e.type === 'changed' && e.server === 'billing' && resolve(e))), 'billing to be dropped');
    await billing.close();
    await gone;
    assert.deepEqual(
      catalog.skills().map((s) => s.qualifiedName),
      ['support:refunds'],
    );
    assert.equal(catalog.resolve('refunds')?.server, 'support');
  } finally {
    await catalog.close();
    await pool.close();
    await f.close();
  }
});
