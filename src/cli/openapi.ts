// `mcpkit serve --openapi SPEC`: the options that turn a REST API's OpenAPI spec into a server
// whose tools call it (the library behind it: gateway/openapi).
import { resolve } from 'node:path';
import type { OpenApiAuth } from '../gateway/openapi/auth.js';
import { OpenApiError } from '../gateway/openapi/errors.js';
import { loadSpec } from '../gateway/openapi/load.js';
import { addOpenApiTools, type OpenApiToolsOptions } from '../gateway/openapi/tools.js';
import { McpServer } from '../server/mcp-server.js';
import { CommandError, flag, int, parseHeader, str, strs, UsageError, type OptionSpecs, type parse } from './args.js';
import type { CliIo } from './io.js';

export const OPENAPI_OPTIONS: OptionSpecs = {
  openapi: { type: 'string' },
  'base-url': { type: 'string' },
  'openapi-include': { type: 'string', multiple: true },
  'openapi-exclude': { type: 'string', multiple: true },
  'openapi-method': { type: 'string', multiple: true },
  'openapi-path': { type: 'string' },
  'openapi-tag': { type: 'string', multiple: true },
  'openapi-mode': { type: 'string' },
  'openapi-max-tools': { type: 'string' },
  'openapi-header': { type: 'string', multiple: true },
  'openapi-bearer-env': { type: 'string' },
  'openapi-token-url': { type: 'string' },
  'openapi-client-id': { type: 'string' },
  'openapi-client-secret-env': { type: 'string' },
  'openapi-scope': { type: 'string', multiple: true },
  'openapi-pass-token': { type: 'boolean' },
  'openapi-timeout': { type: 'string' },
  'openapi-max-response': { type: 'string' },
  'openapi-max-redirects': { type: 'string' },
  'openapi-cross-origin-redirects': { type: 'string' },
};

export const OPENAPI_HELP = `REST API as tools (--openapi):
  --openapi SPEC           serve the operations of an OpenAPI 3.0/3.1 or Swagger 2.0 spec (JSON or
                           YAML file, or URL) as tools that call the API
  --base-url URL           the API's address (default: the spec's first server)
  --openapi-include ID     only this operation (operationId or tool name; repeatable)
  --openapi-exclude ID     leave this operation out (repeatable)
  --openapi-method M       only these HTTP methods (repeatable, or GET,POST)
  --openapi-path REGEX     only paths matching REGEX
  --openapi-tag TAG        only operations with this tag (repeatable)
  --openapi-mode MODE      tools (one per operation), endpoints (list_endpoints + call_endpoint),
                           or auto (default: endpoints above --openapi-max-tools, default 100)
  --openapi-header H       send "Name: value" on every call; a value "$VAR" is read from the
                           environment variable VAR (repeatable)
  --openapi-bearer-env VAR send Authorization: Bearer with the token in environment variable VAR
  --openapi-token-url URL  OAuth2 client credentials: the token endpoint, with
                           --openapi-client-id ID, --openapi-client-secret-env VAR, --openapi-scope S
  --openapi-pass-token     send the MCP caller's own token on (needs --api-key or OAuth in front)
  --openapi-timeout SECS   per call (default 30)
  --openapi-max-response N bytes of an answer kept (default 1048576)
  --openapi-max-redirects N
                           redirects followed per call (default 5; 0: none)
  --openapi-cross-origin-redirects MODE
                           a redirect to another origin: refuse (default: the call fails
                           naming it), or anonymous (followed with no credentials)
`;

type Values = ReturnType<typeof parse>['values'];

/** Whether the command line asks for an OpenAPI server; refuses --openapi-* options without --openapi. */
export function wantsOpenApi(values: Values): boolean {
  if (str(values, 'openapi') !== undefined) return true;
  const stray = Object.keys(values).filter((k) => (k.startsWith('openapi-') || k === 'base-url') && values[k] !== undefined);
  if (stray.length > 0) throw new UsageError(`serve: --${stray[0]} needs --openapi SPEC`);
  return false;
}

