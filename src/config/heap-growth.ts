// How far a worker lets V8's old generation grow past what its last full collection kept (ARCHITECTURE.md,
// "Memory"). A fixed HEAP_GROWTH_PERCENT is set once; the default sizes the growth from the live heap after
// each full collection, so that the old generation may fill OLD_GENERATION_BUDGET_BYTES but always grows by
// at least MIN_GROWTH_PERCENT of its live size. A fixed 30% made a worker with 100 subscriptions (about
// 65 MiB live while draining) collect its whole heap five times a second, about a third of its CPU
// (bench/results/PROFILE.md, "The heap's growth"); one with 10,000 (about 105 MiB live) stays near the floor.
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';

/** What the old generation may fill before a full collection, unless MIN_GROWTH_PERCENT past its live size is more. */
export const OLD_GENERATION_BUDGET_BYTES = 144 * 2 ** 20;
/**
 * The least growth, the fixed default before. With V8's own sizing a worker with 10,000 subscriptions let
 * about 100 MiB live grow to 250-320 MiB between full collections (RSS 520 MB, bench/results/memory.md).
 */
export const MIN_GROWTH_PERCENT = 30;
/** The most: V8's own heuristics never let the old generation grow past four times its live size. */
export const MAX_GROWTH_PERCENT = 300;

/** The growth in per cent that lets an old generation of `liveBytes` fill the budget, within the bounds. */
export function growthPercentFor(liveBytes: number, budgetBytes = OLD_GENERATION_BUDGET_BYTES): number {
  if (!(liveBytes > 0)) return MAX_GROWTH_PERCENT;
  return Math.min(MAX_GROWTH_PERCENT, Math.max(MIN_GROWTH_PERCENT, Math.round(((budgetBytes - liveBytes) / liveBytes) * 100)));
}

/** The bytes in use outside the young generation: after a full collection, what it kept. */
export function oldGenerationBytes(): number {
  let used = 0;
  for (const space of getHeapSpaceStatistics()) {
    if (space.space_name !== 'new_space' && space.space_name !== 'new_large_object_space') used += space.space_used_size;
  }
  return used;
}

export interface HeapGrowth {
  /** The growth in force, in per cent (0: V8's own heuristics). */
  readonly percent: () => number;
  readonly stop: () => void;
}

/**
 * Sets V8's --heap-growing-percent on this process, which V8 reads at every full collection: `fixedPercent`
 * once (0 leaves V8 alone), or, when undefined, again after each full collection from what it kept.
 */
export function startHeapGrowth(fixedPercent: number | undefined): HeapGrowth {
  let percent = fixedPercent ?? growthPercentFor(oldGenerationBytes());
  if (percent > 0) setFlagsFromString(`--heap-growing-percent=${percent}`);
  if (fixedPercent !== undefined) return { percent: () => percent, stop: () => undefined };
  // The observer runs after the collection, so its setting counts from the next one on.
  const observer = new PerformanceObserver((list) => {
    const major = list.getEntries().some((e) => (e as unknown as { readonly detail?: { readonly kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR);
    if (!major) return;
    const next = growthPercentFor(oldGenerationBytes());
    if (next === percent) return;
    percent = next;
    setFlagsFromString(`--heap-growing-percent=${percent}`);
  });
  observer.observe({ entryTypes: ['gc'] });
  return { percent: () => percent, stop: () => observer.disconnect() };
}
