// Where `mcpkit install --api-key` puts the key, host by host. A host's MCP file is often shared:
// VS Code's .vscode/mcp.json and Claude Code's .mcp.json live in the project and are committed
// with it. So the key goes into a file only where the host offers nothing better: VS Code prompts
// for it (an `inputs` entry, kept in its secret storage), and Cursor, Claude Code and VS Code can
// read it from an environment variable instead (--api-key-env). Where it is written as is, the
// user is told so, and where.
import { UsageError } from './args.js';
import type { Host } from './host-config.js';

/** A VS Code input variable: the host asks the user for its value and keeps it. */
export interface HostInput {
  type: 'promptString';
  id: string;
  description: string;
  password: true;
}

export interface ApiKeyPlan {
  /** The Authorization header's value as written in the file. */
  header: string;
  /** Input variables the file must declare (VS Code). */
  inputs: HostInput[];
  /** Whether the key itself is in the file (then the user is warned, and a new file is made private). */
  plaintext: boolean;
  /** What to tell the user, after writing. */
  note: string;
}

/** How the host reads a variable in its config, or undefined when it does not. */
const ENV_REFERENCE: Partial<Record<Host, (name: string) => string>> = {
  vscode: (v) => `\${env:${v}}`,
  cursor: (v) => `\${env:${v}}`,
  'claude-code': (v) => `\${${v}}`,
};

const LABEL: Record<Host, string> = { claude: 'Claude Desktop', cursor: 'Cursor', vscode: 'VS Code', 'claude-code': 'Claude Code', 'mcp-json': 'the host' };

export interface PlanPlace {
  /** The file written; undefined when the entry is only printed. */
  file: string | undefined;
  /** The file belongs to the project (and is likely committed), not to the user. */
  shared: boolean;
}

/** The header for `--api-key KEY` (`key`) or `--api-key-env VAR` (`envVar`) on `host`, for the server `name`. */
export function apiKeyPlan(host: Host, name: string, given: { key?: string; envVar?: string }, place: PlanPlace): ApiKeyPlan {
  if (given.envVar !== undefined) {
    const ref = ENV_REFERENCE[host];
    if (!ref) {
      throw new UsageError(
        `install: --api-key-env: ${host === 'claude' ? 'Claude Desktop does not read environment variables in its config' : 'which host reads this entry is not known'}; the hosts that do are ${Object.keys(ENV_REFERENCE).join(', ')} (or give the key with --api-key)`,
      );
    }
    return {
      header: `Bearer ${ref(given.envVar)}`,
      inputs: [],
      plaintext: false,
      note: `${LABEL[host]} reads the API key from the environment variable ${given.envVar} (set it where ${LABEL[host]} starts); it is not in the file.`,
    };
  }
  const key = given.key ?? '';
  if (host === 'vscode') {
    const id = `${name.replace(/[^A-Za-z0-9_-]+/g, '-')}-api-key`;
    return {
      header: `Bearer \${input:${id}}`,
      inputs: [{ type: 'promptString', id, description: `API key for the MCP server "${name}"`, password: true }],
      plaintext: false,
      note: `VS Code asks for the API key the first time it starts "${name}" and keeps it in its secret storage; the key is not written to the file.`,
    };
  }
  const parts = [`! The API key is written in plain text in ${place.file ?? 'the entry printed'}`];
  if (place.shared) parts.push(', a project file that is often committed: keep it out of version control');
  if (host === 'claude') parts.push(', and is on the command line of the bridge Claude Desktop starts (others on this machine can see it in the process list)');
  parts.push('.');
  if (ENV_REFERENCE[host]) parts.push(` --api-key-env VAR writes a reference instead, and ${LABEL[host]} reads the key from the environment.`);
  return { header: `Bearer ${key}`, inputs: [], plaintext: true, note: parts.join('') };
}
