// Every change the admin API makes lands on the audit topic as <kind>_<action>.v0 in the envelope,
// with the acting API key as principal and the resource as the API returned it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapKeyId, hashToken } from '../../../src/admin/api-keys/tokens.js';
import { createAuditDecoder, type AuditEvent } from '../../../src/records/audit-decoder.js';
import { consumeUntil, testClient, type ConsumedMessage } from '../../support/kafka.js';
import { PUBLIC_BASE_URL, startAdmin, type AdminHarness } from './admin-harness.js';

let h: AdminHarness;
beforeAll(async () => {
  h = await startAdmin();
});
afterAll(async () => {
  await h?.stop();
});

interface Seen {
  key: string | null;
  event: AuditEvent;
}

/** Reads the audit topic from the start until `count` events arrived; each must pass the audit decoder. */
async function auditEvents(count: number): Promise<Seen[]> {
  const msgs: ConsumedMessage[] = await consumeUntil(testClient(), {
    topics: [h.env.TOPIC_AUDIT as string],
    until: (got) => got.length >= count,
    timeoutMs: 20_000,
  });
  const decoder = createAuditDecoder();
  return msgs.map((m) => {
    const result = decoder.decode({ value: m.value === null ? null : Buffer.from(m.value), headers: m.headers });
    if (!result.ok) throw new Error(`an audit event failed the audit decoder: ${JSON.stringify(result)} in ${m.value}`);
    return { key: m.key, event: result.event };
  });
}

describe('audit events of admin changes', () => {
  it('each kind of change should emit its event with the acting key as principal and the API view as object', async () => {
    const bootstrapId = bootstrapKeyId(hashToken(h.token));
    const actor = { type: 'api_key', id: bootstrapId, uri: `${PUBLIC_BASE_URL}/api_keys/${bootstrapId}` };
    const expected: { type: string; key: string; object: unknown; principal: unknown }[] = [];
    const expect_ = (type: string, key: string, object: unknown, principal: unknown = actor) => expected.push({ type, key, object, principal });

    // The bootstrap key was made by the service itself: no principal.
    expect_('api_key_created.v0', bootstrapId, (await h.call('GET', `/api_keys/${bootstrapId}`)).json, null);

    const key = (await h.call('POST', '/api_keys', { body: { description: 'second' } })).json;
    expect_('api_key_created.v0', key.id, { ...key, token: null });
    const keyView = (await h.call('PATCH', `/api_keys/${key.id}`, { body: { metadata: 'm' } })).json;
    expect_('api_key_updated.v0', key.id, keyView);

    // A change made with the second key names the second key.
    const byKey = { type: 'api_key', id: key.id, uri: `${PUBLIC_BASE_URL}/api_keys/${key.id}` };
    const policy = (await h.call('POST', '/ip_policies', { body: { description: 'p' }, token: key.token })).json;
    expect_('ip_policy_created.v0', policy.id, policy, byKey);
    const policyView = (await h.call('PATCH', `/ip_policies/${policy.id}`, { body: { description: 'q' } })).json;
    expect_('ip_policy_updated.v0', policy.id, policyView);

    const rule = (await h.call('POST', '/ip_policy_rules', { body: { ip_policy_id: policy.id, cidr: '10.0.0.0/8', action: 'allow' } })).json;
    expect_('ip_policy_rule_created.v0', rule.id, rule);
    const ruleView = (await h.call('PATCH', `/ip_policy_rules/${rule.id}`, { body: { cidr: '10.0.0.0/16' } })).json;
    expect_('ip_policy_rule_updated.v0', rule.id, ruleView);
    const rule2 = (await h.call('POST', '/ip_policy_rules', { body: { ip_policy_id: policy.id, cidr: '::/0', action: 'deny' } })).json;
    expect_('ip_policy_rule_created.v0', rule2.id, rule2);
    await h.call('DELETE', `/ip_policy_rules/${rule2.id}`);
    expect_('ip_policy_rule_deleted.v0', rule2.id, rule2);

    // A TCP edge has no audit kind (docs/events.md): creating and updating it emits nothing.
    const edge = (await h.call('POST', '/edges/tcp', { body: {} })).json;
    await h.call('PATCH', `/edges/tcp/${edge.id}`, { body: { description: 'e' } });
    const edgeRef = { id: edge.id, uri: `${PUBLIC_BASE_URL}/edges/tcp/${edge.id}` };
    const m1 = (await h.call('PUT', `/edges/tcp/${edge.id}/ip_restriction`, { body: { ip_policy_ids: [policy.id] } })).json;
    expect_('ip_restriction_created.v0', edge.id, { ...m1, edge: edgeRef, account_id: edge.account_id });
    const m2 = (await h.call('PUT', `/edges/tcp/${edge.id}/ip_restriction`, { body: { enabled: false, ip_policy_ids: [policy.id] } })).json;
    expect_('ip_restriction_updated.v0', edge.id, { ...m2, edge: edgeRef, account_id: edge.account_id });
    await h.call('DELETE', `/edges/tcp/${edge.id}/ip_restriction`);
    expect_('ip_restriction_deleted.v0', edge.id, { ...m2, edge: edgeRef, account_id: edge.account_id });
    const m3 = (await h.call('PUT', `/edges/tcp/${edge.id}/ip_restriction`, { body: { ip_policy_ids: [policy.id] } })).json;
    expect_('ip_restriction_created.v0', edge.id, { ...m3, edge: edgeRef, account_id: edge.account_id });
    // Deleting the edge deletes its module too.
    await h.call('DELETE', `/edges/tcp/${edge.id}`);
    expect_('ip_restriction_deleted.v0', edge.id, { ...m3, edge: edgeRef, account_id: edge.account_id });

    // Deleting a policy deletes its remaining rule first, in the same transaction.
    await h.call('DELETE', `/ip_policies/${policy.id}`);
    expect_('ip_policy_rule_deleted.v0', rule.id, ruleView);
    expect_('ip_policy_deleted.v0', policy.id, policyView);
    await h.call('DELETE', `/api_keys/${key.id}`);
    expect_('api_key_deleted.v0', key.id, keyView);

    const seen = await auditEvents(expected.length);
    // Events of one resource share a key, hence a partition, and keep their order; across resources
    // the topic has several partitions, so compare per key.
    const byKeyOf = (list: { key: string | null; type: string }[]) => {
      const m = new Map<string | null, string[]>();
      for (const e of list) m.set(e.key, [...(m.get(e.key) ?? []), e.type]);
      return m;
    };
    expect(byKeyOf(seen.map((s) => ({ key: s.key, type: s.event.event_type })))).toEqual(byKeyOf(expected));
    expect(seen.length).toBe(expected.length);
    for (const want of expected) {
      const got = seen.find((s) => s.key === want.key && s.event.event_type === want.type && JSON.stringify(s.event.object) === JSON.stringify(want.object));
      expect(got, `${want.type} ${want.key} ${JSON.stringify(want.object)}`).toBeDefined();
      expect(got?.event.principal).toEqual(want.principal);
      expect(got?.event.event_id).toMatch(/^ev_[0-9A-Z]{26}$/);
      expect(Math.abs(Date.parse(got?.event.event_timestamp ?? '') - Date.now())).toBeLessThan(120_000);
    }
  });
});
