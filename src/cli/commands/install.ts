// mcpkit install HOST TARGET: adds a server to a host's config (Claude Desktop, Cursor, VS Code,
// Claude Code) with everything absolute, so the host can start it from wherever it runs.
import { existsSync } from 'node:fs';
import { basename, extname, isAbsolute, resolve } from 'node:path';
import { envFrom, flag, headersFrom, parse, str, strs, UsageError } from '../args.js';
import {
  ConfigRefused,
  HOST_INFO,
  HOSTS,
  hostConfigPath,
  hostEntry,
  mergeEntry,
  readConfigText,
  writeConfig,
  type Host,
  type ServerSpec,
} from '../host-config.js';
import { apiKeyPlan, type ApiKeyPlan } from '../host-secrets.js';
import type { CliIo } from '../io.js';
import { cliCommand } from '../self.js';
import { splitCommandLine, takeEnvAssignments } from '../../pool/shell-words.js';
import { StatusLine } from '../term.js';

const USAGE = `Usage: mcpkit install HOST TARGET [options]
       mcpkit install HOST [options] -- COMMAND [ARGS]

Adds a server to a host's config, with absolute paths, so that the host can start it from any
directory. The file is merged, not replaced: other servers and settings stay, the old file is
kept as FILE.<time>.bak, and the new one is written in one step.

HOST:
  claude         Claude Desktop (claude_desktop_config.json in the user's config folder)
  cursor         Cursor (~/.cursor/mcp.json; --project: .cursor/mcp.json here)
  vscode         VS Code (.vscode/mcp.json here)
  claude-code    Claude Code (.mcp.json here, the project's servers)
  mcp-json       print an "mcpServers" entry (or merge it into --config FILE)

TARGET:
  server.ts      a module exporting a server: the host runs mcpkit serve --stdio on it
  "node s.js"    a command line (quoted), or the words after --; NAME=value words set its env
  https://...    a Streamable HTTP server (Claude Desktop reaches it through mcpkit bridge)

Options:
  --name NAME              the server's name in the config (default: from the TARGET)
  -e, --env KEY=VALUE      environment variable for the server (repeatable)
  -H, --header "K: V"      header for a URL (repeatable)
  --api-key KEY            Authorization: Bearer KEY for a URL. vscode: not written; VS Code
                           asks for the key and keeps it in its secret storage. Other hosts: in
                           plain text in their file (you are told where)
  --api-key-env VAR        the same, read by the host from the environment variable VAR, so the
                           key is not in the file (vscode, cursor, claude-code)
  --watch                  for a module: the host's server restarts when its files change
  --config FILE            write this file instead of the host's usual one
  --project                cursor: the project's .cursor/mcp.json instead of ~/.cursor/mcp.json
  --force                  replace an entry of the same name
  --print                  show what would be written; change nothing
`;

const MODULE = /\.(m|c)?(js|ts)$/;

