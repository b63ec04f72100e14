// The operations of a spec, each with the tool name it gets and one input schema merging its
// parameters (path, query, header, cookie) and its request body; `ParameterSpec`s remember where
// each argument goes back to when the tool is called.
import { OpenApiError } from './errors.js';
import type { OpenApiDocument } from './load.js';
import { toolNames } from './names.js';
import { SchemaConverter, type JsonSchema, type SchemaOptions } from './schema.js';
import { swagger2ToOpenApi3 } from './swagger2.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

export const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
export type HttpMethod = (typeof METHODS)[number];

export type ParameterLocation = 'path' | 'query' | 'header' | 'cookie';

export interface ParameterSpec {
  /** The parameter's name in the request. */
  name: string;
  in: ParameterLocation;
  /** Its property in the tool's arguments (the name, unless two locations share it). */
  arg: string;
  required: boolean;
  style: string;
  explode: boolean;
  /** Sent as JSON text (a parameter described by `content` rather than `schema`). */
  json: boolean;
  /** 3.0's allowReserved: reserved characters are sent as they are in a query value. */
  allowReserved: boolean;
}

export interface BodySpec {
  /** The media type sent (the first the converter can encode: JSON, form, multipart, text). */
  contentType: string;
  required: boolean;
}

export interface OpenApiOperation {
  /** The tool's name: operationId, else method and path, sanitised, ≤ 64 characters, unique. */
  name: string;
  method: HttpMethod;
  path: string;
  operationId: string | undefined;
  summary: string | undefined;
  description: string | undefined;
  tags: string[];
  deprecated: boolean;
  parameters: ParameterSpec[];
  body: BodySpec | undefined;
  /** Servers declared on the operation or its path (they override the document's). */
  servers: string[];
  /** Built on first use: a spec of thousands of operations converts only those asked for. */
  inputSchema(): JsonSchema;
}

export interface ParsedSpec {
  /** 'openapi 3.0.3', 'openapi 3.1.0' or 'swagger 2.0 (converted)'. */
  version: string;
  title: string;
  /** The document's server URLs, with variables replaced by their defaults. */
  servers: string[];
  operations: OpenApiOperation[];
}

/** Reads every operation of a 2.0, 3.0 or 3.1 document. */
export function parseOperations(raw: OpenApiDocument, options: SchemaOptions = {}): ParsedSpec {
  let doc = raw;
  let version: string;
  if (typeof raw.openapi === 'string' && /^3\.[01]\./.test(raw.openapi)) version = `openapi ${raw.openapi}`;
  else if (raw.swagger === '2.0') {
    doc = swagger2ToOpenApi3(raw);
    version = 'swagger 2.0 (converted)';
  } else {
    const said =
      typeof raw.openapi === 'string'
        ? `openapi ${raw.openapi}`
        : raw.swagger !== undefined
          ? `swagger ${String(raw.swagger)}`
          : 'no "openapi" or "swagger" field';
    throw new OpenApiError(`Not a supported OpenAPI document (${said}): OpenAPI 3.0 and 3.1 are read, and Swagger 2.0 is converted`);
  }
  const external = findExternalRef(doc);
  if (external)
    throw new OpenApiError(
      `${external.where}: external $ref "${external.ref}" is not supported (only references inside the document, "#/components/..."); bundle the spec into one file first, e.g. \`npx @redocly/cli bundle\``,
    );
  const schemas = new SchemaConverter(doc, options);
  const found: Omit<OpenApiOperation, 'name'>[] = [];
  for (const [path, rawItem] of Object.entries(isObj(doc.paths) ? doc.paths : {})) {
    const item = schemas.deref(rawItem, `paths["${path}"]`);
    if (!item) continue;
    for (const method of METHODS) {
      const op = item[method];
      if (!isObj(op)) continue;
      found.push(operation(schemas, path, method, op, item));
    }
  }
  const names = toolNames(found.map((o) => o.operationId ?? `${o.method} ${o.path}`));
  return {
    version,
    title: isObj(doc.info) && typeof doc.info.title === 'string' ? doc.info.title : 'API',
    servers: serverUrls(doc.servers),
    operations: found.map((o, i) => ({ ...o, name: names[i] })),
  };
}

