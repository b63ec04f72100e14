// `serve --skills DIR`: the folder is read and every skill checked at start, so that one bad
// folder is reported once, in one line, instead of failing every request (the extension reads
// a loader lazily and fails all of its requests on a single bad skill).
import { statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { McpServer } from '../server/mcp-server.js';
import { skills } from '../extensions/skills/extension.js';
import { parseFrontmatter, parseSkill, type SkillDefinition } from '../extensions/skills/catalog.js';
import { readSkillFolders } from '../serving/skills-dir.js';
import { UsageError } from './args.js';
import type { StatusLine } from './term.js';

/** A server with nothing but the skills in `dir` that pass the checks; what was left out is said. */
export async function skillsServer(dir: string, status: StatusLine): Promise<McpServer> {
  let isDir = false;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    // Reported below, as for a file.
  }
  if (!isDir) throw new UsageError(`serve --skills: ${dir} is not a directory`);
  const good: SkillDefinition[] = [];
  const s = status.style;
  const found = await readSkillFolders(dir);
  for (const def of found) {
    const where = join(dir, def.path ?? '');
    try {
      parseSkill(def, parseFrontmatter, (m) => status.print(`${s.yellow('!')} ${m}`));
      good.push(def);
    } catch (err) {
      // parseSkill's message starts "Skill <path>: ": the folder says where it is.
      const why = (err as Error).message.replace(/^Skill [^:]*: /, '');
      status.print(`${s.yellow('!')} skill ${where} left out: ${why}`);
    }
  }
  const n = good.length;
  const left = found.length - n;
  status.print(
    found.length === 0
      ? `mcpkit: serving 0 skills from ${dir}: no folder in it has a SKILL.md`
      : `mcpkit: serving ${n} skill${n === 1 ? '' : 's'} from ${dir}${left > 0 ? ` (${left} left out, above)` : ''}`,
  );
  return new McpServer({ name: basename(dir) || 'skills', version: '0.1.0', extensions: [skills({ skills: good })] });
}
