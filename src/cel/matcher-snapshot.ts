// An immutable index over a set of compiled filters: the hot path that turns a record into the subscriptions it matches (their ids, or the values the caller stored with them).
//
// Ownership is the index's last level: a subscription stored with an owner may match only the records
// that owner owns, and one without may match every record. Owned and unowned subscriptions share one
// index; each bucket keeps every owner's subscriptions apart (matcher-index.ts). A record's owner is
// looked up once (OwnerOf), and in each bucket the record hits only that owner's part is read beside
// the unowned one, so the others' filters are never reached (SECURITY.md "Traffic ownership").
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
  type SuffixIndex,
} from './matcher-index.js';

export interface MatcherStats {
  readonly subscriptions: number;
  /** Owners with subscriptions of their own (matching only their records). */
  readonly owners: number;
  /** Filters evaluated for every record: no filter, or no indexable conjunct. */
  readonly alwaysEvaluated: number;
  readonly hashed: number;
  /** Indexed on a suffix of a string field (`endsWith`). */
  readonly suffixed: number;
  readonly ranged: number;
}

/** The owner of a record (its filterable fields), or undefined when it belongs to nobody. */
export type OwnerOf = (ev: unknown) => string | undefined;

const NO_MATCHES: readonly never[] = Object.freeze([]);
const NO_RUNS: readonly (readonly never[])[] = Object.freeze([]);

/** Up to this many values from several runs are copied one by one (concat costs about 110 ns to enter, a copied value about 2). */
const SMALL = 48;

/**
 * Gathers the values of one match as a list of runs: arrays the index already holds, added whole,
 * so nothing grows or is copied on the way. take() hands out the runs themselves (the hot path's
 * answer); flat() copies them into one new array.
 */
class Collector<T> {
  private readonly runs: (readonly T[] | null)[] = [];
  private count = 0;
  private total = 0;

  add(values: readonly T[]): void {
    if (values.length === 0) return;
    this.runs[this.count++] = values;
    this.total += values.length;
  }

  /** The runs gathered, in a new array, and a clean collector for the next call. */
  take(): readonly (readonly T[])[] {
    const n = this.count;
    if (n === 0) return NO_RUNS;
    const out = this.runs.slice(0, n) as (readonly T[])[];
    this.clear();
    return out;
  }

  /** The values gathered, copied into one new array of the final size, and a clean collector. */
  flat(): readonly T[] {
    const n = this.count;
    if (n === 0) return NO_MATCHES;
    const r = this.runs;
    const a = r[0] as readonly T[];
    let out: T[];
    if (n === 1) {
      out = a.slice();
    } else if (this.total > SMALL) {
      // concat copies in bulk but enters the runtime, which a few values do not repay.
      out = n === 2 ? a.concat(r[1] as readonly T[]) : a.concat(...(r.slice(1, n) as (readonly T[])[]));
    } else {
      out = new Array<T>(this.total);
      let k = 0;
      for (let i = 0; i < n; i++) {
        const run = r[i] as readonly T[];
        for (let j = 0; j < run.length; j++) out[k++] = run[j] as T;
      }
    }
    this.clear();
    return out;
  }

  private clear(): void {
    const r = this.runs;
    for (let i = 0; i < this.count; i++) r[i] = null;
    this.count = 0;
    this.total = 0;
  }
}

/**
 * A snapshot never changes after construction, so a batch of records can be matched against one
 * consistent set of subscriptions while the matcher that produced it takes updates.
 */
export class MatcherSnapshot<T> {
  // Scratch space, safe to share because match() never yields and filters cannot call it.
  private readonly hits: Bucket<T>[] = [];
  private readonly collector = new Collector<T>();

  /** `ownerOf` finds a record's owner (none given: every record belongs to nobody). */
  private constructor(
    private readonly parts: IndexParts<T>,
    private readonly ownerOf: OwnerOf | undefined,
  ) {}

  static empty<T>(ownerOf?: OwnerOf): MatcherSnapshot<T> {
    return new MatcherSnapshot<T>(EMPTY_PARTS, ownerOf);
  }

  /** A snapshot of a whole set, built in one pass. */
  static of<T>(entries: Iterable<Entry<T>>, ownerOf?: OwnerOf): MatcherSnapshot<T> {
    return new MatcherSnapshot(buildParts(entries), ownerOf);
  }

  /**
   * A new snapshot with `previous` (the entry this snapshot holds for a subscription, if any)
   * replaced by `next` (none to remove it). Only the touched buckets (the touched owner's part of
   * each), maps and trie path are copied.
   */
  replaced(previous: Entry<T> | undefined, next: Entry<T> | undefined): MatcherSnapshot<T> {
    return new MatcherSnapshot(replacedEntry(this.parts, previous, next), this.ownerOf);
  }

  get size(): number {
    return this.parts.size;
  }

  stats(): MatcherStats {
    const { always, hashed, suffixed, ranged } = this.parts;
    const unindexed = [...always.entries, ...[...always.owned.values()].flatMap((b) => b.entries)];
    const owners = new Set<string>();
    for (const list of [unindexed, ...hashed.map((h) => h.all), ...suffixed.map((x) => x.all), ...ranged.map((r) => r.all)]) {
      for (const e of list) if (e.owner !== undefined) owners.add(e.owner);
    }
    return {
      subscriptions: this.size,
      owners: owners.size,
      alwaysEvaluated: unindexed.length,
      hashed: hashed.reduce((n, h) => n + h.all.length, 0),
      suffixed: suffixed.reduce((n, x) => n + x.all.length, 0),
      ranged: ranged.reduce((n, r) => n + r.all.length, 0),
    };
  }

