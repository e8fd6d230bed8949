// An immutable index over a set of compiled filters: the hot path that turns a record into the ids of the subscriptions it matches.
import { parseIP } from '../net/ip.js';
import {
  EMPTY_PARTS,
  buildParts,
  withEntry,
  withoutEntry,
  type Entry,
  type FieldIndex,
  type IndexParts,
  type RangeIndex,
} from './matcher-index.js';

export interface MatcherStats {
  readonly subscriptions: number;
  /** Filters evaluated for every record: no filter, or no indexable conjunct. */
  readonly alwaysEvaluated: number;
  readonly hashed: number;
  readonly ranged: number;
}

/**
 * A snapshot never changes after construction, so a batch of records can be matched against one
 * consistent set of subscriptions while the matcher that produced it takes updates.
 */
export class MatcherSnapshot {
  // Scratch space for the trie's node lists; safe to share because match() never yields.
  private readonly nodeLists: (readonly Entry[])[] = [];
  private readonly runStarts: number[] = [];

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
   * replaced by `next` (none to remove it). Only the touched lists, maps and trie path are copied.
   */
  replaced(previous: Entry | undefined, next: Entry | undefined): MatcherSnapshot {
    let parts = this.parts;
    if (previous !== undefined) parts = withoutEntry(parts, previous);
    if (next !== undefined) parts = withEntry(parts, next);
    return new MatcherSnapshot(parts);
  }

  get size(): number {
    return this.parts.size;
  }

  stats(): MatcherStats {
    const { always, hashed, ranged, size } = this.parts;
    return {
      subscriptions: size,
      alwaysEvaluated: always.length,
      hashed: hashed.reduce((n, h) => n + h.all.length, 0),
      ranged: ranged.reduce((n, r) => n + r.all.length, 0),
    };
  }

  /** The ids of the subscriptions whose filter is true for `ev` (the nested raw record), in ascending id order. */
  match(ev: unknown): readonly string[] {
    let out: Entry[] | null = null;
    let sources = 0;
    let before = 0;
    const starts = this.runStarts;
    const { always, hashed, ranged } = this.parts;
    if (always.length > 0) {
      out = scan(always, false, ev, out);
      if (out !== null) starts[sources++] = 0;
    }
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
      const list = typed ? index.buckets.get(value as string | number) : index.all;
      if (list === undefined) continue;
      before = out === null ? 0 : out.length;
      out = scan(list, typed, ev, out);
      if (out !== null && out.length > before) starts[sources++] = before;
    }
    for (let r = 0; r < ranged.length; r++) {
      const index = ranged[r] as RangeIndex;
      const value = index.field === 'client_ip' ? c.client_ip : c.server_ip;
      let lists = 0;
      if (typeof value !== 'string') {
        this.nodeLists[0] = index.all;
        lists = 1;
      } else {
        // A string that is no IP makes containsIP/ip() an error in cel-go, so no ranged filter is true.
        lists = index.trie.collectV4(value, this.nodeLists);
        if (lists < 0) {
          const ip = parseIP(value);
          lists = ip === undefined ? 0 : index.trie.collect(ip, this.nodeLists);
        }
      }
      for (let l = 0; l < lists; l++) {
        before = out === null ? 0 : out.length;
        out = scan(this.nodeLists[l] as readonly Entry[], typeof value === 'string', ev, out);
        if (out !== null && out.length > before) starts[sources++] = before;
      }
    }
    if (out === null) return NO_MATCHES;
    // Each list is in rank (= id) order, so `out` is a series of sorted runs to merge.
    if (sources > 1) out = mergeRuns(out, starts, sources);
    const ids = new Array<string>(out.length);
    for (let i = 0; i < out.length; i++) ids[i] = (out[i] as Entry).id;
    return ids;
  }
}

interface ConnFields {
  readonly client_ip?: unknown;
  readonly server_ip?: unknown;
  readonly server_name?: unknown;
  readonly server_port?: unknown;
}

const NO_FIELDS: ConnFields = {};
const NO_MATCHES: readonly string[] = Object.freeze([]);

/**
 * Appends the entries of `list` that match `ev` to `out` (allocated on the first match). `trusted`
 * says the list came from an index hit on a well-typed value, so an exact entry needs no evaluation.
 */
function scan(list: readonly Entry[], trusted: boolean, ev: unknown, out: Entry[] | null): Entry[] | null {
  for (let i = 0; i < list.length; i++) {
    const entry = list[i] as Entry;
    if (entry.filter === undefined || (trusted && entry.exact) || entry.filter.evaluate(ev)) (out ??= []).push(entry);
  }
  return out;
}

/** Merges the sorted runs of `a` (run r starts at starts[r]) by rank, pairwise, bottom-up. */
function mergeRuns(a: Entry[], starts: readonly number[], runs: number): Entry[] {
  let src = a;
  let dst = new Array<Entry>(a.length);
  for (let width = 1; width < runs; width *= 2) {
    for (let r = 0; r < runs; r += 2 * width) {
      const lo = starts[r] as number;
      const mid = r + width < runs ? (starts[r + width] as number) : a.length;
      const hi = r + 2 * width < runs ? (starts[r + 2 * width] as number) : a.length;
      let i = lo;
      let j = mid;
      let k = lo;
      while (i < mid && j < hi) dst[k++] = ((src[i] as Entry).rank <= (src[j] as Entry).rank ? src[i++] : src[j++]) as Entry;
      while (i < mid) dst[k++] = src[i++] as Entry;
      while (j < hi) dst[k++] = src[j++] as Entry;
    }
    [src, dst] = [dst, src];
  }
  return src;
}
