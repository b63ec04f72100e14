// mcpkit/client in a browser. The bundle: esbuild, platform=browser, ESM, minified, nothing left
// external; no Node built-in may go in, and it must stay within its size budget (minified +
// gzip), measured in the same run as the official v2 client bundled the same way
// (docs/performance.md). Then headless Chromium (Debian's /usr/bin/chromium, driven by
// playwright-core) loads it in a page from its own origin and, against real mcpkit servers
// (CORS from their allowedOrigins): connects in both eras, lists tools, calls one with progress,
// and signs in by a full-page OAuth redirect to a local authorization server and back, the
// PKCE verifier kept in sessionStorage across the navigation.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type BrowserContext } from 'playwright-core';
import { z } from 'zod';
import { McpServer } from '../../src/server/mcp-server.js';
import { serve, type RunningServer } from '../../src/serving/node.js';
import { startMockAs, type MockAs } from '../fixtures/oauth/authorization-server.js';
import { deferred, tempDir, type Deferred } from '../support/index.js';
import { CHROMIUM, CHROMIUM_ARGS } from '../support/chromium.js';
import { browserBundle, OFFICIAL_APP, OFFICIAL_FULL, OURS_APP, OURS_FULL, type Bundle } from './browser-bundle.js';

/** Budgets, minified + gzip (docs/performance.md): all of mcpkit/client, and what `connect` pulls in. */
const BUDGET_FULL = 43 * 1024;
const BUDGET_APP = 35 * 1024;

const kb = (n: number) => `${(n / 1024).toFixed(1)} KiB`;

