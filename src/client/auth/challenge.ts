/**
 * `WWW-Authenticate` parsing (RFC 9110 §11.6.1, RFC 6750 §3, RFC 9449 §7.1): the parameters of
 * the Bearer or DPoP challenge an MCP client acts on. Other schemes in the same header are skipped.
 */

export interface AuthChallenge {
  /** The scheme the parameters came from. */
  scheme: 'Bearer' | 'DPoP';
  /** RFC 9728: where the server's Protected Resource Metadata is. */
  resourceMetadata?: string;
  /** Space-separated scopes the current operation needs. */
  scope?: string;
  /** `invalid_token`, `insufficient_scope`, `invalid_request`, `use_dpop_nonce`... */
  error?: string;
  errorDescription?: string;
}

/** The name this type had before DPoP challenges were read too. */
export type BearerChallenge = AuthChallenge;

/** The Bearer challenge of a `WWW-Authenticate` value, or undefined when it has none. */
export function parseBearerChallenge(header: string | null | undefined): AuthChallenge | undefined {
  return pick(parseChallenges(header), 'bearer');
}

/**
 * The Bearer or DPoP challenge of a `WWW-Authenticate` value: the `prefer`red one when both are
 * there (the scheme the refused request used), else whichever is.
 */
export function parseAuthChallenge(header: string | null | undefined, prefer: 'Bearer' | 'DPoP' = 'Bearer'): AuthChallenge | undefined {
  const all = parseChallenges(header);
  return prefer === 'DPoP' ? (pick(all, 'dpop') ?? pick(all, 'bearer')) : (pick(all, 'bearer') ?? pick(all, 'dpop'));
}

function pick(challenges: Map<string, Record<string, string>>, scheme: 'bearer' | 'dpop'): AuthChallenge | undefined {
  const c = challenges.get(scheme);
  if (!c) return undefined;
  return {
    scheme: scheme === 'dpop' ? 'DPoP' : 'Bearer',
    resourceMetadata: c['resource_metadata'],
    scope: c['scope'],
    error: c['error'],
    errorDescription: c['error_description'],
  };
}

/** Every challenge's parameters by lower-case scheme (the first challenge of a scheme wins). */
function parseChallenges(header: string | null | undefined): Map<string, Record<string, string>> {
  const found = new Map<string, Record<string, string>>();
  if (!header) return found;
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
    if (!found.has(word.toLowerCase())) found.set(word.toLowerCase(), current);
  }
  return found;
}
