/**
 * `WWW-Authenticate` parsing (RFC 9110 §11.6.1, RFC 6750 §3): the Bearer challenge's parameters
 * an MCP client acts on. Other schemes in the same header are skipped.
 */

export interface BearerChallenge {
  /** RFC 9728: where the server's Protected Resource Metadata is. */
  resourceMetadata?: string;
  /** Space-separated scopes the current operation needs. */
  scope?: string;
  /** `invalid_token`, `insufficient_scope`, `invalid_request`... */
  error?: string;
  errorDescription?: string;
}

/** The Bearer challenge of a `WWW-Authenticate` value, or undefined when it has none. */
export function parseBearerChallenge(header: string | null | undefined): BearerChallenge | undefined {
  if (!header) return undefined;
  let i = 0;
  const n = header.length;
  const skipSpace = () => {
    while (i < n && (header[i] === ' ' || header[i] === '\t')) i++;
  };
  const token = () => {
    const start = i;
    while (i < n && !' \t,="'.includes(header[i]!)) i++;
    return header.slice(start, i);
  };
  const quoted = () => {
    let out = '';
    i++; // opening quote
    while (i < n && header[i] !== '"') {
      if (header[i] === '\\' && i + 1 < n) i++;
      out += header[i++];
    }
    i++; // closing quote
    return out;
  };
  let current: Record<string, string> | undefined;
  let bearer: Record<string, string> | undefined;
  while (i < n) {
    skipSpace();
    if (header[i] === ',') {
      i++;
      continue;
    }
    const word = token();
    if (!word) {
      i++;
      continue;
    }
    skipSpace();
    if (header[i] === '=') {
      // A parameter of the current challenge (or token68 padding, which has no value after it).
      i++;
      skipSpace();
      const value = header[i] === '"' ? quoted() : token();
      if (current) current[word.toLowerCase()] = value;
      continue;
    }
    // A new scheme starts.
    current = {};
    if (word.toLowerCase() === 'bearer' && !bearer) bearer = current;
  }
  if (!bearer) return undefined;
  return {
    resourceMetadata: bearer['resource_metadata'],
    scope: bearer['scope'],
    error: bearer['error'],
    errorDescription: bearer['error_description'],
  };
}
