// The persistent parts of the matcher's index: each update returns new parts that share everything it did not touch.
import { PrefixMap, prefixText } from '../net/cidr-trie.js';
import type { CIDR } from '../net/ip.js';
import { indexedField } from './indexed-fields.js';
import { analyseFilter, type IndexPlan } from './matcher-analysis.js';
import { SuffixTable } from './suffix-table.js';
import type { CompiledFilter } from './types.js';

export interface Entry<T> {
  readonly id: string;
  /** What a match of this subscription yields (the id itself, or the caller's route object). */
  readonly value: T;
  /** The owner whose records alone it may match (see MatcherSnapshot); undefined: it may match every record. */
  readonly owner: string | undefined;
  /**
   * Position of `id` in ascending id order, as a number so that sorting entries is cheap: ranks are
   * spaced apart so an insertion usually fits between its neighbours (see matcher.ts).
   */
  readonly rank: number;
  /** Undefined for a subscription without a filter, which matches every record. */
  readonly filter: CompiledFilter | undefined;
  /** The indexed conjunct; undefined when the filter is evaluated for every record. */
  readonly plan: IndexPlan | undefined;
  /** What is left to evaluate after an index hit (see FilterAnalysis.rest): equal for equal work. */
  readonly rest: string;
  /**
   * What a record must still pass after an index hit (see Remainders); undefined when the hit is
   * already a match (the filter is its indexed conjunct alone, or there is no filter).
   */
  readonly remainder: ((ev: unknown) => boolean) | undefined;
  /** `[value]`, made once, so a match of this entry alone adds a run without allocating. */
  readonly self: readonly T[];
}

/** Subscriptions whose remaining conditions are the same expression: one evaluation answers for all. */
export interface SharedTest<T> {
  /** The remaining conditions of the first of them (all are true or false together on the records that reach them). */
  readonly test: (ev: unknown) => boolean;
  /** Their values, in id order. */
  readonly values: readonly T[];
}

/**
 * The subscriptions behind one index key (or every unindexed one), prepared for the hot path: the
 * values a hit matches outright, as one array, and the shared tests. Not frozen: V8 copies
 * and reads frozen arrays several times more slowly.
 *
 * Owned subscriptions share the buckets of the unowned ones, each owner's under the same key in a
 * bucket of its own (`owned`), so a record's owner costs one small lookup in the buckets it hits, never
 * an index per owner (bench/results/accounts-overhead.md).
 */
export interface Bucket<T> {
  /** Every entry without an owner, in rank order (for updates). */
  readonly entries: readonly Entry<T>[];
  /** The values of the exact entries, in id order. */
  readonly exact: readonly T[];
  /**
   * The shared test when there is exactly one (the common case), read straight off the bucket;
   * `exactAndSingle` is then the exact values followed by its values, so that a record passing it
   * adds one run, not two.
   */
  readonly single: ((ev: unknown) => boolean) | undefined;
  readonly exactAndSingle: readonly T[];
  /** The shared tests when there are two or more, ordered by their first id; else empty. */
  readonly shared: readonly SharedTest<T>[];
  /** Each owner's entries under this key, as a bucket whose own `owned` is empty. */
  readonly owned: ReadonlyMap<string, Bucket<T>>;
  /** The owner when `owned` has exactly one (the common case), and its bucket, read with no map lookup. */
  readonly soleOwner: string | undefined;
  readonly soleOwned: Bucket<T> | undefined;
}

/** How the hot path reads an indexed field off a record (indexed-fields.ts). */
interface FieldReading {
  /** The field's dotted name. */
  readonly field: string;
  readonly read: (ev: unknown) => unknown;
  /** An integer field: a well-typed value is a safe integer; else a string. */
  readonly int: boolean;
}

/** One indexed field: its buckets, and every entry indexed on it (owned ones too) for records whose value is not well typed. */
export interface FieldIndex<T> extends FieldReading {
  readonly buckets: ReadonlyMap<string | number, Bucket<T>>;
  readonly all: readonly Entry<T>[];
}

export interface RangeIndex<T> extends FieldReading {
  /** One bucket per prefix. */
  readonly prefixes: PrefixMap<Bucket<T>>;
  readonly all: readonly Entry<T>[];
}

/** One string field's `endsWith` tests: a bucket per suffix, and the table that finds a value's suffixes. */
export interface SuffixIndex<T> extends FieldReading {
  readonly buckets: ReadonlyMap<string, Bucket<T>>;
  readonly suffixes: SuffixTable<Bucket<T>>;
  readonly all: readonly Entry<T>[];
}

/** Indexes appear in a fixed order of fields, so the order of match results never depends on history. */
export interface IndexParts<T> {
  /** Subscriptions without an indexable conjunct. */
  readonly always: Bucket<T>;
  readonly hashed: readonly FieldIndex<T>[];
  readonly suffixed: readonly SuffixIndex<T>[];
  readonly ranged: readonly RangeIndex<T>[];
  readonly size: number;
}

