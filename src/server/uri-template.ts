/**
 * RFC 6570 URI templates: expansion (levels 1-4) and its reverse, matching a
 * concrete URI back to variable values.
 *
 * Matching is the security-sensitive half because the URI comes from the peer.
 * It runs on a small Pike VM (Thompson NFA simulation with capture slots)
 * instead of a RegExp: V8's backtracking engine goes polynomial on templates
 * with adjacent variables (the CVE-2026-0621 class of bug). The VM visits each
 * (uri position, instruction) pair at most once, so the cost is
 * O(uri length x template size) for any input, while the thread priority order
 * still gives the same answer a backtracking matcher would (greedy values,
 * optional expressions preferred present).
 */

export type UriVariables = Record<string, string | string[]>;

const MAX_TEMPLATE_LENGTH = 8 * 1024;
const MAX_URI_LENGTH = 64 * 1024;

type Operator = '' | '+' | '#' | '.' | '/' | ';' | '?' | '&';

// RFC 6570 Appendix A table.
const OPS: Record<Operator, { first: string; sep: string; named: boolean; ifemp: string; reserved: boolean }> = {
  '': { first: '', sep: ',', named: false, ifemp: '', reserved: false },
  '+': { first: '', sep: ',', named: false, ifemp: '', reserved: true },
  '#': { first: '#', sep: ',', named: false, ifemp: '', reserved: true },
  '.': { first: '.', sep: '.', named: false, ifemp: '', reserved: false },
  '/': { first: '/', sep: '/', named: false, ifemp: '', reserved: false },
  ';': { first: ';', sep: ';', named: true, ifemp: '', reserved: false },
  '?': { first: '?', sep: '&', named: true, ifemp: '=', reserved: false },
  '&': { first: '&', sep: '&', named: true, ifemp: '=', reserved: false },
};

type VarSpec = { name: string; prefix: number /* 0: no :N */; explode: boolean };
// `slot` is the first of the two capture slots that hold the expression's span in a match.
type Expression = { op: Operator; vars: VarSpec[]; slot: number };
type Part = { raw: string; encoded: string } | Expression;

// ---------------------------------------------------------------- encoding

const HEX = '0123456789ABCDEF';
const UNRESERVED = new Uint8Array(128);
const RESERVED = new Uint8Array(128);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~') UNRESERVED[c.charCodeAt(0)] = 1;
for (const c of ":/?#[]@!$&'()*+,;=") RESERVED[c.charCodeAt(0)] = 1;
const utf8 = new TextEncoder();

const isHex = (s: string, i: number): boolean => i < s.length && /[0-9A-Fa-f]/.test(s[i]);
const isPctTriplet = (s: string, i: number): boolean => s.charCodeAt(i) === 0x25 && isHex(s, i + 1) && isHex(s, i + 2);

/** Length in code units of the code point at i (a lone surrogate counts as one). */
const cpLength = (s: string, i: number): number => (s.codePointAt(i)! > 0xffff ? 2 : 1);

function pctEncode(ch: string): string {
  let out = '';
  // TextEncoder turns lone surrogates into U+FFFD instead of throwing like encodeURIComponent.
  for (const b of utf8.encode(ch)) out += '%' + HEX[b >> 4] + HEX[b & 15];
  return out;
}

/** True for a single character that expansion copies through verbatim. */
function passes(s: string, i: number, allowReserved: boolean): boolean {
  const c = s.charCodeAt(i);
  return c < 128 && (UNRESERVED[c] === 1 || (allowReserved && RESERVED[c] === 1));
}

function encode(s: string, allowReserved: boolean): string {
  let out = '';
  for (let i = 0; i < s.length; ) {
    if (allowReserved && isPctTriplet(s, i)) {
      out += s.slice(i, i + 3);
      i += 3;
    } else if (passes(s, i, allowReserved)) {
      out += s[i++];
    } else {
      const n = cpLength(s, i);
      out += pctEncode(s.slice(i, i + n));
      i += n;
    }
  }
  return out;
}

