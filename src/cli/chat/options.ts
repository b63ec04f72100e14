// `mcpkit chat`'s command line made into settings: which servers (named), which model, how tool
// calls are approved. Pure (no connection is made here), so every rule is tested directly.
import { existsSync, statSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { basename, join, resolve } from 'node:path';
import type { PrefixPolicy } from '../../pool/names.js';
import type { ServerSpec } from '../../pool/pool-types.js';
import type { Root } from '../../protocol/types.js';
import { settingsOf } from '../../pool/pool-config.js';
import { readConfig, resolveTarget, type ConfigEntry, type Target } from '../../pool/targets.js';
import { envFrom, eraOf, flag, headersFrom, int, str, strs, UsageError, type EraChoice, type OptionSpecs } from '../args.js';
import { OBSERVABILITY_OPTIONS } from '../observability.js';

type Values = Parameters<typeof str>[0];

export const CHAT_OPTIONS: OptionSpecs = {
  config: { type: 'string' },
  server: { type: 'string', multiple: true, short: 's' },
  model: { type: 'string', short: 'm' },
  'base-url': { type: 'string' },
  provider: { type: 'string' },
  system: { type: 'string' },
  print: { type: 'string', short: 'p' },
  json: { type: 'boolean' },
  approve: { type: 'string' },
  yes: { type: 'boolean', short: 'y' },
  'max-steps': { type: 'string' },
  'context-window': { type: 'string' },
  'code-mode': { type: 'boolean' },
  timeout: { type: 'string' },
  era: { type: 'string' },
  prefix: { type: 'string' },
  header: { type: 'string', multiple: true, short: 'H' },
  env: { type: 'string', multiple: true, short: 'e' },
  verbose: { type: 'boolean' },
  'allow-no-tools': { type: 'boolean' },
  root: { type: 'string', multiple: true },
  help: { type: 'boolean', short: 'h' },
  ...OBSERVABILITY_OPTIONS,
};

/** A server of the pool, given as a resolved TARGET (a ServerSpec). */
export type NamedTarget = Extract<ServerSpec, { target: unknown }> & { target: Target };

export type ApproveMode = 'auto' | 'ask' | 'never';
/** What the host does with a tool call: run it, ask the user first, or refuse it. */
export type Decision = 'auto' | 'ask' | 'deny';

/** The host's approval policy: by the tool's annotations, and a default for tools with none. */
export interface ApprovalPolicy {
  readOnly: Decision;
  destructive: Decision;
  default: Decision;
}

export interface ChatSettings {
  provider: 'openai' | 'anthropic';
  model: string;
  baseUrl: string | undefined;
  system: string | undefined;
  /** -p: the one question (after `-p -` read from stdin, by the caller). */
  print: string | undefined;
  json: boolean;
  approval: ApprovalPolicy;
  yes: boolean;
  maxSteps: number;
  /** --context-window: the model's context in tokens (tool definitions past 10 % of it are deferred). */
  contextWindow: number | undefined;
  /** --code-mode: the model writes programs against the tools instead of calling them one by one. */
  codeMode: boolean;
  /** Per tool call, ms (0: none). */
  toolTimeoutMs: number;
  era: EraChoice;
  prefix: PrefixPolicy | undefined;
  /** Servers from --server, named. */
  servers: NamedTarget[];
  /** How an ambiguous --server was read, for the user (one line each). */
  notes: string[];
  /** The config file whose servers are all used (--config without --server, or ./.mcp.json). */
  config: string | undefined;
  verbose: boolean;
  /** -p: ask the model even when every server failed (otherwise a failure, exit code 1). */
  allowNoTools: boolean;
  /** The roots offered to servers (--root): none unless given. */
  roots: Root[];
}

/**
 * --root DIR (repeatable): the roots chat offers. None by default: a terminal's working
 * directory is where chat happened to start, and servers that honour roots (the filesystem
 * server) would trade the directories on their own command line for it.
 */
function rootsOf(values: Values, cwd: string): Root[] {
  return strs(values, 'root').map((dir) => {
    const path = resolve(cwd, dir);
    let isDir = false;
    try {
      isDir = statSync(path).isDirectory();
    } catch {
      // Reported below.
    }
    if (!isDir) throw new UsageError(`--root: ${dir} is not a directory`);
    return { uri: pathToFileURL(path).href, name: basename(path) || path };
  });
}

/** The policy an --approve mode stands for; without one, read-only tools run and the rest ask. */
export function approvalPolicy(mode: string | undefined): ApprovalPolicy {
  switch (mode) {
    case undefined:
      return { readOnly: 'auto', destructive: 'ask', default: 'ask' };
    case 'auto':
      return { readOnly: 'auto', destructive: 'auto', default: 'auto' };
    case 'ask':
      return { readOnly: 'ask', destructive: 'ask', default: 'ask' };
    case 'never':
      return { readOnly: 'deny', destructive: 'deny', default: 'deny' };
    default:
      throw new UsageError(`--approve: one of auto, ask, never, got "${mode}"`);
  }
}

const SCRIPT = /\.(m?[jt]s|c[jt]s|py)$/;
const LAUNCHER = /^(npx|uvx|node|python3?|deno|bun|pnpm|yarn)(\.exe)?$/;
/** Names that say nothing about a server (`dist/index.js`): the folder above says more. */
const GENERIC = new Set(['index', 'main', 'cli', 'server', 'app', 'dist', 'build', 'src', 'bin', 'lib', 'out']);

/** The file's name without its extension, or the nearest folder's when the file's is generic. */
function telling(path: string): string {
  const parts = path.split(/[\\/]/).filter(Boolean);
  const file = (parts.at(-1) ?? path).replace(SCRIPT, '');
  if (!GENERIC.has(file)) return file;
  return parts.slice(0, -1).findLast((p) => !GENERIC.has(p) && !p.includes(':')) ?? file;
}

/**
 * A short name for a server given as a TARGET: the config's name for it, the host of a URL, or
 * what a command line runs (`node weather.js` → weather, `npx -y @scope/server-x` → server-x).
 */
export function serverName(target: Target, spec: string): string {
  const word = spec.trim();
  const ranAsIs = target.kind === 'stdio' && (target.command === word || target.args[0] === word);
  let raw: string;
  if (!/\s/.test(word) && !/^https?:\/\//i.test(word) && !ranAsIs) {
    raw = word; // a server named in a config
  } else if (target.kind === 'http') {
    const host = new URL(target.url).hostname.replace(/[[\]]/g, '');
    const local = host === 'localhost' || /^[\d.]+$|:/.test(host);
    raw = local ? `${host}_${new URL(target.url).port || 'http'}` : (host.split('.').at(-2) ?? host);
  } else {
    // What runs: the last script named (options before it may name files too: --import x.mjs),
    // else the first package or path, else the first word that is not a launcher.
    const script = SCRIPT.test(target.command) ? target.command : target.args.findLast((a) => SCRIPT.test(a));
    const main =
      script ??
      target.args.find((a) => !a.startsWith('-') && /[./@]/.test(a)) ??
      [target.command, ...target.args].find((w) => !w.startsWith('-') && !LAUNCHER.test(basename(w)));
    raw = telling(main ?? target.command);
  }
  const name = raw.replace(/[^a-zA-Z0-9_-]+/g, '_').replace(/^_+|_+$/g, '');
  return name === '' ? 'server' : name.slice(0, 32);
}

/**
 * `NAME=TARGET` names a server: any name of letters, digits, `_` and `-`. The one other reading,
 * a shell's `KEY=value` before a command (`DEBUG=1 node s.js`), is taken only when the name is
 * in capitals, as environment variables are, and a command follows; `notes` says so.
 */
function nameOf(given: string, notes: string[]): [string, string, string] | undefined {
  const m = /^([A-Za-z0-9][A-Za-z0-9_-]*)=(.*)$/s.exec(given);
  if (!m) return undefined;
  const [, name, target] = m as unknown as [string, string, string];
  if (/^[A-Z_][A-Z0-9_]*$/.test(name) && /\S\s+\S/.test(target.trim())) {
    const [value, ...command] = target.trim().split(/\s+/);
    notes.push(
      `--server "${given}": ${name}=${value} is set in the environment of "${command.join(' ')}" (a NAME in capitals before a command is an environment variable; -s ${name.toLowerCase()}=... names a server)`,
    );
    return undefined;
  }
  if (target.trim() === '') throw new UsageError(`--server "${given}": ${name}= names a server, and needs its TARGET after the "="`);
  return [given, name, target];
}

/** The servers of the --server options, named (a repeated name gets _2, _3...); `notes` gets how an ambiguous one was read. */
export function serverSpecs(specs: string[], values: Values, cwd: string, home: string | undefined, notes: string[] = []): NamedTarget[] {
  const headers = headersFrom(strs(values, 'header'));
  const env = envFrom(strs(values, 'env'));
  const taken = new Map<string, number>();
  const config = str(values, 'config');
  const configFile = config === undefined ? undefined : resolve(cwd, config);
  let read: Record<string, ConfigEntry> | undefined;
  const servers = () => (read ??= readConfig(configFile!));
  return specs.map((given) => {
    const named = nameOf(given, notes);
    const spec = named ? named[2] : given;
    const target = resolveTarget(spec, { config: configFile, headers, env, cwd, home });
    const base = named ? named[1] : serverName(target, spec);
    const n = (taken.get(base) ?? 0) + 1;
    taken.set(base, n);
    // A server picked from --config keeps the pool's keys of its entry (allow, deny, prefix...).
    const entry = configFile !== undefined && Object.hasOwn(servers(), spec) ? servers()[spec] : undefined;
    const settings = entry ? settingsOf(entry as Record<string, unknown>, `server "${spec}" in ${configFile}`) : {};
    // Named on the command line: started even if its entry says `disabled`.
    return { ...settings, enabled: true, name: n === 1 ? base : `${base}_${n}`, target };
  });
}

const PREFIXES = ['always', 'on-clash', 'never'];

export function chatSettings(values: Values, cwd: string, home: string | undefined): ChatSettings {
  const model = str(values, 'model');
  if (model === undefined || model === '') {
    throw new UsageError('chat: --model NAME is required (for a local Ollama: --base-url http://localhost:11434/v1 --model llama3.2)');
  }
  const baseUrl = str(values, 'base-url');
  const named = str(values, 'provider');
  if (named !== undefined && named !== 'openai' && named !== 'anthropic') throw new UsageError(`--provider: openai or anthropic, got "${named}"`);
  // A Claude model with no endpoint given can only mean Anthropic's own API.
  const provider = named ?? (baseUrl === undefined && /^claude-/.test(model) ? 'anthropic' : 'openai');
  const prefix = str(values, 'prefix');
  if (prefix !== undefined && !PREFIXES.includes(prefix)) throw new UsageError(`--prefix: one of ${PREFIXES.join(', ')}, got "${prefix}"`);
  const print = str(values, 'print');
  if (flag(values, 'json') && print === undefined) throw new UsageError('chat: --json goes with -p "question" (one turn, printed as JSON)');
  const specs = strs(values, 'server');
  const config = str(values, 'config');
  const local = join(cwd, '.mcp.json');
  const notes: string[] = [];
  return {
    provider,
    model,
    baseUrl,
    system: str(values, 'system'),
    print,
    json: flag(values, 'json'),
    approval: approvalPolicy(str(values, 'approve')),
    yes: flag(values, 'yes'),
    maxSteps: int(values, 'max-steps', 20, 1, 1000),
    contextWindow: str(values, 'context-window') === undefined ? undefined : int(values, 'context-window', 0, 1024, 100_000_000),
    codeMode: flag(values, 'code-mode'),
    toolTimeoutMs: int(values, 'timeout', 60, 0, 86_400) * 1000,
    era: eraOf(values),
    prefix: prefix as PrefixPolicy | undefined,
    servers: serverSpecs(specs, values, cwd, home, notes),
    notes,
    // --server picks servers (a name is looked up in --config); without it, the whole config is used.
    config: specs.length > 0 ? undefined : (config ?? (existsSync(local) ? local : undefined)),
    verbose: flag(values, 'verbose'),
    allowNoTools: flag(values, 'allow-no-tools'),
    roots: rootsOf(values, cwd),
  };
}
