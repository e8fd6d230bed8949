// Child-process side of the matcher benchmark: N realistic subscriptions, timed per record.
import { TrafficOwners } from '../../src/accounts/traffic-owners.js';
import { compile } from '../../src/cel/compile.js';
import { SubscriptionMatcher } from '../../src/cel/matcher.js';
import type { CompiledFilter } from '../../src/cel/types.js';
import { DEFAULT_MEASURE, measure, type MeasureOptions } from '../lib/measure.js';
import { matcherWorkload } from './records.js';

export interface MatcherArgs {
  readonly subscriptions: number;
  /** 'one-percent': each filter matches about 1% of records; 'tenant': each follows one TCP address of its own. */
  readonly kind: 'one-percent' | 'tenant';
  /**
   * Each subscription belongs to the account that reserved its host ('tenant' only), so the matcher
   * looks in that account's index alone; otherwise every subscription is the operator's (no owner).
   */
  readonly owned?: boolean;
  readonly records: number;
  readonly measure?: MeasureOptions;
}

export interface MatcherResult {
  /** matchRuns(), the router's call: the matching subscriptions as runs the index holds, not copied. */
  readonly nsPerRecord: number;
  /** match(): the same subscriptions copied into one new array per record. */
  readonly nsFlatPerRecord: number;
  /**
   * The floor of producing the output alone: ns per record to copy that record's matching ids,
   * computed beforehand, into a fresh array (what any matcher returning a new array must do).
   */
  readonly copyFloorNs: number;
  readonly matchesPerRecord: number;
  readonly alwaysEvaluated: number;
  readonly buildMs: number;
  /** Mean time of one incremental update (set() of an existing subscription with a new filter). */
  readonly updateUs: number;
}

/** Exported for isolate.ts: runs in its own process. */
export function measureMatcher(args: MatcherArgs): MatcherResult {
  // As in the service (src/subscriptions/subscription-set.ts): the matcher finds each record's owner
  // among the reserved domains, and counts the records of nobody, whether or not subscriptions are owned.
  const owners = new TrafficOwners();
  const matcher = new SubscriptionMatcher('http_request_complete.v0', owners.reader('http_request_complete.v0'));
  const cache = new Map<string, CompiledFilter>();
  const compileOnce = (text: string): CompiledFilter => {
    let filter = cache.get(text);
    if (filter === undefined) {
      const result = compile(text, 'http_request_complete.v0');
      if (!result.ok) throw new Error(`${text}: ${result.problems.map((p) => p.message).join('; ')}`);
      cache.set(text, (filter = result.filter));
    }
    return filter;
  };
  const workload = matcherWorkload(args.kind, args.subscriptions, args.records);
  const id = (i: number): string => `esb_${String(i).padStart(6, '0')}`;
  const filters = workload.filters.map(compileOnce);
  const ownerOf = (i: number): string | undefined => (args.owned === true ? `acct_${workload.hosts[i]}` : undefined);
  if (args.owned === true) workload.hosts.forEach((host, i) => owners.putDomain({ id: `rd_${i}`, domain: host, account_id: ownerOf(i) }));
  const started = performance.now();
  matcher.replaceAll(filters.map((f, i) => [id(i), f, id(i), ownerOf(i)] as const));
  const buildMs = performance.now() - started;
  // Incremental updates: give existing subscriptions another subscription's filter, one at a time.
  const updates = Math.min(200, args.subscriptions);
  const updateStart = performance.now();
  for (let k = 0; k < updates; k++) {
    // An owned subscription takes the owner of the filter's hostname with it, so every filter can match.
    const i = (k * 7919) % args.subscriptions;
    const j = (k * 104729) % filters.length;
    matcher.set(id(i), filters[j], id(i), ownerOf(j));
  }
  const updateUs = ((performance.now() - updateStart) * 1000) / updates;
  const snapshot = matcher.snapshot();
  const records = workload.records;
  let matches = 0;
  for (const r of records) matches += snapshot.match(r).length;
  const runsOf = (r: unknown): number => {
    const runs = snapshot.matchRuns(r);
    let n = 0;
    for (let i = 0; i < runs.length; i++) n += (runs[i] as readonly string[]).length;
    return n;
  };
  const m = measure(runsOf, records, args.measure ?? DEFAULT_MEASURE);
  const flat = measure((r) => snapshot.match(r).length, records, args.measure ?? DEFAULT_MEASURE);
  // Measured after the matcher, so its loop's feedback cannot shape the matcher's code.
  const answers = records.map((r) => [...snapshot.match(r)]);
  const floor = measure((ids: readonly string[]) => ids.slice().length, answers, args.measure ?? DEFAULT_MEASURE);
  return {
    nsPerRecord: m.nsPerOp,
    nsFlatPerRecord: flat.nsPerOp,
    copyFloorNs: floor.nsPerOp,
    matchesPerRecord: matches / records.length,
    alwaysEvaluated: snapshot.stats().alwaysEvaluated,
    buildMs,
    updateUs,
  };
}