// ----------------------------------------------------------------- parsing

function malformed(template: string, why: string): TypeError {
  const shown = template.length > 120 ? template.slice(0, 117) + '...' : template;
  return new TypeError(`Invalid URI template ${JSON.stringify(shown)}: ${why}`);
}

function validVarname(name: string): boolean {
  if (name === '' || name[0] === '.' || name[name.length - 1] === '.') return false;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c === 0x2e) {
      if (name.charCodeAt(i + 1) === 0x2e) return false;
    } else if (c === 0x25) {
      if (!isPctTriplet(name, i)) return false;
      i += 2;
    } else if (!(c < 128 && (c === 0x5f || (UNRESERVED[c] && c !== 0x2d && c !== 0x7e)))) {
      return false;
    }
  }
  return true;
}

function parseVarSpec(template: string, spec: string, at: number): VarSpec {
  const explode = spec.endsWith('*');
  const colon = explode ? -1 : spec.indexOf(':');
  const name = explode ? spec.slice(0, -1) : colon >= 0 ? spec.slice(0, colon) : spec;
  const digits = colon >= 0 ? spec.slice(colon + 1) : '';
  if (colon >= 0 && !/^[1-9][0-9]{0,3}$/.test(digits)) {
    throw malformed(template, `bad prefix modifier ":${digits}" at position ${at} (expected 1-9999)`);
  }
  const prefix = colon >= 0 ? Number(digits) : 0;
  if (!validVarname(name)) throw malformed(template, `bad variable name ${JSON.stringify(name)} at position ${at}`);
  return { name, prefix, explode };
}

function parse(template: string): Part[] {
  const parts: Part[] = [];
  let lit = '';
  let slot = 0;
  const flush = (): void => {
    if (lit) parts.push({ raw: lit, encoded: encode(lit, true) });
    lit = '';
  };
  for (let i = 0; i < template.length; i++) {
    const c = template[i];
    if (c === '}') throw malformed(template, `unmatched "}" at position ${i}`);
    if (c !== '{') {
      lit += c;
      continue;
    }
    let end = i + 1;
    while (end < template.length && template[end] !== '}' && template[end] !== '{') end++;
    if (end >= template.length || template[end] === '{') throw malformed(template, `unclosed "{" at position ${i}`);
    let body = template.slice(i + 1, end);
    let op: Operator = '';
    if (body !== '' && '+#./;?&'.includes(body[0])) {
      op = body[0] as Operator;
      body = body.slice(1);
    } else if (body !== '' && '=,!@|'.includes(body[0])) {
      throw malformed(template, `reserved operator "${body[0]}" at position ${i}`);
    }
    if (body === '') throw malformed(template, `empty expression at position ${i}`);
    const vars = body.split(',').map((spec) => parseVarSpec(template, spec, i));
    flush();
    parts.push({ op, vars, slot });
    slot += 2;
    i = end;
  }
  flush();
  return parts;
}

// ---------------------------------------------------------------- matching

// Program as parallel arrays (opcode, a, b) so the hot loop allocates nothing per step.
const CHAR = 0; // a = code unit
const CLASS = 1; // a = STOP bits that end the run
const SPLIT = 2; // a tried before b: this ordering is the thread priority
const JMP = 3; // a = target
const SAVE = 4; // a = capture slot
const MATCH = 5;
const STAR = 6; // greedy run of CLASS a: consume and stay, else fall through to pc + 1

// Stop sets as bits, so the hot loop tests a table rather than searching a string.
const [SLASH, QUERY, HASH, DOT] = [1, 2, 4, 8];
const STOP = new Uint8Array(128);
[STOP[0x2f], STOP[0x3f], STOP[0x23], STOP[0x2e]] = [SLASH, QUERY, HASH, DOT];

const inClass = (code: number, stop: number): boolean => code >= 128 || (code >= 0 && (STOP[code] & stop) === 0);

type Program = { op: Int32Array; a: Int32Array; b: Int32Array };

