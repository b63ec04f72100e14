// Human-readable output of lists and results (stdout). --json bypasses all of this.
import { isDeepStrictEqual } from 'node:util';
import type { ContentBlock, Prompt, Resource, ResourceContents, ResourceTemplate, Tool } from '../protocol/types.js';
import type { CallToolResult, GetPromptResult, ReadResourceResult } from '../protocol/params.js';
import { out as s } from './term.js';

type Schema = {
  type?: string | string[];
  description?: string;
  default?: unknown;
  enum?: unknown[];
  const?: unknown;
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  minimum?: number;
  maximum?: number;
  format?: string;
};

/** A parameter's type in a few words: `string`, `integer 1..100`, `"a" | "b"`, `array of string`. */
export function typeOf(p: Schema): string {
  if (p.enum) return p.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (p.const !== undefined) return JSON.stringify(p.const);
  const alts = p.anyOf ?? p.oneOf;
  if (alts) return alts.map(typeOf).join(' | ');
  let t = Array.isArray(p.type) ? p.type.join(' | ') : (p.type ?? 'any');
  if (t === 'array' && p.items) t = `array of ${typeOf(p.items)}`;
  if (p.format) t += ` (${p.format})`;
  if (p.minimum !== undefined || p.maximum !== undefined) t += ` ${p.minimum ?? ''}..${p.maximum ?? ''}`;
  return t;
}

/** One line per parameter of an object schema. */
export function parameterLines(schema: Schema | undefined, indent = '    '): string[] {
  const props = Object.entries(schema?.properties ?? {});
  if (props.length === 0) return [];
  const required = new Set(schema?.required ?? []);
  const width = Math.max(...props.map(([n]) => n.length + (required.has(n) ? 1 : 0)));
  return props.map(([name, p]) => {
    const label = required.has(name) ? `${name}*` : name;
    const extra = [p.description, p.default !== undefined ? `default ${JSON.stringify(p.default)}` : ''].filter(Boolean).join(' · ');
    const shown = required.has(name) ? s.bold(name) + s.red('*') : s.bold(name);
    return `${indent}${shown}${' '.repeat(width - label.length)}  ${s.cyan(typeOf(p))}${extra ? `  ${s.dim(extra)}` : ''}`;
  });
}

function heading(name: string, title: string | undefined): string {
  return `${s.bold(s.green(name))}${title && title !== name ? `  ${title}` : ''}`;
}

/** The description's lines, without a first paragraph that only says the title again. */
function describeLines(text: string | undefined, title?: string): string[] {
  if (!text) return [];
  const [first, ...rest] = text.trim().split(/\n\s*\n/);
  const same = (a: string) => a.trim().replace(/[.!]$/, '').toLowerCase();
  if (title && rest.length > 0 && same(first!) === same(title)) text = rest.join('\n\n');
  return text
    .trim()
    .split('\n')
    .map((l) => `  ${s.dim(l)}`);
}

export function renderTools(tools: Tool[]): string {
  const blocks = tools.map((t) => {
    const title = t.title ?? t.annotations?.title;
    const lines = [heading(t.name, title), ...describeLines(t.description, title !== t.name ? title : undefined)];
    const params = parameterLines(t.inputSchema as Schema);
    if (params.length) lines.push(...params);
    if (t.outputSchema) lines.push(`    ${s.dim('→ structured output')}`);
    return lines.join('\n');
  });
  return `${blocks.join('\n\n')}\n\n${s.dim(count(tools.length, 'tool'))}\n`;
}

export function renderResources(resources: Resource[]): string {
  const blocks = resources.map((r) => {
    const meta = [r.mimeType, r.size !== undefined ? bytes(r.size) : ''].filter(Boolean).join(', ');
    return [`${heading(r.name, r.title)}  ${s.cyan(r.uri)}${meta ? s.dim(`  (${meta})`) : ''}`, ...describeLines(r.description)].join('\n');
  });
  return `${blocks.join('\n')}\n\n${s.dim(count(resources.length, 'resource'))}\n`;
}

