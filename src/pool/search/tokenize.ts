// Words for tool search. Tool names are identifiers (`list_issues`, `getFileContents`,
// `browser-navigate`) and queries are sentences, in English or any other language: identifiers
// are split at case changes, digits, `_`, `-` and `.`; English words lose their inflection (a
// small suffix stemmer, so "created" finds "create" and "issues" finds "issue"); scripts written
// without spaces (Chinese, Japanese, Korean) become overlapping character pairs, so a phrase
// inside a sentence still matches; Thai, Lao, Khmer and Myanmar go through Intl.Segmenter's
// dictionary where the runtime has one.

/** Words so common in queries and descriptions that they only cost time. */
const STOPWORDS = new Set(
  (
    'a an the and or of to in on at by for from with into onto as is are was were be been being it its this that these those ' +
    'i me my we our you your he she they them their his her can could would should will shall may might must do does did ' +
    'please want wants need needs some any so than then there here what which who whom whose how when where why if else ' +
    'also just very via about over under up out not no yes let lets get gets got'
  ).split(' '),
);

/**
 * Runs of text: Chinese and Japanese (Han and kana together, as Japanese mixes them within a
 * word), Hangul, the South-East Asian scripts written without spaces, and words of every other
 * script (letters, marks and digits).
 */
const UNSPACED =
  '\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}ー\\p{Script=Hangul}\\p{Script=Thai}\\p{Script=Lao}\\p{Script=Khmer}\\p{Script=Myanmar}';
const RUNS = new RegExp(
  '([\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}ー]+)|(\\p{Script=Hangul}+)|' +
    '([\\p{Script=Thai}\\p{Script=Lao}\\p{Script=Khmer}\\p{Script=Myanmar}]+)|' +
    `((?:(?![${UNSPACED}])[\\p{L}\\p{M}\\p{N}])+)`,
  'gu',
);

const ASCII = /^[\t\n\r\x20-\x7e]*$/;
const ASCII_WORDS = /[A-Za-z0-9]+/g;
const LOWER = /^[a-z]+$/;
const ASCII_WORD = /^[A-Za-z0-9]+$/;

type Segmenter = { segment(text: string): Iterable<{ segment: string; isWordLike?: boolean }> };
let segmenter: Segmenter | null | undefined;
function wordSegmenter(): Segmenter | null {
  if (segmenter === undefined) {
    const Ctor = (Intl as unknown as { Segmenter?: new (locale?: string, options?: { granularity: string }) => Segmenter }).Segmenter;
    segmenter = Ctor ? new Ctor(undefined, { granularity: 'word' }) : null;
  }
  return segmenter;
}

/** Words whose stem would be another word: "news" is not "new". */
const UNSTEMMED = new Set(['news']);

/**
 * Light English stemming: plural, -ing, -ed, the -ion of -ation and a final e go, so that
 * create, creates, created, creating and creation all become `creat`. Only the ends of words change, and only
 * where the rest is long enough to stay a word. Words that are not a-z only are left as they are.
 */
