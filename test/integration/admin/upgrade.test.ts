// The first start after the upgrade to accounts, on a config topic the service wrote before accounts existed
// (fixtures/config-log-before-accounts.json): the operator account is made, the old keys and resources are
// its own (nothing is orphaned or rewritten), the old bootstrap token still works as the operator's, no
// second bootstrap key is made, another account sees none of it, and the old subscription still delivers.
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATOR_ACCOUNT_ID } from '../../../src/accounts/account.js';
import { encodeRecord } from '../../../src/records/record-encoder.js';
import { seededRecord } from '../../../src/traffic/seeded-records.js';
import { createTopics, produce, testClient, uniqueName } from '../../support/kafka.js';
import { startAdmin, type AdminHarness, type Body } from './admin-harness.js';

interface Fixture {
  readonly bootstrap_token: string;
  readonly secret_key: string;
  readonly records: readonly { readonly key: string; readonly value: string | null }[];
}

const fixture = JSON.parse(readFileSync(new URL('./fixtures/config-log-before-accounts.json', import.meta.url), 'utf8')) as Fixture;
const live = new Map(fixture.records.map((r) => [r.key, r.value === null ? undefined : (JSON.parse(r.value) as { kind: string; data: Body })]));
const idsOf = (kind: string): string[] => [...live].filter(([, v]) => v?.kind === kind).map(([k]) => k);
const collection: Readonly<Record<string, string>> = {
  api_key: '/api_keys',
  ip_policy: '/ip_policies',
  ip_policy_rule: '/ip_policy_rules',
  tcp_edge: '/edges/tcp',
  event_destination: '/event_destinations',
  event_subscription: '/event_subscriptions',
};

const prefix = uniqueName('upgrade');
const fileRoot = mkdtempSync(join(tmpdir(), 'edge-events-upgrade-'));
let h: AdminHarness;

beforeAll(async () => {
  const kafka = testClient();
  await createTopics(kafka, [{ topic: `${prefix}.config`, partitions: 1, compacted: true }]);
  await produce(kafka, `${prefix}.config`, fixture.records.map((r) => ({ key: r.key, value: r.value, partition: 0 })));
  h = await startAdmin({ prefix, token: fixture.bootstrap_token, roles: 'api,worker', env: { SECRET_KEY: fixture.secret_key, FILE_DESTINATION_ROOT: fileRoot, DRAIN_TIMEOUT_MS: '2000' } });
}, 120_000);

afterAll(async () => {
  await h?.stop();
  rmSync(fileRoot, { recursive: true, force: true });
});

describe('the first start on a config log written before accounts', () => {
  it('should make the operator account, whose key the old bootstrap token is, and no second bootstrap key', async () => {
    const accounts = await h.call('GET', '/accounts');
    expect(accounts.status, accounts.text).toBe(200);
    expect(accounts.json.accounts).toEqual([expect.objectContaining({ id: OPERATOR_ACCOUNT_ID, operator: true })]);
    const keys = (await h.call('GET', '/api_keys')).json.api_keys as Body[];
    expect(keys.map((k) => k.id).sort()).toEqual(idsOf('api_key').sort());
    for (const k of keys) expect(k.account_id).toBe(OPERATOR_ACCOUNT_ID);
  });

  it("should keep delivering the old subscription's events, as the operator account's", async () => {
    const record = seededRecord('http_request_complete.v0', 7) as Record<string, Record<string, unknown>>;
    (record.conn as Record<string, unknown>).server_name = 'nobody.upgrade.test';
    const encoded = encodeRecord('http_request_complete.v0', record, 'json');
    await produce(testClient(), `${prefix}.http`, [{ key: 'r', value: encoded.value, headers: { ...encoded.headers } }]);
    const file = join(fileRoot, 'before');
    const deadline = Date.now() + 60_000;
    const traffic = (): Body[] => {
      try {
        const lines = readdirSync(file).flatMap((n) => readFileSync(join(file, n), 'utf8').split('\n').filter((l) => l !== ''));
        // The subscription takes api_key_created.v0 too (a later test makes a key).
        return lines.map((l) => JSON.parse(l) as Body).filter((e) => e.event_type === 'http_request_complete.v0');
      } catch {
        return [];
      }
    };
    while (traffic().length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 300));
    expect(traffic().map((e) => e.object)).toEqual([{ conn: { server_name: 'nobody.upgrade.test', client_ip: record.conn?.client_ip } }]);
  }, 90_000);

  it('should answer every old resource as the operator account\'s, in its lists and alone, without rewriting it', async () => {
    for (const [kind, path] of Object.entries(collection)) {
      const ids = idsOf(kind);
      expect(ids.length, kind).toBeGreaterThan(0);
      const list = (await h.call('GET', path)).json as Body;
      const key = Object.keys(list).find((k) => Array.isArray(list[k])) as string;
      expect((list[key] as Body[]).map((x) => x.id).sort(), kind).toEqual([...ids].sort());
      for (const id of ids) {
        const one = await h.call('GET', `${path}/${id}`);
        expect([id, one.status, one.json.account_id]).toEqual([id, 200, OPERATOR_ACCOUNT_ID]);
        // Read as the operator's, still stored as written: an old record gets its account_id with its next change.
        expect(h.app.configLog.get(id)?.data).toEqual(live.get(id)?.data);
      }
    }
    const policy = idsOf('ip_policy')[0] as string;
    expect((await h.call('PATCH', `/ip_policies/${policy}`, { body: { metadata: 'upgraded' } })).status).toBe(200);
    expect(h.app.configLog.get(policy)?.data).toMatchObject({ account_id: OPERATOR_ACCOUNT_ID, metadata: 'upgraded' });
  });

  it('should show none of the old resources to a new account', async () => {
    const account = (await h.call('POST', '/accounts', { body: { description: 'a customer' } })).json;
    const token = (await h.call('POST', '/api_keys', { body: { account_id: account.id } })).json.token as string;
    for (const [kind, path] of Object.entries(collection)) {
      const list = (await h.call('GET', path, { token })).json as Body;
      const key = Object.keys(list).find((k) => Array.isArray(list[k])) as string;
      expect(list[key], kind).toEqual(kind === 'api_key' ? [expect.objectContaining({ account_id: account.id })] : []);
      for (const id of idsOf(kind)) expect([id, (await h.call('GET', `${path}/${id}`, { token })).status]).toEqual([id, 404]);
    }
  });
});
