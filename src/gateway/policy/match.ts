// What visibility and limit rules share: name globs compiled once, and `when` conditions on the
// caller. Both run on every list and call, so they are plain loops over prepared data.
import type { CallerIdentity, GatewayItem } from '../policy-types.js';
import type { CallerMatch, ItemKind } from './config.js';

/** A glob over names: `*` any run of characters (`/` and `:` included, so URIs match), `?` one. */
export function compileGlob(glob: string): RegExp {
  let src = '';
  for (const ch of glob) {
    if (ch === '*') src += '.*';
    else if (ch === '?') src += '.';
    else src += ch.replace(/[.+^${}()|[\]\\/-]/g, '\\$&');
  }
  return new RegExp(`^${src}$`, 's');
}

/** Any of the globs matches the name. Undefined globs: everything matches. */
export class NameSet {
  private readonly exact = new Set<string>();
  private readonly patterns: RegExp[] = [];
  readonly all: boolean;

  constructor(globs: readonly string[] | undefined) {
    this.all = globs === undefined || globs.includes('*');
    for (const g of globs ?? []) {
      if (g.includes('*') || g.includes('?')) this.patterns.push(compileGlob(g));
      else this.exact.add(g);
    }
  }

  has(name: string): boolean {
    if (this.all || this.exact.has(name)) return true;
    for (const p of this.patterns) if (p.test(name)) return true;
    return false;
  }
}

function list(v: string | readonly string[] | undefined): readonly string[] | undefined {
  return v === undefined ? undefined : typeof v === 'string' ? [v] : v;
}

/** A claim's values as strings: a list claim, a space-separated one (OAuth `scope` style), or one value. */
export function claimValues(v: unknown): string[] {
  if (Array.isArray(v)) return v.filter((x) => ['string', 'number', 'boolean'].includes(typeof x)).map(String);
  if (typeof v === 'string') return v.split(' ').filter((s) => s.length > 0);
  if (typeof v === 'number' || typeof v === 'boolean') return [String(v)];
  return [];
}

/** A prepared `when`: undefined conditions match every caller. */
export class CallerCondition {
  private readonly ids: readonly string[] | undefined;
  private readonly groups: readonly string[] | undefined;
  private readonly scopes: readonly string[] | undefined;
  private readonly claims: ReadonlyArray<[string, string]>;
  private readonly anonymous: boolean | undefined;

  constructor(when: CallerMatch | undefined) {
    this.ids = list(when?.id);
    this.groups = list(when?.group);
    this.scopes = list(when?.scope);
    this.claims = Object.entries(when?.claim ?? {}).map(([k, v]) => [k, String(v)]);
    this.anonymous = when?.anonymous;
  }

  matches(caller: CallerIdentity): boolean {
    if (this.anonymous !== undefined && this.anonymous !== (caller.auth === undefined)) return false;
    if (this.ids && !this.ids.includes(caller.id)) return false;
    if (this.groups) {
      const mine = claimValues(caller.claims.groups);
      if (!this.groups.some((g) => mine.includes(g))) return false;
    }
    if (this.scopes && !this.scopes.some((s) => caller.scopes.includes(s))) return false;
    for (const [k, v] of this.claims) if (!claimValues(caller.claims[k]).includes(v)) return false;
    return true;
  }
}

/** Whether a rule limited to `kinds` applies to the item. */
export function kindMatches(kinds: readonly ItemKind[] | undefined, item: GatewayItem): boolean {
  return kinds === undefined || kinds.includes(item.kind);
}
