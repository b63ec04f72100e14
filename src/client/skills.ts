import type { JsonObject } from '../jsonrpc/messages.js';
import { base64ToBytes, utf8Bytes } from '../protocol/encoding.js';
import type { ReadResourceResult } from '../protocol/params.js';
import type { RequestOptions } from '../engine/peer.js';
import { frontmatterBlock, parseYamlMapping } from '../extensions/skills/yaml.js';

export const SKILLS_EXTENSION_ID = 'io.modelcontextprotocol/skills';

/** A skill as `skills/list` and `skills/get` describe it (SEP-2640). */
export interface SkillInfo {
  uri: string;
  frontmatter: Record<string, unknown>;
  /** Every file with its digest and size, or `"dynamic"` (content that cannot be verified). */
  resources: Array<{ uri: string; digest: string; size: number }> | 'dynamic';
}

/** What the skill helpers need of a client (an `McpClient`). */
export interface SkillsClient {
  request(method: string, params?: JsonObject, options?: RequestOptions): Promise<JsonObject>;
}

/** A skill file that does not match its entry: not to be used. */
export class SkillVerificationError extends Error {
  override name = 'SkillVerificationError';
  constructor(
    message: string,
    readonly uri: string,
    readonly reason: 'unlisted' | 'size' | 'digest' | 'frontmatter' | 'dynamic' | 'malformed',
  ) {
    super(message);
  }
}

/** A verified skill file. */
export interface SkillFileContent {
  uri: string;
  bytes: Uint8Array;
  /** The content as text, when the server sent text. */
  text: string | undefined;
  mimeType: string | undefined;
}

/** Every skill the server lists (all pages). An empty list does not mean the server has none. */
export async function listSkills(client: SkillsClient, options?: RequestOptions): Promise<SkillInfo[]> {
  const out: SkillInfo[] = [];
  let cursor: string | undefined;
  const seen = new Set<string>();
  do {
    const r = await client.request('skills/list', cursor === undefined ? {} : { cursor }, options);
    for (const s of (r.skills as unknown[] | undefined) ?? []) out.push(checkEntry(s));
    cursor = typeof r.nextCursor === 'string' && r.nextCursor !== '' ? r.nextCursor : undefined;
    if (cursor !== undefined && seen.has(cursor)) throw new Error('skills/list: the server repeated a cursor');
    if (cursor !== undefined) seen.add(cursor);
  } while (cursor !== undefined);
  return out;
}

/** One skill's current entry by the URI of its SKILL.md (listed or not). */
export async function getSkill(client: SkillsClient, uri: string, options?: RequestOptions): Promise<SkillInfo> {
  const r = await client.request('skills/get', { uri }, options);
  return checkEntry(r.skill);
}

export interface ReadSkillFileOptions extends RequestOptions {
  /** Read a file of a `"dynamic"` skill (no verification possible). Default false: refused. */
  allowDynamic?: boolean;
  /** Reads SKILL.md frontmatter for the comparison; default: the YAML subset the server side uses. */
  parseFrontmatter?: (yaml: string) => Record<string, unknown>;
}

/**
 * Reads one file of `skill` (its SKILL.md, or a supporting file when the model asks for it:
 * never ahead of need) and verifies it before anyone uses it: listed in the entry, the size, the
 * sha256 digest, and for SKILL.md the frontmatter field by field. The first mismatch throws a
 * `SkillVerificationError`; nothing unverified is returned.
 */
