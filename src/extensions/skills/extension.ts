import { ErrorCode, McpError } from '../../jsonrpc/errors.js';
import type { JsonObject } from '../../jsonrpc/messages.js';
import { bytesToBase64 } from '../../protocol/encoding.js';
import type { ReadResourceResult } from '../../protocol/params.js';
import type { ServerExtension } from '../../server/extension.js';
import type { RequestContext } from '../../server/context.js';
import { paginate } from '../../server/registry.js';
import { buildCatalog, parseFrontmatter, parseSkill, type Catalog, type FrontmatterParser, type ParsedSkill, type SkillDefinition } from './catalog.js';

export type { SkillDefinition, SkillEntry, FrontmatterParser } from './catalog.js';

export const SKILLS_EXTENSION = 'io.modelcontextprotocol/skills';

export interface SkillsOptions {
  /**
   * The skills to serve: definitions, or a function that loads them (called once, at the first
   * request that needs them). `skillDirectory(dir)` from mcpkit/node reads a folder of skills.
   */
  skills: readonly SkillDefinition[] | (() => readonly SkillDefinition[] | Promise<readonly SkillDefinition[]>);
  /** Serve `resources/directory/read` and declare `directoryRead: true`. Default true. */
  directoryRead?: boolean;
  /** Entries per `skills/list` page (and children per directory page). Default 100. */
  pageSize?: number;
  /** Show every skill file in `resources/list`. Default true (they are readable either way). */
  listResources?: boolean;
  /**
   * Reads a SKILL.md frontmatter block into an object. The default understands the YAML that
   * skills use and refuses the rest (anchors, tags); pass a full parser (`parse` from the `yaml`
   * package) for anything else. Whatever it returns is the entry's `frontmatter`, verbatim.
   */
  parseFrontmatter?: FrontmatterParser;
}

/**
 * The `io.modelcontextprotocol/skills` extension (SEP-2640): skills served as `skill://`
 * resources, `skills/list` and `skills/get` with digests and sizes of every file, and
 * `resources/directory/read`, in both eras. Needs an `McpServer` (the files are resources).
 */
export function skills(options: SkillsOptions): ServerExtension {
  const parse = options.parseFrontmatter ?? parseFrontmatter;
  const pageSize = options.pageSize ?? 100;
  if (!Number.isInteger(pageSize) || pageSize < 1) throw new TypeError('skills: pageSize must be a positive integer');
  const directoryRead = options.directoryRead ?? true;
  const settings: JsonObject = directoryRead ? { directoryRead: true } : {};
  return {
    name: SKILLS_EXTENSION,
    setup(api) {
      const warn = (m: string) => api.onerror(Object.assign(new Error(m), { name: 'McpWarning' }));
      // Definitions given as values fail where they are written; a loader fails its requests.
      const given = typeof options.skills === 'function' ? undefined : options.skills.map((d) => parseSkill(d, parse, warn));
      let catalog: Promise<Catalog> | undefined;
      const load = (): Promise<Catalog> =>
        (catalog ??= (async () => {
          const parsed: ParsedSkill[] = given ?? (await (options.skills as () => Promise<readonly SkillDefinition[]>)()).map((d) => parseSkill(d, parse, warn));
          return buildCatalog(parsed);
        })().catch((e: unknown) => {
          // A loader that failed (a folder being fixed) is tried again by the next request.
          catalog = undefined;
          throw e;
        }));
      const cached = (method: string, ctx: RequestContext, result: JsonObject): JsonObject => {
        if (ctx.era !== 'modern') return result;
        const hint = api.cacheHint(method);
        return { ...result, ttlMs: hint.ttlMs, cacheScope: hint.scope };
      };
      api.setRequestHandler('skills/list', async (params, ctx) => {
        const { page, nextCursor } = paginate((await load()).entries, params?.cursor, pageSize);
        const result: JsonObject =
          nextCursor === undefined ? { skills: page as unknown as JsonObject[] } : { skills: page as unknown as JsonObject[], nextCursor };
        return cached('skills/list', ctx, result);
      });
      api.setRequestHandler('skills/get', async (params, ctx) => {
        const uri = requireUri(params, 'skills/get');
        const entry = (await load()).byUri.get(uri);
        if (!entry) throw new McpError(ErrorCode.InvalidParams, `Unknown skill: ${uri} (skills/get takes the URI of a skill's SKILL.md)`, { uri });
        return cached('skills/get', ctx, { skill: entry as unknown as JsonObject });
      });
      if (directoryRead) api.setRequestHandler('resources/directory/read', (params) => readDirectory(load, params, pageSize));
      return {
        discover: () => settings,
        initialize: () => ({ extensions: { [SKILLS_EXTENSION]: settings } }),
        resources: {
          list: options.listResources === false ? undefined : async () => (await load()).resources,
          read: async (uri) => {
            if (!uri.startsWith('skill://')) return undefined;
            const f = (await load()).files.get(uri);
            if (!f) return undefined;
            const content = f.text === undefined ? { uri, mimeType: f.mimeType, blob: bytesToBase64(f.bytes) } : { uri, mimeType: f.mimeType, text: f.text };
            return { contents: [content] } satisfies ReadResourceResult;
          },
        },
      };
    },
  };
}

async function readDirectory(load: () => Promise<Catalog>, params: JsonObject | undefined, pageSize: number): Promise<JsonObject> {
  const uri = requireUri(params, 'resources/directory/read');
  const children = (await load()).dirs.get(uri.endsWith('/') ? uri.slice(0, -1) : uri);
  if (!children) throw new McpError(ErrorCode.InvalidParams, `Not a directory: ${uri}`, { uri });
  const { page, nextCursor } = paginate(children, params?.cursor, pageSize);
  return nextCursor === undefined ? { resources: page as unknown as JsonObject[] } : { resources: page as unknown as JsonObject[], nextCursor };
}

function requireUri(params: JsonObject | undefined, method: string): string {
  const uri = params?.uri;
  if (typeof uri !== 'string' || uri === '') throw new McpError(ErrorCode.InvalidParams, `Invalid params: ${method} needs "uri" (a string)`);
  return uri;
}
