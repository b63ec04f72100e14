// REST APIs as tools: `addOpenApiTools(server, spec)` registers each operation of an OpenAPI
// document as a tool of an McpServer (or, for a large API, two tools that search and call its
// endpoints). Calls go to the API over HTTP with the configured credentials.
import { systemClock, type Clock } from '../../engine/clock.js';
import type { ToolAnnotations } from '../../protocol/types.js';
import type { McpServer } from '../../server/mcp-server.js';
import { authApplier, type OpenApiAuth } from './auth.js';
import { OperationCaller } from './caller.js';
import { registerEndpointTools } from './endpoints.js';
import { OpenApiError } from './errors.js';
import { filterOperations, type OperationFilter } from './filter.js';
import { loadSpec, type LoadedSpec, type LoadSpecOptions, type OpenApiDocument } from './load.js';
import { parseOperations, type OpenApiOperation } from './operations.js';
import type { CrossOriginRedirects } from './redirects.js';
import type { SchemaOptions } from './schema.js';

export interface OpenApiToolsOptions extends SchemaOptions {
  /** Where the API is (overrides the spec's `servers`; needed when the spec names none, or a relative one). */
  baseUrl?: string;
  /** Which operations become tools. */
  filter?: OperationFilter;
  /**
   * `tools`: one tool per operation. `endpoints`: the two tools `list_endpoints` and
   * `call_endpoint`. `auto` (default): `endpoints` when more than `maxTools` operations are left
   * after filtering.
   */
  mode?: 'auto' | 'tools' | 'endpoints';
  /** The `auto` threshold. Default 100. */
  maxTools?: number;
  /** Prepended to every tool name (`github_`), e.g. to serve two APIs from one server. */
  prefix?: string;
  /** Credentials for the API: one, or several applied in order (an API key header and a bearer token). */
  auth?: OpenApiAuth | OpenApiAuth[];
  /** Per call, from sending to the end of the answer. Default 30 000 ms. */
  timeoutMs?: number;
  /** Longer answers are cut (text) or not returned (binary). Default 1 MiB. */
  maxResponseBytes?: number;
  /**
   * Redirects followed per call, at most (default 5; 0 follows none). Only redirects within the
   * API's origin keep the credentials; see `crossOriginRedirects`.
   */
  maxRedirects?: number;
  /**
   * A redirect to another origin (scheme, host or port): `refuse` (default) makes the call an
   * `isError` naming that origin; `anonymous` follows it with no credentials, no header or cookie
   * parameters, for the rest of the chain (e.g. an API that sends downloads to a CDN).
   */
  crossOriginRedirects?: CrossOriginRedirects;
  /** For the API calls, the spec's URL and the token endpoint. Default: the global fetch. */
  fetch?: typeof fetch;
  /** Timeouts and token expiry. Default: the system clock. */
  clock?: Clock;
  /** Where `bearer` auth's `env` is read. Default: process.env. */
  env?: Record<string, string | undefined>;
  /** For a spec given as a path: its directory base. Default: the working directory. */
  cwd?: string;
  /** Imports `yaml` for YAML specs (see loadSpec). */
  importYaml?: LoadSpecOptions['importYaml'];
}

export interface OpenApiTools {
  /** The spec's `info.title`. */
  title: string;
  /** 'openapi 3.1.0', 'swagger 2.0 (converted)'... */
  version: string;
  mode: 'tools' | 'endpoints';
  /** The tools registered on the server. */
  tools: string[];
  /** The operations served (after filtering). */
  operations: OpenApiOperation[];
}

/**
 * Registers the operations of an OpenAPI 3.0/3.1 (or Swagger 2.0) document as tools of `server`.
 * `spec` is a file path, an http(s) URL, the parsed document, or what {@link loadSpec} returned. Throws an {@link OpenApiError}
 * for a spec that cannot be served (unreadable, external `$ref`s, no base URL, unset credentials).
 */
