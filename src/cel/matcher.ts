// The subscription matcher of one traffic event type: holds every subscription's compiled filter and finds those a record matches.
//
// The index is an immutable MatcherSnapshot. Each update builds the next snapshot by copy-on-write
// (only the buckets, maps and trie paths it touches are copied) and swaps it in, so a caller that
// took a snapshot for a batch keeps matching against a consistent set while updates land.
//
// A subscription may have an owner: it then matches only the records that owner owns, which the
// matcher's OwnerOf finds once per record (matcher-snapshot.ts).
import type { TrafficEventType } from '../events/catalog.js';
import { Remainders, entryOf, type Entry } from './matcher-index.js';
import { MatcherSnapshot, type MatcherStats, type OwnerOf } from './matcher-snapshot.js';
import type { CompiledFilter } from './types.js';

export class MatcherError extends Error {
  readonly code = 'FILTER_EVENT_TYPE_MISMATCH';
  readonly retryable = false;
}

/** Spacing of ranks after a rebuild; about 50 insertions can then land between two neighbours. */
const RANK_GAP = 2 ** 20;

const byId = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** One subscription as replaceAll() takes it; an owner limits it to that owner's records. */
export type MatcherItem<T> = readonly [id: string, filter: CompiledFilter | undefined, value: T, owner?: string];

/**
 * The matcher over values of type T: each subscription is stored with a value (the caller's route
 * object, say), and a match yields the values, so the caller needs no lookup by id per match.
 */
export class Matcher<T> {
  private readonly entries = new Map<string, Entry<T>>();
  /** Every id, ascending (code-unit order, the same everywhere): it gives new entries their rank. */
  private ids: string[] = [];
  private current: MatcherSnapshot<T>;
  private remainders = new Remainders();

  /** `ownerOf` finds a record's owner; without it every record belongs to nobody, and owned subscriptions match none. */
  constructor(
    readonly eventType: TrafficEventType,
    private readonly ownerOf?: OwnerOf,
  ) {
    this.current = MatcherSnapshot.empty<T>(ownerOf);
  }

  get size(): number {
    return this.entries.size;
  }

  has(id: string): boolean {
    return this.entries.has(id);
  }

  /**
   * Adds a subscription, or replaces its filter, value and owner. No filter means the subscription takes
   * every record (of its owner's, when it has one).
   */
  set(id: string, filter: CompiledFilter | undefined, value: T, owner?: string): void {
    this.checkEventType(id, filter);
    const previous = this.entries.get(id);
    const rank = previous?.rank ?? this.insertId(id);
    if (rank === undefined) {
      // No number left between the neighbours: renumber everything, once in a long while.
      this.rebuild([...this.entries].map(([k, e]): MatcherItem<T> => [k, e.filter, e.value, e.owner]).concat([[id, filter, value, owner]]));
      return;
    }
    // Tests of filters long gone are dropped now and then; entries keep the ones they hold.
    if (this.remainders.size > 2 * this.entries.size + 1024) this.remainders = new Remainders();
    const next = entryOf(id, value, owner, rank, filter, this.remainders);
    this.current = this.current.replaced(previous, next);
    this.entries.set(id, next);
  }

  /** Removes a subscription; false when it was not there. */
  delete(id: string): boolean {
    const previous = this.entries.get(id);
    if (previous === undefined) return false;
    this.current = this.current.replaced(previous, undefined);
    this.entries.delete(id);
    this.ids.splice(this.position(id), 1);
    return true;
  }

  /** Replaces the whole set at once (e.g. after loading the config log): one build instead of N updates. */
  replaceAll(subscriptions: Iterable<MatcherItem<T>>): void {
    const list = [...subscriptions];
    for (const [id, filter] of list) this.checkEventType(id, filter);
    this.rebuild(list);
  }

  private rebuild(subscriptions: readonly MatcherItem<T>[]): void {
    const byIdLast = new Map(subscriptions.map(([id, filter, value, owner]) => [id, { filter, value, owner }] as const));
    this.ids = [...byIdLast.keys()].sort(byId);
    this.entries.clear();
    this.remainders = new Remainders();
    this.ids.forEach((id, i) => {
      const { filter, value, owner } = byIdLast.get(id) as { filter: CompiledFilter | undefined; value: T; owner: string | undefined };
      this.entries.set(id, entryOf(id, value, owner, i * RANK_GAP, filter, this.remainders));
    });
    this.current = MatcherSnapshot.of(this.entries.values(), this.ownerOf);
  }

  /** The index of `id` in `ids`, or where it would go. */
  private position(id: string): number {
    let lo = 0;
    let hi = this.ids.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.ids[mid] as string) < id) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Adds a new id to `ids` and returns a rank between its neighbours', or undefined when none is left. */
  private insertId(id: string): number | undefined {
    const at = this.position(id);
    const before = at > 0 ? this.entries.get(this.ids[at - 1] as string)?.rank : undefined;
    const after = at < this.ids.length ? this.entries.get(this.ids[at] as string)?.rank : undefined;
    this.ids.splice(at, 0, id);
    if (before === undefined) return after === undefined ? 0 : after - RANK_GAP;
    if (after === undefined) return before + RANK_GAP;
    const mid = before + (after - before) / 2;
    return mid > before && mid < after ? mid : undefined;
  }

  /** The current index; it never changes, later updates produce new snapshots. */
  snapshot(): MatcherSnapshot<T> {
    return this.current;
  }

  /** The values of the subscriptions whose filter is true for `ev` and that may match its owner's records, in the index's fixed order (see MatcherSnapshot.match). */
  match(ev: unknown): readonly T[] {
    return this.current.match(ev);
  }

  /** The same values as runs handed out without a copy (see MatcherSnapshot.matchRuns): the hot path's call. */
  matchRuns(ev: unknown): readonly (readonly T[])[] {
    return this.current.matchRuns(ev);
  }

  stats(): MatcherStats {
    return this.current.stats();
  }

  private checkEventType(id: string, filter: CompiledFilter | undefined): void {
    if (filter !== undefined && filter.eventType !== this.eventType) {
      throw new MatcherError(
        `The filter of subscription ${id} was compiled for ${filter.eventType}, not ${this.eventType}.`,
      );
    }
  }
}

/** A matcher whose values are the subscription ids themselves. */
export class SubscriptionMatcher extends Matcher<string> {
  override set(id: string, filter: CompiledFilter | undefined, value: string = id, owner?: string): void {
    super.set(id, filter, value, owner);
  }

  override replaceAll(subscriptions: Iterable<readonly [id: string, filter: CompiledFilter | undefined, value?: string, owner?: string]>): void {
    super.replaceAll([...subscriptions].map(([id, filter, value, owner]): MatcherItem<string> => [id, filter, value ?? id, owner]));
  }
}
