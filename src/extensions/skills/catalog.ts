import type { JsonObject } from '../../jsonrpc/messages.js';
import { utf8Bytes } from '../../protocol/encoding.js';
import type { Resource } from '../../protocol/types.js';
import { frontmatterBlock, parseYamlMapping } from './yaml.js';

/** A skill defined in code (or read from a directory by `skillDirectory` in mcpkit/node). */
export interface SkillDefinition {
  /**
   * Where the skill sits in the server's namespace: `git-workflow`, or `acme/billing/refunds`
   * (an organizational prefix before the name). Its last segment must be the frontmatter `name`.
   * Default: the frontmatter `name`.
   */
  path?: string;
  /** The skill's files by path from its root (`/`-separated); `SKILL.md` is required. */
  files: Readonly<Record<string, string | Uint8Array>>;
}

/** One entry of `skills/list` / `skills/get`. */
export interface SkillEntry {
  uri: string;
  frontmatter: JsonObject;
  resources: Array<{ uri: string; digest: string; size: number }>;
}

export interface SkillFile {
  uri: string;
  bytes: Uint8Array;
  mimeType: string;
  /** The content as text when it is UTF-8 (served as `text`; otherwise as `blob`). */
  text: string | undefined;
}

/** What the server serves, computed once: entries, files and directories by URI. */
export interface Catalog {
  entries: SkillEntry[];
  byUri: Map<string, SkillEntry>;
  files: Map<string, SkillFile>;
  /** Directory URI → its direct children as resources/list shows them. */
  dirs: Map<string, Resource[]>;
  /** Every file as a resource, SKILL.md with the frontmatter's name and description. */
  resources: Resource[];
}

export type FrontmatterParser = (yaml: string) => Record<string, unknown>;

