// The shapes the studio's HTTP API and event stream carry, shared by the server (src/studio) and
// the page (src/studio/ui). Types only: the page's bundle takes nothing else from here.
import type { ChatMessage } from './chat-types.js';
import type { OAuthView } from './oauth-steps.js';

/** Where a server came from: the command line or a config file (trusted), or the page (confirmed by the user). */
export type ServerOrigin = 'command-line' | 'config' | 'page';

/** What the doctor (or the studio's own first look) says about a failed connection. */
export interface Diagnosis {
  /** The step that failed, in a few words: "start the command", "HTTP POST /mcp", "initialize". */
  step: string;
  /** What went wrong, for a person. */
  problem: string;
  /** What to do about it, when known. */
  fix?: string;
  /** Evidence: the server's last stderr lines, an HTTP status and body... */
  evidence?: string[];
  /** Who diagnosed: the connection doctor, or the studio's reading of the error alone. */
  by: 'doctor' | 'studio';
}

/** How the studio reaches a server, as shown (secrets left out: header values are not sent to the page). */
export interface TargetView {
  kind: 'http' | 'stdio';
  /** The URL, or the command line. */
  text: string;
  /** Names of the HTTP headers or environment variables given (not their values). */
  headerNames?: string[];
  envNames?: string[];
  cwd?: string;
}

export interface ServerView {
  name: string;
  origin: ServerOrigin;
  target: TargetView | undefined;
  state: 'connecting' | 'connected' | 'failed' | 'closed';
  era: 'modern' | 'handshake' | undefined;
  protocolVersion: string | undefined;
  serverInfo: { name: string; version: string; title?: string; [k: string]: unknown } | undefined;
  capabilities: Record<string, unknown> | undefined;
  instructions: string | undefined;
  error: string | undefined;
  diagnosis: Diagnosis | undefined;
  retryInMs: number | undefined;
  pid: number | undefined;
  /** The last lines the server wrote on stderr (stdio servers). */
  stderr: string[];
  /** Resource URIs subscribed to from the studio. */
  subscriptions: string[];
  logLevel: string | undefined;
}

/** One JSON-RPC message of the protocol timeline. */
export interface TimelineEntry {
  seq: number;
  /** Epoch milliseconds when it crossed the client's middleware. */
  time: number;
  server: string;
  /** `out`: the studio's client sent it to the server; `in`: the server sent it. */
  dir: 'out' | 'in';
  era: 'modern' | 'handshake' | undefined;
  /** `http`: an HTTP exchange of the transport (request line, status, headers, stream ends), not a JSON-RPC message. */
  kind: 'request' | 'response' | 'error' | 'notification' | 'http' | 'other';
  /** The method (for a response, the method of the request it answers; for `http`, the request or status line). */
  method: string | undefined;
  id: string | number | undefined;
  /** For a response: milliseconds since its request. */
  latencyMs?: number;
  /** Its size as JSON, in bytes. */
  size: number;
  /** The message; left out from the event stream past a size (fetch it by seq). */
  message?: unknown;
  truncated?: boolean;
}

/** A request of a server that waits for the user: elicitation (form or URL) or sampling. */
export interface PendingInput {
  id: string;
  server: string;
  kind: 'elicitation' | 'sampling';
  /** `view`: asked by an MCP App view of the server (its sampling/createMessage), not the server. */
  from?: 'view';
  params: Record<string, unknown>;
  /** Epoch ms. */
  since: number;
}

/** A page's request to add a server, waiting for the user's confirmation in the page. */
export interface PendingTarget {
  id: string;
  /** Single-use; the confirmation must carry it. */
  nonce: string;
  name: string;
  target: TargetView;
  /** What starting it does, in one sentence. */
  warning: string;
  /** Epoch ms after which the request is void. */
  expires: number;
}

export interface StudioState {
  version: string;
  servers: ServerView[];
  inputs: PendingInput[];
  pendingTargets: PendingTarget[];
  roots: Array<{ uri: string; name?: string }>;
  /** The sequence number of the newest timeline entry (0: none yet). */
  lastSeq: number;
  /** Whether the page may ask to add servers at all (`--no-add` turns it off). */
  canAdd: boolean;
  /** The tasks the studio follows (started from the page, or found on a server). */
  tasks?: TaskView[];
  /** The model given to the studio (never its key): sampling requests can be drafted by it. */
  model?: { provider: string; model: string; endpoint: string };
}

