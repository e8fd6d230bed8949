// Builds a benchmark's targets (BenchTarget, bench/lib/types.ts): the bound, the figure a run measured, and why a missed one missed.
import type { BenchTarget } from './types.js';

/** A target whose `whyMissed` (a sentence pointing at the profile, bench/results/PROFILE.md) is kept only when the figure misses it. */
export function benchTarget(name: string, bound: string, figure: string, met: boolean, whyMissed: string): BenchTarget {
  return met ? { name, target: bound, figure, met } : { name, target: bound, figure, met, why: whyMissed };
}