function operation(schemas: SchemaConverter, path: string, method: HttpMethod, op: Obj, item: Obj): Omit<OpenApiOperation, 'name'> {
  const where = `${method.toUpperCase()} ${path}`;
  // Operation parameters override path-item ones with the same name and location.
  const byKey = new Map<string, Obj>();
  for (const list of [item.parameters, op.parameters]) {
    for (const raw of Array.isArray(list) ? list : []) {
      const p = schemas.deref(raw, where);
      if (!p || typeof p.name !== 'string' || typeof p.in !== 'string') continue;
      // The spec: header parameters named Accept, Content-Type or Authorization are ignored.
      if (p.in === 'header' && /^(accept|content-type|authorization)$/i.test(p.name)) continue;
      if (!['path', 'query', 'header', 'cookie'].includes(p.in)) continue;
      byKey.set(`${p.in}:${p.name}`, p);
    }
  }
  const params = [...byKey.values()];
  const taken = new Map<string, number>();
  for (const p of params) taken.set(p.name as string, (taken.get(p.name as string) ?? 0) + 1);
  const parameters: ParameterSpec[] = params.map((p) => {
    const name = p.name as string;
    const loc = p.in as ParameterLocation;
    const style = typeof p.style === 'string' ? p.style : loc === 'query' || loc === 'cookie' ? 'form' : 'simple';
    return {
      name,
      in: loc,
      // Two locations share a name (an `id` in the path and in the query), or one is "body".
      arg: (taken.get(name) ?? 0) > 1 || name === 'body' ? `${name}_${loc}` : name,
      required: p.required === true || loc === 'path',
      style,
      explode: typeof p.explode === 'boolean' ? p.explode : style === 'form',
      json: p.schema === undefined && isObj(p.content),
      allowReserved: p.allowReserved === true,
    };
  });
  const rawBody = op.requestBody === undefined ? undefined : schemas.deref(op.requestBody, where);
  const content = rawBody && isObj(rawBody.content) ? rawBody.content : undefined;
  const contentType = content ? pickContentType(Object.keys(content)) : undefined;
  const body: BodySpec | undefined = contentType ? { contentType, required: rawBody?.required === true } : undefined;
  let built: JsonSchema | undefined;
  const inputSchema = (): JsonSchema => {
    if (built) return built;
    const properties: Obj = {};
    const required: string[] = [];
    params.forEach((p, i) => {
      const spec = parameters[i];
      const schema = spec.json ? contentSchema(schemas, p.content as Obj, where) : schemas.convert(p.schema ?? {}, where);
      const described = typeof p.description === 'string' && p.description ? { ...schema, description: joinText(schema.description, p.description) } : schema;
      properties[spec.arg] = p.deprecated === true ? { ...described, deprecated: true } : described;
      if (spec.required) required.push(spec.arg);
    });
    if (body && content) {
      const media = content[body.contentType];
      const schema = schemas.convert(isObj(media) && media.schema !== undefined ? media.schema : {}, where);
      const doc = typeof rawBody?.description === 'string' ? rawBody.description : undefined;
      properties.body = doc ? { ...schema, description: joinText(schema.description, doc) } : schema;
      if (body.required) required.push('body');
    }
    built = { type: 'object', properties, ...(required.length ? { required } : {}) };
    return built;
  };
  return {
    method,
    path,
    operationId: typeof op.operationId === 'string' && op.operationId ? op.operationId : undefined,
    summary: typeof op.summary === 'string' ? op.summary : undefined,
    description: typeof op.description === 'string' ? op.description : undefined,
    tags: Array.isArray(op.tags) ? op.tags.filter((t): t is string => typeof t === 'string') : [],
    deprecated: op.deprecated === true,
    parameters,
    body,
    servers: serverUrls(op.servers ?? item.servers),
    inputSchema,
  };
}

/** A parameter described by `content` (JSON text in a query string, say): its one media type's schema. */
function contentSchema(schemas: SchemaConverter, content: Obj, where: string): JsonSchema {
  const media = Object.values(content)[0];
  return schemas.convert(isObj(media) ? media.schema : {}, where);
}

/** The media type a tool sends, in order of preference; undefined when none can be sent. */
export function pickContentType(types: string[]): string | undefined {
  const base = (t: string) => t.split(';')[0].trim().toLowerCase();
  return (
    types.find((t) => /^application\/(.+\+)?json$/.test(base(t))) ??
    types.find((t) => base(t) === 'application/x-www-form-urlencoded') ??
    types.find((t) => base(t) === 'multipart/form-data') ??
    types.find((t) => base(t).startsWith('text/') || /xml$/.test(base(t))) ??
    types.find((t) => base(t) === '*/*')
  );
}

function serverUrls(servers: unknown): string[] {
  if (!Array.isArray(servers)) return [];
  return servers.filter(isObj).flatMap((s) => {
    if (typeof s.url !== 'string') return [];
    const vars = isObj(s.variables) ? s.variables : {};
    return [s.url.replace(/\{([^}]+)\}/g, (m, v: string) => (isObj(vars[v]) && vars[v].default !== undefined ? String(vars[v].default) : m))];
  });
}

function joinText(a: unknown, b: string): string {
  return typeof a === 'string' && a && a !== b ? `${b}\n${a}` : b;
}

/** The first `$ref` that leaves the document, and where it is (a JSON pointer). */
function findExternalRef(doc: unknown): { ref: string; where: string } | undefined {
  const stack: [unknown, string][] = [[doc, '#']];
  while (stack.length > 0) {
    const [node, where] = stack.pop()!;
    if (Array.isArray(node)) node.forEach((v, i) => void stack.push([v, `${where}/${i}`]));
    else if (isObj(node)) {
      for (const [k, v] of Object.entries(node)) {
        if (k === '$ref' && typeof v === 'string' && !v.startsWith('#')) return { ref: v, where };
        // Examples are data: a "$ref" key in them is not a reference.
        if (k !== 'example' && k !== 'examples') stack.push([v, `${where}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`]);
      }
    }
  }
  return undefined;
}
