// The 2026-07-28 envelope (protocol version, client capabilities and info, log level) is the same
// in every request a client sends until its version or level changes, and its long keys are most
// of a small request's JSON. It is kept in `_meta` as real keys, so every transport, middleware and
// test sees an ordinary message; alongside, the params carry (under a symbol, which JSON skips and
// object copies keep) the envelope's JSON text, made once, which the HTTP client writes in place
// of encoding those keys again. Anything that changed them since is encoded as it is.
import { encodeMessage } from '../jsonrpc/codec.js';
import type { JsonObject, JsonRpcMessage } from '../jsonrpc/messages.js';

/** An envelope (its own copy), its keys, their values, and the JSON text of them (without braces). */
export interface EnvelopeText {
  readonly meta: JsonObject;
  readonly keys: readonly string[];
  readonly values: readonly unknown[];
  readonly text: string;
}

/** Where params that carry the envelope keep its text. */
export const ENVELOPE_TEXT: unique symbol = Symbol('mcpkit.envelopeText');

/**
 * The text of an envelope (the `_meta` keys a request carries), made once per envelope, with a
 * copy of it read back from that text: the objects sent are the ones the text was made from, so
 * an options object changed in place later cannot make the two disagree.
 */
export function envelopeText(given: JsonObject): EnvelopeText {
  const json = JSON.stringify(given);
  const meta = JSON.parse(json) as JsonObject;
  const keys = Object.keys(meta);
  return { meta, keys, values: keys.map((k) => meta[k]), text: json.slice(1, -1) };
}

type Marked = JsonObject & { [ENVELOPE_TEXT]?: EnvelopeText };

/**
 * A message as JSON text, the same as JSON.stringify's (keys may come in another order): a request
 * whose params carry their envelope's text, with `_meta` still holding that envelope's values,
 * has the text written in, not encoded again.
 */
export function encodeWithEnvelope(message: JsonRpcMessage): string {
  const params = (message as { params?: Marked }).params;
  const env = params?.[ENVELOPE_TEXT];
  const meta = params?._meta;
  if (
    env === undefined ||
    env.text === '' ||
    typeof (params as { toJSON?: unknown }).toJSON === 'function' ||
    meta === null ||
    typeof meta !== 'object' ||
    Array.isArray(meta) ||
    typeof (meta as { toJSON?: unknown }).toJSON === 'function'
  ) {
    return encodeMessage(message);
  }
  const m = meta as JsonObject;
  for (let i = 0; i < env.keys.length; i++) if (m[env.keys[i]] !== env.values[i]) return encodeMessage(message);
  // The envelope's text goes in before the three closing braces: `params` must be the message's
  // last key and `_meta` the last of params (as the engine and withEnvelope make them), which
  // for-in, in the order JSON.stringify writes keys, says without copying anything.
  let last: string | undefined;
  for (const k in message) last = k;
  if (last !== 'params') return encodeMessage(message);
  for (const k in params) last = k;
  if (last !== '_meta') return encodeMessage(message);
  // The rest of `_meta` (a progress token, the caller's own keys), usually nothing.
  let rest = NOTHING;
  for (const k in m) if (!env.keys.includes(k)) (rest === NOTHING ? (rest = {}) : rest)[k] = m[k];
  // Encoded with the rest in place of `_meta`, in one call, then put back: these params are the
  // session's own copy (withEnvelope), which nothing else reads meanwhile.
  const own = params as JsonObject;
  try {
    own._meta = rest;
  } catch {
    // Frozen params (a middleware's doing): encoded as they are, as anything else would be.
    return encodeMessage(message);
  }
  let text: string | undefined;
  try {
    if (own._meta === rest) text = encodeMessage(message);
  } finally {
    own._meta = m;
  }
  // Not a plain property (an accessor would not keep what it was given): encoded as it is.
  if (text === undefined) return encodeMessage(message);
  // `{}}}`: the rest of `_meta` is empty, and the envelope's keys are all of it.
  return text.charCodeAt(text.length - 4) === 123 ? `${text.slice(0, -3)}${env.text}}}}` : `${text.slice(0, -3)},${env.text}}}}`;
}

/** The rest of an envelope-only `_meta`: encoded as `{}`, never written to. */
const NOTHING: JsonObject = Object.freeze({}) as JsonObject;
