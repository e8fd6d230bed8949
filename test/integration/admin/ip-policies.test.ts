// IP policies and rules over a real socket and broker: CRUD, cidr normalization, immutability,
// references, conflicts, deletion rules, text limits and list paging.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PUBLIC_BASE_URL, startAdmin, type AdminHarness, type Body } from './admin-harness.js';

let h: AdminHarness;
beforeAll(async () => {
  h = await startAdmin();
});
afterAll(async () => {
  await h?.stop();
});

async function created(path: string, body: unknown): Promise<Body> {
  const r = await h.call('POST', path, { body });
  expect(r.status, r.text).toBe(201);
  return r.json;
}
const newPolicy = (body: unknown = {}) => created('/ip_policies', body);
const MISSING_POLICY = 'ipp_01ARZ3NDEKTSV4RRFFQ69G5FAV';

describe('IP policies', () => {
  it('create, get, update and delete should answer the status codes of ARCHITECTURE.md "API conventions" with absolute uris', async () => {
    const p = await newPolicy({ description: 'office', metadata: '{"team":"net"}' });
    expect(p).toMatchObject({ uri: `${PUBLIC_BASE_URL}/ip_policies/${p.id}`, description: 'office', metadata: '{"team":"net"}' });
    expect(p.id).toMatch(/^ipp_[0-9A-Z]{26}$/);
    expect(Date.parse(p.created_at)).not.toBeNaN();
    expect((await h.call('GET', `/ip_policies/${p.id}`)).json).toEqual(p);
    const upd = await h.call('PATCH', `/ip_policies/${p.id}`, { body: { description: 'home' } });
    expect([upd.status, upd.json.description, upd.json.metadata]).toEqual([200, 'home', '{"team":"net"}']);
    const del = await h.call('DELETE', `/ip_policies/${p.id}`);
    expect([del.status, del.text]).toEqual([204, '']);
    expect((await h.call('GET', `/ip_policies/${p.id}`)).json).toMatchObject({ error_code: 'not_found', status_code: 404 });
    expect((await h.call('DELETE', `/ip_policies/${p.id}`)).status).toBe(404);
    expect((await h.call('PATCH', `/ip_policies/${p.id}`, { body: {} })).status).toBe(404);
  });

  it('description and metadata should be limited to 255 and 4096 bytes, counting UTF-8 bytes', async () => {
    expect((await h.call('POST', '/ip_policies', { body: { description: 'a'.repeat(255), metadata: 'm'.repeat(4096) } })).status).toBe(201);
    const desc = await h.call('POST', '/ip_policies', { body: { description: 'é'.repeat(128) } });
    expect(desc.json).toMatchObject({ error_code: 'field_too_long', details: { field: 'description', limit: 255, unit: 'bytes', actual: 256 } });
    const meta = await h.call('POST', '/ip_policies', { body: { metadata: 'm'.repeat(4097) } });
    expect(meta.json).toMatchObject({ error_code: 'field_too_long', details: { field: 'metadata' } });
    const p = await newPolicy();
    const patch = await h.call('PATCH', `/ip_policies/${p.id}`, { body: { description: '€'.repeat(86) } });
    expect([patch.status, patch.json.error_code]).toEqual([400, 'field_too_long']);
  });

  it('a policy used by a TCP edge IP restriction should not be deletable, and the error should name the edges', async () => {
    const p = await newPolicy();
    const e1 = await created('/edges/tcp', {});
    const e2 = await created('/edges/tcp', {});
    for (const e of [e1, e2]) await h.call('PUT', `/edges/tcp/${e.id}/ip_restriction`, { body: { ip_policy_ids: [p.id] } });
    const r = await h.call('DELETE', `/ip_policies/${p.id}`);
    expect(r.status).toBe(409);
    expect(r.json).toMatchObject({ error_code: 'ip_policy_in_use', details: { id: p.id, edges: [e1.id, e2.id] } });
    expect(r.json.msg).toContain(e1.id);
    expect(r.json.msg).toContain(e2.id);
    // Even a disabled module keeps its policies in use.
    await h.call('PUT', `/edges/tcp/${e1.id}/ip_restriction`, { body: { enabled: false, ip_policy_ids: [p.id] } });
    await h.call('DELETE', `/edges/tcp/${e2.id}/ip_restriction`);
    expect((await h.call('DELETE', `/ip_policies/${p.id}`)).json.details.edges).toEqual([e1.id]);
    await h.call('DELETE', `/edges/tcp/${e1.id}`);
    expect((await h.call('DELETE', `/ip_policies/${p.id}`)).status).toBe(204);
  });

  it('deleting a policy should delete its rules with it', async () => {
    const p = await newPolicy();
    const other = await newPolicy();
    const r1 = await created('/ip_policy_rules', { ip_policy_id: p.id, cidr: '10.0.0.0/8', action: 'allow' });
    const r2 = await created('/ip_policy_rules', { ip_policy_id: other.id, cidr: '10.0.0.0/8', action: 'allow' });
    expect((await h.call('DELETE', `/ip_policies/${p.id}`)).status).toBe(204);
    expect((await h.call('GET', `/ip_policy_rules/${r1.id}`)).status).toBe(404);
    expect((await h.call('GET', `/ip_policy_rules/${r2.id}`)).status).toBe(200);
  });

  it('lists should be newest first and page with limit and before_id until next_page_uri is null', async () => {
    const made: string[] = [];
    for (let i = 0; i < 5; i++) made.push((await newPolicy({ description: `page ${i}` })).id);
    const seen: string[] = [];
    let path: string | null = '/ip_policies?limit=2';
    let pages = 0;
    while (path !== null) {
      const r = await h.call('GET', path);
      expect(r.status).toBe(200);
      expect(r.json.uri).toBe(`${PUBLIC_BASE_URL}/ip_policies`);
      expect(r.json.ip_policies.length).toBeLessThanOrEqual(2);
      seen.push(...r.json.ip_policies.map((p: { id: string }) => p.id));
      path = r.json.next_page_uri === null ? null : (r.json.next_page_uri as string).slice(PUBLIC_BASE_URL.length);
      pages++;
    }
    expect(seen).toEqual([...seen].sort().reverse());
    expect(seen.slice(0, 5)).toEqual([...made].reverse());
    // next_page_uri is null as soon as nothing older is left, so no page is empty.
    expect(pages).toBe(Math.ceil(seen.length / 2));
    expect(new Set(seen).size).toBe(seen.length);
    const fromMiddle = await h.call('GET', `/ip_policies?before_id=${made[2]}&limit=100`);
    expect(fromMiddle.json.ip_policies.map((p: { id: string }) => p.id).slice(0, 2)).toEqual([made[1], made[0]]);
  });

  it('list parameters out of range should answer 400 invalid_parameter', async () => {
    for (const q of ['limit=0', 'limit=101', 'limit=abc']) {
      const r = await h.call('GET', `/ip_policies?${q}`);
      expect([q, r.status, r.json.error_code, r.json.details.field]).toEqual([q, 400, 'invalid_parameter', 'limit']);
    }
    expect((await h.call('GET', '/ip_policies?sort=asc')).json).toMatchObject({ error_code: 'unknown_field', details: { field: 'sort' } });
  });
});

