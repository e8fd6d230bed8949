// Reserved TCP addresses on the real service and broker (SECURITY.md "Traffic ownership"): an account
// reserves an address the service allocates from the operator's pool, and its TCP edges list only its own
// addresses and names under its verified reserved domains; the operator's may list any other hostport.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuditDecoder } from '../../../src/records/audit-decoder.js';
import { consumeUntil, testClient } from '../../support/kafka.js';
import { PUBLIC_BASE_URL, startAdmin, type AdminHarness } from './admin-harness.js';

let h: AdminHarness;
beforeAll(async () => {
  // A pool of four: two hosts, two ports. The audit test releases its address before the pool test spends the pool.
  h = await startAdmin({ env: { TCP_ADDRESS_HOSTS: '1.tcp.edge.test,2.TCP.edge.test', TCP_ADDRESS_PORTS: '20000-20001' } });
});
afterAll(async () => {
  await h?.stop();
});

async function account(description: string): Promise<{ id: string; token: string }> {
  const a = await h.call('POST', '/accounts', { body: { description } });
  const key = await h.call('POST', '/api_keys', { body: { account_id: a.json.id } });
  expect(key.status, key.text).toBe(201);
  return { id: a.json.id, token: key.json.token };
}

describe('reserved TCP addresses', () => {
  it('should emit tcp_address_created, _updated and _deleted with the address as the API answers it', async () => {
    const owner = await account('audited');
    const made = await h.call('POST', '/reserved_addrs', { token: owner.token, body: { description: 'first' } });
    const changed = await h.call('PATCH', `/reserved_addrs/${made.json.id}`, { token: owner.token, body: { metadata: 'm' } });
    expect([changed.status, changed.json.addr, changed.json.metadata]).toEqual([200, made.json.addr, 'm']);
    const refixed = await h.call('PATCH', `/reserved_addrs/${made.json.id}`, { token: owner.token, body: { addr: '1.tcp.edge.test:20000' } });
    expect([refixed.status, refixed.json.error_code]).toEqual([400, 'unknown_field']);
    expect((await h.call('DELETE', `/reserved_addrs/${made.json.id}`, { token: owner.token })).status).toBe(204);
    const decoder = createAuditDecoder();
    const mine = (m: { key: string | null }): boolean => m.key === made.json.id;
    const msgs = await consumeUntil(testClient(), { topics: [h.env.TOPIC_AUDIT as string], until: (got) => got.filter(mine).length >= 3, timeoutMs: 20_000 });
    const events = msgs.filter(mine).map((m) => {
      const r = decoder.decode({ value: Buffer.from(m.value ?? ''), headers: m.headers });
      if (!r.ok) throw new Error(`an audit event failed the audit decoder: ${JSON.stringify(r)}`);
      return r.event;
    });
    expect(events.map((e) => [e.event_type, e.object])).toEqual([
      ['tcp_address_created.v0', made.json],
      ['tcp_address_updated.v0', changed.json],
      ['tcp_address_deleted.v0', changed.json],
    ]);
  });
  it("should allocate addresses from the pool, keep another account's and unreserved hostports off an edge, and say when the pool is spent", async () => {
    const alpha = await account('alpha');
    const bravo = await account('bravo');
    const a1 = await h.call('POST', '/reserved_addrs', { token: alpha.token, body: { description: 'postgres' } });
    expect(a1.status, a1.text).toBe(201);
    expect(a1.json).toMatchObject({ uri: `${PUBLIC_BASE_URL}/reserved_addrs/${a1.json.id}`, account_id: alpha.id, description: 'postgres', addr: '1.tcp.edge.test:20000' });
    expect(a1.json.id).toMatch(/^ra_[0-9A-Z]{26}$/);
    const b1 = await h.call('POST', '/reserved_addrs', { token: bravo.token, body: {} });
    expect(b1.json.addr).toBe('1.tcp.edge.test:20001');

    // bravo may not list alpha's address, an IP literal or a name it has not reserved, whoever listed them first.
    for (const hostport of [a1.json.addr, '198.51.100.7:5432', 'db.alpha.example.net:5432']) {
      const taken = await h.call('POST', '/edges/tcp', { token: bravo.token, body: { hostports: [b1.json.addr, hostport] } });
      expect([hostport, taken.status, taken.json.error_code, taken.json.details?.field]).toEqual([hostport, 409, 'hostport_not_reserved', 'hostports[1]']);
    }
    expect((await h.call('POST', '/edges/tcp', { token: bravo.token, body: { hostports: ['1.TCP.edge.test:20001'] } })).status).toBe(201);

    // alpha lists its address and a name under its verified domain; the operator any hostport nobody reserved, never alpha's.
    const domain = await h.call('POST', '/reserved_domains', { token: alpha.token, body: { domain: '*.alpha.example.net' } });
    const early = await h.call('POST', '/edges/tcp', { token: alpha.token, body: { hostports: ['db.alpha.example.net:5432'] } });
    expect([early.status, early.json.error_code]).toEqual([409, 'hostport_not_reserved']);
    expect((await h.call('POST', `/reserved_domains/${domain.json.id}/verify`, { body: { manual: true } })).status).toBe(200);
    const edge = await h.call('POST', '/edges/tcp', { token: alpha.token, body: { hostports: [a1.json.addr, 'db.alpha.example.net:5432'] } });
    expect(edge.status, edge.text).toBe(201);
    expect(edge.json.unowned_hostports).toEqual([]);
    expect((await h.call('POST', '/edges/tcp', { body: { hostports: ['198.51.100.7:5432'] } })).status).toBe(201);
    const operatorTakes = await h.call('POST', '/edges/tcp', { body: { hostports: ['2.tcp.edge.test:20001', a1.json.addr] } });
    expect([operatorTakes.status, operatorTakes.json.error_code, operatorTakes.json.details?.field]).toEqual([409, 'hostport_not_reserved', 'hostports[1]']);

    // Two left, then the pool is spent; an address in use stays, an unused one goes back to the pool.
    const a2 = await h.call('POST', '/reserved_addrs', { token: alpha.token, body: {} });
    const a3 = await h.call('POST', '/reserved_addrs', { token: alpha.token, body: {} });
    expect([a2.json.addr, a3.json.addr]).toEqual(['2.tcp.edge.test:20000', '2.tcp.edge.test:20001']);
    const spent = await h.call('POST', '/reserved_addrs', { token: bravo.token, body: {} });
    expect([spent.status, spent.json.error_code, spent.json.details]).toEqual([409, 'tcp_address_pool_exhausted', { pool_size: 4 }]);
    const inUse = await h.call('DELETE', `/reserved_addrs/${a1.json.id}`, { token: alpha.token });
    expect([inUse.status, inUse.json.error_code, inUse.json.details?.edges]).toEqual([409, 'tcp_address_in_use', [edge.json.id]]);
    expect((await h.call('DELETE', `/reserved_addrs/${a3.json.id}`, { token: bravo.token })).status).toBe(404);
    expect((await h.call('DELETE', `/reserved_addrs/${a3.json.id}`, { token: alpha.token })).status).toBe(204);
    expect((await h.call('POST', '/reserved_addrs', { token: bravo.token, body: {} })).json.addr).toBe('2.tcp.edge.test:20001');
    const listed = await h.call('GET', '/reserved_addrs', { token: alpha.token });
    expect(listed.json.reserved_addrs.map((r: { addr: string }) => r.addr)).toEqual(['2.tcp.edge.test:20000', '1.tcp.edge.test:20000']);
  });

});