/** The reading of an indexed field; the analysis plans only fields the catalogue marks filterable. */
function reading(field: string): FieldReading {
  const spec = indexedField(field);
  if (spec === undefined) throw new Error(`${field} is not an indexed field`);
  return { field, read: spec.read, int: spec.int };
}

const orderOf = (field: string): number => indexedField(field)?.order ?? Number.MAX_SAFE_INTEGER;
const byField = (a: { field: string }, b: { field: string }): number => orderOf(a.field) - orderOf(b.field);

const NO_VALUES: readonly never[] = [];
const NO_TESTS: readonly SharedTest<never>[] = [];
const NO_OWNED: ReadonlyMap<string, Bucket<never>> = new Map<string, Bucket<never>>();
export const EMPTY_BUCKET: Bucket<never> = { entries: [], exact: NO_VALUES, single: undefined, exactAndSingle: NO_VALUES, shared: NO_TESTS, owned: NO_OWNED, soleOwner: undefined, soleOwned: undefined };
export const EMPTY_PARTS: IndexParts<never> = { always: EMPTY_BUCKET, hashed: [], suffixed: [], ranged: [], size: 0 };

export function entryOf<T>(id: string, value: T, owner: string | undefined, rank: number, filter: CompiledFilter | undefined, remainders: Remainders): Entry<T> {
  if (filter === undefined) return { id, value, owner, rank, filter, plan: undefined, rest: '', remainder: undefined, self: [value] };
  const { plan, exact, rest, conjunct } = analyseFilter(filter.expr);
  const remainder = exact ? undefined : remainders.of(rest, filter, conjunct);
  return { id, value, owner, rank, filter, plan, rest, remainder, self: [value] };
}

/**
 * The tests of remaining conditions, one per distinct `rest` key: every subscription with the same
 * remaining conditions shares one closure, whichever index hit leads to it, which keeps the hot
 * path's calls monomorphic. Owned by one matcher (one event type).
 */
export class Remainders {
  private readonly byRest = new Map<string, (ev: unknown) => boolean>();

  get size(): number {
    return this.byRest.size;
  }

  /**
   * What a record that reached `filter` through its index must still pass: the filter without the
   * conjunct the index proved, when the filter can say so; else the whole filter.
   */
  of(rest: string, filter: CompiledFilter, conjunct: number): (ev: unknown) => boolean {
    // A filter that cannot leave out its indexed conjunct is evaluated whole: that test is its own.
    if (conjunct >= 0 && filter.assuming === undefined) return (ev) => filter.evaluate(ev);
    let test = this.byRest.get(rest);
    if (test === undefined) {
      test = conjunct >= 0 ? (filter.assuming?.(conjunct) as (ev: unknown) => boolean) : (ev: unknown) => filter.evaluate(ev);
      this.byRest.set(rest, test);
    }
    return test;
  }
}

export const compareEntries = <T>(a: Entry<T>, b: Entry<T>): number => a.rank - b.rank;

/** The bucket of entries given in rank order, each owner's put in a bucket of its own. */
export function bucketOf<T>(entries: readonly Entry<T>[]): Bucket<T> {
  const unowned: Entry<T>[] = [];
  const byOwner = new Map<string, Entry<T>[]>();
  for (const e of entries) {
    if (e.owner === undefined) {
      unowned.push(e);
      continue;
    }
    const list = byOwner.get(e.owner);
    if (list === undefined) byOwner.set(e.owner, [e]);
    else list.push(e);
  }
  if (byOwner.size === 0) return plainBucket(unowned);
  return withOwned(plainBucket(unowned), new Map([...byOwner].map(([owner, list]) => [owner, plainBucket(list)] as const)));
}

/** `bucket`'s own part (its entries without an owner) with `owned` as its owners' buckets. */
function withOwned<T>(bucket: Bucket<T>, owned: ReadonlyMap<string, Bucket<T>>): Bucket<T> {
  if (owned.size === 0 && bucket.entries.length === 0) return EMPTY_BUCKET;
  const { entries, exact, single, exactAndSingle, shared } = bucket;
  const sole = owned.size === 1 ? [...owned][0] : undefined;
  return { entries, exact, single, exactAndSingle, shared, owned: owned.size === 0 ? NO_OWNED : owned, soleOwner: sole?.[0], soleOwned: sole?.[1] };
}

export const isEmptyBucket = <T>(bucket: Bucket<T>): boolean => bucket.entries.length === 0 && bucket.owned.size === 0;

