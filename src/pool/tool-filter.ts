// Which of a server's tools a host offers: allow and deny lists of exact names and simple globs
// (`*` any run of characters, `?` one character), as users write them in a config file.

/** A glob as a RegExp over the whole name; other characters match themselves. */
export function globToRegExp(glob: string): RegExp {
  let source = '';
  for (const ch of glob) {
    if (ch === '*') source += '.*';
    else if (ch === '?') source += '.';
    else source += ch.replace(/[.+^${}()|[\]\\/-]/g, '\\$&');
  }
  return new RegExp(`^${source}$`, 'su');
}

/**
 * A predicate over tool names: allowed when `allow` is absent or some entry matches, and no
 * `deny` entry matches (deny wins).
 */
export function toolFilter(allow: readonly string[] | undefined, deny: readonly string[] | undefined): (name: string) => boolean {
  const a = allow?.map(globToRegExp);
  const d = (deny ?? []).map(globToRegExp);
  return (name) => (a === undefined || a.some((r) => r.test(name))) && !d.some((r) => r.test(name));
}
