// A tool's arguments back into an HTTP request: path templating (each value percent-encoded),
// query strings per style and explode (form, spaceDelimited, pipeDelimited, deepObject), headers,
// cookies, and the body as JSON, form fields, multipart or text.
//
// Path values come from the model, so they are held to the segment the template gives them: a
// value that would be read as `.` or `..` (the URL parser treats `%2e` as a dot too, so encoding
// cannot save it) or an empty segment would move the call to another resource (`DELETE
// /items/{id}` with "." deletes on the collection), and is refused. The URL is then parsed once
// and checked to be under the base URL, and that parsed URL is what is sent.
import type { OpenApiOperation, ParameterSpec } from './operations.js';

/** Arguments that cannot make a request (a path value that would change which resource is meant). */
export class InvalidArguments extends Error {
  override name = 'InvalidArguments';
}

export interface BuiltRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | FormData | undefined;
}

/** Builds the request for `op` on `baseUrl` from checked arguments. */
export function buildRequest(op: OpenApiOperation, baseUrl: string, args: Record<string, unknown>): BuiltRequest {
  const inPath = new Map<string, string>();
  const query: string[] = [];
  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  for (const p of op.parameters) {
    const value = args[p.arg];
    if (value === undefined || value === null) continue;
    const v = p.json ? JSON.stringify(value) : value;
    if (p.in === 'path') inPath.set(p.name, pathValue(p, v));
    else if (p.in === 'query') query.push(...queryPairs(p, v));
    else if (p.in === 'header') headers[p.name] = simple(v, p.explode, String);
    else cookies.push(`${p.name}=${encodeURIComponent(simple(v, false, String))}`);
  }
  if (cookies.length > 0) headers.cookie = cookies.join('; ');
  let body: BuiltRequest['body'];
  if (op.body && args.body !== undefined) {
    const type = op.body.contentType.split(';')[0].trim().toLowerCase();
    if (type === 'application/x-www-form-urlencoded') {
      body = formFields(args.body).toString();
      headers['content-type'] = 'application/x-www-form-urlencoded';
    } else if (type === 'multipart/form-data') {
      // fetch writes the boundary into the content-type itself.
      const form = new FormData();
      for (const [k, v] of formFields(args.body)) form.append(k, v);
      body = form;
    } else if (/json/.test(type) || typeof args.body !== 'string') {
      body = JSON.stringify(args.body);
      headers['content-type'] = /json/.test(type) ? op.body.contentType : 'application/json';
    } else {
      body = args.body;
      headers['content-type'] = type === '*/*' ? 'text/plain' : op.body.contentType;
    }
  }
  const base = baseUrl.replace(/\/+$/, '');
  const declared = new Set(op.parameters.filter((p) => p.in === 'path').map((p) => p.name));
  const path = fillPath(op.path, inPath, declared);
  const url = underBase(base, op.path, base + path + (query.length ? `?${query.join('&')}` : ''));
  return { url, method: op.method.toUpperCase(), headers, body };
}

/** A value read as a dot segment once the server (or the URL parser) has decoded it. */
const DOT = /^(?:\.|%2e){1,2}$/i;

/** The template with each `{name}` filled, segment by segment; refuses a segment a value would empty or turn into `.`/`..`. */
function fillPath(template: string, values: Map<string, string>, declared: Set<string>): string {
  return template
    .split('/')
    .map((segment) => {
      // A name the spec does not declare stays as it is written (the model cannot give it).
      const names = [...segment.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).filter((n) => declared.has(n));
      if (names.length === 0) return segment;
      const missing = names.find((n) => !values.has(n));
      if (missing !== undefined) throw new InvalidArguments(`the path parameter "${missing}" is required`);
      const filled = segment.replace(/\{([^}]+)\}/g, (whole, n: string) => values.get(n) ?? whole);
      const which = names.length === 1 ? `the path parameter "${names[0]}"` : `the path parameters ${names.map((n) => `"${n}"`).join(' and ')}`;
      if (filled === '')
        throw new InvalidArguments(`${which} ${names.length === 1 ? 'is' : 'are'} empty, which would send the call to another resource (the one above it)`);
      // Also each part between encoded slashes: some servers decode %2F before resolving dots.
      if (decodedParts(filled).some((part) => DOT.test(part))) {
        throw new InvalidArguments(`${which} cannot be "." or ".." (nor hold them between slashes): the URL would point to another resource than ${template}`);
      }
      return filled;
    })
    .join('/');
}

