// State lives in the compacted config topic: a restarted service reads it all back, and two API
// replicas on the same topics see each other's writes within a second.
import { afterAll, describe, expect, it } from 'vitest';
import { uniqueName } from '../../support/kafka.js';
import { startAdmin, type AdminHarness } from './admin-harness.js';

const running: AdminHarness[] = [];
async function start(opts: Parameters<typeof startAdmin>[0] = {}): Promise<AdminHarness> {
  const h = await startAdmin(opts);
  running.push(h);
  return h;
}
afterAll(async () => {
  await Promise.allSettled(running.map((h) => h.stop()));
});

/** Polls `check` every 20 ms until it holds; resolves with the time it took, or fails after `limitMs`. */
async function within(limitMs: number, check: () => Promise<boolean>): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await check()) return Date.now() - started;
    if (Date.now() - started > limitMs) throw new Error(`not seen within ${limitMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('admin state persistence', () => {
  it('a restarted service should read back every resource, and keep its keys and no second bootstrap key', async () => {
    const first = await start();
    const key = (await first.call('POST', '/api_keys', { body: { description: 'survivor' } })).json;
    const policy = (await first.call('POST', '/ip_policies', { body: { description: 'kept' } })).json;
    const gone = (await first.call('POST', '/ip_policies', { body: {} })).json;
    await first.call('DELETE', `/ip_policies/${gone.id}`);
    const rule = (await first.call('POST', '/ip_policy_rules', { body: { ip_policy_id: policy.id, cidr: '10.0.0.0/8', action: 'deny' } })).json;
    const edge = (await first.call('POST', '/edges/tcp', { body: { hostports: ['a.example.com:1'] } })).json;
    await first.call('PUT', `/edges/tcp/${edge.id}/ip_restriction`, { body: { enabled: false, ip_policy_ids: [policy.id] } });
    const before = {
      keys: (await first.call('GET', '/api_keys')).json,
      policies: (await first.call('GET', '/ip_policies')).json,
      rules: (await first.call('GET', '/ip_policy_rules')).json,
      edges: (await first.call('GET', '/edges/tcp')).json,
    };
    expect(before.edges.tcp_edges[0].ip_restriction.enabled).toBe(false);
    await first.stop();

    const second = await start({ prefix: first.prefix, token: first.token });
    expect((await second.call('GET', '/api_keys')).json).toEqual(before.keys);
    expect((await second.call('GET', '/ip_policies')).json).toEqual(before.policies);
    expect((await second.call('GET', '/ip_policy_rules')).json).toEqual(before.rules);
    expect((await second.call('GET', '/edges/tcp')).json).toEqual(before.edges);
    expect((await second.call('GET', `/ip_policies/${gone.id}`)).status).toBe(404);
    expect((await second.call('GET', `/ip_policy_rules/${rule.id}`)).json.cidr).toBe('10.0.0.0/8');
    // The key made before the restart still authenticates.
    expect((await second.call('GET', '/ip_policies', { token: key.token })).status).toBe(200);
  });

  it('two replicas should see each other’s writes, deletes and key revocations within 1 s', async () => {
    const a = await start();
    const b = await start({ prefix: a.prefix, token: a.token });

    const policy = (await a.call('POST', '/ip_policies', { body: { description: 'from a' } })).json;
    const seenCreate = await within(1000, async () => (await b.call('GET', `/ip_policies/${policy.id}`)).status === 200);

    await b.call('PATCH', `/ip_policies/${policy.id}`, { body: { description: 'from b' } });
    const seenUpdate = await within(1000, async () => (await a.call('GET', `/ip_policies/${policy.id}`)).json.description === 'from b');

    const key = (await a.call('POST', '/api_keys', { body: {} })).json;
    await within(1000, async () => (await b.call('GET', '/ip_policies', { token: key.token })).status === 200);
    await a.call('DELETE', `/api_keys/${key.id}`);
    const seenRevoke = await within(1000, async () => (await b.call('GET', '/ip_policies', { token: key.token })).status === 401);

    await b.call('DELETE', `/ip_policies/${policy.id}`);
    const seenDelete = await within(1000, async () => (await a.call('GET', `/ip_policies/${policy.id}`)).status === 404);
    expect(Math.max(seenCreate, seenUpdate, seenRevoke, seenDelete)).toBeLessThan(1000);
  });

  it('two replicas starting together with the same bootstrap token should create one bootstrap key', async () => {
    const prefix = uniqueName('boot');
    const token = `eek_together${Date.now()}`;
    const [a, b] = await Promise.all([start({ prefix, token }), start({ prefix, token })]);
    await within(1000, async () => (await b.call('GET', '/api_keys')).json.api_keys.length >= 1);
    const keysA = (await a.call('GET', '/api_keys')).json.api_keys;
    const keysB = (await b.call('GET', '/api_keys')).json.api_keys;
    expect(keysA.length).toBe(1);
    expect(keysB.map((k: { id: string }) => k.id)).toEqual(keysA.map((k: { id: string }) => k.id));
  });
});
