// An immutable index over a set of compiled filters: the hot path that turns a record into the ids of the subscriptions it matches.
import { parseIP } from '../net/ip.js';
import {
  EMPTY_PARTS,
  buildParts,
  replacedEntry,
  type Bucket,
  type Entry,
  type FieldIndex,
  type IndexParts,
  type RangeIndex,
  type SharedTest,
} from './matcher-index.js';

export interface MatcherStats {
  readonly subscriptions: number;
  /** Filters evaluated for every record: no filter, or no indexable conjunct. */
  readonly alwaysEvaluated: number;
  readonly hashed: number;
  readonly ranged: number;
}

const NO_MATCHES: readonly string[] = Object.freeze([]);

/** Up to this many ids from several runs are copied one by one (concat costs about 110 ns to enter, a copied id about 2). */
const SMALL = 48;

/**
 * Gathers the ids of one match() call as a list of runs (arrays the index already holds), and copies
 * them once, into an array of the final size, at the end: no array grows on the way. The index's
 * arrays are never handed out, so no caller can change the index through a result.
 */
class Collector {
  private readonly runs: (readonly string[] | null)[] = [];
  private count = 0;
  private total = 0;

  add(ids: readonly string[]): void {
    if (ids.length === 0) return;
    this.runs[this.count++] = ids;
    this.total += ids.length;
  }

  /** The ids gathered, and a clean collector for the next call. */
  take(): readonly string[] {
    const n = this.count;
    if (n === 0) return NO_MATCHES;
    const r = this.runs;
    const a = r[0] as readonly string[];
    let out: string[];
    if (n === 1) {
      out = a.slice();
    } else if (this.total > SMALL) {
      // concat copies in bulk but enters the runtime, which a few ids do not repay.
      out = n === 2 ? a.concat(r[1] as readonly string[]) : a.concat(...(r.slice(1, n) as (readonly string[])[]));
    } else {
      out = new Array<string>(this.total);
      let k = 0;
      for (let i = 0; i < n; i++) {
        const run = r[i] as readonly string[];
        for (let j = 0; j < run.length; j++) out[k++] = run[j] as string;
      }
    }
    for (let i = 0; i < n; i++) r[i] = null;
    this.count = 0;
    this.total = 0;
    return out;
  }
}

/**
 * A snapshot never changes after construction, so a batch of records can be matched against one
 * consistent set of subscriptions while the matcher that produced it takes updates.
 */
export class MatcherSnapshot {
  // Scratch space, safe to share because match() never yields and filters cannot call it.
  private readonly hits: Bucket[] = [];
  private readonly collector = new Collector();

  private constructor(private readonly parts: IndexParts) {}

  static empty(): MatcherSnapshot {
    return new MatcherSnapshot(EMPTY_PARTS);
  }

  /** A snapshot of a whole set, built in one pass. */
  static of(entries: Iterable<Entry>): MatcherSnapshot {
    return new MatcherSnapshot(buildParts(entries));
  }

  /**
   * A new snapshot with `previous` (the entry this snapshot holds for a subscription, if any)
   * replaced by `next` (none to remove it). Only the touched buckets, maps and trie path are copied.
   */
  replaced(previous: Entry | undefined, next: Entry | undefined): MatcherSnapshot {
    return new MatcherSnapshot(replacedEntry(this.parts, previous, next));
  }

  get size(): number {
    return this.parts.size;
  }

  stats(): MatcherStats {
    const { always, hashed, ranged, size } = this.parts;
    return {
      subscriptions: size,
      alwaysEvaluated: always.entries.length,
      hashed: hashed.reduce((n, h) => n + h.all.length, 0),
      ranged: ranged.reduce((n, r) => n + r.all.length, 0),
    };
  }

  /**
   * The ids of the subscriptions whose filter is true for `ev` (the nested raw record), each once.
   *
   * Their order is the index's, fixed by the subscription set and the record alone (never by the
   * order of updates): unindexed subscriptions first, then the hashed fields (server_name,
   * server_ip, client_ip, server_port), then the ranges (client_ip, server_ip) from the shortest
   * prefix; within one index hit, the subscriptions matched by the key alone in id order, then
   * those sharing a further test, group by group.
   */
  match(ev: unknown): readonly string[] {
    const acc = this.collector;
    const { always, hashed, ranged } = this.parts;
    if (always.entries.length > 0) takeBucket(acc, always, ev);
    const conn = typeof ev === 'object' && ev !== null ? (ev as { conn?: unknown }).conn : undefined;
    const c = typeof conn === 'object' && conn !== null ? (conn as ConnFields) : NO_FIELDS;
    for (let h = 0; h < hashed.length; h++) {
      const index = hashed[h] as FieldIndex;
      const field = index.field;
      const value = field === 'server_name' ? c.server_name : field === 'server_port' ? c.server_port : field === 'client_ip' ? c.client_ip : c.server_ip;
      // A value of the declared type (a string; for the port a safe-integer number, which the
      // compiled filter reads as an int) is looked up. Anything else (absent, mistyped, a bigint)
      // proves nothing, so every filter indexed on the field is evaluated and the filter decides.
      const typed = field === 'server_port' ? Number.isSafeInteger(value) : typeof value === 'string';
      if (typed) {
        const bucket = index.buckets.get(value as string | number);
        if (bucket !== undefined) takeBucket(acc, bucket, ev);
      } else {
        takeEach(acc, index.all, ev);
      }
    }
    for (let r = 0; r < ranged.length; r++) {
      const index = ranged[r] as RangeIndex;
      const value = index.field === 'client_ip' ? c.client_ip : c.server_ip;
      if (typeof value !== 'string') {
        takeEach(acc, index.all, ev);
        continue;
      }
      // A string that is no IP makes containsIP/ip() an error in cel-go, so no ranged filter is true.
      const hits = this.hits;
      let n = index.prefixes.collectV4(value, hits);
      if (n < 0) {
        const ip = parseIP(value);
        n = ip === undefined ? 0 : index.prefixes.collect(ip, hits);
      }
      for (let l = 0; l < n; l++) takeBucket(acc, hits[l] as Bucket, ev);
    }
    return acc.take();
  }
}

interface ConnFields {
  readonly client_ip?: unknown;
  readonly server_ip?: unknown;
  readonly server_name?: unknown;
  readonly server_port?: unknown;
}

const NO_FIELDS: ConnFields = {};

/** An index hit on a well-typed value: every exact id, and each shared test evaluated once. */
function takeBucket(acc: Collector, bucket: Bucket, ev: unknown): void {
  const single = bucket.single;
  if (single !== undefined) {
    acc.add(single(ev) ? bucket.exactAndSingle : bucket.exact);
    return;
  }
  acc.add(bucket.exact);
  const shared = bucket.shared;
  for (let i = 0; i < shared.length; i++) {
    const s = shared[i] as SharedTest;
    if (s.test(ev)) acc.add(s.ids);
  }
}

/** Every filter of `list` evaluated on its own (the record's value proved nothing), in id order. */
function takeEach(acc: Collector, list: readonly Entry[], ev: unknown): void {
  for (let i = 0; i < list.length; i++) {
    const entry = list[i] as Entry;
    if (entry.filter === undefined || entry.filter.evaluate(ev)) acc.add(entry.self);
  }
}