function nodeModulesIn(b: Bundle): string[] {
  return b.inputs.filter((i) => i.startsWith('node:') || /(^|\/)src\/(serving|transports\/stdio|cli)\//.test(i));
}

describe('mcpkit/client bundled for the browser', () => {
  test('no Node built-in goes in, within the size budget; the official v2 client measured beside it', async (t) => {
    const [full, app, officialFull, officialApp] = await Promise.all([
      browserBundle(OURS_FULL, 'mcpkit-client'),
      browserBundle(OURS_APP, 'mcpkit-connect'),
      browserBundle(OFFICIAL_FULL, 'official-client'),
      browserBundle(OFFICIAL_APP, 'official-connect'),
    ]);
    for (const b of [full, app]) {
      assert.deepEqual(nodeModulesIn(b), [], 'Node-only modules went into the browser bundle');
      assert.deepEqual(b.external, [], 'the bundle imports something from outside itself');
      assert.doesNotMatch(b.code, /\bfrom\s*["']node:|import\(\s*["']node:|require\(\s*["']node:/, 'a node: import survived in the bundle');
    }
    const line = (name: string, b: Bundle) => `${name}: ${kb(b.minBytes)} minified, ${kb(b.gzipBytes)} gzip`;
    t.diagnostic(line('mcpkit/client (everything)', full));
    t.diagnostic(line('mcpkit/client (connect only)', app));
    t.diagnostic(line('@modelcontextprotocol/client (everything)', officialFull));
    t.diagnostic(line('@modelcontextprotocol/client (Client + StreamableHTTPClientTransport)', officialApp));
    assert.ok(full.gzipBytes <= BUDGET_FULL, `mcpkit/client is ${kb(full.gzipBytes)} gzip, over its budget of ${kb(BUDGET_FULL)}`);
    assert.ok(app.gzipBytes <= BUDGET_APP, `connect() pulls in ${kb(app.gzipBytes)} gzip, over its budget of ${kb(BUDGET_APP)}`);
  });
});

// ---------------------------------------------------------------- the page and its servers

function pageHtml(script: string): string {
  return `<!doctype html><meta charset="utf-8"><title>mcpkit in the browser</title>
<script type="module">
import { mcpkit } from '/mcpkit-client.js';
const report = (outcome) => fetch('/outcome', { method: 'POST', body: JSON.stringify(outcome) });
try {
${script}
} catch (e) {
  await report({ error: String(e && e.stack ? e.stack : e) });
}
</script>`;
}

/** What the page does at /basics: both eras, list, call with progress. */
const BASICS = `
const url = new URL(location.href).searchParams.get('mcp');
const out = {};
for (const era of ['modern', 'handshake']) {
  const client = await mcpkit.connect(url, { name: 'browser', version: '1', era });
  const tools = (await client.listTools()).tools.map((t) => t.name).sort();
  const progress = [];
  const result = await client.callTool('count', { to: 3 }, { onprogress: (p) => progress.push(p.progress + '/' + p.total) });
  out[era] = { era: client.era, tools, progress, text: result.content[0].text };
  await client.close();
}
await report(out);`;

/** What the page does at /app: a sign-in by full-page redirect, then a call as the signed-in user. */
const APP = (mcpUrl: string) => `
const here = new URL(location.href);
const returned = here.searchParams.has('state');
const store = new mcpkit.WebStorageOAuthStore(sessionStorage);
const client = await mcpkit.connect({
  url: ${JSON.stringify(mcpUrl)},
  auth: {
    store,
    redirectUri: location.origin + '/app',
    callbackUrl: returned ? here.href : undefined,
    // The page leaves for the authorization server: this promise never settles.
    authorize: (request) => {
      location.assign(request.url.href);
      return new Promise(() => {});
    },
  },
}, { name: 'browser-app', version: '1' });
if (returned) history.replaceState(null, '', '/app');
const result = await client.callTool('whoami', {});
await report({ returned, text: result.content[0].text, era: client.era, path: location.pathname + location.search });
await client.close();`;

interface PageServer {
  base: string;
  outcomes: Array<Deferred<Record<string, unknown>>>;
  next(): Promise<Record<string, unknown>>;
  loads: string[];
  close(): Promise<void>;
}

async function pageServer(bundle: string, mcpOauthUrl: () => string): Promise<PageServer> {
  const outcomes: Array<Deferred<Record<string, unknown>>> = [deferred()];
  let taken = 0;
  const loads: string[] = [];
  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://page');
    if (url.pathname === '/mcpkit-client.js') return res.writeHead(200, { 'content-type': 'text/javascript' }).end(bundle);
    if (url.pathname === '/basics' || url.pathname === '/app') {
      loads.push(`${url.pathname}${url.search}`);
      const html = pageHtml(url.pathname === '/basics' ? BASICS : APP(mcpOauthUrl()));
      return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
    }
    if (url.pathname === '/outcome' && req.method === 'POST') {
      let body = '';
      for await (const c of req) body += String(c);
      outcomes.at(-1)!.resolve(JSON.parse(body) as Record<string, unknown>);
      outcomes.push(deferred());
      return res.writeHead(204).end();
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    outcomes,
    next: () => outcomes[taken++]!.promise,
    loads,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function mcpServer(): McpServer {
  const mcp = new McpServer({ name: 'browser-e2e', version: '1.0.0' });
  mcp.tool('count', { input: { to: z.number().int() } }, async ({ to }, ctx) => {
    for (let i = 1; i <= to; i++) await ctx.progress(i, to);
    return `counted to ${to}`;
  });
  mcp.tool('whoami', (_args, ctx) => `signed in as ${ctx.authInfo?.principal ?? 'nobody'}`);
  return mcp;
}

describe('mcpkit/client in headless Chromium', () => {
  let context: BrowserContext;
  let page: PageServer;
  let open: RunningServer;
  let guarded: RunningServer;
  let as: MockAs;

  before(async () => {
    if (!existsSync(CHROMIUM)) {
      throw new Error(
        `${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium)${process.env['CI'] ? ' in .ci/run' : ''}; the browser tests need it`,
      );
    }
    const bundle = await browserBundle(OURS_FULL, 'mcpkit-client');
    let oauthUrl = '';
    page = await pageServer(bundle.code, () => oauthUrl);
    as = await startMockAs({ cors: true });
    // The page's origin is a foreign one for the MCP servers: allowed here, hence CORS for it.
    open = await serve(mcpServer(), { port: 0, allowedOrigins: [page.base] });
    guarded = await serve(mcpServer(), {
      port: 0,
      allowedOrigins: [page.base],
      oauth: { authorizationServers: [as.issuer], verifyToken: (token) => as.verifyToken(token) },
    });
    oauthUrl = guarded.url;
    context = await chromium.launchPersistentContext(tempDir('chromium'), { executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
  });

  after(async () => {
    await context?.close();
    await open?.close();
    await guarded?.close();
    await as?.close();
    await page?.close();
  });

  test('connects in both eras, lists the tools, calls one with progress', async () => {
    const tab = await context.newPage();
    try {
      const outcome = page.next();
      await tab.goto(`${page.base}/basics?mcp=${encodeURIComponent(open.url)}`);
      const out = (await outcome) as Record<string, { era: string; tools: string[]; progress: string[]; text: string; error?: string }>;
      assert.equal(out['error'], undefined, String(out['error']));
      for (const era of ['modern', 'handshake']) {
        assert.deepEqual(out[era], { era, tools: ['count', 'whoami'], progress: ['1/3', '2/3', '3/3'], text: 'counted to 3' });
      }
      assert.equal(open.handler.streamable.sessionCount, 0, 'the handshake session was DELETEd on close');
    } finally {
      await tab.close();
    }
  });

  test('signs in by a full-page redirect to the authorization server and back, then stays signed in', async () => {
    const tab = await context.newPage();
    try {
      const outcome = page.next();
      await tab.goto(`${page.base}/app`);
      const out = await outcome;
      assert.equal(out['error'], undefined, String(out['error']));
      // The page left for /authorize, came back with the code, and exchanged it itself.
      assert.equal(out['returned'], true);
      assert.equal(out['path'], '/app', 'the page cleaned the code out of its URL');
      const clientId = [...as.clients.keys()][0];
      assert.equal(out['text'], `signed in as ${clientId}`);
      assert.equal(as.paths().filter((p) => p === '/authorize').length, 1);
      assert.equal(as.paths().filter((p) => p === '/token').length, 1);
      assert.deepEqual(
        page.loads.filter((l) => l.startsWith('/app')).map((l) => l.replace(/code=[^&]+/, 'code=C').replace(/state=[^&]+/, 'state=S')),
        ['/app', '/app?code=C&state=S'],
      );
      // A reload finds the tokens in sessionStorage: no second sign-in.
      const again = page.next();
      await tab.reload();
      const second = await again;
      assert.equal(second['error'], undefined, String(second['error']));
      assert.equal(second['returned'], false);
      assert.equal(second['text'], `signed in as ${clientId}`);
      assert.equal(as.paths().filter((p) => p === '/authorize').length, 1);
    } finally {
      await tab.close();
    }
  });
});
