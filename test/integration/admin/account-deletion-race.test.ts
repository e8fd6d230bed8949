// No resource outlives its account (SECURITY.md "Accounts and tenancy"), on one API replica or two:
// creates queued behind DELETE /accounts/{id} on the store lock or waiting in a slow check (a kafka topic
// check), and PATCHes and creates on a replica that has not applied the deletion yet, race the deletion.
// Afterwards no process (either replica, a fresh reader of the config log) holds anything of the account,
// and its domain is free again on both replicas.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFIG_KINDS } from '../../../src/configlog/format.js';
import { ConfigLog } from '../../../src/configlog/config-log.js';
import { testClient, uniqueName } from '../../support/kafka.js';
import { startAdmin, type AdminHarness, type Body, type CallResult } from './admin-harness.js';

let a: AdminHarness;
let b: AdminHarness;

beforeAll(async () => {
  a = await startAdmin();
  b = await startAdmin({ prefix: a.prefix, token: a.token });
});
afterAll(async () => {
  await Promise.allSettled([a?.stop(), b?.stop()]);
});

async function ok(r: Promise<CallResult>, status = 201): Promise<Body> {
  const res = await r;
  expect(res.status, res.text).toBe(status);
  return res.json;
}

/** Polls until `check` holds, for at most 10 s. */
async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Calls `fn` again and again until it answers with a status outside `going`, at most `max` times; the statuses seen. */
async function repeat(max: number, going: number, fn: (i: number) => Promise<CallResult>): Promise<CallResult[]> {
  const seen: CallResult[] = [];
  for (let i = 0; i < max; i++) {
    const r = await fn(i);
    seen.push(r);
    if (r.status !== going) break;
  }
  return seen;
}

/** The resources of `accountId` a process holds in its view of the config log. */
function heldBy(log: ConfigLog, accountId: string): string[] {
  return CONFIG_KINDS.flatMap((kind) => log.list(kind))
    .filter((v) => v.data.account_id === accountId || v.data.id === accountId)
    .map((v) => String(v.data.id));
}

describe('deleting an account while its resources are written', () => {
  it('should leave nothing of it on either replica or in a fresh reader, and free its domain, whatever raced the deletion', async () => {
    const answers: CallResult[] = [];
    const accounts: string[] = [];
    for (let round = 0; round < 3; round++) {
      const account = await ok(a.call('POST', '/accounts', { body: { description: `race ${round}` } }));
      accounts.push(account.id);
      const key = await ok(a.call('POST', '/api_keys', { body: { account_id: account.id } }));
      const as = (h: AdminHarness, method: string, path: string, body?: unknown) => h.call(method, path, { token: key.token, body });
      const domain = `race${round}.${uniqueName('accounts').toLowerCase().replace(/[^a-z0-9]/g, '')}.test`;
      const reserved = await ok(as(a, 'POST', '/reserved_domains', { domain }));
      // Verified, so that it would hold its name against the next account were it to survive.
      await ok(a.call('POST', `/reserved_domains/${reserved.id}/verify`, { body: { manual: true } }), 200);
      const policy = await ok(as(a, 'POST', '/ip_policies', {}));
      // Enough to own that the deletion's cascade takes a while on the store lock.
      for (let i = 0; i < 40; i++) await ok(as(a, 'POST', '/ip_policies', { description: `filler ${i}` }));
      await until('replica b knows the key and the reservation', async () => (await as(b, 'GET', `/reserved_domains/${reserved.id}`)).status === 200);

      const deletion = a.call('DELETE', `/accounts/${account.id}`);
      await new Promise((r) => setTimeout(r, 5));
      const racing = await Promise.all([
        // Replica b has not applied the deletion for a while: it changes and creates as if nothing happened.
        repeat(200, 200, (i) => as(b, 'PATCH', `/reserved_domains/${reserved.id}`, { metadata: `b ${i}` })),
        repeat(200, 200, (i) => as(b, 'PATCH', `/ip_policies/${policy.id}`, { description: `b ${i}` })),
        repeat(200, 201, (i) => as(b, 'POST', '/ip_policies', { description: `b new ${i}` })),
        // Replica a: creates queued behind the deletion on the store lock, and one in a kafka topic check.
        ...Array.from({ length: 4 }, (_, i) => as(a, 'POST', '/ip_policies', { description: `a queued ${i}` }).then((r) => [r])),
        as(a, 'POST', '/event_destinations', { target: { kafka: { topic: `${account.id}.${uniqueName('race')}` } } }).then((r) => [r]),
      ]);
      expect((await deletion).status).toBe(204);
      answers.push(...racing.flat());

      // Whatever was written, the name is free on both replicas once they have caught up.
      const other = await ok(a.call('POST', '/accounts', { body: { description: `after race ${round}` } }));
      const otherKey = await ok(a.call('POST', '/api_keys', { body: { account_id: other.id } }));
      await until('replica b knows the other key', async () => (await b.call('GET', '/reserved_domains', { token: otherKey.token })).status === 200);
      for (const h of [a, b]) {
        // A replica checks against its own view: b may not have read a's create and delete of the name yet.
        await h.app.configLog.sync();
        const r = await h.call('POST', '/reserved_domains', { token: otherKey.token, body: { domain } });
        expect([round, r.status, r.text]).toEqual([round, 201, expect.any(String)]);
        expect((await h.call('DELETE', `/reserved_domains/${r.json.id}`, { token: otherKey.token })).status).toBe(204);
      }
    }

    // Every answer is a success (made before the deletion, so deleted with it) or a clear refusal.
    const statuses = new Map<string, number>();
    for (const r of answers) statuses.set(`${r.status} ${r.json?.error_code ?? ''}`.trim(), (statuses.get(`${r.status} ${r.json?.error_code ?? ''}`.trim()) ?? 0) + 1);
    console.log('answers to the writes that raced the deletions:', Object.fromEntries(statuses));
    for (const key of statuses.keys()) expect(['200', '201', '401 unauthorized', '404 not_found', '409 account_deleted']).toContain(key);

    const fresh = new ConfigLog({ kafka: testClient(), topic: a.env.TOPIC_CONFIG as string });
    await fresh.start();
    try {
      await Promise.all([a.app.configLog.sync(), b.app.configLog.sync()]);
      for (const id of accounts) {
        expect({ account: id, a: heldBy(a.app.configLog, id), b: heldBy(b.app.configLog, id), fresh: heldBy(fresh, id) }).toEqual({ account: id, a: [], b: [], fresh: [] });
      }
    } finally {
      await fresh.stop();
    }
  });
});
