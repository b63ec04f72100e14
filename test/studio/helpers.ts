// The studio under test: its page built once per process (scripts/studio-ui.mjs, as npm run build
// does), started in-process on loopback, and spoken to the way a browser or an attacker would:
// raw HTTP (node:http, so that any Host, Origin or cookie can be sent) or headless Chromium.
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { buildStudioUi, type StudioUiSizes } from '../../scripts/studio-ui.mjs';
import { startStudio, type RunningStudio, type StudioOptions } from '../../src/studio/http.js';
import { patient, tempDir } from '../support/index.js';
import { CHROMIUM, CHROMIUM_ARGS } from '../support/chromium.js';

export { CHROMIUM, CHROMIUM_ARGS };

let built: Promise<{ dir: string; sizes: StudioUiSizes }> | undefined;

/** The page's assets, built once for every test of this process. */
export function studioAssets(): Promise<{ dir: string; sizes: StudioUiSizes }> {
  return (built ??= (async () => {
    const dir = join(tempDir('studio-assets'), 'assets');
    return { dir, sizes: await buildStudioUi(dir) };
  })());
}

export async function startTestStudio(options: Partial<StudioOptions> = {}): Promise<RunningStudio> {
  const { dir } = await studioAssets();
  return startStudio({ servers: [], version: 'test', cwd: options.cwd ?? tempDir('studio-cwd'), assetsDir: dir, ...options });
}

export interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One HTTP request with exactly the headers given (Host included). */
export function raw(url: string, o: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: o.method ?? 'GET', headers: o.headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      // An event stream never ends by itself: its first event is enough.
      res.on('data', (c: string) => {
        body += c;
        if ((res.headers['content-type'] ?? '').startsWith('text/event-stream') && body.includes('\n\n')) res.destroy();
      });
      res.on('close', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(o.body);
  });
}

export interface Session {
  cookie: string;
  key: string;
  origin: string;
  host: string;
}

/** Signs in as the browser does: the printed URL, then the page, whose meta tag has the API key. */
export async function signIn(studio: RunningStudio): Promise<Session> {
  const first = await raw(studio.url);
  const set = first.headers['set-cookie'];
  if (first.status !== 303 || !set) throw new Error(`sign-in answered ${first.status}`);
  const cookie = String(Array.isArray(set) ? set[0] : set).split(';')[0];
  const page = await raw(`${studio.origin}/`, { headers: { Cookie: cookie } });
  const key = /name="mcpkit-studio-key" content="([^"]+)"/.exec(page.body)?.[1];
  if (!key) throw new Error('no API key in the page');
  return { cookie, key, origin: studio.origin, host: new URL(studio.origin).host };
}

/** An API request as the studio's page makes it (cookie, key, same Origin), with `override` applied. */
export function apiCall(s: Session, path: string, body?: unknown, override: Record<string, string | undefined> = {}): Promise<Raw> {
  const headers: Record<string, string | undefined> = {
    Cookie: s.cookie,
    'X-Mcpkit-Studio-Key': s.key,
    Origin: s.origin,
    ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
    ...override,
  };
  const clean = Object.fromEntries(Object.entries(headers).filter((e): e is [string, string] => e[1] !== undefined));
  return raw(`${s.origin}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: clean,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/**
 * Playwright's waits (30 s by default) are safety nets here, not measurements: a page waiting for
 * a stdio server started through tsx on a loaded machine gets the patience the other nets get.
 */
export const PAGE_TIMEOUT_MS = patient(60_000);

export async function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_ARGS, ...extraArgs] });
  const newPage = browser.newPage.bind(browser);
  const newContext = browser.newContext.bind(browser);
  browser.newPage = async (...args) => {
    const page = await newPage(...args);
    page.setDefaultTimeout(PAGE_TIMEOUT_MS);
    return page;
  };
  browser.newContext = async (...args) => {
    const context = await newContext(...args);
    context.setDefaultTimeout(PAGE_TIMEOUT_MS);
    return context;
  };
  return browser;
}

/**
 * Waits until the page shows server `name` as connected. If it does not within three quarters of
 * the page's patience (so before the test's own timeout), fails saying what the studio knows of
 * that server: its state, error, diagnosis, retry and stderr.
 */
export async function connectedIn(page: Page, studio: RunningStudio, name: string): Promise<void> {
  try {
    await page.waitForSelector(`[data-server="${name}"][data-state="connected"]`, { timeout: Math.round(PAGE_TIMEOUT_MS * 0.75) });
  } catch (err) {
    const v = studio.hub.view(name);
    const known = v && { state: v.state, era: v.era, error: v.error, diagnosis: v.diagnosis, retryInMs: v.retryInMs, stderr: v.stderr };
    throw new Error(`server "${name}" did not show as connected; the studio has ${JSON.stringify(known ?? 'no such server')}`, { cause: err });
  }
}

/** A command line that, if it ever runs, leaves `marker` behind. */
export function spawnProbe(marker: string): string {
  return `"${process.execPath}" -e "require('fs').writeFileSync(process.argv[1], 'spawned')" ${marker}`;
}