export async function installCommand(argv: string[], io: CliIo): Promise<number> {
  const dash = argv.indexOf('--');
  const { values, positionals } = parse('install', dash < 0 ? argv : argv.slice(0, dash), {
    name: { type: 'string' },
    env: { type: 'string', multiple: true, short: 'e' },
    header: { type: 'string', multiple: true, short: 'H' },
    'api-key': { type: 'string' },
    'api-key-env': { type: 'string' },
    watch: { type: 'boolean' },
    config: { type: 'string' },
    project: { type: 'boolean' },
    force: { type: 'boolean' },
    print: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (flag(values, 'help')) {
    io.stdout.write(USAGE);
    return 0;
  }
  const [hostArg, ...rest] = positionals;
  if (hostArg === undefined) throw new UsageError(`install: which host? one of ${HOSTS.join(', ')} (mcpkit install --help)`);
  if (!(HOSTS as readonly string[]).includes(hostArg)) throw new UsageError(`install: unknown host "${hostArg}"; one of ${HOSTS.join(', ')}`);
  const host = hostArg as Host;
  const words = dash < 0 ? undefined : argv.slice(dash + 1);
  if (words !== undefined ? rest.length > 0 || words.length === 0 : rest.length !== 1) {
    throw new UsageError('install: give one TARGET (quote a command line), or the command after --');
  }

  const headers = headersFrom(strs(values, 'header'));
  const apiKey = str(values, 'api-key');
  const apiKeyEnv = str(values, 'api-key-env');
  if (apiKey !== undefined && apiKeyEnv !== undefined) throw new UsageError('install: --api-key or --api-key-env, not both');
  if (apiKeyEnv !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(apiKeyEnv))
    throw new UsageError(`install: --api-key-env takes a variable name, got "${apiKeyEnv}"`);
  const target = resolveInstallTarget(words ?? rest[0], words !== undefined, io.cwd, envFrom(strs(values, 'env')), headers, flag(values, 'watch'));
  const info = HOST_INFO[host];
  const name = str(values, 'name') ?? target.name;
  if (name.trim() === '') throw new UsageError('install: --name is empty');
  const configArg = str(values, 'config');
  const file = configArg !== undefined ? resolve(io.cwd, configArg) : hostConfigPath(host, { cwd: io.cwd, env: io.env }, flag(values, 'project'));
  let plan: ApiKeyPlan | undefined;
  if (apiKey !== undefined || apiKeyEnv !== undefined) {
    if (target.spec.kind !== 'http') throw new UsageError('install: --header and --api-key are for a URL TARGET');
    const shared = configArg === undefined && (host === 'vscode' || host === 'claude-code' || (host === 'cursor' && flag(values, 'project')));
    plan = apiKeyPlan(host, name, { key: apiKey, envVar: apiKeyEnv }, { file, shared });
    target.spec.headers.Authorization = plan.header;
  }
  const inputs = plan?.inputs ?? [];
  if (target.spec.kind === 'http' && info.http && Object.keys(target.env).length > 0) {
    throw new UsageError('install: --env is for a server the host starts; a URL takes headers (-H, --api-key)');
  }
  // Claude Desktop's file has no URL entries: mcpkit's stdio bridge forwards to the URL.
  const spec: ServerSpec =
    target.spec.kind === 'http' && !info.http
      ? {
          kind: 'stdio',
          ...cliCommand(['bridge', '--stdio-to-http', target.spec.url, ...Object.entries(target.spec.headers).flatMap(([k, v]) => ['-H', `${k}: ${v}`])]),
          env: target.env,
        }
      : target.spec;
  const entry = hostEntry(host, spec);
  const status = new StatusLine(io.stderr, io.env);
  const s = status.style;
  // Said on stderr, so that printed JSON stays clean.
  const warnPlain = () => {
    if (plan?.plaintext) status.print(s.yellow(plan.note));
  };
  const snippet = JSON.stringify({ ...(inputs.length > 0 ? { inputs } : {}), [info.key]: { [name]: entry } }, null, 2);
  if (file === undefined) {
    io.stdout.write(`${snippet}\n`);
    warnPlain();
    return 0;
  }
  const text = readConfigText(file);
  if (flag(values, 'print')) {
    warnPlain();
    try {
      const merged = mergeEntry(text, file, info.key, name, entry, true, inputs);
      status.print(s.dim(`${merged.replaced ? (merged.unchanged ? 'unchanged' : `would replace "${name}" in`) : 'would write'} ${file}:`));
      io.stdout.write(merged.text);
    } catch (err) {
      if (!(err instanceof ConfigRefused)) throw err;
      status.print(s.yellow(`! ${err.message}`));
      io.stdout.write(`${snippet}\n`);
    }
    return 0;
  }
  let merged: ReturnType<typeof mergeEntry>;
  try {
    merged = mergeEntry(text, file, info.key, name, entry, flag(values, 'force'), inputs);
  } catch (err) {
    if (!(err instanceof ConfigRefused)) throw err;
    io.stderr.write(`mcpkit: ${err.message}\n${snippet}\n`);
    return 1;
  }
  if (merged.unchanged) {
    io.stdout.write(`${s.green('✔')} ${info.label} already has "${name}" as given (${file}); nothing changed\n`);
    return 0;
  }
  const backup = writeConfig(file, merged.text, undefined, plan?.plaintext ? 0o600 : undefined);
  io.stdout.write(
    [
      `${s.green('✔')} ${merged.replaced ? 'Replaced' : 'Added'} "${name}" in ${info.label}'s config: ${file}`,
      backup ? s.dim(`  the previous file is kept as ${backup}`) : '',
      JSON.stringify({ [name]: entry }, null, 2),
      plan && !plan.plaintext ? plan.note : '',
      info.hint,
      '',
    ]
      .filter((l, i, all) => l !== '' || i === all.length - 1)
      .join('\n'),
  );
  warnPlain();
  return 0;
}

interface InstallTarget {
  spec: ServerSpec;
  name: string;
  env: Record<string, string>;
}

/** What TARGET names, made absolute: a module, a command line (or its words), or a URL. */
export function resolveInstallTarget(
  target: string | string[],
  isWords: boolean,
  cwd: string,
  env: Record<string, string>,
  headers: Record<string, string>,
  watch: boolean,
): InstallTarget {
  const text = typeof target === 'string' ? target.trim() : '';
  if (!isWords && /^https?:\/\//i.test(text)) {
    if (!URL.canParse(text)) throw new UsageError(`install: not a valid URL: ${text}`);
    if (watch) throw new UsageError('install: --watch is for a module TARGET');
    return { spec: { kind: 'http', url: text, headers }, name: new URL(text).hostname.replace(/^\[|\]$/g, ''), env };
  }
  if (Object.keys(headers).length > 0) throw new UsageError('install: --header and --api-key are for a URL TARGET');
  if (!isWords && text !== '' && !/\s/.test(text) && MODULE.test(text)) {
    const file = resolve(cwd, text);
    if (!existsSync(file)) throw new UsageError(`install: no such file: ${file}`);
    const spec = cliCommand(['serve', '--stdio', file, ...(watch ? ['--watch'] : [])]);
    return { spec: { kind: 'stdio', ...spec, env }, name: nameOf(file), env };
  }
  if (watch) throw new UsageError('install: --watch is for a module TARGET (a .js or .ts file exporting a server)');
  const split = takeEnvAssignments(typeof target === 'string' ? splitCommandLine(text) : target);
  if (split.rest.length === 0) throw new UsageError(`install: "${typeof target === 'string' ? text : target.join(' ')}" names no command to run`);
  // A host starts it from its own directory and PATH: paths that exist here are made absolute,
  // and `node` is the node running this (a desktop app's PATH often has no node on it).
  const [command, ...args] = split.rest.map((w) => absoluteIfPath(w, cwd));
  const spec: ServerSpec = { kind: 'stdio', command: command === 'node' ? process.execPath : command, args, env: { ...split.env, ...env } };
  const named = [...args].reverse().find((a) => !a.startsWith('-')) ?? command;
  return { spec, name: nameOf(named), env: spec.env };
}

/** A word that names an existing file or folder relative to `cwd` (it has a slash or an extension). */
function absoluteIfPath(word: string, cwd: string): string {
  if (word.startsWith('-') || isAbsolute(word) || !/[/\\]|\.\w+$/.test(word)) return word;
  const full = resolve(cwd, word);
  return existsSync(full) ? full : word;
}

/** `weather.ts` → weather; `app/server.ts` → app; `@scope/pkg@1.2` → pkg. */
function nameOf(word: string): string {
  const bare = word.replace(/@[^@/]*$/, '').replace(/[/\\]+$/, '');
  const base = basename(bare, extname(bare));
  if (['index', 'server', 'main', 'dist', 'src', 'build'].includes(base)) {
    const parent = basename(resolve(bare, '..'));
    if (parent && parent !== '.' && parent !== '/') return nameOf(resolve(bare, '..'));
  }
  return base || 'server';
}
