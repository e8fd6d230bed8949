import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decide, rulesOfPolicies, type DecisionRule } from '../../../../src/admin/ip-restriction/decision.js';
import { parseIP, type IPAddr } from '../../../../src/net/ip.js';
import { addrArb, formatAddr, formatRuleCidr, referenceDecision, ruleArb, type RefAddr, type RefRule } from '../ip-reference.js';

const POLICIES = ['ipp_a', 'ipp_b', 'ipp_c', 'ipp_d'];

function ip(text: string): IPAddr {
  const a = parseIP(text);
  if (a === undefined) throw new Error(`test address ${text} does not parse`);
  return a;
}

const rule = (id: string, cidr: string, action: 'allow' | 'deny', ip_policy_id = 'ipp_a'): DecisionRule => ({ id, cidr, action, ip_policy_id });

describe('ip restriction decision', () => {
  it('decision should allow an address that matches an allow rule and no deny rule', () => {
    const d = decide(ip('10.1.2.3'), { enabled: true, rules: [rule('r1', '10.0.0.0/8', 'allow'), rule('r2', '192.168.0.0/16', 'deny')] });
    expect(d).toEqual({ decision: 'allow', reason: 'allowed_by_rule', matched_rules: [rule('r1', '10.0.0.0/8', 'allow')] });
  });

  it('decision should let a deny rule win over a more specific allow rule', () => {
    const rules = [rule('r1', '10.0.0.0/8', 'deny'), rule('r2', '10.1.2.3/32', 'allow', 'ipp_b')];
    const d = decide(ip('10.1.2.3'), { enabled: true, rules });
    expect(d.decision).toBe('block');
    expect(d.reason).toBe('denied_by_rule');
    expect(d.matched_rules.map((r) => r.id)).toEqual(['r1', 'r2']);
  });

  it('decision should block an address that matches no rule', () => {
    expect(decide(ip('11.0.0.1'), { enabled: true, rules: [rule('r1', '10.0.0.0/8', 'allow')] })).toEqual({
      decision: 'block',
      reason: 'no_matching_rule',
      matched_rules: [],
    });
  });

  it('decision should never match an IPv4 address against an IPv6 rule, even ::/0', () => {
    const d = decide(ip('10.0.0.1'), { enabled: true, rules: [rule('r1', '::/0', 'allow')] });
    expect(d.decision).toBe('block');
    const d6 = decide(ip('2001:db8::1'), { enabled: true, rules: [rule('r1', '0.0.0.0/0', 'allow')] });
    expect(d6.decision).toBe('block');
  });

  it('decision should allow when the module is disabled, whatever its rules say', () => {
    expect(decide(ip('10.0.0.1'), { enabled: false, rules: [rule('r1', '10.0.0.0/8', 'deny')] })).toEqual({
      decision: 'allow',
      reason: 'module_disabled',
      matched_rules: [],
    });
  });

  it('decision should allow an edge without an ip restriction', () => {
    expect(decide(ip('10.0.0.1'), null)).toEqual({ decision: 'allow', reason: 'no_ip_restriction', matched_rules: [] });
  });

  it('decision should agree with the brute-force reference for IPv4 and IPv6 rules across several policies', () => {
    const scenario = fc.record({
      rules: fc.array(ruleArb(POLICIES), { minLength: 0, maxLength: 12 }),
      referenced: fc.subarray(POLICIES, { minLength: 1 }),
      addrs: fc.array(fc.oneof(addrArb(4), addrArb(6)), { minLength: 1, maxLength: 8 }),
    });
    fc.assert(
      fc.property(scenario, ({ rules, referenced, addrs }) => {
        const refRules: RefRule[] = rules.map((r, i) => ({ ...r, id: `ipr_${String(i).padStart(3, '0')}` }));
        const stored: DecisionRule[] = refRules.map((r) => ({ id: r.id, cidr: formatRuleCidr(r), action: r.action, ip_policy_id: r.policy }));
        for (const a of addrs as RefAddr[]) {
          const expected = referenceDecision(a, refRules, referenced);
          const got = decide(ip(formatAddr(a)), { enabled: true, rules: rulesOfPolicies(referenced, stored) });
          expect(got.decision).toBe(expected.allow ? 'allow' : 'block');
          expect(got.matched_rules.map((r) => r.id)).toEqual(expected.matched);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('the generators should produce overlapping allow and deny matches often enough to matter', () => {
    // Guards the property above against a generator that never exercises deny-over-allow.
    const samples = fc.sample(
      fc.record({ rules: fc.array(ruleArb(['p']), { minLength: 4, maxLength: 12 }), a: fc.oneof(addrArb(4), addrArb(6)) }),
      { numRuns: 400, seed: 42 },
    );
    const both = samples.filter(({ rules, a }) => {
      const m = referenceDecision(a, rules.map((r, i) => ({ ...r, id: String(i) })), ['p']);
      const matched = rules.filter((_, i) => m.matched.includes(String(i)));
      return matched.some((r) => r.action === 'allow') && matched.some((r) => r.action === 'deny');
    });
    expect(both.length).toBeGreaterThan(20);
  });
});