export function stem(word: string): string {
  if (word.length <= 3 || !/^[a-z]+$/.test(word) || UNSTEMMED.has(word)) return word;
  let w = word;
  if (w.endsWith('ies') && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (/(?:ss|sh|ch|x|z)es$/.test(w)) w = w.slice(0, -2);
  else if (w.endsWith('s') && !/(?:ss|us|is)$/.test(w)) w = w.slice(0, -1);
  if (w.length > 5 && w.endsWith('ing')) w = undouble(w.slice(0, -3));
  else if (w.length > 4 && w.endsWith('ed') && !w.endsWith('eed')) w = undouble(w.slice(0, -2));
  else if (w.length > 6 && w.endsWith('ation')) w = w.slice(0, -3);
  if (w.length > 3 && w.endsWith('e')) w = w.slice(0, -1);
  return w;
}

/** `runn` → `run`, `stopp` → `stop`; `fill`, `pass`, `buzz` keep their pairs. */
function undouble(w: string): string {
  const n = w.length;
  return n > 2 && w[n - 1] === w[n - 2] && !'lsz'.includes(w[n - 1] as string) && !'aeiou'.includes(w[n - 1] as string) ? w.slice(0, -1) : w;
}

/** Pushes the overlapping pairs of a run (a lone character stands for itself). */
function pairs(run: string, out: string[]): void {
  const chars = Array.from(run);
  if (chars.length === 1) out.push(run);
  for (let i = 0; i + 1 < chars.length; i++) out.push((chars[i] as string) + (chars[i + 1] as string));
}

/** `identifierParts` for an ASCII word, without regular expressions (most tool text; build time). */
function asciiParts(word: string): string[] {
  const parts: string[] = [];
  let start = 0;
  const kind = (c: number) => (c >= 48 && c <= 57 ? 0 : c >= 65 && c <= 90 ? 1 : 2); // digit, upper, lower
  for (let i = 1; i < word.length; i++) {
    const a = kind(word.charCodeAt(i - 1));
    const b = kind(word.charCodeAt(i));
    // lower|digit → Upper; letter ↔ digit; the last capital of an acronym starts a word (HTTPServer).
    const cut = (b === 1 && a !== 1) || (a === 0) !== (b === 0) || (a === 1 && b === 1 && i + 1 < word.length && kind(word.charCodeAt(i + 1)) === 2);
    if (cut) {
      parts.push(word.slice(start, i));
      start = i;
    }
  }
  parts.push(word.slice(start));
  return parts;
}

/** Splits an identifier-like word at case changes and letter/digit boundaries. */
function identifierParts(word: string): string[] {
  return word
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu}+)(\p{Lu}\p{Ll})/gu, '$1 $2')
    .replace(/(\p{L})(\p{N})/gu, '$1 $2')
    .replace(/(\p{N})(\p{L})/gu, '$1 $2')
    .split(' ');
}

/**
 * The index terms of a text, in order, repeats kept (they are term frequencies). A word written
 * as one in camelCase (`GitHub`, `listIssues`) also counts whole, so "github" finds `GitHub`.
 * `keepStopwords` is for names, where every part says something.
 */
export function tokenize(text: string, keepStopwords = false): string[] {
  const out: string[] = [];
  // Most tool text is ASCII: a cheaper pattern, and no Unicode normalisation to do.
  if (ASCII.test(text)) {
    for (const m of text.matchAll(ASCII_WORDS)) word(m[0], out, keepStopwords);
    return out;
  }
  for (const m of text.normalize('NFKC').matchAll(RUNS)) {
    const run = m[0];
    if (m[1] !== undefined || m[2] !== undefined) {
      pairs(run, out);
      continue;
    }
    if (m[3] !== undefined) {
      const seg = wordSegmenter();
      if (!seg) pairs(run, out);
      else for (const s of seg.segment(run)) if (s.isWordLike !== false && s.segment.trim() !== '') out.push(s.segment);
      continue;
    }
    if (ASCII_WORD.test(run)) {
      word(run, out, keepStopwords);
      continue;
    }
    const parts = identifierParts(run);
    if (parts.length > 1) add(run, out, keepStopwords);
    for (const p of parts) add(p, out, keepStopwords);
  }
  return out;
}

/** An ASCII word: whole and in its identifier parts. */
function word(run: string, out: string[], keepStopwords: boolean): void {
  if (LOWER.test(run)) {
    add(run, out, keepStopwords);
    return;
  }
  const parts = asciiParts(run);
  if (parts.length > 1) add(run, out, keepStopwords);
  for (const p of parts) add(p, out, keepStopwords);
}

function add(word: string, out: string[], keepStopwords: boolean): void {
  // Accents off Latin letters only: NFD would take Hangul syllables and kana apart.
  let w = word.toLowerCase();
  if (/[\u00c0-\u024f]/.test(w)) w = w.normalize('NFD').replace(/[\u0300-\u036f]/g, '');
  if (w.length === 0 || (!keepStopwords && STOPWORDS.has(w))) return;
  out.push(stem(w));
}

/** The words of an identifier, without the whole-word forms `tokenize` adds: `listIssues` → list, issu. */
export function nameWords(name: string): string[] {
  const out: string[] = [];
  if (ASCII.test(name)) for (const m of name.matchAll(ASCII_WORDS)) for (const p of asciiParts(m[0])) add(p, out, true);
  else for (const m of name.normalize('NFKC').matchAll(/[\p{L}\p{N}]+/gu)) for (const p of identifierParts(m[0])) add(p, out, true);
  return [...new Set(out)];
}