/** The bucket with `e` added or removed: its owner's bucket alone is rebuilt (or the unowned part). */
function bucketChanged<T>(bucket: Bucket<T>, e: Entry<T>, add: boolean): Bucket<T> {
  if (e.owner === undefined) return withOwned(plainBucket(change(bucket.entries, e, add)), bucket.owned);
  const owned = new Map(bucket.owned);
  const own = change(owned.get(e.owner)?.entries ?? [], e, add);
  if (own.length === 0) owned.delete(e.owner);
  else owned.set(e.owner, plainBucket(own));
  return withOwned(bucket, owned);
}

/** The bucket of entries given in rank order, all of one owner or of none. */
function plainBucket<T>(entries: readonly Entry<T>[]): Bucket<T> {
  if (entries.length === 0) return EMPTY_BUCKET;
  const exact: T[] = [];
  const shared = new Map<string, { test: (ev: unknown) => boolean; values: T[] }>();
  for (const e of entries) {
    if (e.remainder === undefined) {
      exact.push(e.value);
      continue;
    }
    const group = shared.get(e.rest);
    if (group === undefined) shared.set(e.rest, { test: e.remainder, values: [e.value] });
    else group.values.push(e.value);
  }
  const tests = [...shared.values()];
  const single = tests.length === 1 ? (tests[0] as SharedTest<T>) : undefined;
  return {
    entries,
    exact: exact.length === 0 ? NO_VALUES : exact,
    single: single?.test,
    exactAndSingle: single === undefined ? NO_VALUES : exact.concat(single.values),
    shared: tests.length > 1 ? tests : NO_TESTS,
    owned: NO_OWNED,
    soleOwner: undefined,
    soleOwned: undefined,
  };
}

function inserted<T>(list: readonly Entry<T>[], e: Entry<T>): Entry<T>[] {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareEntries(list[mid] as Entry<T>, e) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return [...list.slice(0, lo), e, ...list.slice(lo)];
}

function removed<T>(list: readonly Entry<T>[], e: Entry<T>): Entry<T>[] {
  const at = list.indexOf(e);
  return at < 0 ? [...list] : [...list.slice(0, at), ...list.slice(at + 1)];
}

const change = <T>(list: readonly Entry<T>[], e: Entry<T>, add: boolean): Entry<T>[] => (add ? inserted(list, e) : removed(list, e));

/**
 * The parts with `previous` (the very entry object these parts hold for a subscription, if any)
 * replaced by `next` (if any). Each touched map is copied once, and each touched bucket rebuilt.
 */
export function replacedEntry<T>(parts: IndexParts<T>, previous: Entry<T> | undefined, next: Entry<T> | undefined): IndexParts<T> {
  const edits: { readonly e: Entry<T>; readonly add: boolean }[] = [];
  if (previous !== undefined) edits.push({ e: previous, add: false });
  if (next !== undefined) edits.push({ e: next, add: true });
  let always = parts.always;
  const hashed = new Map<string, { buckets: Map<string | number, Bucket<T>>; all: readonly Entry<T>[] }>();
  const suffixed = new Map<string, { buckets: Map<string, Bucket<T>>; all: readonly Entry<T>[] }>();
  const ranged = new Map<string, { prefixes: PrefixMap<Bucket<T>>; changed: Map<string, { cidr: CIDR; bucket: Bucket<T> }>; all: readonly Entry<T>[] }>();
  for (const { e, add } of edits) {
    const plan = e.plan;
    if (plan === undefined) {
      always = bucketChanged(always, e, add);
    } else if (plan.kind === 'suffix') {
      let x = suffixed.get(plan.field);
      if (x === undefined) {
        const old = parts.suffixed.find((y) => y.field === plan.field);
        suffixed.set(plan.field, (x = { buckets: new Map(old?.buckets), all: old?.all ?? [] }));
      }
      const bucket = bucketChanged(x.buckets.get(plan.suffix) ?? EMPTY_BUCKET, e, add);
      if (isEmptyBucket(bucket)) x.buckets.delete(plan.suffix);
      else x.buckets.set(plan.suffix, bucket);
      x.all = change(x.all, e, add);
    } else if (plan.kind === 'hash') {
      let h = hashed.get(plan.field);
      if (h === undefined) {
        const old = parts.hashed.find((x) => x.field === plan.field);
        hashed.set(plan.field, (h = { buckets: new Map(old?.buckets), all: old?.all ?? [] }));
      }
      for (const key of plan.keys) {
        const bucket = bucketChanged(h.buckets.get(key) ?? EMPTY_BUCKET, e, add);
        if (isEmptyBucket(bucket)) h.buckets.delete(key);
        else h.buckets.set(key, bucket);
      }
      h.all = change(h.all, e, add);
    } else {
      let r = ranged.get(plan.field);
      if (r === undefined) {
        const old = parts.ranged.find((x) => x.field === plan.field);
        ranged.set(plan.field, (r = { prefixes: old?.prefixes ?? PrefixMap.empty<Bucket<T>>(), changed: new Map(), all: old?.all ?? [] }));
      }
      const key = prefixText(plan.cidr);
      const bucket = r.changed.get(key)?.bucket ?? r.prefixes.get(plan.cidr) ?? EMPTY_BUCKET;
      r.changed.set(key, { cidr: plan.cidr, bucket: bucketChanged(bucket, e, add) });
      r.all = change(r.all, e, add);
    }
  }
  const hashedNext: FieldIndex<T>[] = parts.hashed.filter((x) => !hashed.has(x.field));
  for (const [field, { buckets, all }] of hashed) if (all.length > 0) hashedNext.push({ ...reading(field), buckets, all });
  const suffixedNext: SuffixIndex<T>[] = parts.suffixed.filter((x) => !suffixed.has(x.field));
  for (const [field, { buckets, all }] of suffixed) if (all.length > 0) suffixedNext.push(suffixIndex(field, buckets, all));
  const rangedNext: RangeIndex<T>[] = parts.ranged.filter((x) => !ranged.has(x.field));
  for (const [field, { prefixes, changed, all }] of ranged) {
    if (all.length === 0) continue;
    const updates = [...changed.values()].map(({ cidr, bucket }) => [cidr, isEmptyBucket(bucket) ? undefined : bucket] as const);
    rangedNext.push({ ...reading(field), prefixes: prefixes.setAll(updates), all });
  }
  const size = parts.size - (previous === undefined ? 0 : 1) + (next === undefined ? 0 : 1);
  return { always, hashed: hashedNext.sort(byField), suffixed: suffixedNext.sort(byField), ranged: rangedNext.sort(byField), size };
}