/** Characters a value of this expression can never contain when matching. */
function stops(e: Expression): number {
  const single = e.vars.length === 1 && !e.vars[0].explode;
  switch (e.op) {
    case '+':
      return QUERY | HASH; // stop before query/fragment so a following {?q} still matches
    case '#':
      return HASH;
    case '.':
      return single ? SLASH | QUERY | HASH | DOT : SLASH | QUERY | HASH; // a label has no dots
    case '/':
      return single ? SLASH | QUERY | HASH : QUERY | HASH;
    case '?':
    case '&':
      return HASH;
    default:
      return SLASH | QUERY | HASH;
  }
}

function compile(parts: Part[]): Program {
  const [op, a, b]: number[][] = [[], [], []];
  const emit = (o: number, x = 0, y = 0): number => {
    op.push(o);
    a.push(x);
    b.push(y);
    return op.length - 1;
  };
  for (const part of parts) {
    if ('raw' in part) {
      const s = part.raw;
      for (let i = 0; i < s.length; ) {
        if (passes(s, i, true) || isPctTriplet(s, i)) {
          emit(CHAR, s.charCodeAt(i++));
          continue;
        }
        // Expansion percent-encodes this character, so accept it either raw or encoded.
        const n = cpLength(s, i);
        const split = emit(SPLIT, op.length + 1);
        for (let j = 0; j < n; j++) emit(CHAR, s.charCodeAt(i + j));
        const jmp = emit(JMP);
        b[split] = op.length;
        for (const ch of pctEncode(s.slice(i, i + n))) emit(CHAR, ch.charCodeAt(0));
        a[jmp] = op.length;
        i += n;
      }
      continue;
    }
    const first = OPS[part.op].first;
    const stop = stops(part);
    // A prefixed expression expands to "" when every variable is undefined, so it is optional.
    const skip = first ? emit(SPLIT, op.length + 1) : -1;
    if (first) emit(CHAR, first.charCodeAt(0));
    emit(SAVE, part.slot);
    // Unprefixed expressions need one character, else "docs/" would match "docs/{name}".
    if (!first) emit(CLASS, stop);
    emit(STAR, stop);
    emit(SAVE, part.slot + 1);
    if (skip >= 0) b[skip] = op.length;
  }
  emit(MATCH);
  return { op: Int32Array.from(op), a: Int32Array.from(a), b: Int32Array.from(b) };
}

/** Captures as a persistent list: a SAVE shares its tail instead of copying an array. */
type Cap = { slot: number; pos: number; next: Cap | null };

/** Anchored Pike VM run; returns capture slots of the highest-priority full match. */
function run(prog: Program, input: string, slots: number): Int32Array | undefined {
  const { op, a, b } = prog;
  const m = op.length;
  const n = input.length;
  const seen = new Int32Array(m).fill(-1);
  // Seeds: threads that consumed the previous character, in priority order.
  let seedPc = new Int32Array(m);
  let seedCap: (Cap | null)[] = new Array<Cap | null>(m).fill(null);
  let nextPc = new Int32Array(m);
  let nextCap: (Cap | null)[] = new Array<Cap | null>(m).fill(null);
  let seeds = 1;
  seedPc[0] = 0;
  // Every pc is expanded at most once per position and pushes at most two entries.
  const stackPc = new Int32Array(2 * m + 1);
  const stackCap: (Cap | null)[] = new Array<Cap | null>(2 * m + 1).fill(null);
  for (let i = 0; i <= n && seeds > 0; i++) {
    const code = i < n ? input.charCodeAt(i) : -1;
    let next = 0;
    for (let t = 0; t < seeds; t++) {
      // Depth-first closure over jumps/splits/saves; visiting in this order is what keeps
      // the result identical to a backtracking matcher's first answer.
      let sp = 0;
      stackPc[sp] = seedPc[t];
      stackCap[sp++] = seedCap[t];
      while (sp > 0) {
        const pc = stackPc[--sp];
        const cap = stackCap[sp];
        if (seen[pc] === i) continue;
        seen[pc] = i;
        const o = op[pc];
        if (o === JMP) {
          stackPc[sp] = a[pc];
          stackCap[sp++] = cap;
        } else if (o === SPLIT) {
          stackPc[sp] = b[pc]; // pushed first so a is explored first
          stackCap[sp++] = cap;
          stackPc[sp] = a[pc];
          stackCap[sp++] = cap;
        } else if (o === SAVE) {
          stackPc[sp] = pc + 1;
          stackCap[sp++] = { slot: a[pc], pos: i, next: cap };
        } else if (o === MATCH) {
          if (code < 0) return flatten(cap, slots);
        } else if (o === STAR) {
          if (inClass(code, a[pc])) {
            nextPc[next] = pc;
            nextCap[next++] = cap;
          }
          stackPc[sp] = pc + 1;
          stackCap[sp++] = cap;
        } else if (o === CHAR ? a[pc] === code : inClass(code, a[pc])) {
          nextPc[next] = pc + 1;
          nextCap[next++] = cap;
        }
      }
    }
    [seedPc, nextPc] = [nextPc, seedPc];
    [seedCap, nextCap] = [nextCap, seedCap];
    seeds = next;
  }
  return undefined;
}

