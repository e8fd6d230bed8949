// The first start after TCP addresses became reservations (SECURITY.md "Traffic ownership"), on a config
// log holding a normal account's TCP edge written before: its hostports are kept as they were stored (nothing
// is rewritten), those its account may no longer list are shown in unowned_hostports and own no traffic,
// an update of hostports must leave them out, and they keep no other edge from listing them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeConfigValue } from '../../../src/configlog/format.js';
import { newId } from '../../../src/ids.js';
import { createTopics, produce, testClient, uniqueName } from '../../support/kafka.js';
import { startAdmin, type AdminHarness } from './admin-harness.js';

const prefix = uniqueName('tcp-upgrade');
const account = newId('account');
const domain = newId('reserved_domain');
const edge = newId('tcp_edge');
const created_at = '2026-01-02T03:04:05.000Z';
const base = { account_id: account, created_at, description: '', metadata: '' };
const legacy = ['198.51.100.7:5432', 'db.other.example.net:5432', 'ssh.alpha.example.net:22'];
let h: AdminHarness;

beforeAll(async () => {
  const kafka = testClient();
  await createTopics(kafka, [{ topic: `${prefix}.config`, partitions: 1, compacted: true }]);
  // As the service before reservations wrote them: the account, its verified domain, its edge.
  await produce(kafka, `${prefix}.config`, [
    { key: account, value: encodeConfigValue('account', { id: account, created_at, description: 'alpha', metadata: '' }), partition: 0 },
    { key: domain, value: encodeConfigValue('reserved_domain', { id: domain, ...base, domain: '*.alpha.example.net', status: 'verified', verified_at: created_at, verified_by: 'operator' }), partition: 0 },
    { key: edge, value: encodeConfigValue('tcp_edge', { id: edge, ...base, hostports: legacy, ip_restriction: null }), partition: 0 },
  ]);
  h = await startAdmin({ prefix });
}, 120_000);
afterAll(async () => {
  await h?.stop();
});

describe('a TCP edge stored before hostports had to be reserved', () => {
  it('should be kept as stored, show what it may no longer list, and make an update of hostports leave those out', async () => {
    const key = await h.call('POST', '/api_keys', { body: { account_id: account } });
    const token = key.json.token as string;
    const stored = await h.call('GET', `/edges/tcp/${edge}`, { token });
    expect([stored.status, stored.json.hostports, stored.json.unowned_hostports]).toEqual([200, legacy, ['198.51.100.7:5432', 'db.other.example.net:5432']]);
    // A change of its texts keeps the list; a list that still holds them is refused; without them it is taken.
    expect((await h.call('PATCH', `/edges/tcp/${edge}`, { token, body: { description: 'db' } })).json.hostports).toEqual(legacy);
    const again = await h.call('PATCH', `/edges/tcp/${edge}`, { token, body: { hostports: legacy } });
    expect([again.status, again.json.error_code, again.json.details?.field]).toEqual([409, 'hostport_not_reserved', 'hostports[0]']);
    // Its old claim keeps no one out: the operator lists the address now.
    expect((await h.call('POST', '/edges/tcp', { body: { hostports: ['198.51.100.7:5432'] } })).status).toBe(201);
    const fixed = await h.call('PATCH', `/edges/tcp/${edge}`, { token, body: { hostports: ['ssh.alpha.example.net:22'] } });
    expect([fixed.status, fixed.json.hostports, fixed.json.unowned_hostports]).toEqual([200, ['ssh.alpha.example.net:22'], []]);
  });
});
