// Argument parsing shared by every command: node's util.parseArgs, with errors that name the
// command, and the options every client command accepts.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { didYouMean } from '../protocol/suggest.js';
import { TargetError } from '../pool/errors.js';
import { features, HANDSHAKE_VERSIONS, isHandshakeVersion } from '../protocol/versions.js';

/** A mistake in how the command was called: exit code 2 and a one-line explanation. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** A usage mistake from this layer or a TARGET/config the host layer could not use. */
export function isUsageError(err: unknown): err is Error {
  return err instanceof UsageError || err instanceof TargetError;
}

/**
 * A failure whose message says all a user needs (what happened, what to do): printed as it is,
 * exit code 1; with DEBUG, the stack of its cause too.
 */
export class CommandError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CommandError';
  }
}

/** A failure already shown to the user in full: only the exit code is left to set. */
export class ShownError extends Error {
  constructor(readonly exitCode = 1) {
    super('shown');
    this.name = 'ShownError';
  }
}

type OptionSpec = { type: 'string' | 'boolean'; multiple?: boolean; short?: string };
export type OptionSpecs = Record<string, OptionSpec>;
type Values = Record<string, string | boolean | string[] | boolean[] | undefined>;

/** parseArgs, strict, with positionals; unknown options become a UsageError naming the command. */
export function parse(command: string, argv: string[], options: OptionSpecs): { values: Values; positionals: string[] } {
  try {
    const { values, positionals } = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
    return { values: values as Values, positionals };
  } catch (err) {
    const msg = err instanceof Error ? err.message.replace(/\. To specify a positional argument.*$/s, '') : String(err);
    // node: "Unknown option '--prot'": the nearest option this command has, if one is close.
    const typed = /^Unknown option '(-{1,2}[^'=]+)/.exec(msg)?.[1];
    const near = typed === undefined ? '' : didYouMean(typed.replace(/^-+/, ''), Object.keys(options), (o) => `--${o}`);
    throw new UsageError(`${command}: ${msg}${near}`);
  }
}

export function str(values: Values, name: string): string | undefined {
  const v = values[name];
  return typeof v === 'string' ? v : undefined;
}

export function strs(values: Values, name: string): string[] {
  const v = values[name];
  return Array.isArray(v) ? (v as string[]) : typeof v === 'string' ? [v] : [];
}

export function flag(values: Values, name: string): boolean {
  return values[name] === true;
}

/** An integer option within bounds, or the default. */
export function int(values: Values, name: string, fallback: number, min: number, max: number): number {
  const raw = str(values, name);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new UsageError(`--${name}: expected a whole number from ${min} to ${max}, got "${raw}"`);
  return n;
}

/** A number of seconds (fractions allowed) within bounds, or the default. */
export function seconds(values: Values, name: string, fallback: number, min: number, max: number): number {
  const raw = str(values, name);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || n < min || n > max)
    throw new UsageError(`--${name}: expected a number of seconds from ${min} to ${max}, got "${raw}"`);
  return n;
}

/** `Name: value` or `Name=value` (curl style), for --header. */
export function parseHeader(raw: string): [string, string] {
  const m = /^\s*([^:=\s]+)\s*[:=]\s*(.*)$/.exec(raw);
  if (!m) throw new UsageError(`--header: expected "Name: value", got "${raw}"`);
  return [m[1], m[2]];
}

export function headersFrom(raws: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const raw of raws) {
    const [k, v] = parseHeader(raw);
    out[k] = v;
  }
  return out;
}

/** `KEY=value`, for --env. */
export function envFrom(raws: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const raw of raws) {
    const i = raw.indexOf('=');
    if (i <= 0) throw new UsageError(`--env: expected KEY=value, got "${raw}"`);
    out[raw.slice(0, i)] = raw.slice(i + 1);
  }
  return out;
}

