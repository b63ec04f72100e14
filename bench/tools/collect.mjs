#!/usr/bin/env node
// Builds bench/tools/catalogue.json: the real tool definitions of MCP servers published on npm.
// Each server is installed into a scratch folder OUTSIDE the repository (npm install --prefix, one
// folder per package, so their dependencies never meet and the project's package.json is never
// touched), started over stdio with dummy credentials, and asked for its tools with mcpkit's own
// client. Nothing is invented: a server that does not install, start or list offline is left out
// and named in the summary. Run after `npm run build` (the client is imported from dist/):
//
//   node bench/tools/collect.mjs [--scratch=/tmp/mcpkit-tools] [--only=github,slack] [--jobs=3]
//
// The catalogue records each tool as listed (name, title, description, inputSchema), its server's
// name and instructions, and the package name@version it came from.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);
const value = (name) =>
  argv
    .find((a) => a.startsWith(`--${name}=`))
    ?.split('=')
    .slice(1)
    .join('=');
const scratch = resolve(value('scratch') ?? '/tmp/mcpkit-tools');
const only = value('only')?.split(',');
const jobs = Number(value('jobs') ?? 3);
const OUT = join(here, 'catalogue.json');
const NOWHERE = 'http://127.0.0.1:9'; // the discard port: any API call a server makes fails at once

/**
 * The servers: `name` is the key a host's config would give it; `bin` picks one of the package's
 * executables when it has several; `args`/`env` are what it needs to start (dummy values only).
 * `scripts: true` lets npm run install scripts (native modules); by default they are skipped, so
 * no browser or binary download is attempted.
 */
