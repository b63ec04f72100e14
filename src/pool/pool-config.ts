// Turns whatever servers a pool is given (an `mcpServers` object, a config file, specs from code)
// into one list of server definitions, checking the pool's own keys of a config entry.
import { resolve } from 'node:path';
import type { McpClient } from '../client/client.js';
import type { Transport } from '../engine/transport.js';
import { TargetError } from './errors.js';
import type { PrefixPolicy } from './names.js';
import type { PoolOptions, ServerSettings, ServerSpec } from './pool-types.js';
import { readConfig, resolveTarget, targetFromEntry, type ConfigEntry, type Target } from './targets.js';

/** How a server is reached. */
export type Connector =
  | { kind: 'target'; target: Target }
  | { kind: 'transport'; make: () => Transport; reusable: boolean }
  | { kind: 'client'; client: McpClient };

export interface ServerDef {
  name: string;
  settings: ServerSettings;
  connector: Connector;
}

const PREFIXES: readonly PrefixPolicy[] = ['always', 'on-clash', 'never'];
const ERAS = ['auto', 'modern', 'handshake'];

function strings(v: unknown, what: string): string[] | undefined {
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) throw new TargetError(`${what} must be an array of tool names or globs`);
  return v as string[];
}

/** The pool's keys of a config entry (`allow`, `deny`, `prefix`, `timeoutMs`, `enabled`/`disabled`, `era`). */
export function settingsOf(entry: Record<string, unknown>, where: string): ServerSettings {
  const s: ServerSettings = {};
  s.allow = strings(entry.allow, `${where}: "allow"`);
  s.deny = strings(entry.deny, `${where}: "deny"`);
  if (entry.prefix !== undefined) {
    if (!PREFIXES.includes(entry.prefix as PrefixPolicy)) throw new TargetError(`${where}: "prefix" must be one of ${PREFIXES.join(', ')}`);
    s.prefix = entry.prefix as PrefixPolicy;
  }
  if (entry.timeoutMs !== undefined) {
    if (typeof entry.timeoutMs !== 'number' || !(entry.timeoutMs >= 0)) throw new TargetError(`${where}: "timeoutMs" must be a number of milliseconds`);
    s.timeoutMs = entry.timeoutMs;
  }
  // `disabled: true` is how Cline and others spell it.
  if (entry.enabled !== undefined && typeof entry.enabled !== 'boolean') throw new TargetError(`${where}: "enabled" must be true or false`);
  if (entry.disabled !== undefined && typeof entry.disabled !== 'boolean') throw new TargetError(`${where}: "disabled" must be true or false`);
  s.enabled = entry.enabled !== false && entry.disabled !== true;
  if (entry.era !== undefined) {
    if (!ERAS.includes(entry.era as string)) throw new TargetError(`${where}: "era" must be one of ${ERAS.join(', ')}`);
    s.era = entry.era as ServerSettings['era'];
  }
  return s;
}

function fromConfig(servers: Record<string, unknown>, file: string | undefined, cwd: string): ServerDef[] {
  return Object.entries(servers).map(([name, entry]) => {
    const where = `server "${name}"${file ? ` in ${file}` : ''}`;
    const target = targetFromEntry(name, entry as ConfigEntry, { file, cwd });
    // A relative cwd in a config file is relative to where the host runs.
    if (target.kind === 'stdio' && target.cwd !== undefined) target.cwd = resolve(cwd, target.cwd);
    return { name, settings: settingsOf(entry as Record<string, unknown>, where), connector: { kind: 'target', target } };
  });
}

function fromSpec(spec: ServerSpec, cwd: string): ServerDef {
  if (typeof spec?.name !== 'string' || spec.name === '') throw new TargetError('every server needs a non-empty name');
  const { name, allow, deny, prefix, timeoutMs, enabled, era } = spec;
  const settings = settingsOf({ allow, deny, prefix, timeoutMs, enabled, era }, `server "${name}"`);
  if ('client' in spec) return { name, settings, connector: { kind: 'client', client: spec.client } };
  if ('transport' in spec) {
    const t = spec.transport;
    return {
      name,
      settings,
      connector: typeof t === 'function' ? { kind: 'transport', make: t, reusable: true } : { kind: 'transport', make: () => t, reusable: false },
    };
  }
  if ('target' in spec) {
    const target = typeof spec.target === 'string' ? resolveTarget(spec.target, { cwd }) : spec.target;
    return { name, settings, connector: { kind: 'target', target } };
  }
  throw new TargetError(`server "${name}" needs a target, a transport or a client`);
}

/** Every server the options name, config file first; two of one name are an error. */
export function serverDefs(options: PoolOptions, cwd: string): ServerDef[] {
  const defs: ServerDef[] = [];
  if (options.config !== undefined) {
    const file = resolve(cwd, options.config);
    defs.push(...fromConfig(readConfig(file), file, cwd));
  }
  const s = options.servers;
  if (Array.isArray(s)) defs.push(...(s as readonly ServerSpec[]).map((x) => fromSpec(x, cwd)));
  else if (s !== undefined) {
    if (typeof s !== 'object' || s === null) throw new TargetError('"servers" must be an mcpServers object or a list of servers');
    const root = s as { mcpServers?: unknown };
    // Accept the whole config file's object as well as its `mcpServers` value.
    const servers = root.mcpServers && typeof root.mcpServers === 'object' ? (root.mcpServers as Record<string, unknown>) : (s as Record<string, unknown>);
    defs.push(...fromConfig(servers, undefined, cwd));
  }
  const seen = new Set<string>();
  for (const d of defs) {
    if (seen.has(d.name)) throw new TargetError(`two servers are named "${d.name}"`);
    seen.add(d.name);
  }
  return defs;
}
