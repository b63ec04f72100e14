// mcpkit skills TARGET, mcpkit skill TARGET URI: a server's skills (SEP-2640), and one skill's
// SKILL.md, verified against its entry (digest, size, frontmatter) before it is printed.
import { getSkill, listSkills, readSkillFile, SkillVerificationError } from '../../client/skills.js';
import { CommandError, flag } from '../args.js';
import { CLIENT_HELP } from '../connection.js';
import type { Connection } from '../connection.js';
import type { ClientCommand } from '../run-client.js';

const EXT = 'io.modelcontextprotocol/skills';

function requireSkills(conn: Connection): void {
  if (!conn.client.serverCapabilities?.extensions?.[EXT]) throw new CommandError(`the server does not declare the skills extension (${EXT})`);
}

export const skillsCommand: ClientCommand = {
  name: 'skills',
  minArgs: 1,
  maxArgs: 1,
  usage: `Usage: mcpkit skills TARGET [options]

Lists the server's skills (skills/list): name, description, URI and file count. Reads no file.

${CLIENT_HELP}`,
  async run(conn, _args, values) {
    requireSkills(conn);
    const skills = await listSkills(conn.client);
    if (flag(values, 'json')) {
      conn.io.stdout.write(`${JSON.stringify(skills, null, 2)}\n`);
      return 0;
    }
    if (skills.length === 0) conn.io.stdout.write('(no skills listed)\n');
    for (const s of skills) {
      const files = s.resources === 'dynamic' ? 'dynamic' : `${s.resources.length} file${s.resources.length === 1 ? '' : 's'}`;
      conn.io.stdout.write(`${String(s.frontmatter.name)}  ${s.uri}  (${files})\n  ${String(s.frontmatter.description).trim()}\n`);
    }
    return 0;
  },
};

export const skillCommand: ClientCommand = {
  name: 'skill',
  minArgs: 2,
  maxArgs: 2,
  usage: `Usage: mcpkit skill TARGET URI [options]

Gets one skill (skills/get; URI is its SKILL.md) and prints its SKILL.md, after checking it
against the entry: size, sha256 digest and frontmatter. A mismatch is an error and prints nothing.
--json prints the entry instead. Supporting files are read with mcpkit read.

${CLIENT_HELP}`,
  async run(conn, [uri], values) {
    requireSkills(conn);
    const skill = await getSkill(conn.client, uri);
    if (flag(values, 'json')) {
      conn.io.stdout.write(`${JSON.stringify(skill, null, 2)}\n`);
      return 0;
    }
    try {
      const md = await readSkillFile(conn.client, skill);
      conn.io.stdout.write(md.text ?? new TextDecoder().decode(md.bytes));
    } catch (e) {
      if (e instanceof SkillVerificationError) throw new CommandError(`not using the skill: ${e.message}`);
      throw e;
    }
    return 0;
  },
};
