// Reading a JSON file a person wrote (a config): a syntax error is said at its line and column,
// as an editor shows them (V8 on Node 20 gives only a character offset: "at position 312").

/** Where a JSON syntax error is, and why, in the words a person can act on. */
export interface JsonSyntaxProblem {
  line: number;
  column: number;
  reason: string;
}

/** JSON.parse; a syntax error is thrown as a SyntaxError whose message begins "LINE:COLUMN: ". */
export function parseJsonText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
    const p = jsonSyntaxProblem(text, err);
    throw new SyntaxError(`${p.line}:${p.column}: ${p.reason}`, { cause: err });
  }
}

export function jsonSyntaxProblem(text: string, err: SyntaxError): JsonSyntaxProblem {
  const at = / in JSON at position (\d+)/.exec(err.message);
  // No position: the text ended too soon.
  const offset = at ? Number(at[1]) : text.length;
  const reason = at ? err.message.slice(0, at.index) : /end of JSON input/.test(err.message) ? 'the JSON ends too soon (a "}" or "]" missing?)' : err.message;
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - (before.lastIndexOf('\n') + 1) + 1;
  return { line, column, reason };
}
