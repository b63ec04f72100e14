// Redirects followed by hand, so that credentials never reach an origin they were not meant for.
// fetch's own `redirect: 'follow'` re-sends every custom header (an `X-API-Key`) and, on 307/308,
// the body to wherever the Location points; here each hop is checked against the API's origin
// first. Same-origin hops keep everything; a cross-origin hop is refused (the default) or, when
// asked, sent with no credentials at all, and the rest of the chain stays without them.

/** What to do with a redirect to another origin (scheme, host and port). */
export type CrossOriginRedirects = 'refuse' | 'anonymous';

export interface Hop {
  url: string;
  method: string;
  /** Headers that are not credentials (accept, content-type, the operation's own parameters). */
  headers: Record<string, string>;
  /** The configured credentials, sent only to the origin of the first URL. */
  credentials: Record<string, string>;
  body: string | FormData | undefined;
}

export interface FollowOptions {
  fetch: typeof fetch;
  signal?: AbortSignal;
  /** Redirects followed at most; one more is an error. */
  maxRedirects: number;
  crossOrigin: CrossOriginRedirects;
}

/** A redirect that was not followed: the message says why, for a person (or a model) to read. */
export class RedirectRefused extends Error {
  override name = 'RedirectRefused';
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * Sends `first` and follows its redirects under the rules above. Resolves with the final response
 * (whose body is the caller's to read), or rejects with a {@link RedirectRefused}; network errors
 * reject as fetch's do.
 */
export async function fetchFollowing(first: Hop, options: FollowOptions): Promise<Response> {
  const origin = new URL(first.url).origin;
  let { url, method, body } = first;
  let headers = { ...first.headers };
  let anonymous = false;
  for (let hops = 0; ; hops++) {
    const sent = anonymous ? headers : { ...headers, ...first.credentials };
    const res = await options.fetch(url, { method, headers: sent, body, signal: options.signal, redirect: 'manual' });
    const location = REDIRECTS.has(res.status) ? res.headers.get('location') : null;
    if (location === null) return res;
    // The body of a redirect is not wanted: released so the connection can be reused.
    await res.body?.cancel().catch(() => {});
    let next: URL;
    try {
      next = new URL(location, url);
    } catch {
      throw new RedirectRefused(`redirected (HTTP ${res.status}) to an address that is not a URL: ${JSON.stringify(location.slice(0, 200))}`);
    }
    if (next.protocol !== 'http:' && next.protocol !== 'https:') {
      throw new RedirectRefused(`redirected (HTTP ${res.status}) to a ${next.protocol} address, which is not followed`);
    }
    if (hops >= options.maxRedirects) {
      throw new RedirectRefused(
        options.maxRedirects === 0
          ? `redirected (HTTP ${res.status}) to ${next.origin}${next.pathname}, and redirects are not followed (maxRedirects is 0)`
          : `stopped after ${options.maxRedirects} redirects (a loop?); the next one was to ${next.origin}${next.pathname}`,
      );
    }
    if (next.origin !== origin && !anonymous) {
      if (options.crossOrigin !== 'anonymous') {
        throw new RedirectRefused(
          `redirected (HTTP ${res.status}) to another origin, ${next.origin}; a redirect that leaves ${origin} is not followed, so that credentials meant for it go nowhere else`,
        );
      }
      // Leaving the API: nothing that may identify the caller goes along, for the rest of the chain.
      anonymous = true;
      headers = pick(headers, ['accept', 'content-type']);
    }
    // RFC 9110 §15.4 as fetch does it: 303 (and a POST answered by 301/302) becomes a GET without
    // its body; 307 and 308 repeat the method and the body.
    if ((res.status === 303 && method !== 'GET' && method !== 'HEAD') || ((res.status === 301 || res.status === 302) && method === 'POST')) {
      method = 'GET';
      body = undefined;
      headers = omit(headers, 'content-type');
    }
    url = next.href;
  }
}

function pick(headers: Record<string, string>, names: string[]): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([k]) => names.includes(k.toLowerCase())));
}

function omit(headers: Record<string, string>, name: string): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([k]) => k.toLowerCase() !== name));
}
