// Answers the requests a server sends the client: elicitation (a form or a URL for the user)
// and sampling (a completion from "the model", typed by the user). On a terminal the user is
// asked; otherwise the request is refused with a clear message on stderr.
import { createInterface } from 'node:readline/promises';
import { McpError } from '../jsonrpc/errors.js';
import type { ElicitationHandler, SamplingHandler } from '../client/client.js';
import type { CreateMessageParams, ElicitParams, ElicitResult } from '../protocol/params.js';
import type { StatusLine, Style } from './term.js';
import type { CliIo } from './io.js';

type Field = {
  type?: string;
  title?: string;
  description?: string;
  default?: unknown;
  enum?: unknown[];
  enumNames?: string[];
  oneOf?: Array<{ const?: unknown; title?: string }>;
  items?: { enum?: unknown[]; anyOf?: Array<{ const?: unknown; title?: string }> };
  format?: string;
};

/** Whether questions can be put to a person: stdin and stderr both a terminal. */
export function canAsk(io: CliIo): boolean {
  return !!io.stdin.isTTY && !!io.stderr.isTTY;
}

async function ask<T>(status: StatusLine, io: CliIo, fn: (q: (text: string) => Promise<string>) => Promise<T>): Promise<T> {
  status.clear();
  const rl = createInterface({ input: io.stdin, output: io.stderr, terminal: true });
  try {
    return await fn((text) => rl.question(text));
  } finally {
    rl.close();
  }
}

function choices(f: Field): Array<{ value: unknown; label: string }> | undefined {
  if (f.enum) return f.enum.map((v, i) => ({ value: v, label: f.enumNames?.[i] ?? String(v) }));
  if (f.oneOf) return f.oneOf.map((o) => ({ value: o.const, label: o.title ?? String(o.const) }));
  if (f.type === 'array' && f.items) {
    if (f.items.enum) return f.items.enum.map((v) => ({ value: v, label: String(v) }));
    if (f.items.anyOf) return f.items.anyOf.map((o) => ({ value: o.const, label: o.title ?? String(o.const) }));
  }
  return undefined;
}

/** The user's text as the field's type, or an error sentence. */
function convert(f: Field, raw: string): { value: unknown } | { error: string } {
  const opts = choices(f);
  const pick = (word: string) => {
    const n = Number(word);
    if (Number.isInteger(n) && n >= 1 && n <= opts!.length) return opts![n - 1];
    return opts!.find((o) => String(o.value) === word || o.label === word);
  };
  if (f.type === 'array' && opts) {
    const picked = raw
      .split(',')
      .map((w) => w.trim())
      .filter(Boolean)
      .map(pick);
    if (picked.some((p) => !p)) return { error: 'choose from the numbered options, separated by commas' };
    return { value: picked.map((p) => p!.value) };
  }
  if (opts) {
    const p = pick(raw);
    return p ? { value: p.value } : { error: 'choose one of the numbered options' };
  }
  if (f.type === 'boolean') {
    if (/^(y|yes|true|1)$/i.test(raw)) return { value: true };
    if (/^(n|no|false|0)$/i.test(raw)) return { value: false };
    return { error: 'answer yes or no' };
  }
  if (f.type === 'number' || f.type === 'integer') {
    const n = Number(raw);
    if (raw === '' || !Number.isFinite(n) || (f.type === 'integer' && !Number.isInteger(n)))
      return { error: `expected ${f.type === 'integer' ? 'a whole number' : 'a number'}` };
    return { value: n };
  }
  return { value: raw };
}

/** Asks the user one line; what the terminal (or a script on stdin) answers. */
export type Question = (text: string) => Promise<string>;

/**
 * Puts an elicitation request to the user, one question at a time through `q`: a URL to open
 * (url mode), or the form's fields typed by its requestedSchema (retyped until they fit).
 * `who` names the asker ("The server", or a server's name in a host).
 */
