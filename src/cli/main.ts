#!/usr/bin/env node
// The `mcpkit` command. This first cut serves a module over stdio; the client commands
// (tools, call, inspect, trace, bridge) and HTTP serving follow.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { McpServer } from '../server/mcp-server.js';
import { Server } from '../server/server.js';
import { serveStdio } from '../transports/stdio/serve.js';

const HELP = `mcpkit: the Model Context Protocol toolkit

Usage:
  mcpkit serve --stdio MODULE   serve the server exported by MODULE (default export or "server") over stdio
  mcpkit --version              print the version
  mcpkit --help                 print this help
`;

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

function fail(message: string): never {
  process.stderr.write(`mcpkit: ${message}\n`);
  process.exit(2);
}

async function serve(args: string[]): Promise<void> {
  const stdio = args.includes('--stdio');
  const module = args.find((a) => !a.startsWith('--'));
  if (!stdio) fail('only --stdio serving is available in this version; see mcpkit --help');
  if (!module) fail('serve needs a MODULE to load (a .js file exporting an mcpkit server)');
  const loaded = (await import(pathToFileURL(resolve(module)).href)) as Record<string, unknown>;
  const server = loaded.default ?? loaded.server;
  if (!(server instanceof McpServer) && !(server instanceof Server)) {
    fail(`${module} must export an McpServer or Server as default export or as "server"`);
  }
  await serveStdio(server);
}

const [cmd, ...rest] = process.argv.slice(2);
if (cmd === undefined || cmd === '--help' || cmd === '-h' || cmd === 'help') process.stdout.write(HELP);
else if (cmd === '--version' || cmd === '-v') process.stdout.write(`${version()}\n`);
else if (cmd === 'serve') await serve(rest);
else fail(`unknown command "${cmd}"; see mcpkit --help`);
