// The persistent parts of the matcher's index: each update returns new parts that share everything it did not touch.
import { CidrTrie } from '../net/cidr-trie.js';
import { analyseFilter, type IndexedField, type IndexPlan, type IPField } from './matcher-analysis.js';
import type { CompiledFilter } from './types.js';

export interface Entry {
  readonly id: string;
  /**
   * Position of `id` in ascending id order, as a number so that merging results is cheap: ranks
   * are spaced apart so an insertion usually fits between its neighbours (see matcher.ts).
   */
  readonly rank: number;
  /** Undefined for a subscription without a filter, which matches every record. */
  readonly filter: CompiledFilter | undefined;
  /** The indexed conjunct; undefined when the filter is evaluated for every record. */
  readonly plan: IndexPlan | undefined;
  /** A hit on its index key is already a match (the filter is that one conjunct). */
  readonly exact: boolean;
}

/** One indexed field: its buckets, and every entry indexed on it for records whose value is not well typed. */
export interface FieldIndex {
  readonly field: IndexedField;
  readonly buckets: ReadonlyMap<string | number, readonly Entry[]>;
  readonly all: readonly Entry[];
}

export interface RangeIndex {
  readonly field: IPField;
  readonly trie: CidrTrie<Entry>;
  readonly all: readonly Entry[];
}

/** Every list below is sorted by rank, so that match results come out in id order by merging. */
export interface IndexParts {
  readonly always: readonly Entry[];
  readonly hashed: readonly FieldIndex[];
  readonly ranged: readonly RangeIndex[];
  readonly size: number;
}

export const EMPTY_PARTS: IndexParts = { always: [], hashed: [], ranged: [], size: 0 };

export function entryOf(id: string, rank: number, filter: CompiledFilter | undefined): Entry {
  if (filter === undefined) return { id, rank, filter, plan: undefined, exact: true };
  const { plan, exact } = analyseFilter(filter.expr);
  return { id, rank, filter, plan, exact };
}

export const compareEntries = (a: Entry, b: Entry): number => a.rank - b.rank;

function inserted(list: readonly Entry[], e: Entry): Entry[] {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareEntries(list[mid] as Entry, e) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return [...list.slice(0, lo), e, ...list.slice(lo)];
}

function removed(list: readonly Entry[], e: Entry): Entry[] {
  const at = list.indexOf(e);
  return at < 0 ? [...list] : [...list.slice(0, at), ...list.slice(at + 1)];
}

function replaceWhere<X>(list: readonly X[], match: (x: X) => boolean, next: X | undefined): X[] {
  const rest = list.filter((x) => !match(x));
  return next === undefined ? rest : [...rest, next];
}

/** The parts with `e` added; `e.id` must not be present. */
export function withEntry(parts: IndexParts, e: Entry): IndexParts {
  const plan = e.plan;
  const size = parts.size + 1;
  if (plan === undefined) return { ...parts, always: inserted(parts.always, e), size };
  if (plan.kind === 'hash') {
    const old = parts.hashed.find((h) => h.field === plan.field);
    const buckets = new Map(old?.buckets);
    for (const key of plan.keys) buckets.set(key, inserted(buckets.get(key) ?? [], e));
    const next: FieldIndex = { field: plan.field, buckets, all: inserted(old?.all ?? [], e) };
    return { ...parts, hashed: replaceWhere(parts.hashed, (h) => h.field === plan.field, next), size };
  }
  const old = parts.ranged.find((r) => r.field === plan.field);
  const next: RangeIndex = {
    field: plan.field,
    trie: (old?.trie ?? CidrTrie.empty<Entry>()).with(plan.cidr, e, compareEntries),
    all: inserted(old?.all ?? [], e),
  };
  return { ...parts, ranged: replaceWhere(parts.ranged, (r) => r.field === plan.field, next), size };
}

/** The parts without `e` (the very entry object that was added). */
export function withoutEntry(parts: IndexParts, e: Entry): IndexParts {
  const plan = e.plan;
  const size = parts.size - 1;
  if (plan === undefined) return { ...parts, always: removed(parts.always, e), size };
  if (plan.kind === 'hash') {
    const old = parts.hashed.find((h) => h.field === plan.field);
    if (old === undefined) return parts;
    const buckets = new Map(old.buckets);
    for (const key of plan.keys) {
      const rest = removed(buckets.get(key) ?? [], e);
      if (rest.length > 0) buckets.set(key, rest);
      else buckets.delete(key);
    }
    const all = removed(old.all, e);
    const next = all.length > 0 ? { field: plan.field, buckets, all } : undefined;
    return { ...parts, hashed: replaceWhere(parts.hashed, (h) => h === old, next), size };
  }
  const old = parts.ranged.find((r) => r.field === plan.field);
  if (old === undefined) return parts;
  const all = removed(old.all, e);
  const next = all.length > 0 ? { field: plan.field, trie: old.trie.without(plan.cidr, e), all } : undefined;
  return { ...parts, ranged: replaceWhere(parts.ranged, (r) => r === old, next), size };
}

/** Builds the parts for a whole set at once: one pass in rank order, no copying. */
export function buildParts(entries: Iterable<Entry>): IndexParts {
  const sorted = [...entries].sort(compareEntries);
  const always: Entry[] = [];
  const hashed = new Map<IndexedField, { buckets: Map<string | number, Entry[]>; all: Entry[] }>();
  const ranged = new Map<IPField, { trie: CidrTrie<Entry>; all: Entry[] }>();
  for (const e of sorted) {
    const plan = e.plan;
    if (plan === undefined) {
      always.push(e);
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
      if (r === undefined) ranged.set(plan.field, (r = { trie: CidrTrie.empty(), all: [] }));
      r.all.push(e);
      r.trie = r.trie.with(plan.cidr, e); // in rank order already
    }
  }
  return {
    always,
    hashed: [...hashed].map(([field, h]) => ({ field, ...h })),
    ranged: [...ranged].map(([field, r]) => ({ field, ...r })),
    size: sorted.length,
  };
}
