// TCP edges over a real socket and broker: CRUD, hostport validation and uniqueness, limits, lists.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PUBLIC_BASE_URL, startAdmin, type AdminHarness } from './admin-harness.js';

let h: AdminHarness;
beforeAll(async () => {
  h = await startAdmin();
});
afterAll(async () => {
  await h?.stop();
});

describe('TCP edges', () => {
  it('create, get, update and delete should work, with ip_restriction null when absent', async () => {
    const c = await h.call('POST', '/edges/tcp', { body: { description: 'ssh', metadata: 'm', hostports: ['1.TCP.example.com:20000', '[2001:db8::1]:443'] } });
    expect(c.status).toBe(201);
    const e = c.json;
    expect(e).toMatchObject({
      uri: `${PUBLIC_BASE_URL}/edges/tcp/${e.id}`,
      description: 'ssh',
      metadata: 'm',
      hostports: ['1.tcp.example.com:20000', '[2001:db8::1]:443'],
      ip_restriction: null,
    });
    expect(e.id).toMatch(/^edgtcp_[0-9A-Z]{26}$/);
    expect((await h.call('GET', `/edges/tcp/${e.id}`)).json).toEqual(e);
    const upd = await h.call('PATCH', `/edges/tcp/${e.id}`, { body: { hostports: ['2.tcp.example.com:20001'] } });
    expect([upd.status, upd.json.hostports, upd.json.description]).toEqual([200, ['2.tcp.example.com:20001'], 'ssh']);
    const list = await h.call('GET', '/edges/tcp');
    expect(list.json.tcp_edges.map((x: { id: string }) => x.id)).toContain(e.id);
    expect((await h.call('DELETE', `/edges/tcp/${e.id}`)).status).toBe(204);
    expect((await h.call('GET', `/edges/tcp/${e.id}`)).json).toMatchObject({ error_code: 'not_found', status_code: 404 });
  });

  it('an empty body object should create an edge with defaults', async () => {
    const r = await h.call('POST', '/edges/tcp', { body: {} });
    expect(r.json).toMatchObject({ description: '', metadata: '', hostports: [], ip_restriction: null });
  });

  it('a malformed hostport should be 400 invalid_hostport naming its index', async () => {
    const r = await h.call('POST', '/edges/tcp', { body: { hostports: ['a.example.com:1', 'a.example.com:99999'] } });
    expect(r.json).toMatchObject({ error_code: 'invalid_hostport', status_code: 400, details: { field: 'hostports[1]', value: 'a.example.com:99999' } });
  });

  it('a hostport repeated in one edge should be 400 and one used by another edge should be 409', async () => {
    const dup = await h.call('POST', '/edges/tcp', { body: { hostports: ['b.example.com:1', 'B.example.com:1'] } });
    expect(dup.json).toMatchObject({ error_code: 'duplicate_value', details: { field: 'hostports[1]' } });
    const first = await h.call('POST', '/edges/tcp', { body: { hostports: ['c.example.com:5'] } });
    const taken = await h.call('POST', '/edges/tcp', { body: { hostports: ['C.example.com:5'] } });
    expect(taken.status).toBe(409);
    expect(taken.json).toMatchObject({ error_code: 'hostport_in_use', details: { hostport: 'c.example.com:5', edge_id: first.json.id } });
    // An edge may keep its own hostports on update.
    expect((await h.call('PATCH', `/edges/tcp/${first.json.id}`, { body: { hostports: ['c.example.com:5', 'c.example.com:6'] } })).status).toBe(200);
  });

  it("a hostport naming a host under another account's verified reservation should be 409, and free for that account", async () => {
    const customer = async (name: string): Promise<string> => {
      const account = await h.call('POST', '/accounts', { body: { description: name } });
      return (await h.call('POST', '/api_keys', { body: { account_id: account.json.id, description: name } })).json.token as string;
    };
    const shop = await customer('shop');
    const squatter = await customer('squatter');
    // A normal account lists only what it reserved: not a name it has not verified, nor one another account reserved, verified or not.
    const unverified = await h.call('POST', '/edges/tcp', { token: squatter, body: { hostports: ['ssh.shop.edges.test:22'] } });
    expect([unverified.status, unverified.json.error_code]).toEqual([409, 'hostport_not_reserved']);
    const domain = await h.call('POST', '/reserved_domains', { token: shop, body: { domain: '*.shop.edges.test' } });
    for (const token of [squatter, shop]) {
      const pending = await h.call('POST', '/edges/tcp', { token, body: { hostports: ['www.shop.edges.test:443'] } });
      expect([pending.status, pending.json.error_code], 'a pending reservation proves nothing yet').toEqual([409, 'hostport_not_reserved']);
    }
    expect((await h.call('POST', `/reserved_domains/${domain.json.id}/verify`, { body: { manual: true } })).status).toBe(200);
    const empty = await h.call('POST', '/edges/tcp', { token: squatter, body: {} });
    for (const [method, path] of [['POST', '/edges/tcp'], ['PATCH', `/edges/tcp/${empty.json.id}`]] as const) {
      const refused = await h.call(method, path, { token: squatter, body: { hostports: ['WWW.shop.edges.test:443'] } });
      expect(refused.status, `${method} ${refused.text}`).toBe(409);
      expect(refused.json).toMatchObject({ error_code: 'hostport_name_reserved', details: { field: 'hostports[0]', hostport: 'www.shop.edges.test:443' } });
      expect(refused.json.msg).not.toContain(shop);
    }
    // The operator is held to the same rule; an address nobody reserved is the operator's alone to list.
    expect((await h.call('POST', '/edges/tcp', { body: { hostports: ['mail.shop.edges.test:25'] } })).json.error_code).toBe('hostport_name_reserved');
    expect((await h.call('POST', '/edges/tcp', { token: squatter, body: { hostports: ['192.0.2.10:443'] } })).json.error_code).toBe('hostport_not_reserved');
    expect((await h.call('POST', '/edges/tcp', { body: { hostports: ['192.0.2.10:443'] } })).status).toBe(201);
    // The shop lists its names once verified.
    const own = await h.call('POST', '/edges/tcp', { token: shop, body: { hostports: ['www.shop.edges.test:443', 'ssh.shop.edges.test:22'] } });
    expect(own.status, own.text).toBe(201);
    // One edge of the shop's still holds each hostport against the shop's others.
    expect((await h.call('POST', '/edges/tcp', { token: shop, body: { hostports: ['ssh.shop.edges.test:22'] } })).json).toMatchObject({ error_code: 'hostport_in_use', details: { edge_id: own.json.id } });
  });

  it('an ip_restriction in the edge body should be refused as unknown: the module has its own endpoint', async () => {
    const r = await h.call('POST', '/edges/tcp', { body: { ip_restriction: { ip_policy_ids: [] } } });
    expect(r.json).toMatchObject({ error_code: 'unknown_field', details: { field: 'ip_restriction' } });
  });

  it('description and metadata should be limited in bytes', async () => {
    const r = await h.call('POST', '/edges/tcp', { body: { metadata: 'ü'.repeat(2049) } });
    expect(r.json).toMatchObject({ error_code: 'field_too_long', details: { field: 'metadata', limit: 4096, unit: 'bytes', actual: 4098 } });
  });

  it('deleting an edge should take its IP restriction with it and free its policies', async () => {
    const p = (await h.call('POST', '/ip_policies', { body: {} })).json;
    const e = (await h.call('POST', '/edges/tcp', { body: {} })).json;
    await h.call('PUT', `/edges/tcp/${e.id}/ip_restriction`, { body: { ip_policy_ids: [p.id] } });
    expect((await h.call('DELETE', `/ip_policies/${p.id}`)).status).toBe(409);
    expect((await h.call('DELETE', `/edges/tcp/${e.id}`)).status).toBe(204);
    expect((await h.call('GET', `/edges/tcp/${e.id}/ip_restriction`)).status).toBe(404);
    expect((await h.call('DELETE', `/ip_policies/${p.id}`)).status).toBe(204);
  });
});