function flatten(cap: Cap | null, slots: number): Int32Array {
  const out = new Int32Array(slots).fill(-1);
  // Newest first, so a slot saved twice keeps its latest position.
  for (; cap; cap = cap.next) if (out[cap.slot] < 0) out[cap.slot] = cap.pos;
  return out;
}

function setVar(out: UriVariables, name: string, value: string | string[]): void {
  // defineProperty so a variable called __proto__ becomes data, not a prototype swap.
  if (!Object.hasOwn(out, name)) {
    Object.defineProperty(out, name, { value, enumerable: true, writable: true, configurable: true });
  }
}

function extract(parts: Part[], uri: string, caps: Int32Array): UriVariables {
  const expressions = parts.filter((p): p is Expression => 'op' in p);
  // Named operators are matched by name, pooled per family, so query parameters may
  // come in any order, be missing, or include extras.
  const pools = { ';': new Map<string, string[]>(), '?': new Map<string, string[]>() };
  for (const e of expressions) {
    if (!OPS[e.op].named || caps[e.slot] < 0) continue;
    const pool = e.op === ';' ? pools[';'] : pools['?'];
    for (const pair of uri.slice(caps[e.slot], caps[e.slot + 1]).split(OPS[e.op].sep)) {
      if (pair === '') continue;
      const eq = pair.indexOf('=');
      const key = eq < 0 ? pair : pair.slice(0, eq);
      const list = pool.get(key) ?? [];
      list.push(eq < 0 ? '' : pair.slice(eq + 1));
      pool.set(key, list);
    }
  }
  const out: UriVariables = {};
  for (const e of expressions) {
    const spec = OPS[e.op];
    if (spec.named) {
      const pool = e.op === ';' ? pools[';'] : pools['?'];
      for (const v of e.vars) {
        const found = pool.get(v.name);
        if (found) setVar(out, v.name, v.explode ? found.map(decodeURIComponent) : decodeURIComponent(found[0]));
      }
      continue;
    }
    if (caps[e.slot] < 0) continue;
    const text = uri.slice(caps[e.slot], caps[e.slot + 1]);
    if (e.vars.length === 1) {
      const v = e.vars[0];
      setVar(out, v.name, v.explode ? text.split(spec.sep).map(decodeURIComponent) : decodeURIComponent(text));
      continue;
    }
    // Several variables share one span: hand out separator-delimited pieces left to right;
    // an exploded variable takes what the later ones do not need, the last one takes the rest.
    const pieces = text.split(spec.sep);
    let p = 0;
    e.vars.forEach((v, j) => {
      const left = pieces.length - p;
      if (left <= 0) return;
      const later = e.vars.length - j - 1;
      if (v.explode) {
        const take = Math.max(1, left - later);
        setVar(out, v.name, pieces.slice(p, p + take).map(decodeURIComponent));
        p += take;
      } else {
        const take = later === 0 ? left : 1;
        setVar(out, v.name, decodeURIComponent(pieces.slice(p, p + take).join(spec.sep)));
        p += take;
      }
    });
  }
  return out;
}