export function renderTemplates(templates: ResourceTemplate[]): string {
  const blocks = templates.map((t) =>
    [`${heading(t.name, t.title)}  ${s.cyan(t.uriTemplate)}${t.mimeType ? s.dim(`  (${t.mimeType})`) : ''}`, ...describeLines(t.description)].join('\n'),
  );
  return `${blocks.join('\n')}\n\n${s.dim(count(templates.length, 'resource template'))}\n`;
}

export function renderPrompts(prompts: Prompt[]): string {
  const blocks = prompts.map((p) => {
    const lines = [heading(p.name, p.title), ...describeLines(p.description)];
    const args = p.arguments ?? [];
    const width = Math.max(0, ...args.map((a) => a.name.length + (a.required ? 1 : 0)));
    for (const a of args) {
      const label = a.required ? `${a.name}*` : a.name;
      const shown = a.required ? s.bold(a.name) + s.red('*') : s.bold(a.name);
      lines.push(`    ${shown}${' '.repeat(width - label.length)}  ${s.dim(a.description ?? '')}`.trimEnd());
    }
    return lines.join('\n');
  });
  return `${blocks.join('\n\n')}\n\n${s.dim(count(prompts.length, 'prompt'))}\n`;
}

function count(n: number, what: string): string {
  return n === 0 ? `no ${what}s` : `${n} ${what}${n === 1 ? '' : 's'}`;
}

function bytes(n: number): string {
  return n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} kB` : `${(n / 1024 / 1024).toFixed(1)} MB`;
}

function base64Size(data: string): number {
  return Math.floor((data.length * 3) / 4) - (data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0);
}

function contents(c: ResourceContents): string {
  if ('text' in c && typeof c.text === 'string') return c.text;
  const blob = (c as { blob?: string }).blob ?? '';
  return s.dim(`[binary ${c.mimeType ?? 'data'}, ${bytes(base64Size(blob))}]`);
}

export function renderContent(blocks: ContentBlock[]): string {
  return blocks
    .map((b) => {
      switch (b.type) {
        case 'text':
          return b.text;
        case 'image':
        case 'audio':
          return s.dim(`[${b.type} ${b.mimeType}, ${bytes(base64Size(b.data))}]`);
        case 'resource_link':
          return `${s.dim('[link]')} ${b.name} ${s.cyan(b.uri)}`;
        case 'resource':
          return `${s.dim(`[resource ${b.resource.uri}]`)}\n${contents(b.resource)}`;
        default:
          return s.dim(`[${(b as { type: string }).type}]`);
      }
    })
    .join('\n');
}

/** A tool result: its content, then structured content unless the text already is exactly it. */
export function renderCallResult(r: CallToolResult): string {
  const content = r.content ?? [];
  const structured = r.structuredContent;
  if (structured !== undefined) {
    const only = content.length === 1 && content[0].type === 'text' ? parse(content[0].text) : undefined;
    if (content.length === 0 || isDeepStrictEqual(only, structured)) return `${JSON.stringify(structured, null, 2)}\n`;
    return `${renderContent(content)}\n${s.dim('structuredContent:')}\n${JSON.stringify(structured, null, 2)}\n`;
  }
  const text = renderContent(content);
  return text === '' ? s.dim('(no content)\n') : `${text}\n`;
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export function renderRead(r: ReadResourceResult): string {
  return r.contents
    .map((c) => (r.contents.length > 1 ? `${s.dim(`── ${c.uri}${c.mimeType ? ` (${c.mimeType})` : ''}`)}\n${contents(c)}` : contents(c)))
    .join('\n')
    .concat('\n');
}

export function renderPrompt(r: GetPromptResult): string {
  const lines: string[] = [];
  if (r.description) lines.push(s.dim(r.description), '');
  for (const m of r.messages) {
    lines.push(`${s.bold(s.magenta(`${m.role}:`))}`);
    lines.push(renderContent([m.content as ContentBlock]).replace(/^/gm, '  '));
  }
  return `${lines.join('\n')}\n`;
}
