// Subscription sets for the benchmarks: N subscriptions with realistic filters and field selections, as the config log stores them.
import { TRAFFIC_FIELDS, type TrafficEventType } from '../../src/events/catalog.js';
import type { StoredSubscription } from '../../src/configlog/resources.js';
import type { TrafficUniverse } from '../../src/traffic/generator.js';
import { seededRandom, type Random } from '../../src/traffic/random.js';
import { filterCandidates, type FilterCandidate } from './filters.js';

/** Field selections tenants commonly make; a few take everything. */
const TEMPLATES: Readonly<Record<TrafficEventType, readonly (readonly string[])[]>> = {
  'http_request_complete.v0': [
    ['conn.client_ip', 'conn.server_name', 'http.request.method', 'http.request.url.path', 'http.response.status_code'],
    ['conn.client_ip', 'conn.start_ts', 'http.request.url.raw', 'http.request.user_agent', 'http.response.status_code', 'http.response.body_length'],
    ['http.request.headers', 'http.response.headers', 'http.request.url.raw', 'http.response.status_code'],
    ['conn.client_ip', 'ip_policy.decision', 'http.request.url.host'],
    ['conn.client_ip', 'conn.server_name', 'tls.version', 'tls.cipher_suite'],
    TRAFFIC_FIELDS['http_request_complete.v0'].map((f) => f.name),
  ],
  'tcp_connection_closed.v0': [
    ['conn.client_ip', 'conn.server_name', 'conn.server_port', 'conn.bytes_in', 'conn.bytes_out'],
    ['conn.client_ip', 'conn.start_ts', 'conn.end_ts', 'ip_policy.decision'],
    TRAFFIC_FIELDS['tcp_connection_closed.v0'].map((f) => f.name),
  ],
};

export type SubscriptionKind = 'one-percent' | 'fifth-percent' | 'rare' | 'tenant';

/** The share of all records each subscription of a kind matches, from the filters' candidates (filters.ts). */
const SHARE_RANGES: Partial<Record<SubscriptionKind, readonly [number, number]>> = {
  'one-percent': [0.006, 0.016],
  'fifth-percent': [0.0012, 0.003],
  rare: [0.00005, 0.0002],
};

export interface SubscriptionSetOptions {
  readonly count: number;
  /** Destination ids the subscriptions deliver to, assigned round-robin. */
  readonly destinationIds: readonly string[];
  /** Share of http_request_complete.v0 in the traffic; subscriptions are split between the types in the same proportion. */
  readonly httpShare: number;
  /**
   * 'one-percent': each subscription matches about 1% of all records (the hot-path workload, bench/results/hotpath.md).
   * 'fifth-percent': each matches about 0.2%, so 100 of them match about 20% of the records.
   * 'rare': each subscription matches about 0.01% of all records, so 100 of them match about 1% (the
   * hot-path workload where almost nothing matches).
   * 'tenant': each subscription follows one host or TCP address of its own (a realistic multi-tenant load).
   */
  readonly kind: SubscriptionKind;
  /** Share of subscriptions that pick their own random fields instead of a common selection. Default 0.1. */
  readonly customFieldShare?: number;
  readonly seed?: number;
}

export interface SubscriptionWorkload {
  readonly subscriptions: StoredSubscription[];
  /** Sum of the expected shares of all records the filters match: the expected matches per record. */
  readonly expectedMatchesPerRecord: number;
  readonly distinctFilters: number;
  readonly distinctFieldSets: number;
}

export const subscriptionId = (i: number): string => `esb_BENCH${String(i).padStart(21, '0')}`;

function fieldsFor(r: Random, eventType: TrafficEventType, customShare: number): string[] {
  if (r() < customShare) {
    const all = TRAFFIC_FIELDS[eventType].map((f) => f.name);
    const n = 2 + Math.floor(r() * 7);
    const picked = new Set<string>();
    while (picked.size < Math.min(n, all.length)) picked.add(all[Math.floor(r() * all.length)] as string);
    return [...picked];
  }
  const list = TEMPLATES[eventType];
  return [...(list[Math.floor(r() * list.length)] as readonly string[])];
}

export function buildSubscriptions(u: TrafficUniverse, opts: SubscriptionSetOptions): SubscriptionWorkload {
  const r = seededRandom(opts.seed ?? 17);
  const customShare = opts.customFieldShare ?? 0.1;
  const range = SHARE_RANGES[opts.kind];
  const candidates = range === undefined ? [] : filterCandidates(u, opts.httpShare, ...range);
  const byType = (t: TrafficEventType): FilterCandidate[] => candidates.filter((c) => c.eventType === t);
  const pools = { 'http_request_complete.v0': byType('http_request_complete.v0'), 'tcp_connection_closed.v0': byType('tcp_connection_closed.v0') };
  const subs: StoredSubscription[] = [];
  let expected = 0;
  const created = '2024-05-01T00:00:00Z';
  for (let i = 0; i < opts.count; i++) {
    const eventType: TrafficEventType = r() < opts.httpShare ? 'http_request_complete.v0' : 'tcp_connection_closed.v0';
    let filter: string;
    if (range !== undefined) {
      const pool = pools[eventType];
      if (pool.length === 0) throw new Error(`no ${opts.kind} filter candidates for ${eventType}`);
      const c = pool[Math.floor(r() * pool.length)] as FilterCandidate;
      filter = c.text;
      expected += c.share;
    } else if (eventType === 'http_request_complete.v0') {
      const rank = (i % u.httpHosts.length) + 1;
      filter = `ev.conn.server_name == ${JSON.stringify(u.httpHosts[rank - 1]?.name)}`;
      expected += opts.httpShare * u.hostZipf.probability(rank);
    } else {
      const rank = (i % u.tcpAddresses.length) + 1;
      const a = u.tcpAddresses[rank - 1] as { name: string; port: number };
      filter = `ev.conn.server_name == ${JSON.stringify(a.name)} && ev.conn.server_port == ${a.port}`;
      expected += (1 - opts.httpShare) * u.tcpZipf.probability(rank);
    }
    subs.push({
      id: subscriptionId(i),
      created_at: created,
      description: `benchmark subscription ${i}`,
      metadata: '',
      sources: [{ type: eventType, fields: fieldsFor(r, eventType, customShare), filter }],
      destination_ids: [opts.destinationIds[i % opts.destinationIds.length] as string],
    });
  }
  return {
    subscriptions: subs,
    expectedMatchesPerRecord: expected,
    distinctFilters: new Set(subs.map((s) => s.sources[0]?.filter)).size,
    distinctFieldSets: new Set(subs.map((s) => `${s.sources[0]?.type}:${[...(s.sources[0]?.fields ?? [])].sort().join(',')}`)).size,
  };
}
