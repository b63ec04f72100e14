// Reading skills from disk for the skills extension: Node-only, so apart from the extension
// itself (mcpkit/server stays runtime-neutral).
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SkillDefinition } from '../extensions/skills/catalog.js';

/**
 * A loader for `skills({ skills })`: every folder under `dir` that holds a SKILL.md is a skill,
 * at the folder's path (`dir/acme/refunds/SKILL.md` → `skill://acme/refunds/SKILL.md`), with every
 * file under it, nested skills' files included. Hidden entries (`.git`) and symbolic links are
 * left out, so nothing outside `dir` is served. Read once, at the first request that needs it.
 */
export function skillDirectory(dir: string): () => Promise<SkillDefinition[]> {
  return async () => {
    const found = await readSkillFolders(dir);
    if (found.length === 0) throw new Error(`No skills in ${dir}: expected folders with a SKILL.md`);
    return found;
  };
}

/** The skills under `dir` as {@link skillDirectory} reads them, unchecked; none is an empty list. */
export async function readSkillFolders(dir: string): Promise<SkillDefinition[]> {
  const found: SkillDefinition[] = [];
  const walk = async (rel: string[]): Promise<Array<[string[], Uint8Array]>> => {
    const here = join(dir, ...rel);
    const entries = (await readdir(here, { withFileTypes: true })).filter((e) => !e.name.startsWith('.'));
    const files: Array<[string[], Uint8Array]> = [];
    for (const e of entries) {
      if (e.isDirectory()) files.push(...(await walk([...rel, e.name])));
      else if (e.isFile()) files.push([[...rel, e.name], await readFile(join(here, e.name))]);
    }
    if (entries.some((e) => e.isFile() && e.name === 'SKILL.md')) {
      const own: Record<string, Uint8Array> = {};
      for (const [path, bytes] of files) own[path.slice(rel.length).join('/')] = new Uint8Array(bytes);
      found.push(rel.length === 0 ? { files: own } : { path: rel.join('/'), files: own });
    }
    return files;
  };
  await walk([]);
  return found;
}