/** The server `serve --openapi` serves; its messages go to stderr. */
export async function openApiServer(values: Values, io: CliIo): Promise<McpServer> {
  const spec = str(values, 'openapi')!;
  const env = io.env;
  const options: OpenApiToolsOptions = {
    cwd: io.cwd,
    env,
    baseUrl: str(values, 'base-url'),
    filter: {
      include: strs(values, 'openapi-include'),
      exclude: strs(values, 'openapi-exclude'),
      methods: strs(values, 'openapi-method')
        .flatMap((m) => m.split(','))
        .filter(Boolean),
      path: str(values, 'openapi-path'),
      tags: strs(values, 'openapi-tag'),
    },
    mode: modeOf(str(values, 'openapi-mode')),
    maxTools: int(values, 'openapi-max-tools', 100, 1, 100_000),
    timeoutMs: int(values, 'openapi-timeout', 30, 1, 86_400) * 1000,
    maxResponseBytes: int(values, 'openapi-max-response', 1024 * 1024, 1, 1024 ** 3),
    maxRedirects: int(values, 'openapi-max-redirects', 5, 0, 20),
    crossOriginRedirects: crossOriginOf(str(values, 'openapi-cross-origin-redirects')),
    auth: authOf(values, env),
  };
  try {
    const loaded = await loadSpec(spec, { cwd: io.cwd });
    const info = loaded.document.info as { title?: unknown; version?: unknown } | undefined;
    const server = new McpServer({
      name: serverName(typeof info?.title === 'string' ? info.title : ''),
      version: typeof info?.version === 'string' ? info.version : '0.0.0',
    });
    const served = await addOpenApiTools(server, loaded, options);
    const n = served.mode === 'tools' ? served.tools.length : served.operations.length;
    const what = served.mode === 'tools' ? `${n} tool${n === 1 ? '' : 's'}` : `${n} endpoint${n === 1 ? '' : 's'} behind list_endpoints and call_endpoint`;
    io.stderr.write(`mcpkit: ${served.title} (${served.version}): ${what}\n`);
    return server;
  } catch (err) {
    if (err instanceof OpenApiError) throw new CommandError(`serve --openapi: ${err.message}`, { cause: err });
    throw err;
  }
}

function modeOf(mode: string | undefined): OpenApiToolsOptions['mode'] {
  if (mode === undefined || mode === 'auto' || mode === 'tools' || mode === 'endpoints') return mode;
  throw new UsageError(`serve: --openapi-mode is tools, endpoints or auto (got "${mode}")`);
}

function crossOriginOf(mode: string | undefined): OpenApiToolsOptions['crossOriginRedirects'] {
  if (mode === undefined || mode === 'refuse' || mode === 'anonymous') return mode;
  throw new UsageError(`serve: --openapi-cross-origin-redirects is refuse or anonymous (got "${mode}")`);
}

function authOf(values: Values, env: NodeJS.ProcessEnv): OpenApiAuth[] {
  const auth: OpenApiAuth[] = [];
  for (const raw of strs(values, 'openapi-header')) {
    const [name, value] = parseHeader(raw);
    if (value.startsWith('$')) {
      const v = env[value.slice(1)];
      if (v === undefined) throw new UsageError(`serve: --openapi-header ${name}: the environment variable ${value.slice(1)} is not set`);
      auth.push({ type: 'header', name, value: v });
    } else auth.push({ type: 'header', name, value });
  }
  const bearer = str(values, 'openapi-bearer-env');
  if (bearer !== undefined) auth.push({ type: 'bearer', env: bearer });
  const tokenUrl = str(values, 'openapi-token-url');
  if (tokenUrl !== undefined) {
    const clientId = str(values, 'openapi-client-id');
    const secretVar = str(values, 'openapi-client-secret-env');
    if (!clientId || !secretVar) throw new UsageError('serve: --openapi-token-url needs --openapi-client-id and --openapi-client-secret-env VAR');
    const clientSecret = env[secretVar];
    if (!clientSecret) throw new UsageError(`serve: the environment variable ${secretVar} (--openapi-client-secret-env) is not set`);
    auth.push({ type: 'clientCredentials', tokenUrl, clientId, clientSecret, scopes: strs(values, 'openapi-scope') });
  }
  if (flag(values, 'openapi-pass-token')) auth.push({ type: 'passThrough' });
  return auth;
}

/** A server name from the API's title: `Swagger Petstore` → `swagger-petstore`. */
function serverName(title: string): string {
  return (
    title
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || 'openapi'
  );
}

/** `serve --openapi` arguments as a host runs them over stdio from any directory: the spec path made absolute. */
export function openApiStdioArgs(argv: string[], cwd: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--stdio') continue;
    const spec = a === '--openapi' ? argv[++i] : a.startsWith('--openapi=') ? a.slice('--openapi='.length) : undefined;
    if (spec === undefined) out.push(a);
    else out.push('--openapi', /^https?:\/\//i.test(spec) ? spec : resolve(cwd, spec));
  }
  return ['serve', '--stdio', ...out];
}
