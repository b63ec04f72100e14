// The connection doctor's vocabulary: the target it examines, the options it takes, the steps it
// records and the diagnosis it returns. Codes are stable identifiers (a studio or a script can
// switch on them); summaries and fixes are sentences for a person.
import type { Clock } from '../../engine/clock.js';

/** What to examine: a TARGET string (URL, command line, config name), a server to spawn, or a URL with headers. */
export type DoctorTarget =
  | string
  | { url: string | URL; headers?: Record<string, string> }
  | { command: string; args?: string[]; env?: Record<string, string>; cwd?: string };

/** Why a connection failed, as a stable identifier. */
export type DoctorCode =
  // the target itself
  | 'invalid-target'
  /** The doctor itself failed (a bug): the step says how. */
  | 'internal'
  // stdio
  | 'command-not-found'
  | 'permission-denied'
  | 'spawn-failed'
  | 'exited-at-start'
  | 'exited'
  | 'stdout-not-json'
  // either transport
  | 'no-answer'
  | 'slow-start'
  | 'version-mismatch'
  | 'era-mismatch'
  | 'invalid-response'
  | 'list-failed'
  // HTTP
  | 'dns'
  | 'connection-refused'
  | 'unreachable'
  | 'tls'
  | 'redirect'
  | 'http-404'
  | 'http-405'
  | 'http-406'
  | 'http-415'
  | 'http-error'
  | 'server-error'
  | 'not-mcp'
  | 'cors'
  | 'forbidden'
  | 'unauthorized'
  | 'unauthorized-no-metadata'
  | 'bad-resource-metadata'
  | 'no-authorization-server'
  | 'no-registration'
  | 'registration-rejected'
  | 'pkce-unsupported'
  | 'redirect-uri-rejected'
  | 'sign-in-required';

/** One step of the walk, in the order it was taken. */
export interface DoctorStep {
  /** What was checked: `spawn`, `stdout`, `dns`, `connect`, `tls`, `post`, `discover`, `initialize`, `auth`, `list`... */
  step: string;
  ok: boolean;
  /** How long it took, on the options' clock. */
  ms: number;
  /** What was seen, in one or two sentences. */
  detail: string;
  /** Set when the step failed. */
  code?: DoctorCode;
  /** What to do about it. */
  fix?: string;
}

/** The first failure: which step, why, and what to do. */
export interface DoctorFailure {
  step: string;
  code: DoctorCode;
  /** One line a person understands. */
  summary: string;
  fix: string;
}

export interface Diagnosis {
  /** True when every step passed. */
  ok: boolean;
  /** The target as shown (secrets left out). */
  target: string;
  transport: 'stdio' | 'streamable-http' | 'sse' | 'http';
  steps: DoctorStep[];
  /** The first failing step, when one failed. */
  failure?: DoctorFailure;
  /** What the server said about itself, when it got that far. */
  server?: { name?: string; version?: string; protocolVersion?: string; era?: 'modern' | 'handshake' };
}

/** What the doctor reports while it works (a studio shows it live; tests wait on it). */
export type DoctorEvent =
  | { type: 'step'; step: DoctorStep }
  /** A stdio server was started. */
  | { type: 'spawned'; pid: number }
  /** A request was sent and the doctor waits for its answer (on the options' clock). */
  | { type: 'waiting'; step: string; method: string; slowMs: number; timeoutMs: number };

export interface DiagnoseOptions {
  /**
   * An answer later than this (ms) is a slow start; it is also how long a stdio server gets to
   * answer `server/discover` before `initialize` is sent as well. Default 5000.
   */
  slowMs?: number;
  /** No answer within this many ms is "no answer". Default 30000. */
  timeoutMs?: number;
  /** Where time is read and timers armed (a ManualClock in tests). Default the system clock. */
  clock?: Clock;
  /**
   * The Origin a browser client would send (a web studio's): the CORS preflight and headers are
   * checked for it, and the requests carry it.
   */
  origin?: string;
  /**
   * The redirect URI a sign-in would use, checked with the authorization server (dynamic
   * registration, then its authorization endpoint). Default `http://127.0.0.1:33418/callback`.
   */
  redirectUri?: string;
  /** Register a client to check the redirect URI (dynamic registration). Default true. */
  register?: boolean;
  /** Headers for URL targets (added to a config entry's own). */
  headers?: Record<string, string>;
  /** Environment for command targets (added to a config entry's own). */
  env?: Record<string, string>;
  /** Our environment, which a spawned server inherits the safe part of (PATH...). Default process.env. */
  baseEnv?: Record<string, string | undefined>;
  /** For TARGET strings: an mcpServers config file, where relative paths are read, the home directory. */
  config?: string;
  cwd?: string;
  home?: string;
  /** Fetch for HTTP (redirects are handled by the doctor). Default globalThis.fetch. */
  fetch?: typeof fetch;
  /** Told about each step as it finishes, and about waits. */
  onEvent?: (event: DoctorEvent) => void;
  /** Stops the walk; the diagnosis so far is returned. */
  signal?: AbortSignal;
}

/** Options with their defaults filled in, as the step code sees them. */
export interface DoctorContext {
  slowMs: number;
  timeoutMs: number;
  clock: Clock;
  origin?: string;
  redirectUri: string;
  register: boolean;
  fetch: typeof fetch;
  signal?: AbortSignal;
  emit(event: DoctorEvent): void;
}

export const DEFAULT_REDIRECT_URI = 'http://127.0.0.1:33418/callback';