function decodedParts(segment: string): string[] {
  let text = segment;
  try {
    text = decodeURIComponent(segment);
  } catch {
    // Not valid percent-encoding: checked as it is.
  }
  return [segment, ...text.split(/[/\\]/)];
}

/**
 * `url` parsed, refused unless it is on the base URL's origin, under its path, with as many path
 * segments as the template gives (nothing collapsed by dot-segment resolution).
 */
function underBase(base: string, template: string, url: string): string {
  const root = new URL(base);
  const parsed = new URL(url);
  const prefix = root.pathname.replace(/\/+$/, '');
  const segments = (p: string) => p.split('/').length;
  if (
    parsed.origin !== root.origin ||
    (parsed.pathname !== prefix && !parsed.pathname.startsWith(`${prefix}/`)) ||
    segments(parsed.pathname) !== segments(prefix) + segments(template) - 1
  ) {
    throw new InvalidArguments(`the arguments would make the URL ${parsed.origin}${parsed.pathname}, which is not under ${root.origin}${prefix}${template}`);
  }
  return parsed.href;
}

const enc = (v: unknown) => encodeURIComponent(String(v));
/** allowReserved: RFC 3986 reserved characters stay as they are. */
const encReserved = (v: unknown) => encodeURI(String(v)).replace(/[#&=+]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** The "simple" style: a,b,c for arrays; k,v,k2,v2 (or k=v,k2=v2 exploded) for objects. */
function simple(v: unknown, explode: boolean, e: (v: unknown) => string): string {
  if (Array.isArray(v)) return v.map(e).join(',');
  if (v !== null && typeof v === 'object') {
    return Object.entries(v)
      .map(([k, x]) => (explode ? `${e(k)}=${e(x)}` : `${e(k)},${e(x)}`))
      .join(',');
  }
  return e(v);
}

function pathValue(p: ParameterSpec, v: unknown): string {
  if (p.style === 'label') return `.${simple(v, p.explode, enc).replace(/,/g, p.explode ? '.' : ',')}`;
  if (p.style === 'matrix') {
    if (Array.isArray(v) && p.explode) return v.map((x) => `;${enc(p.name)}=${enc(x)}`).join('');
    if (v !== null && typeof v === 'object' && !Array.isArray(v) && p.explode)
      return Object.entries(v)
        .map(([k, x]) => `;${enc(k)}=${enc(x)}`)
        .join('');
    return `;${enc(p.name)}=${simple(v, false, enc)}`;
  }
  return simple(v, p.explode, enc);
}

function queryPairs(p: ParameterSpec, v: unknown): string[] {
  const e = p.allowReserved ? encReserved : enc;
  const name = enc(p.name);
  if (Array.isArray(v)) {
    if (p.explode && p.style === 'form') return v.map((x) => `${name}=${e(x)}`);
    const sep = p.style === 'spaceDelimited' ? '%20' : p.style === 'pipeDelimited' ? '|' : ',';
    return [`${name}=${v.map(e).join(sep)}`];
  }
  if (v !== null && typeof v === 'object') {
    const entries = Object.entries(v);
    if (p.style === 'deepObject') return entries.map(([k, x]) => `${name}%5B${enc(k)}%5D=${e(x)}`);
    if (p.explode) return entries.map(([k, x]) => `${enc(k)}=${e(x)}`);
    return [`${name}=${entries.map(([k, x]) => `${enc(k)},${e(x)}`).join(',')}`];
  }
  return [`${name}=${e(v)}`];
}

/** Form fields: arrays repeat their name; nested objects are sent as JSON text. */
function formFields(body: unknown): URLSearchParams {
  const out = new URLSearchParams();
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return out;
  for (const [k, v] of Object.entries(body)) {
    if (v === undefined || v === null) continue;
    for (const x of Array.isArray(v) ? v : [v]) out.append(k, typeof x === 'object' ? JSON.stringify(x) : String(x));
  }
  return out;
}
