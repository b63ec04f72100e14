// Swagger 2.0 is converted, not refused: much of what is published (Kubernetes' /openapi/v2,
// older public APIs) is still 2.0. Only what tools need is converted: servers, schemas,
// parameters and bodies. Responses are not read by the tools, so they are dropped.
import type { OpenApiDocument } from './load.js';

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A Swagger 2.0 document as the OpenAPI 3.0 document the rest of the converter reads. */
export function swagger2ToOpenApi3(doc: OpenApiDocument): OpenApiDocument {
  const rewritten = rewriteRefs(doc) as Obj;
  const schemes = Array.isArray(rewritten.schemes) && rewritten.schemes.length > 0 ? (rewritten.schemes as string[]) : ['https'];
  const basePath = typeof rewritten.basePath === 'string' ? rewritten.basePath : '';
  const servers =
    typeof rewritten.host === 'string'
      ? [{ url: `${schemes.includes('https') ? 'https' : schemes[0]}://${rewritten.host}${basePath}` }]
      : basePath
        ? [{ url: basePath }]
        : [];
  const globalParams = isObj(rewritten.parameters) ? rewritten.parameters : {};
  const consumes = Array.isArray(rewritten.consumes) ? (rewritten.consumes as string[]) : [];
  const paths: Obj = {};
  for (const [path, item] of Object.entries(isObj(rewritten.paths) ? rewritten.paths : {})) {
    if (!isObj(item)) continue;
    const pathParams = Array.isArray(item.parameters) ? item.parameters : [];
    const out: Obj = {};
    for (const [method, op] of Object.entries(item)) {
      if (method === 'parameters' || !isObj(op)) continue;
      const opConsumes = Array.isArray(op.consumes) ? (op.consumes as string[]) : consumes;
      out[method] = convertOperation(op, [...pathParams, ...(Array.isArray(op.parameters) ? op.parameters : [])], globalParams, opConsumes);
    }
    paths[path] = out;
  }
  const info = isObj(rewritten.info) ? rewritten.info : { title: 'API', version: '0' };
  return {
    openapi: '3.0.3',
    info,
    servers,
    paths,
    components: { schemas: isObj(rewritten.definitions) ? rewritten.definitions : {} },
    ...(Array.isArray(rewritten.tags) ? { tags: rewritten.tags } : {}),
    'x-converted-from': 'swagger 2.0',
  };
}

function convertOperation(op: Obj, rawParams: unknown[], globalParams: Obj, consumes: string[]): Obj {
  // Operation parameters override path-item ones with the same name and location.
  const byKey = new Map<string, Obj>();
  for (const raw of rawParams) {
    const p = isObj(raw) && typeof raw.$ref === 'string' ? globalParams[String(raw.$ref).replace('#/parameters/', '')] : raw;
    if (isObj(p)) byKey.set(`${String(p.in)}:${String(p.name)}`, p);
  }
  const parameters: Obj[] = [];
  let requestBody: Obj | undefined;
  const form: Obj = {};
  const formRequired: string[] = [];
  for (const p of byKey.values()) {
    if (p.in === 'body') {
      const type = consumes.find((c) => /json/i.test(c)) ?? consumes[0] ?? 'application/json';
      requestBody = { required: p.required === true, content: { [type]: { schema: p.schema ?? {} } } };
      if (typeof p.description === 'string') requestBody.description = p.description;
    } else if (p.in === 'formData') {
      form[String(p.name)] = paramSchema(p);
      if (p.required === true) formRequired.push(String(p.name));
    } else {
      const param: Obj = { name: p.name, in: p.in, required: p.required === true || p.in === 'path', schema: paramSchema(p) };
      if (typeof p.description === 'string') param.description = p.description;
      Object.assign(param, collectionStyle(p));
      parameters.push(param);
    }
  }
  if (Object.keys(form).length > 0) {
    const type =
      consumes.includes('multipart/form-data') && !consumes.includes('application/x-www-form-urlencoded')
        ? 'multipart/form-data'
        : 'application/x-www-form-urlencoded';
    requestBody = {
      required: formRequired.length > 0,
      content: { [type]: { schema: { type: 'object', properties: form, ...(formRequired.length ? { required: formRequired } : {}) } } },
    };
  }
  const out: Obj = { ...op, parameters };
  delete out.consumes;
  delete out.produces;
  delete out.responses;
  if (requestBody) out.requestBody = requestBody;
  return out;
}

const SCHEMA_KEYS = [
  'type',
  'format',
  'items',
  'enum',
  'default',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minLength',
  'maxLength',
  'pattern',
  'minItems',
  'maxItems',
  'uniqueItems',
  'multipleOf',
];

/** A 2.0 non-body parameter carries its schema inline. */
function paramSchema(p: Obj): Obj {
  const s: Obj = {};
  for (const k of SCHEMA_KEYS) if (p[k] !== undefined) s[k] = k === 'items' && isObj(p.items) ? paramSchema(p.items) : p[k];
  if (s.type === 'file') {
    s.type = 'string';
    s.format = 'binary';
  }
  if (typeof p.description === 'string') s.description = p.description;
  return s;
}

function collectionStyle(p: Obj): Obj {
  switch (p.collectionFormat) {
    case 'multi':
      return { style: 'form', explode: true };
    case 'ssv':
      return { style: 'spaceDelimited', explode: false };
    case 'pipes':
      return { style: 'pipeDelimited', explode: false };
    case undefined:
      // 2.0's default is csv: comma-separated, not repeated.
      return p.type === 'array' ? { explode: false } : {};
    default:
      return { explode: false };
  }
}

function rewriteRefs(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(rewriteRefs);
  if (!isObj(v)) return v;
  const out: Obj = {};
  for (const [k, x] of Object.entries(v)) {
    if (k === '$ref' && typeof x === 'string' && x.startsWith('#/definitions/')) out[k] = `#/components/schemas/${x.slice('#/definitions/'.length)}`;
    else if (k === 'x-nullable' && x === true) out.nullable = true;
    else out[k] = rewriteRefs(x);
  }
  return out;
}
