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
