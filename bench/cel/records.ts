// Records and subscription filters for the CEL and matcher benchmarks, all from the traffic generator
// (src/traffic) with fixed seeds, so every run measures the same inputs.
import { TrafficGenerator, buildUniverse, type TrafficUniverse } from '../../src/traffic/generator.js';
import { buildSubscriptions } from '../workload/subscriptions.js';

/** The fields the benchmarked filters read; a record holds the rest of its event type's fields too. */
export interface RawRecord {
  conn: {
    client_ip: string;
    server_ip: string;
    server_name: string;
    server_port: number;
  };
}

/**
 * Generated records as a decoder hands them over: through JSON, so strings are flat and objects have the
 * shapes JSON.parse gives. (Strings built by concatenation are ropes, which are slower to read and
 * would misrepresent the pipeline.)
 */
export function celRecords(count: number, seed = 1, httpShare = 0.8, universe?: TrafficUniverse): RawRecord[] {
  const generator = new TrafficGenerator({ seed, httpShare }, universe);
  return Array.from({ length: count }, () => JSON.parse(JSON.stringify(generator.next().record)) as RawRecord);
}

/**
 * http_request_complete.v0 subscriptions over the generator's universe and records drawn from it:
 * 'one-percent' filters each match about 1% of records (hostnames, hostname lists, client networks);
 * 'tenant' filters each follow a hostname of their own, in a universe with as many hostnames as
 * subscriptions (at least 100), so a record matches about one whatever their number
 * (bench/workload/subscriptions.ts).
 */
export function matcherWorkload(kind: 'one-percent' | 'tenant', subscriptions: number, records: number): { filters: string[]; hosts: string[]; records: RawRecord[] } {
  const universe = buildUniverse({ httpShare: 1, ...(kind === 'tenant' && { httpHosts: Math.max(100, subscriptions) }) });
  const workload = buildSubscriptions(universe, { count: subscriptions, destinationIds: ['ed_bench'], httpShare: 1, kind, seed: 3 });
  const filters = workload.subscriptions.map((s) => s.sources[0]?.filter ?? '');
  // The hostname each 'tenant' subscription follows (bench/workload/subscriptions.ts), for owned workloads.
  const hosts = filters.map((_, i) => universe.httpHosts[i % universe.httpHosts.length]?.name ?? '');
  return { filters, hosts, records: celRecords(records, 2, 1, universe) };
}