export async function readSkillFile(
  client: SkillsClient,
  skill: SkillInfo,
  uri: string = skill.uri,
  options: ReadSkillFileOptions = {},
): Promise<SkillFileContent> {
  const { allowDynamic, parseFrontmatter, ...requestOptions } = options;
  let listed: { digest: string; size: number } | undefined;
  if (skill.resources === 'dynamic') {
    if (!allowDynamic)
      throw new SkillVerificationError(`${skill.uri} is a dynamic skill: its files cannot be verified (allowDynamic to read them anyway)`, uri, 'dynamic');
  } else {
    listed = skill.resources.find((r) => r.uri === uri);
    if (!listed) throw new SkillVerificationError(`${uri} is not a file of the skill ${skill.uri}: refresh the entry (skills/get) first`, uri, 'unlisted');
  }
  const r = (await client.request('resources/read', { uri }, requestOptions)) as unknown as ReadResourceResult;
  const content = r.contents?.find((c) => c.uri === uri) ?? r.contents?.[0];
  if (!content) throw new SkillVerificationError(`${uri}: resources/read returned no contents`, uri, 'malformed');
  const text = 'text' in content && typeof content.text === 'string' ? content.text : undefined;
  const bytes = text !== undefined ? utf8Bytes(text) : 'blob' in content && typeof content.blob === 'string' ? base64ToBytes(content.blob) : undefined;
  if (!bytes) throw new SkillVerificationError(`${uri}: resources/read returned neither text nor base64 blob`, uri, 'malformed');
  if (listed) {
    if (bytes.length !== listed.size) throw new SkillVerificationError(`${uri}: ${bytes.length} bytes, but the skill entry says ${listed.size}`, uri, 'size');
    const digest = await sha256(bytes);
    if (digest !== listed.digest) throw new SkillVerificationError(`${uri}: digest ${digest} does not match the skill entry's ${listed.digest}`, uri, 'digest');
  }
  if (uri === skill.uri) {
    const block = frontmatterBlock(text ?? new TextDecoder().decode(bytes));
    let parsed: Record<string, unknown>;
    try {
      if (block === undefined) throw new Error('no frontmatter');
      parsed = (parseFrontmatter ?? parseYamlMapping)(block);
    } catch (e) {
      throw new SkillVerificationError(`${uri}: the SKILL.md frontmatter cannot be read (${(e as Error).message})`, uri, 'frontmatter');
    }
    for (const key of new Set([...Object.keys(parsed), ...Object.keys(skill.frontmatter)])) {
      if (!sameJson(parsed[key], skill.frontmatter[key]))
        throw new SkillVerificationError(`${uri}: frontmatter "${key}" differs from the skill entry's`, uri, 'frontmatter');
    }
  }
  return { uri, bytes, text, mimeType: content.mimeType };
}

function checkEntry(value: unknown): SkillInfo {
  const e = value as Partial<SkillInfo> | undefined;
  const uri = typeof e?.uri === 'string' ? e.uri : undefined;
  if (!uri) throw new SkillVerificationError('A skill entry without a "uri"', '', 'malformed');
  const fm = e?.frontmatter;
  if (!fm || typeof fm !== 'object' || Array.isArray(fm)) throw new SkillVerificationError(`${uri}: the entry has no "frontmatter" object`, uri, 'malformed');
  const res = e?.resources;
  const ok =
    res === 'dynamic' ||
    (Array.isArray(res) &&
      res.every(
        (r) => typeof r?.uri === 'string' && typeof r.digest === 'string' && /^sha256:[0-9a-f]{64}$/.test(r.digest) && Number.isInteger(r.size) && r.size >= 0,
      ));
  // Hosts must not load an entry whose resources are neither a valid list nor "dynamic".
  if (!ok) throw new SkillVerificationError(`${uri}: "resources" is neither a list of {uri, digest, size} nor "dynamic"`, uri, 'malformed');
  return e as SkillInfo;
}

async function sha256(bytes: Uint8Array): Promise<string> {
  const d = new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
  let hex = '';
  for (const b of d) hex += b.toString(16).padStart(2, '0');
  return `sha256:${hex}`;
}

function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || a === null || b === null) return (a ?? null) === (b ?? null);
  if (typeof a !== 'object' || typeof b !== 'object' || Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a as object);
  const kb = Object.keys(b as object);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.hasOwn(b as object, k) && sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}