function suffixIndex<T>(field: string, buckets: ReadonlyMap<string, Bucket<T>>, all: readonly Entry<T>[]): SuffixIndex<T> {
  return { ...reading(field), buckets, suffixes: SuffixTable.of(buckets), all };
}

/** Builds the parts for a whole set at once: one pass in rank order, each bucket built once. */
export function buildParts<T>(entries: Iterable<Entry<T>>): IndexParts<T> {
  const sorted = [...entries].sort(compareEntries);
  const always: Entry<T>[] = [];
  const hashed = new Map<string, { buckets: Map<string | number, Entry<T>[]>; all: Entry<T>[] }>();
  const suffixed = new Map<string, { buckets: Map<string, Entry<T>[]>; all: Entry<T>[] }>();
  const ranged = new Map<string, { prefixes: Map<string, { cidr: CIDR; entries: Entry<T>[] }>; all: Entry<T>[] }>();
  for (const e of sorted) {
    const plan = e.plan;
    if (plan === undefined) {
      always.push(e);
    } else if (plan.kind === 'suffix') {
      let x = suffixed.get(plan.field);
      if (x === undefined) suffixed.set(plan.field, (x = { buckets: new Map(), all: [] }));
      x.all.push(e);
      const bucket = x.buckets.get(plan.suffix);
      if (bucket === undefined) x.buckets.set(plan.suffix, [e]);
      else bucket.push(e);
    } else if (plan.kind === 'hash') {
      let h = hashed.get(plan.field);
      if (h === undefined) hashed.set(plan.field, (h = { buckets: new Map(), all: [] }));
      h.all.push(e);
      for (const key of plan.keys) {
        const bucket = h.buckets.get(key);
        if (bucket === undefined) h.buckets.set(key, [e]);
        else bucket.push(e);
      }
    } else {
      let r = ranged.get(plan.field);
      if (r === undefined) ranged.set(plan.field, (r = { prefixes: new Map(), all: [] }));
      r.all.push(e);
      const key = prefixText(plan.cidr);
      const at = r.prefixes.get(key);
      if (at === undefined) r.prefixes.set(key, { cidr: plan.cidr, entries: [e] });
      else at.entries.push(e);
    }
  }
  return {
    always: bucketOf(always),
    hashed: [...hashed]
      .map(([field, h]): FieldIndex<T> => ({ ...reading(field), buckets: new Map([...h.buckets].map(([k, list]) => [k, bucketOf(list)])), all: h.all }))
      .sort(byField),
    suffixed: [...suffixed].map(([field, x]) => suffixIndex(field, new Map([...x.buckets].map(([k, list]) => [k, bucketOf(list)])), x.all)).sort(byField),
    ranged: [...ranged]
      .map(([field, r]): RangeIndex<T> => {
        const prefixes = PrefixMap.of([...r.prefixes.values()].map(({ cidr, entries: list }) => [cidr, bucketOf(list)] as const));
        return { ...reading(field), prefixes, all: r.all };
      })
      .sort(byField),
    size: sorted.length,
  };
}
