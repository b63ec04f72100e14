/**
 * The YAML that SKILL.md frontmatter uses, read into JSON values with the YAML 1.2 core schema
 * (what common YAML libraries produce, so a host that parses the file with one gets the same
 * object the listing carries): block mappings and sequences, plain, quoted and block scalars
 * (`|`, `>`, chomping), flow collections, comments. Anchors, aliases, tags, complex keys and
 * multiple documents are refused with a clear error rather than guessed at; a server whose
 * skills need them passes a full parser (`skills({ parseFrontmatter })`).
 */
export class YamlSubsetError extends Error {
  override name = 'YamlSubsetError';
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

interface Line {
  indent: number;
  text: string;
  n: number;
}

/** The frontmatter block of a SKILL.md (between the leading `---` lines), or undefined when it has none. */
export function frontmatterBlock(text: string): string | undefined {
  const t = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const m = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(t);
  return m?.[1];
}

/** Parses a YAML document that is a mapping (as frontmatter is) into a JSON object. */
export function parseYamlMapping(source: string): Record<string, Json> {
  const lines: Line[] = source.split(/\r?\n/).map((raw, n) => {
    const indent = /^ */.exec(raw)![0].length;
    if (raw[indent] === '\t') throw new YamlSubsetError(`line ${n + 1}: a tab in indentation`);
    return { indent, text: raw.slice(indent).trimEnd(), n: n + 1 };
  });
  const p = new Parser(lines);
  const first = p.next(0);
  if (first === lines.length) return {};
  const [value, end] = p.block(first, lines[first].indent);
  const rest = p.next(end);
  if (rest < lines.length) throw p.error(rest, 'unexpected content (a wrong indentation?)');
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new YamlSubsetError('the frontmatter is not a mapping');
  return value;
}

const isBlank = (l: Line) => l.text === '' || l.text.startsWith('#');
const isSeqItem = (text: string) => text === '-' || text.startsWith('- ');

class Parser {
  constructor(private readonly lines: Line[]) {}

  error(i: number, message: string): YamlSubsetError {
    return new YamlSubsetError(`line ${this.lines[i]?.n ?? this.lines.length}: ${message}`);
  }

  /** The index of the first content line at or after `i`. */
  next(i: number): number {
    while (i < this.lines.length && isBlank(this.lines[i])) i++;
    return i;
  }

  block(i: number, indent: number): [Json, number] {
    return isSeqItem(this.lines[i].text) ? this.sequence(i, indent) : this.mapping(i, indent);
  }

  private mapping(i: number, indent: number): [Json, number] {
    const out: Record<string, Json> = {};
    for (i = this.next(i); i < this.lines.length && this.lines[i].indent === indent && !isSeqItem(this.lines[i].text); i = this.next(i)) {
      const { key, rest } = this.key(i);
      if (Object.hasOwn(out, key)) throw this.error(i, `the key "${key}" appears twice`);
      let value: Json;
      if (stripComment(rest) === '') {
        const j = this.next(i + 1);
        const l = this.lines[j];
        if (l && (l.indent > indent || (l.indent === indent && isSeqItem(l.text)))) [value, i] = this.block(j, l.indent);
        else [value, i] = [null, i + 1];
      } else [value, i] = this.value(rest, i, indent);
      // A plain object would treat "__proto__" as its prototype.
      Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
    }
    return [out, i];
  }

  private sequence(i: number, indent: number): [Json, number] {
    const out: Json[] = [];
    for (i = this.next(i); i < this.lines.length && this.lines[i].indent === indent && isSeqItem(this.lines[i].text); i = this.next(i)) {
      const line = this.lines[i];
      const rest = line.text.slice(1).trimStart();
      const offset = line.text.length - rest.length;
      if (stripComment(rest) === '') {
        const j = this.next(i + 1);
        const l = this.lines[j];
        let v: Json = null;
        if (l && l.indent > indent) [v, i] = this.block(j, l.indent);
        else i++;
        out.push(v);
      } else if (isSeqItem(rest) || this.looksLikeKey(rest)) {
        // A compact nested collection: the item's content as a line of its own, further in.
        this.lines[i] = { indent: indent + offset, text: rest, n: line.n };
        let v: Json;
        [v, i] = this.block(i, indent + offset);
        out.push(v);
      } else {
        let v: Json;
        [v, i] = this.value(rest, i, indent);
        out.push(v);
      }
    }
    return [out, i];
  }