describe('IP policy rules', () => {
  let policy: { id: string };
  beforeAll(async () => {
    policy = await newPolicy();
  });

  it('create, get, update and delete should work and show the policy as a Ref', async () => {
    const r = await created('/ip_policy_rules', { ip_policy_id: policy.id, cidr: '2001:DB8::/32', action: 'deny', description: 'v6' });
    expect(r).toMatchObject({
      uri: `${PUBLIC_BASE_URL}/ip_policy_rules/${r.id}`,
      cidr: '2001:db8::/32',
      action: 'deny',
      description: 'v6',
      metadata: '',
      ip_policy: { id: policy.id, uri: `${PUBLIC_BASE_URL}/ip_policies/${policy.id}` },
    });
    expect(r.id).toMatch(/^ipr_/);
    expect((await h.call('GET', `/ip_policy_rules/${r.id}`)).json).toEqual(r);
    const upd = await h.call('PATCH', `/ip_policy_rules/${r.id}`, { body: { cidr: '2001:db8:1::/48', metadata: 'x' } });
    expect(upd.json).toMatchObject({ cidr: '2001:db8:1::/48', metadata: 'x', action: 'deny' });
    expect((await h.call('DELETE', `/ip_policy_rules/${r.id}`)).status).toBe(204);
    expect((await h.call('GET', `/ip_policy_rules/${r.id}`)).status).toBe(404);
  });

  it('a cidr with host bits should be refused with the masked form suggested', async () => {
    const r = await h.call('POST', '/ip_policy_rules', { body: { ip_policy_id: policy.id, cidr: '10.1.2.3/8', action: 'allow' } });
    expect(r.status).toBe(400);
    expect(r.json).toEqual({
      error_code: 'cidr_has_host_bits',
      status_code: 400,
      msg: 'The field cidr has host bits set: 10.1.2.3/8; did you mean 10.0.0.0/8?',
      details: {
        field: 'cidr',
        value: '10.1.2.3/8',
        suggestion: '10.0.0.0/8',
        problems: [{ path: 'cidr', code: 'cidr_has_host_bits', message: 'The field cidr has host bits set: 10.1.2.3/8; did you mean 10.0.0.0/8?' }],
      },
    });
  });

  it('a cidr that is not a range should be invalid_cidr', async () => {
    for (const cidr of ['10.0.0.0', '10.0.0.0/33', 'banana', '::ffff:10.0.0.0/104']) {
      const r = await h.call('POST', '/ip_policy_rules', { body: { ip_policy_id: policy.id, cidr, action: 'allow' } });
      expect([cidr, r.status, r.json.error_code, r.json.details.field]).toEqual([cidr, 400, 'invalid_cidr', 'cidr']);
    }
  });

  it('an action other than allow or deny should be invalid_body naming action', async () => {
    const r = await h.call('POST', '/ip_policy_rules', { body: { ip_policy_id: policy.id, cidr: '10.0.0.0/8', action: 'block' } });
    expect(r.json).toMatchObject({ error_code: 'invalid_body', details: { field: 'action' } });
  });

  it('a rule for a policy that does not exist should be 400 unknown_reference', async () => {
    const r = await h.call('POST', '/ip_policy_rules', { body: { ip_policy_id: MISSING_POLICY, cidr: '10.0.0.0/8', action: 'allow' } });
    expect(r.json).toMatchObject({ error_code: 'unknown_reference', status_code: 400, details: { field: 'ip_policy_id', id: MISSING_POLICY } });
  });

  it('the same cidr twice in one policy should be 409 duplicate_cidr, even spelt differently, but fine in another policy', async () => {
    const p = await newPolicy();
    const first = await created('/ip_policy_rules', { ip_policy_id: p.id, cidr: '2001:db8::/32', action: 'allow' });
    const again = await h.call('POST', '/ip_policy_rules', { body: { ip_policy_id: p.id, cidr: '2001:DB8:0::/32', action: 'deny' } });
    expect(again.status).toBe(409);
    expect(again.json).toMatchObject({ error_code: 'duplicate_cidr', details: { field: 'cidr', rule_id: first.id } });
    const other = await newPolicy();
    expect((await h.call('POST', '/ip_policy_rules', { body: { ip_policy_id: other.id, cidr: '2001:db8::/32', action: 'deny' } })).status).toBe(201);
    const second = await created('/ip_policy_rules', { ip_policy_id: p.id, cidr: '10.0.0.0/8', action: 'allow' });
    const clash = await h.call('PATCH', `/ip_policy_rules/${second.id}`, { body: { cidr: '2001:db8::/32' } });
    expect([clash.status, clash.json.error_code]).toEqual([409, 'duplicate_cidr']);
  });

  it('action and ip_policy_id should be immutable: a PATCH that sends them is 400 naming the field', async () => {
    const r = await created('/ip_policy_rules', { ip_policy_id: policy.id, cidr: '172.16.0.0/12', action: 'allow' });
    const a = await h.call('PATCH', `/ip_policy_rules/${r.id}`, { body: { action: 'deny' } });
    expect(a.json).toMatchObject({ error_code: 'immutable_field', status_code: 400, details: { field: 'action' } });
    const p = await h.call('PATCH', `/ip_policy_rules/${r.id}`, { body: { ip_policy_id: policy.id } });
    expect(p.json).toMatchObject({ error_code: 'immutable_field', details: { field: 'ip_policy_id' } });
    expect((await h.call('GET', `/ip_policy_rules/${r.id}`)).json.action).toBe('allow');
  });

  it('missing required fields and unknown fields should be named', async () => {
    const missing = await h.call('POST', '/ip_policy_rules', { body: { ip_policy_id: policy.id, action: 'allow' } });
    expect(missing.json).toMatchObject({ error_code: 'invalid_body', details: { field: 'cidr' } });
    const unknown = await h.call('POST', '/ip_policy_rules', { body: { ip_policy_id: policy.id, action: 'allow', cidr: '10.0.0.0/8', enabled: true } });
    expect(unknown.json).toMatchObject({ error_code: 'unknown_field', details: { field: 'enabled' } });
  });

  it('the list should filter by ip_policy_id', async () => {
    const p = await newPolicy();
    const a = await created('/ip_policy_rules', { ip_policy_id: p.id, cidr: '10.0.0.0/8', action: 'allow' });
    const b = await created('/ip_policy_rules', { ip_policy_id: p.id, cidr: '10.0.0.0/16', action: 'deny' });
    const r = await h.call('GET', `/ip_policy_rules?ip_policy_id=${p.id}`);
    expect(r.json.ip_policy_rules.map((x: { id: string }) => x.id)).toEqual([b.id, a.id]);
  });
});
