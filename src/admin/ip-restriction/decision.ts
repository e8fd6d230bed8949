// The IP restriction decision (ARCHITECTURE.md "The IP restriction module"), pure: the rules of all referenced
// policies are unioned; a source IP is allowed only if it matches at least one allow rule and no deny
// rule; deny wins regardless of prefix length; no match blocks; IPv4 and IPv6 are separate families.
import { cidrContainsIP, parseCIDR, type IPAddr } from '../../net/ip.js';

export interface DecisionRule {
  readonly id: string;
  /** Normalized CIDR text, as stored. */
  readonly cidr: string;
  readonly action: 'allow' | 'deny';
  readonly ip_policy_id: string;
}

export interface DecisionModule {
  readonly enabled: boolean;
  /** The rules of every policy the module references. */
  readonly rules: readonly DecisionRule[];
}

/** The module's rule set: the union of the rules of every policy it references (others are ignored). */
export function rulesOfPolicies<R extends { ip_policy_id: string }>(policyIds: readonly string[], rules: readonly R[]): R[] {
  const wanted = new Set(policyIds);
  return rules.filter((r) => wanted.has(r.ip_policy_id));
}

export type DecisionReason = 'no_ip_restriction' | 'module_disabled' | 'denied_by_rule' | 'allowed_by_rule' | 'no_matching_rule';

export interface Decision {
  readonly decision: 'allow' | 'block';
  readonly reason: DecisionReason;
  /** Every rule whose range holds the address (allow and deny), in rule id order. */
  readonly matched_rules: DecisionRule[];
}

/**
 * The decision for `ip` on an edge whose module is `module` (null: the edge has no IP restriction, so
 * nothing restricts it and it allows). A disabled module is not applied to traffic, so it allows too.
 * cidrContainsIP never matches across families, so an IPv4 address never matches an IPv6 rule.
 */
export function decide(ip: IPAddr, module: DecisionModule | null): Decision {
  if (module === null) return { decision: 'allow', reason: 'no_ip_restriction', matched_rules: [] };
  if (!module.enabled) return { decision: 'allow', reason: 'module_disabled', matched_rules: [] };
  const matched = module.rules
    .filter((r) => {
      const c = parseCIDR(r.cidr);
      return c !== undefined && cidrContainsIP(c, ip);
    })
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  if (matched.some((r) => r.action === 'deny')) return { decision: 'block', reason: 'denied_by_rule', matched_rules: matched };
  if (matched.length > 0) return { decision: 'allow', reason: 'allowed_by_rule', matched_rules: matched };
  return { decision: 'block', reason: 'no_matching_rule', matched_rules: [] };
}
