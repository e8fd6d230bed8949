// Accounts and their keys (src/admin/README.md "Accounts"): the operator account manages accounts and every
// account's keys, another account only its own keys; deleting an account deletes everything it owns, each
// resource with its audit event, and its keys stop working; the operator account stays, and gets a bootstrap
// key again at the next start when it has none.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATOR_ACCOUNT_ID } from '../../../src/accounts/account.js';
import { createAuditDecoder } from '../../../src/records/audit-decoder.js';
import { consumeUntil, testClient, type ConsumedMessage } from '../../support/kafka.js';
import { startAdmin, type AdminHarness, type Body, type CallResult } from './admin-harness.js';

let h: AdminHarness;

beforeAll(async () => {
  h = await startAdmin();
});
afterAll(async () => {
  await h?.stop();
});

async function ok(r: Promise<CallResult>, status = 201): Promise<Body> {
  const res = await r;
  expect(res.status, res.text).toBe(status);
  return res.json;
}

/** A new account and a key of it, made by the operator. */
async function account(description: string): Promise<{ id: string; token: string; keyId: string }> {
  const a = await ok(h.call('POST', '/accounts', { body: { description } }));
  const key = await ok(h.call('POST', '/api_keys', { body: { account_id: a.id, description: `${description} key` } }));
  return { id: a.id, token: key.token, keyId: key.id };
}

