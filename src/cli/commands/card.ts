// mcpkit card MODULE: the Server Card of a server module, or (--server-json) its server.json for
// the MCP Registry, on stdout; advice about publishing on stderr, so stdout stays a JSON document.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildServerCard, endpointVersions, type CardRepository } from '../../server/card.js';
import { flag, parse, str, UsageError } from '../args.js';
import type { CliIo } from '../io.js';
import { loadServerModule, lowLevel } from '../module.js';
import { buildServerJson } from '../server-json.js';
import { StatusLine } from '../term.js';

const USAGE = `Usage: mcpkit card MODULE [options]

Prints the Server Card of the server a .js or .ts file exports (default export or "server"):
its reverse-DNS name, version, description, title, icons, website and, with --url, its
Streamable HTTP endpoint and protocol versions. With --server-json, prints a server.json for
the MCP Registry (schema 2025-12-11) instead.

Options:
  --name NAME              reverse-DNS name (io.github.you/weather); default the server's name
  --description TEXT       at most 100 characters; default the server's description
  --url URL                the public URL of its Streamable HTTP endpoint (a remote)
  --repository URL         its source repository (github.com and gitlab.com are recognised)
  --server-json            print server.json instead of the card
  --package NAME           (server.json) the npm package that runs it over stdio
  --package-version V      (server.json) that package's version; default the server's version
`;

const FORGES: Record<string, string> = { 'github.com': 'github', 'gitlab.com': 'gitlab' };

function repositoryOf(raw: string): CardRepository {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new UsageError(`card: --repository must be a URL, got "${raw}"`);
  }
  return { url: raw, source: FORGES[u.hostname.toLowerCase()] ?? u.hostname.toLowerCase() };
}

/** The package.json beside the command, when it is the package being published. */
function localPackage(cwd: string, name: string): { mcpName?: unknown } | undefined {
  const file = join(cwd, 'package.json');
  if (!existsSync(file)) return undefined;
  try {
    const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown; mcpName?: unknown };
    return pkg.name === name ? pkg : undefined;
  } catch {
    return undefined;
  }
}

export async function cardCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse('card', argv, {
    name: { type: 'string' },
    description: { type: 'string' },
    url: { type: 'string' },
    repository: { type: 'string' },
    'server-json': { type: 'boolean' },
    package: { type: 'string' },
    'package-version': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (flag(values, 'help')) {
    io.stdout.write(USAGE);
    return 0;
  }
  if (positionals.length !== 1) throw new UsageError('card: needs one MODULE (a .js or .ts file exporting the server); see mcpkit card --help');
  const serverJson = flag(values, 'server-json');
  const pkg = str(values, 'package');
  if (!serverJson && (pkg !== undefined || str(values, 'package-version') !== undefined))
    throw new UsageError('card: --package and --package-version describe a server.json; add --server-json');
  const url = str(values, 'url');
  if (url !== undefined && !/^https?:\/\/[^\s]+$/.test(url)) throw new UsageError(`card: --url must be an http(s) URL, got "${url}"`);
  const raw = str(values, 'repository');
  const repository = raw === undefined ? undefined : repositoryOf(raw);
  const server = lowLevel(await loadServerModule(positionals[0], io.cwd, 'card'));
  const o = { name: str(values, 'name'), description: str(values, 'description'), repository };
  let doc: object;
  try {
    if (serverJson) doc = buildServerJson(server, { ...o, url, npmPackage: pkg, packageVersion: str(values, 'package-version') });
    else
      doc = buildServerCard(
        server,
        o,
        url === undefined ? [] : [{ type: 'streamable-http', url, supportedProtocolVersions: endpointVersions(server, 'streamable-http') }],
      );
  } catch (err) {
    if (err instanceof TypeError) throw new UsageError(`card: ${err.message.replace(/^server card: /, '')} (see --name, --description)`);
    throw err;
  }
  io.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
  if (serverJson) publishAdvice(io, (doc as { name: string }).name, pkg, url);
  return 0;
}

/** What the registry checks beyond the schema: npm ownership through `mcpName`. */
function publishAdvice(io: CliIo, name: string, pkg: string | undefined, url: string | undefined): void {
  const status = new StatusLine(io.stderr, io.env);
  const s = status.style;
  if (pkg === undefined && url === undefined)
    status.print(s.yellow('! This server.json has neither packages nor remotes: add --package NAME (npm, stdio) or --url URL.'));
  if (pkg === undefined) return;
  const local = localPackage(io.cwd, pkg);
  if (local !== undefined && local.mcpName === name) {
    status.print(s.dim(`package.json of ${pkg} carries "mcpName": "${name}", as the registry requires.`));
    return;
  }
  const now = local === undefined ? '' : local.mcpName === undefined ? ' (the one here has none)' : ` (the one here has ${JSON.stringify(local.mcpName)})`;
  status.print(s.yellow(`! The registry checks npm ownership: the package.json of ${pkg} must carry "mcpName": "${name}"${now}, in the version you publish.`));
}