const SERVERS = [
  { name: 'filesystem', pkg: '@modelcontextprotocol/server-filesystem', args: ['{scratch}/fsroot'] },
  { name: 'memory', pkg: '@modelcontextprotocol/server-memory', env: { MEMORY_FILE_PATH: '{scratch}/memory.json' } },
  { name: 'everything', pkg: '@modelcontextprotocol/server-everything', args: ['stdio'] },
  { name: 'sequential-thinking', pkg: '@modelcontextprotocol/server-sequential-thinking' },
  { name: 'github', pkg: '@modelcontextprotocol/server-github', env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_dummy' } },
  { name: 'gitlab', pkg: '@modelcontextprotocol/server-gitlab', env: { GITLAB_PERSONAL_ACCESS_TOKEN: 'glpat-dummy', GITLAB_API_URL: `${NOWHERE}/api/v4` } },
  { name: 'slack', pkg: '@modelcontextprotocol/server-slack', env: { SLACK_BOT_TOKEN: 'xoxb-dummy', SLACK_TEAM_ID: 'T0000000' } },
  { name: 'brave-search', pkg: '@modelcontextprotocol/server-brave-search', env: { BRAVE_API_KEY: 'dummy' } },
  { name: 'google-maps', pkg: '@modelcontextprotocol/server-google-maps', env: { GOOGLE_MAPS_API_KEY: 'dummy' } },
  { name: 'puppeteer', pkg: '@modelcontextprotocol/server-puppeteer', env: { PUPPETEER_SKIP_DOWNLOAD: '1' } },
  { name: 'postgres', pkg: '@modelcontextprotocol/server-postgres', args: ['postgresql://user:pw@127.0.0.1:9/db'] },
  { name: 'redis', pkg: '@modelcontextprotocol/server-redis', args: ['redis://127.0.0.1:6379'] }, // connects at start: needs a Redis on loopback (it only lists tools)
  {
    name: 'aws-kb-retrieval',
    pkg: '@modelcontextprotocol/server-aws-kb-retrieval',
    env: { AWS_ACCESS_KEY_ID: 'dummy', AWS_SECRET_ACCESS_KEY: 'dummy', AWS_REGION: 'us-east-1' },
  },
  { name: 'everart', pkg: '@modelcontextprotocol/server-everart', env: { EVERART_API_KEY: 'dummy' } },
  { name: 'pdf', pkg: '@modelcontextprotocol/server-pdf', args: ['--stdio'] },
  { name: 'playwright', pkg: '@playwright/mcp' },
  { name: 'chrome-devtools', pkg: 'chrome-devtools-mcp' },
  { name: 'notion', pkg: '@notionhq/notion-mcp-server', env: { NOTION_TOKEN: 'ntn_dummy' } },
  { name: 'supabase', pkg: '@supabase/mcp-server-supabase', args: ['--access-token=sbp_dummy'] },
  { name: 'mongodb', pkg: 'mongodb-mcp-server', env: { MDB_MCP_TELEMETRY: 'disabled' } },
  { name: 'stripe', pkg: '@stripe/mcp', args: ['--tools=all', '--api-key=sk_test_dummy'] },
  { name: 'gitlab-mr', pkg: '@zereight/mcp-gitlab', env: { GITLAB_PERSONAL_ACCESS_TOKEN: 'glpat-dummy', GITLAB_API_URL: `${NOWHERE}/api/v4` } },
  { name: 'firecrawl', pkg: 'firecrawl-mcp', env: { FIRECRAWL_API_KEY: 'fc-dummy' } },
  { name: 'tavily', pkg: 'tavily-mcp', env: { TAVILY_API_KEY: 'tvly-dummy' } },
  { name: 'sentry', pkg: '@sentry/mcp-server', args: ['--access-token=dummy'] },
  { name: 'hubspot', pkg: '@hubspot/mcp-server', env: { PRIVATE_APP_ACCESS_TOKEN: 'dummy' } },
  { name: 'shopify', pkg: '@shopify/dev-mcp' },
  { name: 'azure-devops', pkg: '@azure-devops/mcp', args: ['dummyorg', '--authentication', 'envvar'], env: { ADO_MCP_AUTH_TOKEN: 'dummy' } },
  { name: 'circleci', pkg: '@circleci/mcp-server-circleci', env: { CIRCLECI_TOKEN: 'dummy' } },
  {
    name: 'jira',
    pkg: '@aashari/mcp-server-atlassian-jira',
    env: { ATLASSIAN_SITE_NAME: 'dummy', ATLASSIAN_USER_EMAIL: 'a@example.com', ATLASSIAN_API_TOKEN: 'dummy' },
  },
  { name: 'bitbucket', pkg: '@aashari/mcp-server-atlassian-bitbucket', env: { ATLASSIAN_USER_EMAIL: 'a@example.com', ATLASSIAN_API_TOKEN: 'dummy' } },
  { name: 'datadog', pkg: '@winor30/mcp-server-datadog', env: { DATADOG_API_KEY: 'dummy', DATADOG_APP_KEY: 'dummy' } },
  { name: 'chart', pkg: '@antv/mcp-server-chart' },
  { name: 'context7', pkg: '@upstash/context7-mcp' },
  { name: 'exa', pkg: 'exa-mcp-server', env: { EXA_API_KEY: 'dummy' } },
  { name: 'brave', pkg: '@brave/brave-search-mcp-server', env: { BRAVE_API_KEY: 'dummy' } },
  { name: 'monday', pkg: '@mondaydotcomorg/monday-api-mcp', args: ['-t', 'dummy'] },
  { name: 'eslint', pkg: '@eslint/mcp' },
  { name: 'cloudflare', pkg: '@cloudflare/mcp-server-cloudflare', args: ['run', '00000000000000000000000000000000'], env: { CLOUDFLARE_API_TOKEN: 'dummy' } },
  { name: 'linear', pkg: '@tacticlaunch/mcp-linear', env: { LINEAR_API_TOKEN: 'lin_api_dummy' } },
  { name: 'kubernetes', pkg: 'mcp-server-kubernetes' },
  { name: 'asana', pkg: '@roychri/mcp-server-asana', env: { ASANA_ACCESS_TOKEN: 'dummy' } },
  { name: 'sqlite', pkg: 'mcp-sqlite', args: ['{scratch}/db.sqlite'], scripts: true },
  { name: 'discord', pkg: 'mcp-discord', env: { DISCORD_TOKEN: 'dummy' } },
  { name: 'youtube-transcript', pkg: '@kimtaeyoon83/mcp-server-youtube-transcript' },
  { name: 'figma', pkg: 'figma-developer-mcp', args: ['--stdio', '--figma-api-key=dummy'] },
  { name: 'perplexity', pkg: '@perplexity-ai/mcp-server', env: { PERPLEXITY_API_KEY: 'dummy' } },
  { name: 'mobile', pkg: '@mobilenext/mobile-mcp' },
  { name: 'shortcut', pkg: '@shortcut/mcp', env: { SHORTCUT_API_TOKEN: 'dummy' } },
  {
    name: 'salesforce',
    pkg: '@tsmztech/mcp-server-salesforce',
    env: {
      SALESFORCE_CONNECTION_TYPE: 'User_Password',
      SALESFORCE_USERNAME: 'u',
      SALESFORCE_PASSWORD: 'p',
      SALESFORCE_TOKEN: 't',
      SALESFORCE_INSTANCE_URL: NOWHERE,
    },
  },
  { name: 'mysql', pkg: '@benborla29/mcp-server-mysql', env: { MYSQL_HOST: '127.0.0.1', MYSQL_PORT: '9', MYSQL_USER: 'u', MYSQL_PASS: 'p', MYSQL_DB: 'db' } },
  { name: 'trello', pkg: '@delorenj/mcp-server-trello', env: { TRELLO_API_KEY: 'dummy', TRELLO_TOKEN: 'dummy', TRELLO_BOARD_ID: 'dummy' } },
  { name: 'lark', pkg: '@larksuiteoapi/lark-mcp', args: ['mcp', '-a', 'cli_dummy', '-s', 'dummy', '-l', 'zh'] },
  { name: 'drawio', pkg: '@drawio/mcp' },
];

const log = (...a) => console.log(`[${new Date().toISOString().slice(11, 19)}]`, ...a);
const slug = (pkg) => pkg.replace(/^@/, '').replace(/[^a-zA-Z0-9._-]+/g, '+');
const fill = (s) => s.replaceAll('{scratch}', scratch);

function run(cmd, args, opts) {
  return new Promise((res) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...opts });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('close', (code) => res({ code, out }));
  });
}