describe('accounts', () => {
  it('should be made, listed and read by the operator account alone, the operator account among them', async () => {
    const made = await ok(h.call('POST', '/accounts', { body: { description: 'shop', metadata: '{"plan":"pro"}' } }));
    expect(made).toMatchObject({ id: expect.stringMatching(/^acct_[0-9A-Z]{26}$/), description: 'shop', metadata: '{"plan":"pro"}', operator: false });
    expect(await ok(h.call('GET', `/accounts/${made.id}`), 200)).toEqual(made);
    const ids = ((await ok(h.call('GET', '/accounts'), 200)).accounts as Body[]).map((x) => [x.id, x.operator]);
    expect(ids).toContainEqual([made.id, false]);
    expect(ids).toContainEqual([OPERATOR_ACCOUNT_ID, true]);
    const other = await account('other');
    for (const [method, path] of [['POST', '/accounts'], ['GET', '/accounts'], ['GET', `/accounts/${made.id}`], ['DELETE', `/accounts/${made.id}`], ['GET', `/accounts/${other.id}`]]) {
      const r = await h.call(method as string, path as string, { token: other.token, body: method === 'POST' ? {} : undefined });
      expect([method, path, r.status, r.json?.error_code]).toEqual([method, path, 403, 'forbidden']);
    }
    expect((await ok(h.call('GET', `/accounts/${made.id}`), 200)).id).toBe(made.id);
  });

  it("should give a key to the account the operator names, and a key of that account only that account's resources and keys", async () => {
    const shop = await account('keys');
    const policy = await ok(h.call('POST', '/ip_policies', { token: shop.token, body: {} }));
    expect(policy.account_id).toBe(shop.id);
    const second = await ok(h.call('POST', '/api_keys', { token: shop.token, body: { description: 'own' } }));
    expect(second.account_id).toBe(shop.id);
    expect((await ok(h.call('POST', '/api_keys', { token: shop.token, body: { account_id: shop.id } }))).account_id).toBe(shop.id);
    const refused = await h.call('POST', '/api_keys', { token: shop.token, body: { account_id: OPERATOR_ACCOUNT_ID } });
    expect([refused.status, refused.json.error_code, refused.json.details.field]).toEqual([400, 'unknown_reference', 'account_id']);
    const unknown = await h.call('POST', '/api_keys', { body: { account_id: 'acct_01ARZ3NDEKTSV4RRFFQ69G5FAV' } });
    expect([unknown.status, unknown.json.error_code]).toEqual([400, 'unknown_reference']);
    const theirs = ((await ok(h.call('GET', '/api_keys', { token: shop.token }), 200)).api_keys as Body[]).map((k) => k.account_id);
    expect(theirs.length).toBe(3);
    expect(new Set(theirs)).toEqual(new Set([shop.id]));
    // The operator's key sees every account's keys, and may narrow them to one account.
    const all = (await ok(h.call('GET', '/api_keys'), 200)).api_keys as Body[];
    expect(all.map((k) => k.id)).toEqual(expect.arrayContaining([shop.keyId, second.id]));
    expect(all.some((k) => k.account_id === OPERATOR_ACCOUNT_ID)).toBe(true);
    const narrowed = (await ok(h.call('GET', `/api_keys?account_id=${shop.id}`), 200)).api_keys as Body[];
    expect(narrowed.map((k) => k.account_id)).toEqual([shop.id, shop.id, shop.id]);
    // account_id is fixed once the key is made; the operator may delete the account's key.
    expect((await h.call('PATCH', `/api_keys/${second.id}`, { body: { account_id: OPERATOR_ACCOUNT_ID } })).json.error_code).toBe('immutable_field');
    expect((await h.call('DELETE', `/api_keys/${second.id}`)).status).toBe(204);
    expect((await h.call('GET', '/ip_policies', { token: second.token })).status).toBe(401);
  });

  it('should delete everything an account owns with it, each with its audit event, and its keys should stop working', async () => {
    const gone = await account('gone');
    const as = (method: string, path: string, body?: unknown): Promise<Body> => ok(h.call(method, path, { token: gone.token, body }), method === 'POST' ? 201 : 200);
    const made: Body[] = [];
    made.push(await as('POST', '/reserved_domains', { domain: 'gone.accounts.test' }));
    const policy = await as('POST', '/ip_policies', {});
    made.push(policy, await as('POST', '/ip_policy_rules', { cidr: '10.0.0.0/8', action: 'deny', ip_policy_id: policy.id }));
    const addr = await as('POST', '/reserved_addrs', {});
    made.push(addr);
    const edge = await as('POST', '/edges/tcp', { hostports: [addr.addr] });
    await as('PUT', `/edges/tcp/${edge.id}/ip_restriction`, { ip_policy_ids: [policy.id] });
    const dest = await as('POST', '/event_destinations', { target: { file: { path: 'gone.ndjson' } } });
    made.push(edge, dest, await as('POST', '/event_subscriptions', { sources: [{ type: 'api_key_deleted.v0' }], destination_ids: [dest.id] }));
    for (let i = 0; i < 20; i++) made.push(await as('POST', '/ip_policies', { description: `filler ${i}` }));
    const kept = await account('kept');
    const keptPolicy = await ok(h.call('POST', '/ip_policies', { token: kept.token, body: {} }));

    expect((await h.call('DELETE', `/accounts/${gone.id}`)).status).toBe(204);
    expect((await h.call('GET', `/accounts/${gone.id}`)).status).toBe(404);
    expect((await h.call('GET', '/ip_policies', { token: gone.token })).status).toBe(401);
    const left = ['api_key', 'reserved_domain', 'tcp_address', 'ip_policy', 'ip_policy_rule', 'tcp_edge', 'event_destination', 'event_subscription', 'account']
      .flatMap((kind) => h.app.configLog.list(kind as never))
      .filter((v) => v.data.account_id === gone.id || v.data.id === gone.id);
    expect(left).toEqual([]);
    expect((await h.call('GET', `/ip_policies/${keptPolicy.id}`, { token: kept.token })).status).toBe(200);
    // The domain and the hostport are free again.
    expect((await h.call('POST', '/reserved_domains', { token: kept.token, body: { domain: 'gone.accounts.test' } })).status).toBe(201);

    // A TCP edge has no audit kind of its own (docs/events.md); its IP restriction module has.
    const expected = new Set([...made.map((m) => m.id as string).filter((id) => id !== edge.id), gone.keyId, `ip_restriction:${edge.id}`]);
    const decoder = createAuditDecoder();
    const deletions = (got: readonly ConsumedMessage[]) =>
      got
        .map((m) => decoder.decode({ value: m.value === null ? null : Buffer.from(m.value), headers: m.headers }))
        .flatMap((r) => (r.ok && r.event.event_type.endsWith('_deleted.v0') && r.event.object.account_id === gone.id ? [r.event] : []));
    const deleted = deletions(await consumeUntil(testClient(), { topics: [h.env.TOPIC_AUDIT as string], until: (got) => deletions(got).length >= expected.size, timeoutMs: 30_000 }));
    const seen = new Set(deleted.map((e) => (e.event_type === 'ip_restriction_deleted.v0' ? `ip_restriction:${String((e.object.edge as Body).id)}` : String(e.object.id))));
    expect(seen).toEqual(expected);
  });

  it('should refuse to delete the operator account', async () => {
    const r = await h.call('DELETE', `/accounts/${OPERATOR_ACCOUNT_ID}`);
    expect([r.status, r.json.error_code]).toEqual([409, 'operator_account']);
    expect((await h.call('GET', `/accounts/${OPERATOR_ACCOUNT_ID}`)).status).toBe(200);
  });

  it('should give the operator account a bootstrap key again at the next start when it has none, whatever other accounts hold', async () => {
    const other = await account('holder');
    const keys = ((await ok(h.call('GET', `/api_keys?account_id=${OPERATOR_ACCOUNT_ID}`), 200)).api_keys as Body[]).map((k) => k.id as string);
    expect(keys.length).toBeGreaterThan(0);
    for (const id of keys) expect((await h.call('DELETE', `/api_keys/${id}`)).status).toBe(204);
    expect((await h.call('GET', '/accounts')).status).toBe(401);
    const { prefix, token } = h;
    await h.stop();
    h = await startAdmin({ prefix, token });
    expect((await h.call('GET', '/accounts')).status).toBe(200);
    expect((await h.call('GET', '/ip_policies', { token: other.token })).status).toBe(200);
  });
});

