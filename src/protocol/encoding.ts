/**
 * Base64 as MCP's wire uses it (resource blobs, `=?base64?…?=` header values, opaque cursors,
 * sealed `requestState`), on `btoa`/`atob` and `TextEncoder` rather than Node's Buffer, so
 * the server, the client and the fetch handler load in any JavaScript runtime.
 */

const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder('utf-8');

/** Bytes as base64. Built in slices: String.fromCharCode takes its arguments on the stack. */
export function bytesToBase64(bytes: Uint8Array): string {
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000) as unknown as number[]);
  return btoa(bin);
}

/** Bytes as unpadded base64url (RFC 4648 §5). */
export function bytesToBase64url(bytes: Uint8Array): string {
  return bytesToBase64(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** Text, as UTF-8, in base64. */
export function textToBase64(text: string): string {
  return bytesToBase64(utf8Encoder.encode(text));
}

/** Text, as UTF-8, in unpadded base64url. */
export function textToBase64url(text: string): string {
  return bytesToBase64url(utf8Encoder.encode(text));
}

/** Base64 or base64url (padding optional) to bytes; undefined when `s` is not that. */
export function base64ToBytes(s: string): Uint8Array<ArrayBuffer> | undefined {
  const std = s.replace(/-/g, '+').replace(/_/g, '/');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(std)) return undefined;
  const body = std.replace(/=+$/, '');
  if (body.length % 4 === 1) return undefined;
  let bin: string;
  try {
    bin = atob(body + '='.repeat((4 - (body.length % 4)) % 4));
  } catch {
    return undefined;
  }
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** Base64 or base64url of UTF-8 text back to the text (invalid sequences become U+FFFD). */
export function base64ToText(s: string): string | undefined {
  const bytes = base64ToBytes(s);
  return bytes === undefined ? undefined : utf8Decoder.decode(bytes);
}

/** Text as UTF-8 bytes. */
export function utf8Bytes(text: string): Uint8Array<ArrayBuffer> {
  return utf8Encoder.encode(text);
}
