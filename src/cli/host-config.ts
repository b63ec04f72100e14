// The config files of MCP hosts, for `mcpkit install`: where each host keeps its servers, the
// shape of one entry, and a merge that changes that one entry only. A host's config often holds
// more than servers (Claude Desktop keeps its preferences there), so nothing else is touched, the
// old file is backed up first, and the new one replaces it in one rename.
import { copyFileSync, existsSync, mkdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

export const HOSTS = ['claude', 'cursor', 'vscode', 'claude-code', 'mcp-json'] as const;
export type Host = (typeof HOSTS)[number];

/** What a host should start or reach: a command over stdio, or a Streamable HTTP URL. */
export type ServerSpec =
  | { kind: 'stdio'; command: string; args: string[]; env: Record<string, string> }
  | { kind: 'http'; url: string; headers: Record<string, string> };

export interface HostInfo {
  /** What the user calls it, for messages. */
  label: string;
  /** The key the servers live under. */
  key: 'mcpServers' | 'servers';
  /** Whether entries carry `type: "stdio" | "http"`. */
  typed: boolean;
  /** Whether the host takes `url` entries (Claude Desktop's file does not: a stdio bridge stands in). */
  http: boolean;
  /** After writing: how the host picks the change up. */
  hint: string;
}

export const HOST_INFO: Record<Host, HostInfo> = {
  claude: { label: 'Claude Desktop', key: 'mcpServers', typed: false, http: false, hint: 'Quit and reopen Claude Desktop to load it.' },
  cursor: { label: 'Cursor', key: 'mcpServers', typed: false, http: true, hint: 'Cursor picks it up under Settings → MCP (reload the window if it does not).' },
  vscode: { label: 'VS Code', key: 'servers', typed: true, http: true, hint: 'VS Code shows it in the MCP servers list of this folder; start it from there.' },
  'claude-code': {
    label: 'Claude Code',
    key: 'mcpServers',
    typed: true,
    http: true,
    hint: 'Claude Code asks to approve servers from .mcp.json the next time it starts in this folder.',
  },
  'mcp-json': { label: 'an mcpServers file', key: 'mcpServers', typed: false, http: true, hint: '' },
};

export interface Place {
  cwd: string;
  env: Record<string, string | undefined>;
  platform?: NodeJS.Platform;
}

/** The user's home: $HOME (or %USERPROFILE%) from the environment given, so tests can move it. */
export function homeOf(env: Record<string, string | undefined>): string {
  return env.HOME || env.USERPROFILE || homedir();
}

/** The file a host reads its servers from; `project` picks Cursor's per-project file. */
export function hostConfigPath(host: Host, where: Place, project = false): string | undefined {
  const home = homeOf(where.env);
  switch (host) {
    case 'claude': {
      const platform = where.platform ?? process.platform;
      if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'Claude', 'claude_desktop_config.json');
      if (platform === 'win32') return join(where.env.APPDATA || join(home, 'AppData', 'Roaming'), 'Claude', 'claude_desktop_config.json');
      return join(where.env.XDG_CONFIG_HOME || join(home, '.config'), 'Claude', 'claude_desktop_config.json');
    }
    case 'cursor':
      return project ? join(where.cwd, '.cursor', 'mcp.json') : join(home, '.cursor', 'mcp.json');
    case 'vscode':
      return join(where.cwd, '.vscode', 'mcp.json');
    case 'claude-code':
      return join(where.cwd, '.mcp.json');
    case 'mcp-json':
      return undefined;
  }
}

/** One server's entry, the way `host` wants it. */
export function hostEntry(host: Host, spec: ServerSpec): Record<string, unknown> {
  const { typed } = HOST_INFO[host];
  if (spec.kind === 'http') {
    const e: Record<string, unknown> = typed ? { type: 'http', url: spec.url } : { url: spec.url };
    if (Object.keys(spec.headers).length > 0) e.headers = spec.headers;
    return e;
  }
  const e: Record<string, unknown> = typed ? { type: 'stdio' } : {};
  e.command = spec.command;
  e.args = spec.args;
  if (Object.keys(spec.env).length > 0) e.env = spec.env;
  return e;
}

/** Why a config file was left alone: said to the user as is. */
export class ConfigRefused extends Error {}

export interface Merged {
  /** The file's new text. */
  text: string;
  /** Whether an entry of that name was there (and is replaced). */
  replaced: boolean;
  /** Whether the file already holds exactly this entry. */
  unchanged: boolean;
}