describe('reserved domains', () => {
  it('should reserve exact and wildcard names, lowercase, with domain audit events of the account', async () => {
    const shop = await account('domains');
    const exact = await ok(h.call('POST', '/reserved_domains', { token: shop.token, body: { domain: 'Shop.Domains.TEST', description: 'store' } }));
    expect(exact).toMatchObject({ id: expect.stringMatching(/^rd_[0-9A-Z]{26}$/), domain: 'shop.domains.test', account_id: shop.id, description: 'store' });
    const wildcard = await ok(h.call('POST', '/reserved_domains', { token: shop.token, body: { domain: '*.domains.test' } }));
    // Its own reservations may overlap; the same domain twice may not.
    expect((await ok(h.call('POST', '/reserved_domains', { token: shop.token, body: { domain: '*.eu.domains.test' } }))).domain).toBe('*.eu.domains.test');
    const again = await h.call('POST', '/reserved_domains', { token: shop.token, body: { domain: 'shop.domains.test' } });
    expect([again.status, again.json.error_code, again.json.details.reserved_domain_id]).toEqual([409, 'domain_reserved', exact.id]);
    for (const domain of ['domains', '*.test', 'shop.*.domains.test', '192.0.2.1', 'a_b.domains.test']) {
      const r = await h.call('POST', '/reserved_domains', { token: shop.token, body: { domain } });
      expect([domain, r.status, r.json.error_code]).toEqual([domain, 400, 'invalid_domain']);
    }
    const changed = await h.call('PATCH', `/reserved_domains/${wildcard.id}`, { token: shop.token, body: { domain: '*.other.test' } });
    expect([changed.status, changed.json.error_code]).toEqual([400, 'immutable_field']);
    expect((await ok(h.call('PATCH', `/reserved_domains/${wildcard.id}`, { token: shop.token, body: { metadata: 'm' } }), 200)).metadata).toBe('m');
    expect((await h.call('DELETE', `/reserved_domains/${wildcard.id}`, { token: shop.token })).status).toBe(204);

    const events = await consumeUntil(testClient(), {
      topics: [h.env.TOPIC_AUDIT as string],
      until: (got) => got.filter((m) => m.key === wildcard.id).length >= 3,
      timeoutMs: 30_000,
    });
    const types = events.filter((m) => m.key === wildcard.id).map((m) => JSON.parse(m.value ?? '{}') as Body);
    expect(types.map((e) => [e.event_type, e.object.domain, e.object.account_id])).toEqual([
      ['domain_created.v0', '*.domains.test', shop.id],
      ['domain_updated.v0', '*.domains.test', shop.id],
      ['domain_deleted.v0', '*.domains.test', shop.id],
    ]);
  });
});
