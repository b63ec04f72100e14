// What a TARGET names: an HTTP endpoint, a command line that starts a stdio server, or a server
// from an `mcpServers` config file (Claude Desktop, Cursor, VS Code, .mcp.json).
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseJsonText } from '../protocol/json-text.js';
import { TargetError } from './errors.js';
import { splitCommandLine, takeEnvAssignments } from './shell-words.js';

export type Target =
  | { kind: 'http'; url: string; headers: Record<string, string>; label: string }
  | { kind: 'stdio'; command: string; args: string[]; env: Record<string, string>; cwd?: string; label: string };

export interface TargetOptions {
  /** --config FILE; otherwise the usual locations are searched. */
  config?: string;
  /** --header values, for HTTP targets (added to a config entry's own headers). */
  headers?: Record<string, string>;
  /** --env values, for stdio targets (added to a config entry's own env). */
  env?: Record<string, string>;
  /** Where relative paths and ./.mcp.json are looked up. Default process.cwd(). */
  cwd?: string;
  /** Home directory for the usual locations. Default os.homedir(). */
  home?: string;
}

/** One entry of an `mcpServers` object, as read (nothing checked yet). */
export interface ConfigEntry {
  command?: unknown;
  args?: unknown;
  env?: unknown;
  cwd?: unknown;
  url?: unknown;
  headers?: unknown;
  type?: unknown;
}

/** The config files searched when --config is not given, most specific first. */
export function configLocations(cwd: string, home: string): string[] {
  const list = [join(cwd, '.mcp.json'), join(cwd, '.cursor', 'mcp.json'), join(cwd, '.vscode', 'mcp.json'), join(home, '.cursor', 'mcp.json')];
  if (process.platform === 'darwin') list.push(join(home, 'Library', 'Application Support', 'Claude', 'claude_desktop_config.json'));
  else if (process.platform === 'win32') list.push(join(process.env.APPDATA ?? join(home, 'AppData', 'Roaming'), 'Claude', 'claude_desktop_config.json'));
  else list.push(join(process.env.XDG_CONFIG_HOME ?? join(home, '.config'), 'Claude', 'claude_desktop_config.json'));
  return list;
}

/** The servers a config file defines (`mcpServers`, or VS Code's `servers`). */
export function readConfig(file: string): Record<string, ConfigEntry> {
  let data: unknown;
  try {
    data = parseJsonText(readFileSync(file, 'utf8'));
  } catch (err) {
    // A syntax error's message begins "LINE:COLUMN: ": FILE:LINE:COLUMN, as editors take it.
    const code = (err as NodeJS.ErrnoException).code;
    throw new TargetError(
      `--config ${file}${code === 'ENOENT' ? ': no such file' : err instanceof SyntaxError ? `:${err.message}` : `: ${(err as Error).message}`}`,
    );
  }
  const root = data as { mcpServers?: unknown; servers?: unknown } | null;
  const servers = root?.mcpServers ?? root?.servers;
  if (!servers || typeof servers !== 'object' || Array.isArray(servers)) throw new TargetError(`${file}: no "mcpServers" object`);
  return servers as Record<string, ConfigEntry>;
}

function stringRecord(v: unknown, what: string): Record<string, string> {
  if (v === undefined) return {};
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new TargetError(`${what} must be an object of strings`);
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(v)) out[k] = String(x);
  return out;
}

/**
 * The Target a config entry describes (`url`, or `command` with `args`, `env`, `cwd`). `file`
 * only goes into error messages. Throws a TargetError saying what is wrong with the entry.
 */
export function targetFromEntry(name: string, entry: ConfigEntry, o: TargetOptions & { file?: string } = {}): Target {
  if (!entry || typeof entry !== 'object' || Array.isArray(entry)) throw new TargetError(`server "${name}"${o.file ? ` in ${o.file}` : ''} must be an object`);
  const where = `server "${name}"${o.file ? ` in ${o.file}` : ''}`;
  if (typeof entry.url === 'string') {
    return { kind: 'http', url: entry.url, headers: { ...stringRecord(entry.headers, `${where}: "headers"`), ...o.headers }, label: `${name} (${entry.url})` };
  }
  if (typeof entry.command !== 'string' || entry.command === '') throw new TargetError(`${where} has neither "command" nor "url"`);
  const args = entry.args === undefined ? [] : entry.args;
  if (!Array.isArray(args)) throw new TargetError(`${where}: "args" must be an array`);
  const cwd = typeof entry.cwd === 'string' ? entry.cwd : undefined;
  return {
    kind: 'stdio',
    command: entry.command,
    args: args.map(String),
    env: { ...stringRecord(entry.env, `${where}: "env"`), ...o.env },
    cwd,
    label: name,
  };
}

