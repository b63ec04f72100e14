// Reading an OpenAPI document: a file path or an http(s) URL, JSON or YAML. YAML support is
// `yaml`, loaded only when a YAML document is met (it is not a dependency of mcpkit: a user who
// serves a YAML spec installs it, or converts the spec to JSON).
import { OpenApiError } from './errors.js';

export type OpenApiDocument = Record<string, unknown>;

export interface LoadSpecOptions {
  /** Resolves relative file paths (default: the process's working directory). */
  cwd?: string;
  /** For URLs (default: the global fetch). */
  fetch?: typeof fetch;
  /** Imports `yaml` (tests pass one that fails, to see the message). Default: `import('yaml')`. */
  importYaml?: () => Promise<{ parse(text: string): unknown }>;
}

export interface LoadedSpec {
  document: OpenApiDocument;
  /** Where it came from: a URL, or the file's absolute path. Relative server URLs resolve against a URL. */
  source: string;
}

/** Reads and parses a spec from a file path or an http(s) URL. */
export async function loadSpec(location: string, options: LoadSpecOptions = {}): Promise<LoadedSpec> {
  let text: string;
  let source = location;
  let contentType = '';
  if (/^https?:\/\//i.test(location)) {
    const res = await (options.fetch ?? fetch)(location, { headers: { accept: 'application/json, application/yaml;q=0.9, */*;q=0.5' } }).catch(
      (err: unknown) => {
        throw new OpenApiError(`Could not fetch the OpenAPI spec at ${location}: ${networkReason(err)}`);
      },
    );
    if (!res.ok) throw new OpenApiError(`Could not fetch the OpenAPI spec at ${location}: HTTP ${res.status} ${res.statusText}`);
    contentType = res.headers.get('content-type') ?? '';
    text = await res.text();
  } else {
    const { readFile } = await import('node:fs/promises');
    const { resolve } = await import('node:path');
    source = resolve(options.cwd ?? process.cwd(), location);
    try {
      text = await readFile(source, 'utf8');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw new OpenApiError(`Could not read the OpenAPI spec ${source}: ${code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
    }
  }
  return { document: await parseSpecText(text, source, contentType, options.importYaml), source };
}

/** JSON when it looks like JSON (or says so), YAML otherwise. */
export async function parseSpecText(text: string, source: string, contentType = '', importYaml?: LoadSpecOptions['importYaml']): Promise<OpenApiDocument> {
  const trimmed = text.trimStart();
  const json = trimmed.startsWith('{') || /json/i.test(contentType) || /\.json$/i.test(source);
  let parsed: unknown;
  if (json) {
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      throw new OpenApiError(`The OpenAPI spec ${source} is not valid JSON: ${(err as Error).message}`);
    }
  } else {
    let yaml: { parse(text: string): unknown };
    try {
      yaml = await (importYaml ?? (() => import('yaml')))();
    } catch {
      throw new OpenApiError(
        `The OpenAPI spec ${source} is YAML, and reading YAML needs the "yaml" package, which is not installed: run \`npm i yaml\`, or give the spec as JSON`,
      );
    }
    try {
      parsed = yaml.parse(text);
    } catch (err) {
      throw new OpenApiError(`The OpenAPI spec ${source} is not valid YAML: ${(err as Error).message}`);
    }
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new OpenApiError(`The OpenAPI spec ${source} is not an object`);
  return parsed as OpenApiDocument;
}

/** A network failure in words: fetch's TypeError hides the reason (ECONNREFUSED...) in `cause`. */
export function networkReason(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } } | undefined)?.cause;
  if (cause?.code) return `${cause.code}${cause.message && !cause.message.includes(cause.code) ? ` (${cause.message})` : ''}`;
  if (cause?.message) return cause.message;
  return err instanceof Error ? err.message : String(err);
}
