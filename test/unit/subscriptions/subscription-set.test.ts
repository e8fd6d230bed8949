// Tests of loading many subscriptions at once: the same routes and matches as adding them one by one.
import { describe, expect, it } from 'vitest';
import type { StoredSubscription } from '../../../src/configlog/resources.js';
import { TRAFFIC_EVENT_TYPES } from '../../../src/events/catalog.js';
import { SubscriptionSet } from '../../../src/subscriptions/subscription-set.js';

const sub = (i: number, type: string, filter: string | undefined): StoredSubscription => ({
  id: `esb_${String(i).padStart(26, '0')}`,
  created_at: '2024-05-01T00:00:00Z',
  description: '',
  metadata: '',
  sources: [{ type, fields: ['conn.client_ip'], ...(filter !== undefined && { filter }) }],
  destination_ids: [`ed_${i % 3}`],
});

const SUBS: StoredSubscription[] = [
  ...Array.from({ length: 40 }, (_, i) => sub(i, 'http_request_complete.v0', `ev.conn.server_port == ${400 + (i % 5)}`)),
  ...Array.from({ length: 20 }, (_, i) => sub(100 + i, 'tcp_connection_closed.v0', i % 4 === 0 ? undefined : `cidr("10.${i}.0.0/16").containsIP(ev.conn.client_ip)`)),
  sub(200, 'ip_policy_created.v0', undefined),
  sub(201, 'http_request_complete.v0', 'ev.conn.nope == 1'),
];

const records = Array.from({ length: 60 }, (_, i) => ({
  conn: { client_ip: `10.${i % 25}.1.2`, server_ip: '10.0.0.1', server_name: 'a.example.com', server_port: 400 + (i % 7) },
}));

describe('subscription set', () => {
  it('should route and match the same after load() as after put() of each subscription', () => {
    const one = new SubscriptionSet();
    for (const s of SUBS) one.put(s);
    const bulk = new SubscriptionSet();
    bulk.load(SUBS);
    for (const t of TRAFFIC_EVENT_TYPES) {
      expect(bulk.matcher(t).size).toBe(one.matcher(t).size);
      for (const r of records) {
        const ids = (set: SubscriptionSet): string[] => set.matcher(t).match(r).map((route) => route.subscriptionId);
        expect(ids(bulk)).toEqual(ids(one));
        // The matcher yields the very route objects the set holds, so the router needs no lookup.
        for (const route of bulk.matcher(t).match(r)) expect(bulk.route(t, route.subscriptionId)).toBe(route);
      }
    }
    expect(bulk.auditRoutes('ip_policy_created.v0', undefined)).toEqual(one.auditRoutes('ip_policy_created.v0', undefined));
    expect(bulk.route('http_request_complete.v0', SUBS[0]?.id as string)?.destinationIds).toEqual(['ed_0']);
    // The subscription whose filter does not compile is skipped either way.
    expect(bulk.route('http_request_complete.v0', SUBS[SUBS.length - 1]?.id as string)).toBeUndefined();
  });

  it('should keep subscriptions already present when load() adds more', () => {
    const set = new SubscriptionSet();
    set.put(SUBS[0] as StoredSubscription);
    set.load(SUBS.slice(1, 10));
    expect(set.matcher('http_request_complete.v0').size).toBe(10);
    expect(set.matcher('http_request_complete.v0').match(records[0]).map((route) => route.subscriptionId)).toContain(SUBS[0]?.id);
  });
});