  private looksLikeKey(text: string): boolean {
    if (text.startsWith('"') || text.startsWith("'")) {
      const end = quotedEnd(text);
      return end > 0 && /^\s*:(\s|$)/.test(text.slice(end));
    }
    return !/^[[{|>]/.test(text) && /^[^#]*?:(\s|$)/.test(text);
  }

  private key(i: number): { key: string; rest: string } {
    const text = this.lines[i].text;
    if (text.startsWith('? ') || text === '?') throw this.error(i, 'complex keys (?) are not supported');
    if (text.startsWith('"') || text.startsWith("'")) {
      const end = quotedEnd(text);
      const m = end > 0 ? /^\s*:(\s|$)/.exec(text.slice(end)) : null;
      if (!m) throw this.error(i, 'expected "key: value"');
      return { key: String(unquote(text.slice(0, end), () => this.error(i, 'a bad escape'))), rest: text.slice(end + m[0].length).trim() };
    }
    const m = /^([^#]*?)\s*:(?:\s+|$)/.exec(text);
    if (!m || m[1] === '') throw this.error(i, 'expected "key: value"');
    if (/^[&*!%@`]/.test(m[1])) throw this.error(i, `"${m[1][0]}" (anchors, aliases, tags, directives) is not supported`);
    return { key: m[1], rest: text.slice(m[0].length).trim() };
  }

  /** A value that starts on line `i` (after a key or a dash), and where it ends. */
  private value(rest: string, i: number, parent: number): [Json, number] {
    const c = rest[0];
    if (c === '&' || c === '*' || c === '!') throw this.error(i, `"${c}" (anchors, aliases, tags) is not supported`);
    if (c === '|' || c === '>') return this.blockScalar(rest, i, parent);
    if (c === '[' || c === '{') {
      let text = rest;
      let j = i;
      for (;;) {
        try {
          const flow = new Flow(stripComment(text));
          const v = flow.value();
          flow.end();
          return [v, j + 1];
        } catch (e) {
          if (!(e instanceof Incomplete)) throw this.error(i, (e as Error).message);
          j++;
          if (j >= this.lines.length) throw this.error(i, 'an unclosed flow collection');
          text += ` ${this.lines[j].text}`;
        }
      }
    }
    // Plain and quoted scalars may continue on more-indented lines, folded.
    let j = i + 1;
    const parts = [rest];
    while (j < this.lines.length && (this.lines[j].text === '' || this.lines[j].indent > parent)) {
      if (this.lines[j].text.startsWith('#') && c !== '"' && c !== "'") break;
      parts.push(this.lines[j].text);
      j++;
    }
    while (parts.length > 1 && parts[parts.length - 1] === '') {
      parts.pop();
      j--;
    }
    if (c === '"' || c === "'") {
      // Only the lines up to the closing quote belong to the scalar.
      let text = parts[0];
      let used = 1;
      while (quotedEnd(text) < 0 && used < parts.length) text += `\n${parts[used++]}`;
      const end = quotedEnd(text);
      if (end < 0) throw this.error(i, 'an unclosed quoted string');
      if (stripComment(text.slice(end)).trim() !== '') throw this.error(i, 'content after a quoted string');
      return [unquote(fold(text.slice(0, end)), () => this.error(i, 'a bad escape')), i + used];
    }
    const folded = fold(parts.map(stripComment).join('\n'));
    // YAML itself refuses "a: b: c" (a mapping inside a plain scalar): so does this.
    if (/:(\s|$)/.test(folded)) throw this.error(i, 'a ": " inside a plain value (quote the value)');
    return [resolvePlain(folded), j];
  }

  private blockScalar(header: string, i: number, parent: number): [Json, number] {
    const m = /^([|>])([-+]?)([1-9]?)([-+]?)\s*(#.*)?$/.exec(header);
    if (!m) throw this.error(i, `a bad block scalar header "${header}"`);
    const literal = m[1] === '|';
    const chomp = m[2] || m[4];
    let j = i + 1;
    let indent = m[3] ? parent + Number(m[3]) : -1;
    const body: string[] = [];
    for (; j < this.lines.length; j++) {
      const l = this.lines[j];
      if (l.text === '') {
        body.push('');
        continue;
      }
      if (indent < 0) indent = l.indent;
      if (l.indent < indent || l.indent <= parent) break;
      body.push(' '.repeat(l.indent - indent) + l.text);
    }
    if (indent >= 0 && indent <= parent) return ['', i + 1];
    let trailing = 0;
    while (body.length > 0 && body[body.length - 1] === '') {
      body.pop();
      trailing++;
    }
    j -= trailing;
    // Trailing blank lines that belong to the scalar (the rest are separators before the next key).
    let text = literal ? body.join('\n') : foldBlock(body);
    if (body.length === 0) return ['', j + trailing];
    if (chomp === '-') return [text, j + trailing];
    text += '\n';
    if (chomp === '+') text += '\n'.repeat(trailing);
    return [text, j + trailing];
  }
}

/** `>` folding: lines joined by spaces, blank lines kept as newlines, more-indented lines kept as they are. */
function foldBlock(lines: string[]): string {
  let out = '';
  for (let k = 0; k < lines.length; k++) {
    const l = lines[k];
    if (k === 0) {
      out = l;
      continue;
    }
    const prev = lines[k - 1];
    const indented = (s: string) => s.startsWith(' ');
    if (l === '' || prev === '' || indented(l) || indented(prev)) out += `\n${l}`;
    else out += ` ${l}`;
  }
  // A blank line between two folded lines stands for one newline, not two.
  return out.replace(/([^\n ][^\n]*)\n\n(?=[^ \n])/g, (_, a: string) => `${a}\n`);
}

/** Flow folding of a multi-line scalar: a line break is a space, each blank line a newline. */
function fold(text: string): string {
  if (!text.includes('\n')) return text;
  const lines = text.split('\n').map((l, k, all) => (k === 0 ? l.trimEnd() : k === all.length - 1 ? l.trimStart() : l.trim()));
  let out = lines[0];
  let blanks = 0;
  for (let k = 1; k < lines.length; k++) {
    if (lines[k] === '' && k < lines.length - 1) {
      blanks++;
      continue;
    }
    out += blanks > 0 ? '\n'.repeat(blanks) + lines[k] : ` ${lines[k]}`;
    blanks = 0;
  }
  return out;
}

function stripComment(text: string): string {
  if (text.startsWith('#')) return '';
  const k = text.search(/\s#/);
  return (k < 0 ? text : text.slice(0, k)).trimEnd();
}

/** The index just past the closing quote of the quoted scalar `text` starts with; -1 if unclosed. */
function quotedEnd(text: string): number {
  const q = text[0];
  for (let k = 1; k < text.length; k++) {
    if (q === '"' && text[k] === '\\') k++;
    else if (text[k] === q) {
      if (q === "'" && text[k + 1] === "'") k++;
      else return k + 1;
    }
  }
  return -1;
}

const ESCAPES: Record<string, string> = {
  '0': '\0',
  a: '\x07',
  b: '\b',
  t: '\t',
  '\t': '\t',
  n: '\n',
  v: '\v',
  f: '\f',
  r: '\r',
  e: '\x1b',
  ' ': ' ',
  '"': '"',
  '/': '/',
  '\\': '\\',
  N: '\x85',
  _: '\xa0',
  L: '\u2028',
  P: '\u2029',
};

function unquote(text: string, bad: () => Error): string {
  const body = text.slice(1, -1);
  if (text[0] === "'") return body.replace(/''/g, "'");
  return body.replace(/\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|\n\s*|.)/g, (_, e: string) => {
    if (e.length > 1 && 'xuU'.includes(e[0])) return String.fromCodePoint(Number.parseInt(e.slice(1), 16));
    if (e.startsWith('\n')) return '';
    const v = ESCAPES[e];
    if (v === undefined) throw bad();
    return v;
  });
}

/** A plain scalar under the YAML 1.2 core schema. */
function resolvePlain(s: string): Json {
  if (s === '' || s === '~' || /^(null|Null|NULL)$/.test(s)) return null;
  if (/^(true|True|TRUE)$/.test(s)) return true;
  if (/^(false|False|FALSE)$/.test(s)) return false;
  if (/^[-+]?[0-9]+$/.test(s)) return Number(s);
  if (/^0o[0-7]+$/.test(s)) return Number.parseInt(s.slice(2), 8);
  if (/^0x[0-9a-fA-F]+$/.test(s)) return Number.parseInt(s.slice(2), 16);
  if (/^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/.test(s)) return Number(s);
  // JSON has no infinities or NaN: the nearest thing a JSON object can carry.
  if (/^[-+]?\.(inf|Inf|INF)$/.test(s) || /^\.(nan|NaN|NAN)$/.test(s)) return null;
  return s;
}

class Incomplete extends Error {}

/** A flow collection (`[a, b]`, `{k: v}`) on one logical line. */
class Flow {
  private k = 0;
  constructor(private readonly s: string) {}

  private ws(): void {
    while (this.k < this.s.length && /\s/.test(this.s[this.k])) this.k++;
  }

  end(): void {
    this.ws();
    if (this.k < this.s.length) throw new Error('content after a flow collection');
  }

  value(): Json {
    this.ws();
    const c = this.s[this.k];
    if (c === undefined) throw new Incomplete();
    if (c === '[') return this.seq();
    if (c === '{') return this.map();
    if (c === '"' || c === "'") {
      const end = quotedEnd(this.s.slice(this.k));
      if (end < 0) throw new Incomplete();
      const text = this.s.slice(this.k, this.k + end);
      this.k += end;
      return unquote(text, () => new Error('a bad escape'));
    }
    if (c === '&' || c === '*' || c === '!') throw new Error(`"${c}" (anchors, aliases, tags) is not supported`);
    const m = /^[^,[\]{}]*?(?=\s*(?:[,\]}]|:\s|:$|$))/.exec(this.s.slice(this.k));
    const text = m ? m[0] : '';
    this.k += text.length;
    return resolvePlain(text.trim());
  }

  private seq(): Json[] {
    this.k++;
    const out: Json[] = [];
    for (;;) {
      this.ws();
      if (this.k >= this.s.length) throw new Incomplete();
      if (this.s[this.k] === ']') {
        this.k++;
        return out;
      }
      out.push(this.value());
      this.ws();
      if (this.s[this.k] === ',') this.k++;
      else if (this.s[this.k] !== ']') {
        if (this.k >= this.s.length) throw new Incomplete();
        throw new Error('expected "," or "]" in a flow sequence');
      }
    }
  }

  private map(): Record<string, Json> {
    this.k++;
    const out: Record<string, Json> = {};
    for (;;) {
      this.ws();
      if (this.k >= this.s.length) throw new Incomplete();
      if (this.s[this.k] === '}') {
        this.k++;
        return out;
      }
      const key = String(this.value());
      this.ws();
      let v: Json = null;
      if (this.s[this.k] === ':') {
        this.k++;
        v = this.value();
      }
      Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
      this.ws();
      if (this.s[this.k] === ',') this.k++;
      else if (this.s[this.k] !== '}') {
        if (this.k >= this.s.length) throw new Incomplete();
        throw new Error('expected "," or "}" in a flow mapping');
      }
    }
  }
}