/** The server-sent events of GET /api/events, by name. */
export interface StudioEvents {
  /** First on every stream: the whole state and the newest timeline entries. */
  snapshot: { state: StudioState; timeline: TimelineEntry[] };
  server: ServerView;
  'server-removed': { name: string };
  message: TimelineEntry;
  progress: { callId: string; progress: number; total?: number; message?: string };
  input: PendingInput;
  'input-done': { id: string };
  'target-pending': PendingTarget;
  'target-done': { id: string };
  /** A server notification the page reacts to: list changes, resource updates, log messages. */
  notification: { server: string; method: string; params: unknown };
  roots: { roots: StudioState['roots'] };
  /** A task the studio follows changed (status, input requests, result). */
  task: TaskView;
  'task-removed': { server: string; taskId: string };
  /** An event of a chat message being answered (chat-types.ts). */
  chat: ChatMessage;
  /** A server's OAuth sign-in changed (a step, a sign-in waiting for the browser). */
  oauth: OAuthView;
}

/** What a tool call returns through the API. */
export interface CallOutcome {
  result?: Record<string, unknown>;
  error?: { code?: number; message: string; data?: unknown };
  durationMs: number;
  /** The structured content checked against the tool's outputSchema, when it has one. */
  outputCheck?: { ok: boolean; message?: string };
  cancelled?: boolean;
  /** The server runs the call as a task: followed in the Tasks panel (its result comes there). */
  task?: TaskView;
}

/**
 * A task the studio follows: a 2026-07-28 `io.modelcontextprotocol/tasks` task (`extension`,
 * polled with tasks/get, its input answered with tasks/update) or a 2025-11-25 core task
 * (`core`, polled with tasks/get, its result and its questions on one tasks/result stream).
 */
export interface TaskView {
  server: string;
  taskId: string;
  flavour: 'extension' | 'core';
  /** The tool whose call became the task, when the studio started it. */
  tool?: string;
  arguments?: Record<string, unknown>;
  status: 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';
  statusMessage?: string;
  createdAt?: string;
  lastUpdatedAt?: string;
  ttlMs?: number | null;
  pollIntervalMs?: number;
  /** tasks/get sent for it so far, and when the last one was answered (epoch ms). */
  polls: number;
  polledAt?: number;
  /** 2026-07-28: the questions the task waits on, by key, while `input_required`. */
  inputRequests?: Record<string, { method: string; params?: Record<string, unknown> }>;
  /** Keys put to you now (the dialog), and keys already answered with tasks/update. */
  asking: string[];
  answered: string[];
  /** Its outcome, once over: the tool's result, or the JSON-RPC error it failed with. */
  result?: Record<string, unknown>;
  error?: { code?: number; message: string; data?: unknown };
  /** Whether the studio still polls it (false once over, or when its server went away). */
  following: boolean;
  /** The last thing that went wrong following it (a failed poll...). */
  problem?: string;
  /** When the studio started following it (epoch ms). */
  since: number;
}

/** An MCP App view read, checked and waiting for its iframe (`/apps/view/<id>`, loaded once). */
export interface AppViewInfo {
  id: string;
  server: string;
  uri: string;
  /** The resource's `_meta.ui` (csp, permissions, domain, prefersBorder), as checked. */
  ui: Record<string, unknown>;
  /** `sha256:…` of the HTML and its security settings. */
  fingerprint: string;
  /** The Content-Security-Policy its document is served with. */
  csp: string;
  /** Declared domains left out of the policy, each with why. */
  ignored: string[];
  /** The iframe's `allow` attribute (Permission Policy). */
  allow: string;
  bytes: number;
}

/** One file of a skill as the studio checked it against the skill's entry. */
export interface SkillFileCheck {
  uri: string;
  /** `verified`: listed, size, digest (and SKILL.md frontmatter) match; otherwise why not. */
  status: 'verified' | 'mismatch' | 'unverifiable' | 'unreadable';
  /** For a mismatch: which check failed (`digest`, `size`, `frontmatter`, `unlisted`...). */
  reason?: string;
  message?: string;
  size?: number;
  digest?: string;
  mimeType?: string;
  /** The content, for a verified (or unverifiable dynamic) text file. */
  text?: string;
}