/**
 * `text` (the file's content, or undefined when there is none) with `entry` under `key`.`name`,
 * and each of `inputs` in the top-level `inputs` list (VS Code's input variables, matched by id).
 * Refuses, naming the problem, a file that is not a JSON object, and an existing entry (or a
 * different input of the same id) unless `force`.
 */
export function mergeEntry(
  text: string | undefined,
  file: string,
  key: string,
  name: string,
  entry: Record<string, unknown>,
  force: boolean,
  inputs: readonly { id: string }[] = [],
): Merged {
  let root: Record<string, unknown> = {};
  if (text !== undefined && text.trim() !== '') {
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch (err) {
      const jsonc = /^\s*\/\/|\/\*|,\s*[}\]]/m.test(text);
      throw new ConfigRefused(
        jsonc
          ? `${file} has comments or trailing commas, which mcpkit would lose by rewriting it; it was left as it is. Add the entry below under "${key}" yourself, or use --print`
          : `${file} is not valid JSON (${(err as Error).message}); it was left as it is. Fix it, or choose another file with --config`,
      );
    }
    if (!data || typeof data !== 'object' || Array.isArray(data)) throw new ConfigRefused(`${file} is not a JSON object; it was left as it is`);
    root = data as Record<string, unknown>;
  }
  const existing = root[key];
  if (existing !== undefined && (!existing || typeof existing !== 'object' || Array.isArray(existing))) {
    throw new ConfigRefused(`"${key}" in ${file} is not an object; it was left as it is`);
  }
  const servers = (existing ?? {}) as Record<string, unknown>;
  const replaced = Object.hasOwn(servers, name);
  const unchanged = replaced && JSON.stringify(servers[name]) === JSON.stringify(entry);
  if (replaced && !unchanged && !force) {
    throw new ConfigRefused(`${file} already has a server named "${name}"; --force replaces it, --name NAME adds this one beside it`);
  }
  // Assigning keeps the order of everything else (a replaced entry stays where it was).
  const next: Record<string, unknown> = { ...root, [key]: { ...servers, [name]: entry } };
  let inputsChanged = false;
  if (inputs.length > 0) {
    if (root.inputs !== undefined && !Array.isArray(root.inputs)) throw new ConfigRefused(`"inputs" in ${file} is not a list; it was left as it is`);
    const list: unknown[] = [...((root.inputs as unknown[] | undefined) ?? [])];
    for (const input of inputs) {
      const at = list.findIndex((x) => !!x && typeof x === 'object' && (x as { id?: unknown }).id === input.id);
      if (at >= 0 && JSON.stringify(list[at]) === JSON.stringify(input)) continue;
      if (at >= 0 && !force) throw new ConfigRefused(`${file} already has an input "${input.id}", different from this one; --force replaces it`);
      if (at >= 0) list[at] = input;
      else list.push(input);
      inputsChanged = true;
    }
    next.inputs = list;
  }
  return { text: `${JSON.stringify(next, null, indentOf(text))}\n`, replaced, unchanged: unchanged && !inputsChanged };
}

/** The indentation the file already uses (two spaces for a new one). */
function indentOf(text: string | undefined): string | number {
  const m = text ? /\n([ \t]+)["}\]]/.exec(text) : null;
  return m ? m[1] : 2;
}

/** The file's text, or undefined when it does not exist. */
export function readConfigText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ConfigRefused(`cannot read ${file}: ${(err as Error).message}`);
  }
}

/**
 * Writes `text` to `file`: the current file copied to a timestamped .bak beside it first, then the
 * new text written to a temp file and renamed over (never a half-written config). A symlinked
 * config (dotfile managers) is written through to its target. Returns the backup's path.
 * `newFileMode` is the mode of a file that did not exist (default: the umask's).
 */
export function writeConfig(file: string, text: string, now = new Date(), newFileMode?: number): string | undefined {
  const target = existsSync(file) ? realpathSync(file) : file;
  mkdirSync(dirname(target), { recursive: true });
  let backup: string | undefined;
  let mode: number | undefined;
  if (existsSync(target)) {
    mode = statSync(target).mode & 0o777;
    backup = `${target}.${now.toISOString().replace(/[:.]/g, '-')}.bak`;
    copyFileSync(target, backup);
  }
  const temp = `${target}.${process.pid}.tmp`;
  try {
    // An existing file keeps its mode; a new one gets `newFileMode` (private, when it holds a key).
    const wanted = mode ?? newFileMode;
    writeFileSync(temp, text, wanted === undefined ? undefined : { mode: wanted });
    renameSync(temp, target);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
  return backup;
}
