// Pieces the host end-to-end tests (test/host/e2e) share: the fixture servers as mcpServers
// entries (stdio children run through tsx), the demo server over real HTTP on an ephemeral port,
// and readers of what a scripted model endpoint was sent, the same for both wire formats (which
// tools it was offered, which tool results came back with which call ids).
import { fileURLToPath } from 'node:url';
import type { RunningServer } from '../../src/serving/node.js';
import type { ScriptedRequest } from './llm-wire.js';
import { patient } from './wait.js';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The fixture servers of test/fixtures/host, by name. */
export const HOST_FIXTURES = {
  /** mcpkit over stdio: get_weather, pid, wait (runs until cancelled, says so on stderr). */
  weather: 'weather-server.ts',
  /** The official SDK v1 over stdio: get_weather, ask (elicits), sample (asks the model). */
  official: 'official-weather-stdio.ts',
  /** mcpkit over stdio: 300 tools, one of them convert_currency. */
  manyTools: 'many-tools-server.ts',
  /** mcpkit over stdio: huge_report (200 kB and an image), lookup_order (isError but for 7). */
  results: 'results-server.ts',
  /** mcpkit over stdio: the CRM of work-servers.ts (list_customers, get_invoices: JSON text). */
  crm: 'crm-stdio.ts',
} as const;

/** An mcpServers entry that runs a fixture of test/fixtures/host as a stdio child. */
export function fixtureEntry(name: keyof typeof HOST_FIXTURES, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const file = fileURLToPath(new URL(`../fixtures/host/${HOST_FIXTURES[name]}`, import.meta.url));
  // timeoutMs: the pool's default (60 s) for the handshake of a child started through tsx, made
  // patient on a busy machine (MCPKIT_TEST_PATIENCE); a test about timeouts passes its own.
  return { command: process.execPath, args: ['--import', 'tsx', file], cwd: REPO_ROOT, timeoutMs: patient(60_000), ...extra };
}

/** The demo server (`mcpkit serve`) over Streamable HTTP, both eras, on 127.0.0.1 and a free port. */
export async function startDemoHttp(): Promise<RunningServer> {
  // Loaded on demand: every test imports the support index, few need the demo server.
  const [{ serve }, { createDemoServer }] = await Promise.all([import('../../src/serving/node.js'), import('../../src/cli/demo/server.js')]);
  return serve(createDemoServer(), { port: 0 });
}

/** A 1x1 transparent PNG (base64): the image results-server.ts returns. */
export const PIXEL = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

/** A tool result as a model endpoint received it. */
export interface SentToolResult {
  /** `tool_call_id` (OpenAI) / `tool_use_id` (Anthropic). */
  id: string;
  /** Its text (text parts joined by a newline). */
  text: string;
  /** Anthropic's `is_error`; undefined for OpenAI, which has no such field. */
  isError: boolean | undefined;
  /** Non-text parts (images), as sent. */
  media: unknown[];
}

const isAnthropic = (req: ScriptedRequest) => req.path.startsWith('/v1/messages');

/** The names of the tools a request offered. */
export function offeredTools(req: ScriptedRequest): string[] {
  const tools: any[] = req.body.tools ?? [];
  return tools.map((t) => (isAnthropic(req) ? t.name : t.function?.name));
}

/** The parameters schema of an offered tool. */
export function offeredSchema(req: ScriptedRequest, name: string): Record<string, unknown> | undefined {
  const tools: any[] = req.body.tools ?? [];
  const t = tools.find((x) => (isAnthropic(req) ? x.name : x.function?.name) === name);
  return t && (isAnthropic(req) ? t.input_schema : t.function.parameters);
}

function partsText(content: unknown): { text: string; media: unknown[] } {
  if (typeof content === 'string') return { text: content, media: [] };
  const parts = Array.isArray(content) ? content : [];
  return {
    text: parts
      .filter((p: any) => p?.type === 'text')
      .map((p: any) => p.text)
      .join('\n'),
    media: parts.filter((p: any) => p?.type !== 'text'),
  };
}

/**
 * Every tool result in a request's history, in order. OpenAI: `role: tool` messages (an image
 * may follow in a user message; its parts count as that result's media). Anthropic:
 * `tool_result` blocks of user messages.
 */
export function sentToolResults(req: ScriptedRequest): SentToolResult[] {
  const out: SentToolResult[] = [];
  for (const m of req.body.messages ?? []) {
    if (isAnthropic(req)) {
      if (m.role !== 'user' || !Array.isArray(m.content)) continue;
      for (const b of m.content) {
        if (b?.type !== 'tool_result') continue;
        out.push({ id: b.tool_use_id, ...partsText(b.content), isError: b.is_error });
      }
    } else if (m.role === 'tool') {
      out.push({ id: m.tool_call_id, ...partsText(m.content), isError: undefined });
    } else if (m.role === 'user' && Array.isArray(m.content) && out.length > 0) {
      const media = m.content.filter((p: any) => p?.type !== 'text');
      out[out.length - 1].media.push(...media);
    }
  }
  return out;
}

/** The tool calls of every assistant message in a request's history: id and name, in order. */
export function sentToolCalls(req: ScriptedRequest): Array<{ id: string; name: string; arguments: unknown }> {
  const out: Array<{ id: string; name: string; arguments: unknown }> = [];
  for (const m of req.body.messages ?? []) {
    if (m.role !== 'assistant') continue;
    if (isAnthropic(req)) {
      for (const b of Array.isArray(m.content) ? m.content : []) if (b?.type === 'tool_use') out.push({ id: b.id, name: b.name, arguments: b.input });
    } else {
      for (const c of m.tool_calls ?? []) out.push({ id: c.id, name: c.function.name, arguments: JSON.parse(c.function.arguments) });
    }
  }
  return out;
}

/** The text of the last user message of a request (the user's words, not tool results). */
export function lastUserText(req: ScriptedRequest): string {
  const users = (req.body.messages ?? []).filter((m: any) => m.role === 'user');
  return partsText(users.at(-1)?.content).text;
}