export async function addOpenApiTools(
  server: McpServer,
  spec: string | OpenApiDocument | LoadedSpec,
  options: OpenApiToolsOptions = {},
): Promise<OpenApiTools> {
  const fetchFn = options.fetch ?? fetch;
  const loaded: { document: OpenApiDocument; source?: string } =
    typeof spec === 'string'
      ? await loadSpec(spec, { cwd: options.cwd, fetch: fetchFn, importYaml: options.importYaml })
      : isLoaded(spec)
        ? spec
        : { document: spec };
  const parsed = parseOperations(loaded.document, options);
  const ops = filterOperations(parsed.operations, options.filter);
  if (ops.length === 0) throw new OpenApiError(`No operations to serve in ${parsed.title}${options.filter ? ' after filtering' : ''}`);
  const clock = options.clock ?? systemClock;
  const auth = (Array.isArray(options.auth) ? options.auth : options.auth ? [options.auth] : []).map((a) =>
    authApplier(a, { env: options.env, fetch: fetchFn, clock }),
  );
  const bases = new Map(ops.map((op) => [op, baseUrlOf(op, parsed.servers, options.baseUrl, loaded.source)]));
  const caller = new OperationCaller({
    fetch: fetchFn,
    clock,
    auth,
    timeoutMs: options.timeoutMs ?? 30_000,
    maxResponseBytes: options.maxResponseBytes ?? 1024 * 1024,
    maxRedirects: redirectsOf(options.maxRedirects),
    crossOriginRedirects: crossOriginOf(options.crossOriginRedirects),
    baseUrl: (op) => bases.get(op) ?? baseUrlOf(op, parsed.servers, options.baseUrl, loaded.source),
  });
  const prefix = options.prefix ?? '';
  const mode = options.mode === 'tools' || options.mode === 'endpoints' ? options.mode : ops.length > (options.maxTools ?? 100) ? 'endpoints' : 'tools';
  const result = { title: parsed.title, version: parsed.version, mode, operations: ops } as const;
  if (mode === 'endpoints') return { ...result, tools: registerEndpointTools(server, ops, caller, parsed.title, prefix) };
  for (const op of ops) {
    server.tool(
      prefix + op.name,
      { ...(op.summary ? { title: op.summary } : {}), description: describe(op), input: op.inputSchema(), annotations: annotations(op) },
      (args, ctx) => caller.call(op, args, ctx),
    );
  }
  return { ...result, tools: ops.map((op) => prefix + op.name) };
}

const DESCRIPTION_MAX = 2000;

function describe(op: OpenApiOperation): string {
  // The summary leads (a model reads only the description), unless the description already does.
  const text = [saysFirst(op.description, op.summary) ? undefined : op.summary, op.description].filter(Boolean).join('\n\n');
  const cut = text.length > DESCRIPTION_MAX ? `${text.slice(0, DESCRIPTION_MAX)}…` : text;
  return `${cut ? `${cut}\n\n` : ''}${op.deprecated ? '(deprecated) ' : ''}${op.method.toUpperCase()} ${op.path}`;
}

/** Whether `text` begins with `lead` (any case, give or take its final stop). */
function saysFirst(text: string | undefined, lead: string | undefined): boolean {
  if (!text || !lead) return false;
  const l = lead.trim().replace(/[.!]$/, '').toLowerCase();
  return l !== '' && text.trim().toLowerCase().startsWith(l);
}

function annotations(op: OpenApiOperation): ToolAnnotations {
  const safe = op.method === 'get' || op.method === 'head' || op.method === 'options';
  return {
    readOnlyHint: safe,
    ...(safe ? {} : { destructiveHint: op.method === 'delete', idempotentHint: op.method === 'put' || op.method === 'delete' }),
    openWorldHint: true,
  };
}

/** The operation's server, the document's, or the one given; relative ones against the spec's URL. */
function baseUrlOf(op: OpenApiOperation, servers: string[], given: string | undefined, source: string | undefined): string {
  const url = given ?? op.servers[0] ?? servers[0];
  if (url === undefined) throw new OpenApiError("The spec names no server: give the API's base URL (baseUrl, or --base-url)");
  if (/^https?:\/\//i.test(url)) {
    if (!URL.canParse(url)) throw new OpenApiError(`The API's base URL "${url}" is not a valid URL`);
    return url;
  }
  if (source && /^https?:\/\//i.test(source)) return new URL(url, source).href;
  throw new OpenApiError(`The spec's server URL "${url}" is relative and the spec was not loaded from a URL: give the API's base URL (baseUrl, or --base-url)`);
}

function redirectsOf(max: number | undefined): number {
  if (max === undefined) return 5;
  if (!Number.isInteger(max) || max < 0) throw new OpenApiError(`maxRedirects is a whole number, 0 or more (got ${max})`);
  return max;
}

function crossOriginOf(mode: CrossOriginRedirects | undefined): CrossOriginRedirects {
  if (mode === undefined || mode === 'refuse' || mode === 'anonymous') return mode ?? 'refuse';
  throw new OpenApiError(`crossOriginRedirects is 'refuse' or 'anonymous' (got ${JSON.stringify(mode)})`);
}

function isLoaded(spec: OpenApiDocument | LoadedSpec): spec is LoadedSpec {
  const s = spec as Record<string, unknown>;
  return typeof s.source === 'string' && typeof s.document === 'object' && s.openapi === undefined && s.swagger === undefined;
}
