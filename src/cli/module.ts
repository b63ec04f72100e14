// Loading a user's server module for `mcpkit serve MODULE`: .js directly, .ts through tsx when
// it is installed, and the export found by shape (a module may import another copy of mcpkit).
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { McpServer } from '../server/mcp-server.js';
import { lowLevelServer, Server } from '../server/server.js';
import { CommandError, UsageError } from './args.js';
import { describeSyntaxError } from './syntax-error.js';

/** Whether this process already loads TypeScript (the CLI itself runs from .ts under tsx). */
const TS_ACTIVE = import.meta.url.endsWith('.ts');
let tsxRegistered = false;

/** The ESM entry of a tsx API (`esm/api`, `cjs/api`) from the module's project, or mcpkit's own. */
function findTsx(from: string, api: 'esm/api' | 'cjs/api'): string | undefined {
  for (const base of [from, fileURLToPath(import.meta.url)]) {
    try {
      const pkgFile = createRequire(base).resolve('tsx/package.json');
      const pkg = JSON.parse(readFileSync(pkgFile, 'utf8')) as { exports?: Record<string, unknown> };
      const entry = pkg.exports?.[`./${api}`] as { import?: string | { default?: string } } | string | undefined;
      const rel = typeof entry === 'string' ? entry : typeof entry?.import === 'string' ? entry.import : entry?.import?.default;
      if (rel) return join(dirname(pkgFile), rel);
    } catch {
      // not installed there
    }
  }
  return undefined;
}

/** Makes `.ts` imports work in this process (ES modules and CommonJS), or explains how. */
async function enableTypeScript(file: string): Promise<void> {
  if (TS_ACTIVE || tsxRegistered) return;
  const esm = findTsx(file, 'esm/api');
  if (!esm) {
    throw new UsageError(
      `${file} is TypeScript, and tsx (which mcpkit uses to load it) is not installed: run "npm i -D tsx", or compile the module to JavaScript`,
    );
  }
  for (const api of [esm, findTsx(file, 'cjs/api')]) {
    if (!api) continue;
    const mod = (await import(pathToFileURL(api).href)) as { register?: () => unknown };
    mod.register?.();
  }
  tsxRegistered = true;
}

/**
 * What serve() and serveStdio() accept. A server from another copy of mcpkit (a second install,
 * or the same source loaded as CommonJS by a CJS package) fails `instanceof` but has the same
 * shape, which is all the transports look at (`lowLevelServer`).
 */
export function asServable(x: unknown): McpServer | Server | undefined {
  if (x instanceof McpServer || x instanceof Server) return x;
  if (!x || typeof x !== 'object') return undefined;
  const o = x as Record<string, unknown>;
  if (typeof o.tool === 'function' && isLowLevel(o.server)) return o.server as Server;
  if (isLowLevel(x)) return x as Server;
  return undefined;
}

function isLowLevel(v: unknown): boolean {
  const s = v as Server | null;
  return !!s && typeof s === 'object' && typeof s.identity === 'function' && typeof s.connect === 'function' && typeof s.setRequestHandler === 'function';
}

/** The low-level server behind either kind. */
export const lowLevel = (s: McpServer | Server): Server => lowLevelServer(s);

/** Imports MODULE and returns the server it exports (default export, or named `server`). */
export async function loadServerModule(module: string, cwd = process.cwd(), command = 'serve'): Promise<McpServer | Server> {
  const file = resolve(cwd, module);
  if (!existsSync(file)) throw new UsageError(`${command}: no such file: ${module}`);
  if (/\.[mc]?ts$/.test(file)) await enableTypeScript(file);
  let loaded: Record<string, unknown>;
  try {
    loaded = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'ERR_UNKNOWN_FILE_EXTENSION') throw new UsageError(`cannot load ${module}: ${e.message}`);
    const syntax = describeSyntaxError(err, file, cwd);
    if (syntax) throw new CommandError(`cannot load ${module}: ${syntax}`, { cause: err });
    throw err;
  }
  // A CommonJS module (a .ts file in a package without "type": "module") arrives wrapped.
  const cjs = (loaded.default && typeof loaded.default === 'object' ? loaded.default : {}) as Record<string, unknown>;
  for (const candidate of [loaded.default, loaded.server, cjs.default, cjs.server]) {
    const s = asServable(candidate);
    if (s) return s;
  }
  throw new UsageError(
    `${module} must export an McpServer or Server as default export or as "server" (it exports: ${Object.keys(loaded).join(', ') || 'nothing'})`,
  );
}

// src/cli/ and dist/cli/ are both two levels below the package root.
const CONFORMANCE_SERVER = new URL('../../conformance/server.ts', import.meta.url);

/** Whether `serve conformance` can work here: a source checkout (the package does not ship it). */
export function hasConformanceServer(): boolean {
  return existsSync(CONFORMANCE_SERVER);
}

/** The conformance fixture server (`mcpkit serve conformance`), from a source checkout. */
export async function loadConformanceServer(): Promise<McpServer> {
  const file = CONFORMANCE_SERVER;
  if (!existsSync(file))
    throw new UsageError('serve conformance: the conformance server ships with the source checkout only (conformance/server.ts is not here)');
  await enableTypeScript(fileURLToPath(file));
  const mod = (await import(file.href)) as { createConformanceServer?: () => McpServer };
  if (typeof mod.createConformanceServer !== 'function')
    throw new UsageError('serve conformance: conformance/server.ts does not export createConformanceServer');
  return mod.createConformanceServer();
}