export async function fillElicitation(params: ElicitParams, q: Question, write: (text: string) => void, s: Style, who = 'The server'): Promise<ElicitResult> {
  const message = (params as { message?: string }).message ?? '';
  write(`\n${s.yellow('?')} ${s.bold(`${who} asks:`)} ${message}\n`);
  if (params.mode === 'url') {
    write(`  Open this link to continue: ${s.cyan(String((params as { url?: string }).url))}\n`);
    const a = (await q(`  Done? ${s.dim('[Y]es / [n]o to decline / [c]ancel')} `)).trim().toLowerCase();
    return { action: a.startsWith('c') ? 'cancel' : a.startsWith('n') ? 'decline' : 'accept' };
  }
  const a = (await q(`  Answer? ${s.dim('[Y]es / [n]o to decline / [c]ancel')} `)).trim().toLowerCase();
  if (a.startsWith('c')) return { action: 'cancel' };
  if (a.startsWith('n')) return { action: 'decline' };
  const schema = (params as { requestedSchema?: { properties?: Record<string, Field>; required?: string[] } }).requestedSchema ?? {};
  const required = new Set(schema.required ?? []);
  const content: Record<string, unknown> = {};
  for (const [name, f] of Object.entries(schema.properties ?? {})) {
    const opts = choices(f);
    opts?.forEach((o, i) => void write(`    ${s.dim(`${i + 1})`)} ${o.label}\n`));
    const hint = [f.description, f.format].filter(Boolean).join(', ');
    const dflt = f.default !== undefined ? s.dim(` [${String(f.default)}]`) : '';
    const label = `  ${s.bold(f.title ?? name)}${required.has(name) ? s.red('*') : ''}${hint ? s.dim(` (${hint})`) : ''}${dflt}: `;
    for (;;) {
      const raw = (await q(label)).trim();
      if (raw === '') {
        if (!required.has(name) || f.default !== undefined) break; // defaults are applied by the client
        write(`    ${s.red('required')}\n`);
        continue;
      }
      const c = convert(f, raw);
      if ('error' in c) {
        write(`    ${s.red(c.error)}\n`);
        continue;
      }
      content[name] = c.value;
      break;
    }
  }
  return { action: 'accept', content: content as ElicitResult['content'] };
}

export function elicitationHandler(status: StatusLine, io: CliIo): ElicitationHandler {
  return async (params: ElicitParams): Promise<ElicitResult> => {
    const s = status.style;
    const message = (params as { message?: string }).message ?? '';
    if (!canAsk(io)) {
      status.print(`${s.yellow('!')} The server asked for input ("${message}") but mcpkit is not running on a terminal: declined.`);
      return { action: 'decline' };
    }
    return ask(status, io, (q) => fillElicitation(params, q, (text) => void io.stderr.write(text), s));
  };
}

export function samplingHandler(status: StatusLine, io: CliIo): SamplingHandler {
  return async (params: CreateMessageParams) => {
    const s = status.style;
    if (!canAsk(io)) {
      status.print(`${s.yellow('!')} The server asked for a model completion (sampling) but mcpkit is not running on a terminal: refused.`);
      throw new McpError(-1, 'User rejected sampling request: mcpkit is not running on a terminal');
    }
    return ask(status, io, async (q) => {
      io.stderr.write(`\n${s.yellow('?')} ${s.bold('The server asks for a model completion')} ${s.dim(`(max ${params.maxTokens} tokens)`)}\n`);
      if (params.systemPrompt) io.stderr.write(`  ${s.dim('system:')} ${params.systemPrompt}\n`);
      for (const m of params.messages) {
        const blocks = Array.isArray(m.content) ? m.content : [m.content];
        const text = blocks.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join(' ');
        io.stderr.write(`  ${s.dim(`${m.role}:`)} ${text}\n`);
      }
      const reply = (await q(`  ${s.bold('Reply as the model')} ${s.dim('(empty to refuse)')}: `)).trim();
      if (reply === '') throw new McpError(-1, 'User rejected sampling request');
      return { role: 'assistant' as const, content: { type: 'text' as const, text: reply }, model: 'mcpkit-cli-user', stopReason: 'endTurn' };
    });
  };
}