/** Installs one package into its own folder under the scratch dir (kept: a second run reuses it). */
async function install(s) {
  const dir = join(scratch, 'pkgs', slug(s.pkg));
  const pj = join(dir, 'node_modules', s.pkg, 'package.json');
  if (!existsSync(pj)) {
    mkdirSync(dir, { recursive: true });
    const args = ['install', '--prefix', dir, '--no-audit', '--no-fund', '--no-save', '--loglevel=error', s.pkg];
    if (!s.scripts) args.push('--ignore-scripts');
    const r = await run('npm', args, { env: { ...process.env, PUPPETEER_SKIP_DOWNLOAD: '1', PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1' } });
    if (r.code !== 0 || !existsSync(pj)) throw new Error(`npm install failed: ${r.out.trim().split('\n').slice(-3).join(' | ')}`);
  }
  const meta = JSON.parse(readFileSync(pj, 'utf8'));
  const bins = typeof meta.bin === 'string' ? { [meta.name]: meta.bin } : (meta.bin ?? {});
  const entry = s.bin ? bins[s.bin] : Object.values(bins)[0];
  if (!entry) throw new Error('the package has no executable');
  return { version: meta.version, script: join(dir, 'node_modules', s.pkg, entry) };
}

async function list(s, script, client) {
  const c = await client.connect(
    {
      command: process.execPath,
      args: [script, ...(s.args ?? []).map(fill)],
      env: { ...Object.fromEntries(Object.entries(s.env ?? {}).map(([k, v]) => [k, fill(v)])), HOME: join(scratch, 'home') },
      cwd: join(scratch, 'fsroot'),
      stderr: 'pipe',
    },
    { era: 'handshake', requestTimeoutMs: 60_000 },
  );
  try {
    const tools = await c.listAllTools();
    return { tools, instructions: c.instructions, serverInfo: c.serverInfo };
  } finally {
    await c.close().catch(() => {});
  }
}

async function main() {
  const client = await import('mcpkit/stdio');
  for (const d of ['fsroot', 'home']) mkdirSync(join(scratch, d), { recursive: true });
  const todo = SERVERS.filter((s) => !only || only.includes(s.name));
  // Installs run a few at a time (network-bound); servers start one at a time afterwards.
  const installed = new Map();
  const queue = [...todo];
  await Promise.all(
    Array.from({ length: jobs }, async () => {
      for (let s = queue.shift(); s; s = queue.shift()) {
        try {
          installed.set(s.name, await install(s));
          log(`installed ${s.pkg}@${installed.get(s.name).version}`);
        } catch (err) {
          installed.set(s.name, { error: err.message });
          log(`NOT installed ${s.pkg}: ${err.message}`);
        }
      }
    }),
  );
  const previous = existsSync(OUT) && only ? JSON.parse(readFileSync(OUT, 'utf8')).servers : [];
  const servers = previous.filter((p) => !todo.some((s) => s.name === p.name));
  const skipped = [];
  for (const s of todo) {
    const inst = installed.get(s.name);
    if (inst.error) {
      skipped.push({ name: s.name, package: s.pkg, why: inst.error });
      continue;
    }
    try {
      const timeout = new Promise((_, rej) => setTimeout(() => rej(new Error('no tool list within 90 s')), 90_000).unref());
      const got = await Promise.race([list(s, inst.script, client), timeout]);
      if (got.tools.length === 0) throw new Error('listed no tools');
      servers.push({
        name: s.name,
        package: `${s.pkg}@${inst.version}`,
        ...(got.serverInfo ? { serverInfo: { name: got.serverInfo.name, version: got.serverInfo.version } } : {}),
        ...(got.instructions ? { instructions: got.instructions } : {}),
        tools: got.tools.map((t) => ({
          name: t.name,
          ...(t.title ? { title: t.title } : {}),
          ...(t.description ? { description: t.description } : {}),
          inputSchema: t.inputSchema ?? { type: 'object' },
        })),
      });
      log(`${s.name}: ${got.tools.length} tools`);
    } catch (err) {
      const why = String(err.message ?? err)
        .split('\n')
        .slice(0, 3)
        .join(' | ')
        .slice(0, 300);
      skipped.push({ name: s.name, package: s.pkg, why });
      log(`${s.name}: NOT listed: ${why}`);
    }
  }
  servers.sort((a, b) => a.name.localeCompare(b.name));
  const total = servers.reduce((n, s) => n + s.tools.length, 0);
  const catalogue = {
    about: 'Real MCP tool definitions, listed by bench/tools/collect.mjs from servers installed from npm. Do not edit by hand.',
    collected: new Date().toISOString().slice(0, 10),
    tools: total,
    servers,
  };
  writeFileSync(OUT, `${JSON.stringify(catalogue, null, 1)}\n`);
  log(`wrote ${OUT}: ${servers.length} servers, ${total} tools`);
  for (const s of skipped) log(`  left out ${s.name} (${s.package}): ${s.why}`);
  process.exit(0);
}

await main();
