// What a model's context holds, without a tokenizer: how many tokens a text (a tool definition's
// JSON) takes, estimated from the shapes BPE tokenizers cut text into, and how large the context
// of a model is, from a table of the families a host meets. The host uses both to decide when
// tool definitions cost too much of the context to send (loop/conversation.ts, `deferTools`).
// The estimate is checked against a real tokenizer (o200k_base) on 1,168 real tool definitions
// in test/host/budget.test.ts.

/**
 * Tokens of `text`, estimated: a little more than half a token per word and a third per space
 * (a space and the word after it are often one token; identifiers are cut at case changes, and
 * a quoted JSON key often merges with its quotes), a token per three digits, about
 * one per run of punctuation (`":"`, `","`, `{"` are single tokens), one per line break and its
 * indentation, about 0.7 per CJK character and 0.3 per character of other scripts. The weights
 * were fitted on real tool definitions against o200k_base; no tables, one pass over the text.
 */
export function estimateTokens(text: string): number {
  let tokens = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (isLetter(c)) {
      // A run of ASCII letters, cut where a lower-case letter is followed by a capital (camelCase).
      let start = i;
      i++;
      while (i < n && isLetter(text.charCodeAt(i))) {
        const d = text.charCodeAt(i);
        if (d >= 65 && d <= 90 && isLower(text.charCodeAt(i - 1))) {
          tokens += wordTokens(i - start);
          start = i;
        }
        i++;
      }
      tokens += wordTokens(i - start);
    } else if (c >= 48 && c <= 57) {
      const start = i;
      while (i < n && isDigit(text.charCodeAt(i))) i++;
      tokens += 1.3 * Math.ceil((i - start) / 3);
    } else if (c === 32) {
      i++;
      tokens += 0.33;
    } else if (c === 10 || c === 13 || c === 9) {
      while (i < n && isBlank(text.charCodeAt(i))) i++;
      tokens += 1;
    } else if (c < 128) {
      const start = i;
      while (i < n && isPunctuation(text.charCodeAt(i))) i++;
      tokens += 0.9 + 0.33 * (i - start - 1);
    } else if (isWide(c)) {
      i++;
      tokens += 0.7;
    } else {
      i++;
      tokens += 0.3;
    }
  }
  return Math.ceil(tokens);
}

/** A word (or part of an identifier) of `length` ASCII letters. */
function wordTokens(length: number): number {
  return length <= 3 ? 0.8 : length <= 10 ? 0.55 : length / 8;
}

function isLetter(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90);
}
function isLower(c: number): boolean {
  return c >= 97 && c <= 122;
}
function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}
function isBlank(c: number): boolean {
  return c === 10 || c === 13 || c === 9 || c === 32;
}
function isPunctuation(c: number): boolean {
  return c < 128 && c !== 32 && c !== 10 && c !== 13 && c !== 9 && !isLetter(c) && !isDigit(c);
}
/** Han, kana, hangul, fullwidth forms and emoji (surrogates): about a token each. */
function isWide(c: number): boolean {
  return (
    (c >= 0x2e80 && c <= 0x9fff) || (c >= 0xac00 && c <= 0xd7af) || (c >= 0xf900 && c <= 0xfaff) || (c >= 0xff00 && c <= 0xffef) || (c >= 0xd800 && c <= 0xdfff)
  );
}

/** Context windows (tokens) by model name: the first pattern that matches the name, lower-cased, after any `provider/` prefix. */
export const CONTEXT_WINDOWS: ReadonlyArray<readonly [RegExp, number]> = [
  [/^gpt-4\.1/, 1_047_576],
  [/^gpt-5/, 400_000],
  [/^gpt-4o|^chatgpt-4o|^gpt-4-turbo|^gpt-4-\d{4}-preview/, 128_000],
  [/^gpt-4(-|$)/, 8_192],
  [/^gpt-3\.5/, 16_385],
  [/^o\d/, 200_000],
  [/^gpt-oss/, 131_072],
  [/^claude/, 200_000],
  [/^gemini-(1\.5|2|3)/, 1_048_576],
  [/^gemini/, 32_768],
  [/^(meta-)?llama-?3\.[1-9]|^llama-?4/, 131_072],
  [/^(meta-)?llama/, 8_192],
  [/^qwen-?3|^qwq|^qwen-?2\.5/, 32_768],
  [/^mistral-(large|medium|small)|^codestral|^ministral|^magistral/, 128_000],
  [/^mistral|^mixtral/, 32_768],
  [/^deepseek/, 128_000],
  [/^gemma-?3/, 128_000],
  [/^gemma/, 8_192],
  [/^phi-?4/, 16_384],
  [/^command-r|^command-a/, 128_000],
  [/^grok/, 131_072],
  [/^kimi|^moonshot/, 131_072],
  [/^glm-?4/, 128_000],
];

/** The context of a model no pattern knows: small, so that a local model with a short context defers early rather than never. */
export const DEFAULT_CONTEXT_WINDOW = 32_768;

/** The context window of `model` in tokens, from CONTEXT_WINDOWS; DEFAULT_CONTEXT_WINDOW for a model it does not know. */
export function contextWindowOf(model: string): number {
  const name = model.toLowerCase().replace(/^.*\//, '');
  for (const [pattern, tokens] of CONTEXT_WINDOWS) if (pattern.test(name)) return tokens;
  return DEFAULT_CONTEXT_WINDOW;
}
