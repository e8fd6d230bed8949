// API abuse, limits: an account other than the operator's holds at most ACCOUNT_RESOURCE_LIMIT items of
// each kind (API keys, destinations, subscriptions, IP policies, TCP edges, reserved domains), so one
// customer cannot fill the config log every worker loads; the next create is answered 409
// resource_limit, naming the limit, and succeeds again once one is deleted. The operator is not limited.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startAdmin, type AdminHarness, type Body } from '../admin/admin-harness.js';

let h: AdminHarness;

beforeAll(async () => {
  h = await startAdmin({ env: { ACCOUNT_RESOURCE_LIMIT: '3' } });
});

afterAll(async () => {
  await h?.stop();
});

async function account(description: string): Promise<{ id: string; token: string }> {
  const a = await h.call('POST', '/accounts', { body: { description } });
  expect(a.status, a.text).toBe(201);
  const key = await h.call('POST', '/api_keys', { body: { account_id: a.json.id } });
  expect(key.status, key.text).toBe(201);
  return { id: a.json.id as string, token: key.json.token as string };
}

it('an account past its limit of one kind should get 409 resource_limit, and a create should pass again after a delete', async () => {
  const shop = await account('limited');
  const made: Body[] = [];
  for (let i = 0; i < 3; i++) {
    const r = await h.call('POST', '/ip_policies', { token: shop.token, body: { description: `p${i}` } });
    expect(r.status, r.text).toBe(201);
    made.push(r.json);
  }
  const refused = await h.call('POST', '/ip_policies', { token: shop.token, body: { description: 'one too many' } });
  expect(refused.status, refused.text).toBe(409);
  expect(refused.json).toMatchObject({ error_code: 'resource_limit', details: { resource: 'IP policies', limit: 3, account_id: shop.id } });
  expect(refused.json.msg).toContain('the most an account may hold');
  expect(refused.json.msg).not.toContain('ACCOUNT_RESOURCE_LIMIT');
  // Nothing of the refused create was stored.
  const listed = await h.call('GET', '/ip_policies', { token: shop.token });
  expect((listed.json.ip_policies as Body[]).map((p) => p.description).sort()).toEqual(['p0', 'p1', 'p2']);

  // Another kind has its own count.
  expect((await h.call('POST', '/edges/tcp', { token: shop.token, body: {} })).status).toBe(201);

  expect((await h.call('DELETE', `/ip_policies/${made[0]!.id}`, { token: shop.token })).status).toBe(204);
  expect((await h.call('POST', '/ip_policies', { token: shop.token, body: {} })).status).toBe(201);
});

it("keys count against the account that holds them, whoever made them: minting keys cannot pass the account's limit", async () => {
  const shop = await account('keys');
  // The operator made its first key; the account makes two more.
  for (let i = 0; i < 2; i++) expect((await h.call('POST', '/api_keys', { token: shop.token, body: {} })).status).toBe(201);
  const own = await h.call('POST', '/api_keys', { token: shop.token, body: {} });
  expect([own.status, own.json.error_code, own.json.details?.resource]).toEqual([409, 'resource_limit', 'API keys']);
  const byOperator = await h.call('POST', '/api_keys', { body: { account_id: shop.id } });
  expect([byOperator.status, byOperator.json.error_code]).toEqual([409, 'resource_limit']);
});

it('the operator account and other accounts should not be limited by one account reaching its limit', async () => {
  for (let i = 0; i < 5; i++) {
    const r = await h.call('POST', '/ip_policies', { body: { description: `operator ${i}` } });
    expect(r.status, r.text).toBe(201);
  }
  const other = await account('other');
  expect((await h.call('POST', '/ip_policies', { token: other.token, body: {} })).status).toBe(201);
});