/** The Agent Skills naming rule for `name`. */
const NAME = /^(?!.*--)[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;
/** Per-skill limits every conforming host accepts (SEP-2640). */
export const MAX_RESOURCES = 512;
export const MAX_TOTAL_BYTES = 16 * 1024 * 1024;

/** A definition checked and parsed: everything but the digests, which need an asynchronous hash. */
export interface ParsedSkill {
  path: string;
  frontmatter: JsonObject;
  files: Array<{ path: string; bytes: Uint8Array }>;
}

/** Checks a definition; throws a TypeError that names the skill and the problem. */
export function parseSkill(def: SkillDefinition, parse: FrontmatterParser, warn: (m: string) => void): ParsedSkill {
  const label = def.path ?? '(skill)';
  if (!def || typeof def.files !== 'object' || def.files === null) throw new TypeError(`Skill ${label}: "files" (an object of path → content) is required`);
  const md = def.files['SKILL.md'];
  if (md === undefined) throw new TypeError(`Skill ${label}: it has no SKILL.md`);
  const text = typeof md === 'string' ? md : new TextDecoder().decode(md);
  const block = frontmatterBlock(text);
  if (block === undefined) throw new TypeError(`Skill ${label}: SKILL.md does not begin with YAML frontmatter between "---" lines`);
  let frontmatter: Record<string, unknown>;
  try {
    frontmatter = parse(block);
  } catch (e) {
    throw new TypeError(`Skill ${label}: SKILL.md frontmatter: ${(e as Error).message}`);
  }
  const name = frontmatter?.name;
  if (typeof name !== 'string' || !NAME.test(name))
    throw new TypeError(`Skill ${label}: frontmatter "name" must be 1-64 lowercase letters, digits and single hyphens (got ${JSON.stringify(name)})`);
  if (typeof frontmatter.description !== 'string' || frontmatter.description === '')
    throw new TypeError(`Skill ${label}: frontmatter "description" is required`);
  const path = def.path ?? name;
  const segments = path.split('/');
  if (segments.some((s) => s === '' || s === '.' || s === '..')) throw new TypeError(`Skill ${label}: a bad path "${path}"`);
  if (segments[segments.length - 1] !== name) throw new TypeError(`Skill ${path}: the last path segment must be the frontmatter name "${name}"`);
  const files: ParsedSkill['files'] = [];
  let total = 0;
  for (const [p, content] of Object.entries(def.files)) {
    if (p.split('/').some((s) => s === '' || s === '.' || s === '..') || p.includes('\\')) throw new TypeError(`Skill ${path}: a bad file path "${p}"`);
    const bytes = typeof content === 'string' ? utf8Bytes(content) : content;
    total += bytes.length;
    files.push({ path: p, bytes });
  }
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  if (files.length > MAX_RESOURCES) warn(`Skill ${path} has ${files.length} files: hosts need only accept ${MAX_RESOURCES}`);
  if (total > MAX_TOTAL_BYTES) warn(`Skill ${path} has ${total} bytes of files: hosts need only accept ${MAX_TOTAL_BYTES}`);
  return { path, frontmatter: frontmatter as JsonObject, files };
}

/** The default frontmatter parser: the YAML subset SKILL.md files use. */
export const parseFrontmatter: FrontmatterParser = parseYamlMapping;

async function sha256(bytes: Uint8Array): Promise<string> {
  const d = new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
  let hex = '';
  for (const b of d) hex += b.toString(16).padStart(2, '0');
  return `sha256:${hex}`;
}

const MIME: Record<string, string> = {
  md: 'text/markdown',
  markdown: 'text/markdown',
  txt: 'text/plain',
  py: 'text/x-python',
  sh: 'text/x-shellscript',
  js: 'text/javascript',
  mjs: 'text/javascript',
  ts: 'text/x-typescript',
  json: 'application/json',
  yaml: 'application/yaml',
  yml: 'application/yaml',
  html: 'text/html',
  css: 'text/css',
  csv: 'text/csv',
  xml: 'application/xml',
  svg: 'image/svg+xml',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  pdf: 'application/pdf',
};

function mimeOf(path: string): string {
  const dot = path.lastIndexOf('.');
  return (dot > path.lastIndexOf('/') && MIME[path.slice(dot + 1).toLowerCase()]) || 'application/octet-stream';
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function asText(bytes: Uint8Array): string | undefined {
  if (bytes.includes(0)) return undefined;
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/**
 * Builds what the server serves. A skill nested in another's directory is a skill of its own and,
 * seen from the enclosing skill, a set of supporting files: both entries list those files.
 */
export async function buildCatalog(skills: ParsedSkill[]): Promise<Catalog> {
  const files = new Map<string, SkillFile>();
  const entries: SkillEntry[] = [];
  const byUri = new Map<string, SkillEntry>();
  for (const s of skills) {
    const root = `skill://${s.path}`;
    const uri = `${root}/SKILL.md`;
    if (byUri.has(uri)) throw new TypeError(`Two skills at ${s.path}`);
    const resources: SkillEntry['resources'] = [];
    for (const f of s.files) {
      const fileUri = `${root}/${f.path}`;
      const known = files.get(fileUri);
      if (known && !sameBytes(known.bytes, f.bytes)) throw new TypeError(`Skill ${s.path}: ${fileUri} differs from the copy another skill serves`);
      if (!known) files.set(fileUri, { uri: fileUri, bytes: f.bytes, mimeType: mimeOf(f.path), text: asText(f.bytes) });
      resources.push({ uri: fileUri, digest: await sha256(f.bytes), size: f.bytes.length });
    }
    const entry = { uri, frontmatter: s.frontmatter, resources };
    entries.push(entry);
    byUri.set(uri, entry);
  }
  // A nested skill's files belong to the enclosing skill too (its resources must be complete).
  for (const outer of entries) {
    const root = outer.uri.slice(0, -'/SKILL.md'.length);
    const listed = new Set(outer.resources.map((r) => r.uri));
    for (const inner of entries) {
      if (inner === outer || !inner.uri.startsWith(`${root}/`)) continue;
      for (const r of inner.resources) {
        if (listed.has(r.uri)) continue;
        listed.add(r.uri);
        outer.resources.push(r);
      }
    }
    outer.resources.sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0));
  }
  entries.sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0));
  const resources: Resource[] = [];
  const dirs = new Map<string, Map<string, Resource>>();
  const child = (dir: string, r: Resource) => {
    let m = dirs.get(dir);
    if (!m) dirs.set(dir, (m = new Map()));
    if (!m.has(r.uri)) m.set(r.uri, r);
  };
  for (const f of [...files.values()].sort((a, b) => (a.uri < b.uri ? -1 : 1))) {
    const entry = byUri.get(f.uri);
    const base = f.uri.slice(f.uri.lastIndexOf('/') + 1);
    const r: Resource = entry
      ? { uri: f.uri, name: String(entry.frontmatter.name), description: String(entry.frontmatter.description), mimeType: f.mimeType, size: f.bytes.length }
      : { uri: f.uri, name: base, mimeType: f.mimeType, size: f.bytes.length };
    resources.push(r);
    // Every directory level between the skill namespace's first segment and the file.
    let path = f.uri;
    let item: Resource = { uri: f.uri, name: base, mimeType: f.mimeType, size: f.bytes.length };
    for (;;) {
      const cut = path.lastIndexOf('/');
      const dir = path.slice(0, cut);
      if (dir.length <= 'skill://'.length) break;
      child(dir, item);
      path = dir;
      item = { uri: dir, name: dir.slice(dir.lastIndexOf('/') + 1), mimeType: DIRECTORY };
    }
  }
  const listing = new Map<string, Resource[]>();
  for (const [dir, m] of dirs) listing.set(dir, [...m.values()]);
  return { entries, byUri, files, dirs: listing, resources };
}

export const DIRECTORY = 'inode/directory';

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, k) => x === b[k]);
}