/** OAuth sign-in for URL targets (src/cli/oauth.ts). */
export const OAUTH_OPTIONS: OptionSpecs = {
  oauth: { type: 'boolean' },
  'no-oauth': { type: 'boolean' },
  'client-id': { type: 'string' },
  'client-secret': { type: 'string' },
  'client-credentials': { type: 'boolean' },
  scope: { type: 'string' },
  'oauth-file': { type: 'string' },
  'redirect-port': { type: 'string' },
  'no-browser': { type: 'boolean' },
};

/** Options every client command (tools, call, read, prompt, inspect...) accepts. */
export const CLIENT_OPTIONS: OptionSpecs = {
  json: { type: 'boolean' },
  trace: { type: 'boolean' },
  'trace-file': { type: 'string' },
  config: { type: 'string' },
  header: { type: 'string', multiple: true, short: 'H' },
  env: { type: 'string', multiple: true, short: 'e' },
  timeout: { type: 'string' },
  era: { type: 'string' },
  'protocol-version': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  ...OAUTH_OPTIONS,
};

export const ERAS = ['auto', 'modern', 'handshake'] as const;
export type EraChoice = (typeof ERAS)[number];

/**
 * --era, checked against --protocol-version here so that a contradiction is a usage error
 * (exit 2) rather than a failed connection. Default 'auto', chosen here and not left to the
 * library so the command behaves the same whatever McpClient's own default is.
 */
export function eraOf(values: Values): EraChoice {
  const raw = str(values, 'era') ?? 'auto';
  if (!(ERAS as readonly string[]).includes(raw)) throw new UsageError(`--era: one of ${ERAS.join(', ')}, got "${raw}"`);
  const era = raw as EraChoice;
  const pinned = str(values, 'protocol-version');
  if (pinned !== undefined && era === 'modern' && isHandshakeVersion(pinned)) {
    throw new UsageError(`--protocol-version ${pinned} is a handshake-era revision; --era modern needs 2026-07-28 or later`);
  }
  // Dates compare as strings; a dated revision from the first stateless one on is not a handshake
  // one. Other strings (drafts, deliberately bad versions for testing a server) are let through.
  if (pinned !== undefined && era === 'handshake' && /^\d{4}-\d{2}-\d{2}$/.test(pinned) && features.modern(pinned)) {
    throw new UsageError(`--protocol-version ${pinned} belongs to the stateless era; --era handshake speaks ${HANDSHAKE_VERSIONS.join(', ')}`);
  }
  return era;
}

export function version(): string {
  // src/cli/args.ts and dist/cli/args.js both sit two levels below the package root.
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

/** Whether a command's ARGS are `key=value` pairs (not one JSON object). */
export function isPairs(items: string[]): boolean {
  return items.length > 0 && !(items.length === 1 && items[0].trimStart().startsWith('{'));
}

/**
 * A tool or prompt argument list: one JSON object, or `key=value` pairs. A pair's value is what
 * `coerce` makes of it when given (the tool's schema knows the type), else it is parsed as JSON
 * when it parses (`n=5`, `flag=true`, `tags=["a"]`) and kept as a string otherwise.
 */
export function parseArguments(
  items: string[],
  options: { stringsOnly?: boolean; coerce?: (key: string, raw: string) => unknown } = {},
): Record<string, unknown> {
  if (items.length === 0) return {};
  if (!isPairs(items)) {
    let v: unknown;
    try {
      v = JSON.parse(items[0]);
    } catch (err) {
      throw new UsageError(`arguments: not valid JSON: ${(err as Error).message}`);
    }
    if (!v || typeof v !== 'object' || Array.isArray(v)) throw new UsageError('arguments: the JSON must be an object');
    return v as Record<string, unknown>;
  }
  const out: Record<string, unknown> = {};
  for (const item of items) {
    const i = item.indexOf('=');
    if (i <= 0) throw new UsageError(`arguments: expected key=value or one JSON object, got "${item}"`);
    const key = item.slice(0, i);
    const raw = item.slice(i + 1);
    if (options.stringsOnly) {
      out[key] = raw;
      continue;
    }
    if (options.coerce) {
      out[key] = options.coerce(key, raw);
      continue;
    }
    try {
      out[key] = JSON.parse(raw);
    } catch {
      out[key] = raw;
    }
  }
  return out;
}
