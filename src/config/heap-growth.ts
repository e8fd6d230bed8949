// How far a worker lets V8's old generation grow past what its last full collection kept (ARCHITECTURE.md,
// "Delivery and commits", its paragraph on memory). A fixed HEAP_GROWTH_PERCENT is set once. By default the
// growth starts at MIN_GROWTH_PERCENT and follows the time full collections take: it doubles while the last
// WINDOW_COLLECTIONS of them took more than GC_SHARE_HIGH of the time they spanned (up to
// MAX_GROWTH_PERCENT), and halves back while they took less than GC_SHARE_LOW.
// At 30% a worker with 100 subscriptions draining a backlog ran six full collections a second, a third of
// its CPU; one with 10,000 subscriptions under 1,000 records/s runs one every 3 to 10 s, under 1% of its time,
// and keeps the 30% that holds it under the memory target (bench/results/PROFILE.md, "The heap's growth").
import { PerformanceObserver, constants, performance, type PerformanceEntry } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';

/**
 * The least growth, and the start. With V8's own sizing a worker with 10,000 subscriptions let about
 * 100 MiB live grow to 250-320 MiB between full collections (RSS 520 MB, bench/results/memory.md).
 */
export const MIN_GROWTH_PERCENT = 30;
/**
 * The most. Draining at 100 subscriptions, 120% cost no more CPU than 240% (1,000,000 records) or V8's own
 * sizing (400,000 records), which lets the old generation grow to four times its live size; at 120% a
 * worker with 10,000 subscriptions catching up on a backlog stays within 2.2 times its live heap.
 */
export const MAX_GROWTH_PERCENT = 120;
/**
 * How many full collections under the growth in force a change is judged on. One says little: V8 marks
 * mostly on helper threads, and the main thread's part of one collection varied from 4 to 17 ms in the same
 * steady churn (test/support/heap-churn.ts), and one short one, judged alone, halved a growth the others
 * called for.
 */
export const WINDOW_COLLECTIONS = 4;
/** Full collections taking more of the time than this double the growth. */
export const GC_SHARE_HIGH = 0.05;
/** Full collections taking less of the time than this halve it. */
export const GC_SHARE_LOW = 0.0125;

/**
 * The growth after the full collections of a window: `percent` the growth in force, `collectingMs` the time
 * spent in them (their incremental marking included), over `elapsedMs`, from the end of the full collection
 * before the window to the end of its last.
 */
export function nextGrowthPercent(percent: number, collectingMs: number, elapsedMs: number): number {
  // A collection that began before the observer did says nothing of a share.
  if (!(elapsedMs > 0)) return percent;
  const share = collectingMs / elapsedMs;
  if (share > GC_SHARE_HIGH) return Math.min(MAX_GROWTH_PERCENT, percent * 2);
  if (share < GC_SHARE_LOW) return Math.max(MIN_GROWTH_PERCENT, Math.round(percent / 2));
  return percent;
}

/** The moving growth: the full collections under the growth in force, and the growth they call for. */
export class GrowthWindow {
  private readonly collections: { readonly collectingMs: number; readonly elapsedMs: number }[] = [];
  private growth = MIN_GROWTH_PERCENT;
  /**
   * V8 sets the next collection's limit at the end of a full collection, before the observer changes the
   * growth: the first collection after a change still came at the old growth's limit, and is not counted.
   */
  private skip = 0;

  /** The growth in force, in per cent. */
  get percent(): number {
    return this.growth;
  }

  /**
   * Counts a full collection: `collectingMs` spent in it and its incremental marking, `elapsedMs` since the end of
   * the one before. Returns the growth from now on.
   */
  afterFullCollection(collectingMs: number, elapsedMs: number): number {
    if (this.skip > 0) {
      this.skip--;
      return this.growth;
    }
    this.collections.push({ collectingMs, elapsedMs });
    if (this.collections.length > WINDOW_COLLECTIONS) this.collections.shift();
    if (this.collections.length < WINDOW_COLLECTIONS) return this.growth;
    const next = nextGrowthPercent(
      this.growth,
      this.collections.reduce((sum, c) => sum + c.collectingMs, 0),
      this.collections.reduce((sum, c) => sum + c.elapsedMs, 0),
    );
    if (next !== this.growth) {
      this.growth = next;
      this.collections.length = 0;
      this.skip = 1;
    }
    return next;
  }
}

export interface HeapGrowth {
  /** The growth in force, in per cent (0: V8's own heuristics). */
  readonly percent: () => number;
  readonly stop: () => void;
}

/** The kind of a `gc` performance entry (perf_hooks constants.NODE_PERFORMANCE_GC_*). */
export function gcKind(entry: PerformanceEntry): number | undefined {
  return (entry as PerformanceEntry & { readonly detail?: { readonly kind?: number } }).detail?.kind;
}

/**
 * Sets V8's --heap-growing-percent on this process, which V8 reads at every full collection: `fixedPercent`
 * once (0 leaves V8 alone), or, when undefined, a GrowthWindow's after each full collection.
 */
export function startHeapGrowth(fixedPercent: number | undefined): HeapGrowth {
  if (fixedPercent !== undefined) {
    if (fixedPercent > 0) setFlagsFromString(`--heap-growing-percent=${fixedPercent}`);
    return { percent: () => fixedPercent, stop: () => undefined };
  }
  const window = new GrowthWindow();
  setFlagsFromString(`--heap-growing-percent=${window.percent}`);
  let since = performance.now();
  let collectingMs = 0;
  // The observer runs after the collections it reports, so a new growth counts from the next one on.
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = gcKind(entry);
      if (kind !== constants.NODE_PERFORMANCE_GC_MAJOR && kind !== constants.NODE_PERFORMANCE_GC_INCREMENTAL) continue;
      collectingMs += entry.duration;
      if (kind !== constants.NODE_PERFORMANCE_GC_MAJOR) continue;
      const end = entry.startTime + entry.duration;
      const before = window.percent;
      const next = window.afterFullCollection(collectingMs, end - since);
      since = end;
      collectingMs = 0;
      if (next !== before) setFlagsFromString(`--heap-growing-percent=${next}`);
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  return { percent: () => window.percent, stop: () => observer.disconnect() };
}