/** Resolves a TARGET argument. Throws a TargetError that says what was tried. */
export function resolveTarget(spec: string, o: TargetOptions = {}): Target {
  const text = spec.trim();
  if (text === '') throw new TargetError('the TARGET is empty: give a URL, a command line or a server name from a config');
  if (/^https?:\/\//i.test(text)) {
    if (!URL.canParse(text)) throw new TargetError(`not a valid URL: ${text}`);
    return { kind: 'http', url: text, headers: { ...o.headers }, label: text };
  }
  // Any other `scheme://` would be run as a command and reported as "command not found". Two
  // letters at least: `C://` is a drive.
  const scheme = /^([a-z][a-z0-9+.-]+):\/\//i.exec(text);
  if (scheme) throw new TargetError(`unsupported URL scheme ${scheme[1].toLowerCase()}: (use http:// or https://)`);
  const cwd = o.cwd ?? process.cwd();
  const isName = !/\s/.test(text);
  const address = isName ? schemelessUrl(text, cwd) : undefined;
  if (o.config !== undefined) {
    const file = resolve(cwd, o.config);
    const servers = readConfig(file);
    if (isName && Object.hasOwn(servers, text)) return targetFromEntry(text, servers[text], { ...o, file });
    if (isName && address === undefined && !looksLikeCommand(text, cwd)) {
      throw new TargetError(`no server named "${text}" in ${file} (it has: ${Object.keys(servers).join(', ') || 'none'})`);
    }
  } else if (isName) {
    for (const file of configLocations(cwd, o.home ?? homedir())) {
      if (!existsSync(file)) continue;
      let servers: Record<string, ConfigEntry>;
      try {
        servers = readConfig(file);
      } catch {
        continue; // a broken file elsewhere must not stop a command line from working
      }
      if (Object.hasOwn(servers, text)) return targetFromEntry(text, servers[text], { ...o, file });
    }
  }
  if (address !== undefined) throw new TargetError(`"${text}" is neither a URL nor a command: did you mean ${address}?`);
  const { env, rest } = takeEnvAssignments(splitCommandLine(text));
  if (rest.length === 0) throw new TargetError(`"${text}" names no command to run`);
  const [command, ...args] = rest;
  // A bare script path runs with this node (and tsx for TypeScript, when present).
  if (/\.(m?js|cjs)$/.test(command) && existsSync(resolve(cwd, command))) {
    return { kind: 'stdio', command: process.execPath, args: [command, ...args], env: { ...env, ...o.env }, label: text };
  }
  return { kind: 'stdio', command, args, env: { ...env, ...o.env }, label: text };
}

/**
 * `host:port` with an optional path, no scheme: an HTTP address with its `http://` left out
 * (`localhost:3000/mcp`, `[::1]:8080`). A drive letter (`C:\...`) has no port after its colon.
 */
const HOST_PORT = /^(\[[0-9a-f:.]+\]|[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*):\d{1,5}([/?#]\S*)?$/i;

/** The URL meant by `host:port[/path]` written without its scheme (not a file that exists). */
function schemelessUrl(word: string, cwd: string): string | undefined {
  const m = HOST_PORT.exec(word);
  if (!m || existsSync(resolve(cwd, word))) return undefined;
  // Plain HTTP is what a server on this machine usually speaks; anything farther, TLS.
  return `${LOOPBACK.test(m[1]) ? 'http' : 'https'}://${word}`;
}

const LOOPBACK = /^(localhost|127\.\d+\.\d+\.\d+|0\.0\.0\.0|\[::1?\])$/i;

/** A single word is a command (not a mistyped server name) when it is a path or looks like one. */
function looksLikeCommand(word: string, cwd: string): boolean {
  return word.includes('/') || word.includes('\\') || existsSync(resolve(cwd, word));
}

/** The `mcpServers` JSON snippet a host needs to reach a server. */
export function configSnippet(name: string, entry: Record<string, unknown>): string {
  return JSON.stringify({ mcpServers: { [name]: entry } }, null, 2);
}