  /**
   * The values of the subscriptions whose filter is true for `ev` (the nested raw record), each once, in a new array.
   *
   * Their order is the index's, fixed by the subscription set and the record alone (never by the
   * order of updates): unindexed subscriptions first, then the hashed fields, then the suffixes
   * (`endsWith`) from the shortest, then the ranges from the shortest prefix, each in the order of the
   * catalogue's FILTERABLE; within one index hit, the
   * subscriptions without an owner, then those of the record's owner, each part with the subscriptions
   * matched by the key alone in id order, then those sharing a further test, group by group.
   */
  match(ev: unknown): readonly T[] {
    this.gather(ev);
    return this.collector.flat();
  }

  /**
   * The same values as match(), as runs to read in order: arrays the index holds, handed out
   * without a copy (a record at 10,000 subscriptions matches about 100, and copying them was most of
   * the matcher's cost). Only the outer array is new. The runs are the index's own: read them,
   * never change them (their type is readonly for that reason).
   */
  matchRuns(ev: unknown): readonly (readonly T[])[] {
    this.gather(ev);
    return this.collector.take();
  }

  private gather(ev: unknown): void {
    // The owner is looked up for every record, owned subscriptions or not: a record of nobody's is counted.
    const owner = this.ownerOf === undefined ? undefined : this.ownerOf(ev);
    gatherParts(this.collector, this.hits, this.parts, ev, owner);
  }
}

/** The matches of `ev`, whose owner is `owner`, added to `acc`. */
function gatherParts<T>(acc: Collector<T>, hits: Bucket<T>[], parts: IndexParts<T>, ev: unknown, owner: string | undefined): void {
  const { always, hashed, suffixed, ranged } = parts;
  if (always.entries.length > 0 || always.owned.size > 0) takeBucket(acc, always, ev, owner);
  for (let h = 0; h < hashed.length; h++) {
    const index = hashed[h] as FieldIndex<T>;
    const value = index.read(ev);
    // A value of the declared type (a string; for an integer field a safe-integer number, which the
    // compiled filter reads as an int) is looked up. Anything else (absent, mistyped, a bigint)
    // proves nothing, so every filter indexed on the field is evaluated and the filter decides.
    const typed = index.int ? Number.isSafeInteger(value) : typeof value === 'string';
    if (typed) {
      const bucket = index.buckets.get(value as string | number);
      if (bucket !== undefined) takeBucket(acc, bucket, ev, owner);
    } else {
      takeEach(acc, index.all, ev, owner);
    }
  }
  for (let x = 0; x < suffixed.length; x++) {
    const index = suffixed[x] as SuffixIndex<T>;
    const value = index.read(ev);
    if (typeof value !== 'string') {
      takeEach(acc, index.all, ev, owner);
      continue;
    }
    const n = index.suffixes.collect(value, hits);
    for (let l = 0; l < n; l++) takeBucket(acc, hits[l] as Bucket<T>, ev, owner);
  }
  for (let r = 0; r < ranged.length; r++) {
    const index = ranged[r] as RangeIndex<T>;
    const value = index.read(ev);
    if (typeof value !== 'string') {
      takeEach(acc, index.all, ev, owner);
      continue;
    }
    // A string that is no IP makes containsIP/ip() an error in cel-go, so no ranged filter is true.
    const n = index.prefixes.collectText(value, hits);
    for (let l = 0; l < n; l++) takeBucket(acc, hits[l] as Bucket<T>, ev, owner);
  }
}

/** An index hit on a well-typed value: the unowned part of the bucket, then the part of the record's owner. */
function takeBucket<T>(acc: Collector<T>, bucket: Bucket<T>, ev: unknown, owner: string | undefined): void {
  takePart(acc, bucket, ev);
  if (owner === undefined) return;
  if (owner === bucket.soleOwner) {
    takePart(acc, bucket.soleOwned as Bucket<T>, ev);
  } else if (bucket.owned.size > 1) {
    const own = bucket.owned.get(owner);
    if (own !== undefined) takePart(acc, own, ev);
  }
}

/** One part of a bucket: every exact id, and each shared test evaluated once. */
function takePart<T>(acc: Collector<T>, bucket: Bucket<T>, ev: unknown): void {
  const single = bucket.single;
  if (single !== undefined) {
    acc.add(single(ev) ? bucket.exactAndSingle : bucket.exact);
    return;
  }
  acc.add(bucket.exact);
  const shared = bucket.shared;
  for (let i = 0; i < shared.length; i++) {
    const s = shared[i] as SharedTest<T>;
    if (s.test(ev)) acc.add(s.values);
  }
}

/**
 * Every filter of `list` without an owner or of the record's owner evaluated on its own (the record's
 * value proved nothing), in id order.
 */
function takeEach<T>(acc: Collector<T>, list: readonly Entry<T>[], ev: unknown, owner: string | undefined): void {
  for (let i = 0; i < list.length; i++) {
    const entry = list[i] as Entry<T>;
    if (entry.owner !== undefined && entry.owner !== owner) continue;
    if (entry.filter === undefined || entry.filter.evaluate(ev)) acc.add(entry.self);
  }
}