// --------------------------------------------------------------- expansion

function expandExpression(e: Expression, vars: UriVariables): string {
  const spec = OPS[e.op];
  let out = '';
  let first = true;
  for (const v of e.vars) {
    const raw: unknown = Object.hasOwn(vars, v.name) ? vars[v.name] : undefined;
    if (raw === undefined || raw === null || (Array.isArray(raw) && raw.length === 0)) continue;
    out += first ? spec.first : spec.sep;
    first = false;
    const named = (s: string): string => (spec.named ? v.name + (s === '' ? spec.ifemp : '=') : '');
    if (!Array.isArray(raw)) {
      let s = String(raw);
      if (v.prefix) s = Array.from(s).slice(0, v.prefix).join('');
      out += named(s) + encode(s, spec.reserved);
    } else if (!v.explode) {
      // The prefix modifier does not apply to lists (RFC 6570 section 2.4.1).
      out += (spec.named ? v.name + '=' : '') + raw.map((x) => encode(String(x), spec.reserved)).join(',');
    } else {
      out += raw.map((x) => named(String(x)) + encode(String(x), spec.reserved)).join(spec.sep);
    }
  }
  return out;
}

// ------------------------------------------------------------------ public

export class UriTemplate {
  readonly template: string;
  readonly variableNames: string[];
  readonly #parts: Part[];
  readonly #prog: Program;
  readonly #slots: number;
  // Literals that must appear verbatim at either end; most non-matching URIs never reach the VM.
  readonly #prefix: string;
  readonly #suffix: string;

  constructor(template: string) {
    if (typeof template !== 'string') throw new TypeError('URI template must be a string');
    if (template.length > MAX_TEMPLATE_LENGTH) {
      throw new TypeError(`Invalid URI template: longer than ${MAX_TEMPLATE_LENGTH} characters`);
    }
    this.template = template;
    this.#parts = parse(template);
    const names = new Set<string>();
    let slots = 0;
    for (const p of this.#parts) {
      if ('op' in p) {
        for (const v of p.vars) names.add(v.name);
        slots = p.slot + 2;
      }
    }
    this.variableNames = [...names];
    this.#slots = slots;
    this.#prog = compile(this.#parts);
    const fixed = (p: Part | undefined): string => (p && 'raw' in p && p.raw === p.encoded ? p.raw : '');
    this.#prefix = fixed(this.#parts[0]);
    this.#suffix = this.#parts.length > 1 ? fixed(this.#parts[this.#parts.length - 1]) : '';
  }

  expand(vars: UriVariables): string {
    let out = '';
    for (const p of this.#parts) out += 'raw' in p ? p.encoded : expandExpression(p, vars);
    return out;
  }

  match(uri: string): UriVariables | undefined {
    if (typeof uri !== 'string' || uri.length > MAX_URI_LENGTH) return undefined;
    if (!uri.startsWith(this.#prefix) || !uri.endsWith(this.#suffix)) return undefined;
    const caps = run(this.#prog, uri, this.#slots);
    if (!caps) return undefined;
    try {
      return extract(this.#parts, uri, caps);
    } catch (err) {
      if (err instanceof URIError) return undefined; // malformed percent-encoding
      throw err;
    }
  }

  toString(): string {
    return this.template;
  }

  static isTemplate(s: string): boolean {
    let open = -1;
    for (let i = 0; i < s.length; i++) {
      if (s[i] === '{') open = i;
      else if (s[i] === '}') {
        if (open >= 0 && i > open + 1) return true;
        open = -1;
      }
    }
    return false;
  }
}
