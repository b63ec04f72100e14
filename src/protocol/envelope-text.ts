// The 2026-07-28 envelope (protocol version, client capabilities and info, log level) is the same
// in every request a client sends until its version or level changes, and its long keys are most
// of a small request's JSON. It is kept in `_meta` as real keys, so every transport, middleware and
// test sees an ordinary message; alongside, the params carry (under a symbol, which JSON skips and
// object copies keep) the envelope's JSON text, made once, which the HTTP client writes in place
// of encoding those keys again. Anything that changed them since is encoded as it is.
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
    return JSON.stringify(message);
  }
  const m = meta as JsonObject;
  for (let i = 0; i < env.keys.length; i++) if (m[env.keys[i]] !== env.values[i]) return JSON.stringify(message);
  // The message again without the envelope's keys, `params` last and `_meta` last in it, encoded in
  // one call; the envelope's text then goes in before the three closing braces.
  const metaOut: JsonObject = {};
  for (const k of Object.keys(m)) if (!env.keys.includes(k)) metaOut[k] = m[k];
  const paramsOut: JsonObject = {};
  for (const k of Object.keys(params!)) if (k !== '_meta') paramsOut[k] = params![k];
  paramsOut._meta = metaOut;
  const out: JsonObject = {};
  for (const k of Object.keys(message)) if (k !== 'params') out[k] = (message as unknown as JsonObject)[k];
  out.params = paramsOut;
  const text = JSON.stringify(out);
  // `{}}}`: the rest of `_meta` is empty, and the envelope's keys are all of it.
  return text.charCodeAt(text.length - 4) === 123 ? `${text.slice(0, -3)}${env.text}}}}` : `${text.slice(0, -3)},${env.text}}}}`;
}
