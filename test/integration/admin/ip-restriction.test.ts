// The rules of ARCHITECTURE.md "The IP restriction module" and every error of the TCP edge IP restriction module, over a real socket and broker.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addrArb, formatAddr, formatRuleCidr, referenceDecision, ruleArb, type RefRule } from '../../unit/admin/ip-reference.js';
import { PUBLIC_BASE_URL, startAdmin, type AdminHarness } from './admin-harness.js';

let h: AdminHarness;
beforeAll(async () => {
  h = await startAdmin();
});
afterAll(async () => {
  await h?.stop();
});

async function created(path: string, body: unknown): Promise<{ id: string; [k: string]: unknown }> {
  const r = await h.call('POST', path, { body });
  expect(r.status, r.text).toBe(201);
  return r.json;
}
const newPolicy = () => created('/ip_policies', {});
const newEdge = () => created('/edges/tcp', {});
const rule = (ip_policy_id: string, cidr: string, action: 'allow' | 'deny') => created('/ip_policy_rules', { ip_policy_id, cidr, action });
const moduleOf = (edgeId: string) => `/edges/tcp/${edgeId}/ip_restriction`;
const policyRef = (id: string) => ({ id, uri: `${PUBLIC_BASE_URL}/ip_policies/${id}` });

describe('TCP edge IP restriction module', () => {
  it('rule 1: a successful PUT should answer 200 with enabled and ip_policies as an array of Ref', async () => {
    const [edge, p1, p2] = await Promise.all([newEdge(), newPolicy(), newPolicy()]);
    const r = await h.call('PUT', moduleOf(edge.id), { body: { enabled: false, ip_policy_ids: [p1.id, p2.id] } });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ enabled: false, ip_policies: [policyRef(p1.id), policyRef(p2.id)] });
  });

  it('rule 2: a PUT that omits enabled should treat the module as enabled', async () => {
    const [edge, p] = await Promise.all([newEdge(), newPolicy()]);
    await h.call('PUT', moduleOf(edge.id), { body: { enabled: false, ip_policy_ids: [p.id] } });
    const r = await h.call('PUT', moduleOf(edge.id), { body: { ip_policy_ids: [p.id] } });
    expect(r.status).toBe(200);
    expect(r.json.enabled).toBe(true);
    expect((await h.call('GET', moduleOf(edge.id))).json.enabled).toBe(true);
  });

  it('rule 3: a successful GET should answer 200 with the same fields as the PUT response', async () => {
    const [edge, p] = await Promise.all([newEdge(), newPolicy()]);
    const put = await h.call('PUT', moduleOf(edge.id), { body: { ip_policy_ids: [p.id] } });
    const get = await h.call('GET', moduleOf(edge.id));
    expect(get.status).toBe(200);
    expect(get.json).toEqual(put.json);
    expect(Object.keys(get.json).sort()).toEqual(['enabled', 'ip_policies']);
  });

  it('rule 4: a successful DELETE should answer 204 with an empty body, and the module is gone', async () => {
    const [edge, p] = await Promise.all([newEdge(), newPolicy()]);
    await h.call('PUT', moduleOf(edge.id), { body: { ip_policy_ids: [p.id] } });
    const r = await h.call('DELETE', moduleOf(edge.id));
    expect(r.status).toBe(204);
    expect(r.text).toBe('');
    expect((await h.call('GET', moduleOf(edge.id))).status).toBe(404);
    expect((await h.call('GET', `/edges/tcp/${edge.id}`)).json.ip_restriction).toBeNull();
  });

  it('PUT should replace the whole module, and the edge should embed it', async () => {
    const [edge, p1, p2] = await Promise.all([newEdge(), newPolicy(), newPolicy()]);
    await h.call('PUT', moduleOf(edge.id), { body: { enabled: false, ip_policy_ids: [p1.id, p2.id] } });
    await h.call('PUT', moduleOf(edge.id), { body: { ip_policy_ids: [p2.id] } });
    const e = await h.call('GET', `/edges/tcp/${edge.id}`);
    expect(e.json.ip_restriction).toEqual({ enabled: true, ip_policies: [policyRef(p2.id)] });
  });

  describe('errors', () => {
    let edge: { id: string };
    let policy: { id: string };
    beforeAll(async () => {
      [edge, policy] = await Promise.all([newEdge(), newPolicy()]);
    });

    const cases: [string, () => unknown, number, string, string | undefined][] = [
      ['an empty ip_policy_ids', () => ({ ip_policy_ids: [] }), 400, 'invalid_body', 'ip_policy_ids'],
      ['a missing ip_policy_ids', () => ({ enabled: true }), 400, 'invalid_body', 'ip_policy_ids'],
      ['a malformed policy id', () => ({ ip_policy_ids: ['not-an-id'] }), 400, 'invalid_id', 'ip_policy_ids[0]'],
      ['an id of another kind', () => ({ ip_policy_ids: [edge.id] }), 400, 'invalid_id', 'ip_policy_ids[0]'],
      ['an unknown policy id', () => ({ ip_policy_ids: [policy.id, 'ipp_01ARZ3NDEKTSV4RRFFQ69G5FAV'] }), 400, 'unknown_reference', 'ip_policy_ids[1]'],
      ['a repeated policy id', () => ({ ip_policy_ids: [policy.id, policy.id] }), 400, 'duplicate_value', 'ip_policy_ids[1]'],
      ['a non-boolean enabled', () => ({ enabled: 'yes', ip_policy_ids: [policy.id] }), 400, 'invalid_body', 'enabled'],
      ['an unknown field', () => ({ ip_policy_ids: [policy.id], ip_policies: [] }), 400, 'unknown_field', 'ip_policies'],
      ['51 policy ids', () => ({ ip_policy_ids: Array.from({ length: 51 }, () => policy.id) }), 400, 'too_many_items', 'ip_policy_ids'],
    ];
    for (const [name, body, status, code, field] of cases) {
      it(`PUT with ${name} should answer ${status} ${code}`, async () => {
        const r = await h.call('PUT', moduleOf(edge.id), { body: body() });
        expect(r.status).toBe(status);
        expect(r.json).toMatchObject({ error_code: code, status_code: status, details: { field } });
        expect(r.text).not.toMatch(/at .*\.ts:\d+/);
      });
    }

    it('PUT on a missing edge should answer 404 not_found', async () => {
      const r = await h.call('PUT', moduleOf('edgtcp_01ARZ3NDEKTSV4RRFFQ69G5FAV'), { body: { ip_policy_ids: [policy.id] } });
      expect([r.status, r.json.error_code]).toEqual([404, 'not_found']);
    });

    it('GET and DELETE of an absent module should answer 404 not_found', async () => {
      const get = await h.call('GET', moduleOf(edge.id));
      const del = await h.call('DELETE', moduleOf(edge.id));
      expect([get.status, get.json.error_code, del.status, del.json.error_code]).toEqual([404, 'not_found', 404, 'not_found']);
    });

    it('GET and DELETE on a missing edge should answer 404 not_found', async () => {
      const missing = moduleOf('edgtcp_01ARZ3NDEKTSV4RRFFQ69G5FAV');
      expect((await h.call('GET', missing)).status).toBe(404);
      expect((await h.call('DELETE', missing)).status).toBe(404);
    });

    it('a decision for an address that is not an IP should answer 400 invalid_ip naming the parameter', async () => {
      for (const ip of ['nope', '10.0.0', '10.0.0.1/32', 'fe80::1%eth0', '::ffff:10.0.0.1', '010.0.0.1']) {
        const r = await h.call('GET', `${moduleOf(edge.id)}/decision?ip=${encodeURIComponent(ip)}`);
        expect([ip, r.status, r.json.error_code, r.json.details.field]).toEqual([ip, 400, 'invalid_ip', 'ip']);
      }
    });

    it('a decision without ip should answer 400 invalid_parameter', async () => {
      const r = await h.call('GET', `${moduleOf(edge.id)}/decision`);
      expect(r.json).toMatchObject({ error_code: 'invalid_parameter', details: { field: 'ip', location: 'querystring' } });
    });

    it('a decision on a missing edge should answer 404', async () => {
      expect((await h.call('GET', `${moduleOf('edgtcp_01ARZ3NDEKTSV4RRFFQ69G5FAV')}/decision?ip=10.0.0.1`)).status).toBe(404);
    });
  });

  describe('decision', () => {
    const decision = async (edgeId: string, ip: string) => (await h.call('GET', `${moduleOf(edgeId)}/decision?ip=${encodeURIComponent(ip)}`)).json;

    it('should union the rules of several policies, let deny win and block what matches nothing', async () => {
      const [edge, allowPolicy, denyPolicy, unused] = await Promise.all([newEdge(), newPolicy(), newPolicy(), newPolicy()]);
      const allow = await rule(allowPolicy.id, '10.0.0.0/8', 'allow');
      const deny = await rule(denyPolicy.id, '10.1.0.0/16', 'deny');
      await rule(unused.id, '192.168.0.0/16', 'allow');
      await h.call('PUT', moduleOf(edge.id), { body: { ip_policy_ids: [allowPolicy.id, denyPolicy.id] } });

      expect(await decision(edge.id, '10.2.0.1')).toEqual({
        decision: 'allow',
        reason: 'allowed_by_rule',
        matched_rules: [{ id: allow.id, uri: `${PUBLIC_BASE_URL}/ip_policy_rules/${allow.id}`, cidr: '10.0.0.0/8', action: 'allow', ip_policy_id: allowPolicy.id }],
      });
      const blocked = await decision(edge.id, '10.1.2.3');
      expect(blocked.decision).toBe('block');
      expect(blocked.reason).toBe('denied_by_rule');
      expect(blocked.matched_rules.map((r: { id: string }) => r.id)).toEqual([allow.id, deny.id]);
      // A rule of a policy the module does not reference does not count.
      expect(await decision(edge.id, '192.168.1.1')).toEqual({ decision: 'block', reason: 'no_matching_rule', matched_rules: [] });
      // IPv4 and IPv6 are separate families.
      expect((await decision(edge.id, '::a00:1')).decision).toBe('block');
    });

    it('a disabled module should allow, and an edge without a module should allow', async () => {
      const [edge, p] = await Promise.all([newEdge(), newPolicy()]);
      await rule(p.id, '0.0.0.0/0', 'deny');
      expect(await decision(edge.id, '10.0.0.1')).toEqual({ decision: 'allow', reason: 'no_ip_restriction', matched_rules: [] });
      await h.call('PUT', moduleOf(edge.id), { body: { enabled: false, ip_policy_ids: [p.id] } });
      expect(await decision(edge.id, '10.0.0.1')).toEqual({ decision: 'allow', reason: 'module_disabled', matched_rules: [] });
      await h.call('PUT', moduleOf(edge.id), { body: { ip_policy_ids: [p.id] } });
      expect((await decision(edge.id, '10.0.0.1')).decision).toBe('block');
    });

    it('should agree with the brute-force reference over generated rules in several policies (IPv4 and IPv6)', async () => {
      const policies = ['p0', 'p1', 'p2'];
      const scenario = fc.record({
        rules: fc.uniqueArray(ruleArb(policies), { minLength: 1, maxLength: 8, selector: (r) => `${r.policy} ${r.family} ${r.network} ${r.bits}` }),
        referenced: fc.subarray(policies, { minLength: 1 }),
        addrs: fc.array(fc.oneof(addrArb(4), addrArb(6)), { minLength: 6, maxLength: 6 }),
      });
      await fc.assert(
        fc.asyncProperty(scenario, async ({ rules, referenced, addrs }) => {
          const ids = new Map<string, string>();
          for (const name of policies) ids.set(name, (await newPolicy()).id);
          const refRules: RefRule[] = [];
          for (const r of rules) {
            const made = await rule(ids.get(r.policy) as string, formatRuleCidr({ ...r, id: '' }), r.action);
            refRules.push({ ...r, id: made.id });
          }
          const edge = await newEdge();
          await h.call('PUT', moduleOf(edge.id), { body: { ip_policy_ids: referenced.map((n) => ids.get(n)) } });
          for (const a of addrs) {
            const expected = referenceDecision(a, refRules, referenced);
            const got = await decision(edge.id, formatAddr(a));
            expect(got.decision).toBe(expected.allow ? 'allow' : 'block');
            expect(got.matched_rules.map((m: { id: string }) => m.id)).toEqual(expected.matched);
          }
        }),
        { numRuns: 8 },
      );
    });
  });
});
