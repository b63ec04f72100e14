// Who sees what. Of the rules whose `when` and `kinds` fit, a matching `deny` hides the item
// whatever else says; otherwise a matching `allow` shows it; otherwise the default decides. Order
// does not matter, so a rule added at the end cannot quietly undo a deny above it.
import type { CallerIdentity, GatewayItem } from '../policy-types.js';
import type { VisibilityConfig, VisibilityRule } from './config.js';
import { CallerCondition, kindMatches, NameSet } from './match.js';

interface Compiled {
  when: CallerCondition;
  rule: VisibilityRule;
  allow: NameSet | undefined;
  deny: NameSet | undefined;
}

export class Visibility {
  private readonly rules: Compiled[];
  private readonly defaultAllow: boolean;
  /** The rules that fit each caller, worked out once per identity object (lists ask per item). */
  private readonly perCaller = new WeakMap<CallerIdentity, Compiled[]>();

  constructor(config: VisibilityConfig | readonly VisibilityRule[] | undefined) {
    const section: VisibilityConfig = config === undefined ? { rules: [] } : Array.isArray(config) ? { rules: config } : (config as VisibilityConfig);
    this.rules = section.rules.map((rule) => ({
      when: new CallerCondition(rule.when),
      rule,
      allow: rule.allow && new NameSet(rule.allow),
      deny: rule.deny && new NameSet(rule.deny),
    }));
    this.defaultAllow = (section.default ?? (section.rules.some((r) => r.allow !== undefined) ? 'deny' : 'allow')) === 'allow';
  }

  visible(caller: CallerIdentity, item: GatewayItem): boolean {
    let mine = this.perCaller.get(caller);
    if (!mine) {
      mine = this.rules.filter((r) => r.when.matches(caller));
      this.perCaller.set(caller, mine);
    }
    let allowed = false;
    for (const r of mine) {
      if (!kindMatches(r.rule.kinds, item)) continue;
      if (r.deny?.has(item.name)) return false;
      if (!allowed && r.allow?.has(item.name)) allowed = true;
    }
    return allowed || this.defaultAllow;
  }
}
