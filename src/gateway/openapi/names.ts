// Tool names from operations: the operationId, else method and path; only the characters every
// client and model provider accepts (A-Z a-z 0-9 _ -), at most 64 of them, and unique. A name
// that must be shortened or that collides gets a short hash of what it was made from, so the
// same spec always gives the same names.

export const MAX_TOOL_NAME = 64;

/** `get /pets/{petId}` → `get_pets_petId`; `list-pets.v2` → `list-pets_v2`. */
export function sanitizeName(raw: string): string {
  const s = raw
    .replace(/[^A-Za-z0-9_-]+/g, '_')
    .replace(/_+/g, '_')
    .replace(/^[_-]+|[_-]+$/g, '');
  return s || 'operation';
}

/** FNV-1a, 32 bits, in base 36: short, stable, no crypto needed. */
export function shortHash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(36).padStart(7, '0').slice(-6);
}

function withHash(base: string, source: string, salt = ''): string {
  const suffix = `_${shortHash(source + salt)}`;
  return base.slice(0, MAX_TOOL_NAME - suffix.length).replace(/[_-]+$/, '') + suffix;
}

/** One name per source string, in order: sanitised, ≤ 64 characters, collision-free, deterministic. */
export function toolNames(sources: readonly string[]): string[] {
  const bases = sources.map((s) => {
    const clean = sanitizeName(s);
    return clean.length <= MAX_TOOL_NAME ? clean : withHash(clean, s);
  });
  const count = new Map<string, number>();
  for (const b of bases) count.set(b, (count.get(b) ?? 0) + 1);
  const used = new Set<string>();
  const out: string[] = [];
  bases.forEach((base, i) => {
    // The first operation (in document order) keeps a shared name; the others get a hash.
    let name = (count.get(base) ?? 0) > 1 && used.has(base) ? withHash(base, sources[i]) : base;
    for (let n = 1; used.has(name); n++) name = withHash(base, sources[i], `#${n}`);
    used.add(name);
    out.push(name);
  });
  return out;
}
