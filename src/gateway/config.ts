// A gateway's backends, read from an `mcpServers` config (the same file hosts read) plus the keys
// only a gateway has: how a backend's sessions are shared, and which credentials go upstream.
// Credentials are resolved here, once, from the environment: they never reach a model or a client.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { TargetError } from '../pool/errors.js';
import { settingsOf } from '../pool/pool-config.js';
import type { ServerSettings } from '../pool/pool-types.js';
import { targetFromEntry, type ConfigEntry, type Target } from '../pool/targets.js';
import { parseJsonText } from '../protocol/json-text.js';
import { DEFAULT_LIMITS } from '../codemode/limits.js';

/**
 * `shared`: one connection (one stdio process) serves every client; calls are multiplexed and
 * the backend's questions are routed back to the client whose call caused them. `per-client`:
 * one connection per client session (a stdio process each). The default is `shared`, except for
 * backends that take the caller's own credentials (`auth: "passthrough"`), which are per client.
 */
export type SessionMode = 'shared' | 'per-client';

export interface BackendDef {
  name: string;
  target: Target;
  settings: ServerSettings;
  session: SessionMode;
  /** The caller's bearer token is sent upstream as `Authorization` (HTTP backends). */
  passthrough: boolean;
  /** The entry as written, to tell on reload whether it changed. */
  fingerprint: string;
}

export interface GatewayConfig {
  backends: BackendDef[];
  /** Joins a server's name and its tool's or prompt's (`gateway.separator` in the file). Default `_`. */
  separator: string | undefined;
  /** `gateway.codeMode` in the file: true, or the sandbox's limits (`{ "limits": { "cpuMs": 2000 } }`). Followed by reloads. */
  codeMode: boolean | { limits?: Record<string, number> } | undefined;
}

const SESSIONS: readonly SessionMode[] = ['shared', 'per-client'];

/** `${NAME}` (and `${NAME:-fallback}`) from `env`; a variable that is not set is an error, not an empty credential. */
export function expandEnv(text: string, env: Record<string, string | undefined>, where: string): string {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_, name: string, fallback: string | undefined) => {
    const v = env[name];
    if (v !== undefined && v !== '') return v;
    if (fallback !== undefined) return fallback;
    throw new TargetError(`${where} uses \${${name}}, which is not set in the environment`);
  });
}

function expandRecord(v: unknown, env: Record<string, string | undefined>, where: string): Record<string, string> | undefined {
  if (v === undefined) return undefined;
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new TargetError(`${where} must be an object of strings`);
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(v)) out[k] = expandEnv(String(x), env, `${where}.${k}`);
  return out;
}

/** One backend from its config entry. */
export function backendFromEntry(name: string, raw: unknown, o: { file?: string; cwd: string; env: Record<string, string | undefined> }): BackendDef {
  const where = `server "${name}"${o.file ? ` in ${o.file}` : ''}`;
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new TargetError(`${where} must be an object`);
  const entry = raw as Record<string, unknown>;
  const expanded: ConfigEntry = {
    ...entry,
    headers: expandRecord(entry.headers, o.env, `${where}: "headers"`),
    env: expandRecord(entry.env, o.env, `${where}: "env"`),
  };
  const target = targetFromEntry(name, expanded, { file: o.file, cwd: o.cwd });
  if (target.kind === 'stdio' && target.cwd !== undefined) target.cwd = resolve(o.cwd, target.cwd);
  if (entry.bearerEnv !== undefined) {
    if (typeof entry.bearerEnv !== 'string' || target.kind !== 'http')
      throw new TargetError(`${where}: "bearerEnv" names an environment variable, for a "url" server`);
    target.headers.Authorization = `Bearer ${expandEnv(`\${${entry.bearerEnv}}`, o.env, `${where}: "bearerEnv"`)}`;
  }
  if (entry.auth !== undefined && entry.auth !== 'passthrough') throw new TargetError(`${where}: "auth" can only be "passthrough"`);
  const passthrough = entry.auth === 'passthrough';
  if (passthrough && target.kind !== 'http') throw new TargetError(`${where}: "auth": "passthrough" is for "url" servers`);
  if (entry.session !== undefined && !SESSIONS.includes(entry.session as SessionMode)) {
    throw new TargetError(`${where}: "session" must be one of ${SESSIONS.join(', ')}`);
  }
  if (passthrough && entry.session === 'shared') throw new TargetError(`${where}: a "passthrough" server cannot be "shared" (each caller has their own token)`);
  const session = (entry.session as SessionMode | undefined) ?? (passthrough ? 'per-client' : 'shared');
  return { name, target, settings: settingsOf(entry, where), session, passthrough, fingerprint: JSON.stringify(entry) };
}

/** The backends of an `mcpServers` object (or a whole config object holding one). */
export function gatewayConfigOf(data: unknown, o: { file?: string; cwd: string; env: Record<string, string | undefined> }): GatewayConfig {
  const root = data as { mcpServers?: unknown; servers?: unknown; gateway?: { separator?: unknown; codeMode?: unknown } } | null;
  const servers = root?.mcpServers ?? root?.servers;
  if (!servers || typeof servers !== 'object' || Array.isArray(servers)) throw new TargetError(`${o.file ?? 'the config'}: no "mcpServers" object`);
  const separator = root?.gateway?.separator;
  if (separator !== undefined && (typeof separator !== 'string' || separator === '')) throw new TargetError('"gateway.separator" must be a non-empty string');
  const backends = Object.entries(servers).map(([name, entry]) => backendFromEntry(name, entry, o));
  return { backends: backends.filter((b) => b.settings.enabled !== false), separator, codeMode: codeModeOf(root?.gateway?.codeMode) };
}

const LIMIT_KEYS = Object.keys(DEFAULT_LIMITS);

/** `gateway.codeMode`: true / false, or `{ "limits": { ... } }` with the sandbox's numeric limits. */
function codeModeOf(v: unknown): GatewayConfig['codeMode'] {
  if (v === undefined || typeof v === 'boolean') return v;
  const limits = (v as { limits?: unknown } | null)?.limits;
  const keys = v && typeof v === 'object' && !Array.isArray(v) ? Object.keys(v) : undefined;
  if (!keys || keys.some((k) => k !== 'limits') || (limits !== undefined && (typeof limits !== 'object' || limits === null || Array.isArray(limits)))) {
    throw new TargetError('"gateway.codeMode" must be true, false, or { "limits": { ... } }');
  }
  for (const [k, n] of Object.entries((limits ?? {}) as Record<string, unknown>)) {
    if (!LIMIT_KEYS.includes(k)) throw new TargetError(`"gateway.codeMode.limits.${k}" is not a limit: ${LIMIT_KEYS.join(', ')}`);
    if (typeof n !== 'number' || !(n > 0)) throw new TargetError(`"gateway.codeMode.limits.${k}" must be a positive number`);
  }
  return { limits: (limits ?? {}) as Record<string, number> };
}

/** Reads a gateway config file. Throws a TargetError saying what is wrong with it. */
export function readGatewayConfig(file: string, o: { cwd: string; env: Record<string, string | undefined> }): GatewayConfig {
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
  return gatewayConfigOf(data, { ...o, file });
}
