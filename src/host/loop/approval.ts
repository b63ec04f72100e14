// Which tool calls run without asking the user: the ApprovalPolicy read against a tool's
// annotations and name. Annotations are the server's hints, so the defaults only skip the
// question for tools that say they change nothing.
import { globToRegExp } from '../../pool/tool-filter.js';
import type { HostTool } from '../../pool/tool-source.js';
import type { ApprovalDecision, ApprovalPolicy } from './types.js';

export interface PolicyVerdict {
  decision: ApprovalDecision;
  /** What decided, in words a person reads in a prompt or an error (`destructive tool`, `policy for "fs_*"`). */
  reason: string;
}

const DECISIONS: readonly ApprovalDecision[] = ['auto', 'ask', 'deny'];

/** The policy as a function of a tool; checks the policy's values once, up front. */
export function approvalPolicy(policy: ApprovalPolicy = {}): (tool: HostTool) => PolicyVerdict {
  const check = (value: unknown, where: string): ApprovalDecision | undefined => {
    if (value === undefined) return undefined;
    if (!DECISIONS.includes(value as ApprovalDecision))
      throw new TypeError(`approval ${where} must be one of ${DECISIONS.join(', ')} (got ${JSON.stringify(value)})`);
    return value as ApprovalDecision;
  };
  const readOnly = check(policy.readOnly, 'readOnly') ?? 'auto';
  const destructive = check(policy.destructive, 'destructive') ?? 'ask';
  const fallback = check(policy.default, 'default') ?? 'auto';
  const overrides = Object.entries(policy.tools ?? {}).map(([glob, value]) => ({
    glob,
    re: globToRegExp(glob),
    decision: check(value, `tools["${glob}"]`)!,
  }));
  return (t) => {
    const names = [t.name, t.tool.name, `${t.server}/${t.tool.name}`];
    const hit = overrides.find((o) => names.some((n) => o.re.test(n)));
    if (hit) return { decision: hit.decision, reason: `policy for "${hit.glob}"` };
    const a = t.tool.annotations;
    if (a?.readOnlyHint === true) return { decision: readOnly, reason: 'read-only tool' };
    if (a?.destructiveHint === true) return { decision: destructive, reason: 'destructive tool' };
    return { decision: fallback, reason: 'default policy' };
  };
}
