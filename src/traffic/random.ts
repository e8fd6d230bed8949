// Seeded randomness for the traffic generator: a small fast PRNG and the draws built on it (int, pick, weighted, log-normal).

/** A source of uniform numbers in [0, 1). */
export type Random = () => number;

/**
 * mulberry32: 32 bits of state, fast, and good enough for synthetic traffic. The same seed gives the
 * same sequence on every machine, which is what makes generated traffic reproducible.
 */
export function seededRandom(seed: number): Random {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** An integer in [min, max], both included. */
export function intBetween(r: Random, min: number, max: number): number {
  return min + Math.floor(r() * (max - min + 1));
}

export function pick<T>(r: Random, items: readonly T[]): T {
  if (items.length === 0) throw new RangeError('pick() needs at least one item');
  return items[Math.floor(r() * items.length)] as T;
}

/** Draws from a fixed discrete distribution in O(log n): cumulative weights and a binary search. */
export class WeightedChoice<T> {
  private readonly items: readonly T[];
  private readonly cumulative: Float64Array;

  constructor(entries: readonly (readonly [T, number])[]) {
    const kept = entries.filter(([, w]) => w > 0);
    if (kept.length === 0) throw new RangeError('WeightedChoice needs at least one positive weight');
    this.items = kept.map(([item]) => item);
    this.cumulative = new Float64Array(kept.length);
    let total = 0;
    kept.forEach(([, w], i) => {
      total += w;
      this.cumulative[i] = total;
    });
    for (let i = 0; i < kept.length; i++) this.cumulative[i] = (this.cumulative[i] as number) / total;
  }

  get size(): number {
    return this.items.length;
  }

  /** The probability of the item at `index` (in the order given, zero-weight entries removed). */
  probability(index: number): number {
    const hi = this.cumulative[index] ?? 0;
    const lo = index === 0 ? 0 : (this.cumulative[index - 1] ?? 0);
    return hi - lo;
  }

  itemAt(index: number): T {
    return this.items[index] as T;
  }

  /** The index the uniform number `u` falls on. */
  indexOf(u: number): number {
    const c = this.cumulative;
    let lo = 0;
    let hi = c.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (u < (c[mid] as number)) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  draw(r: Random): T {
    return this.items[this.indexOf(r())] as T;
  }
}

/** A standard normal draw (Box-Muller; one of the pair is thrown away, which is fine at these rates). */
export function normal(r: Random): number {
  const u = 1 - r();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * r());
}

/** A log-normal draw with the given median and spread (sigma of the underlying normal), rounded down, at least min. */
export function logNormalInt(r: Random, median: number, sigma: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  return Math.min(max, Math.max(min, Math.floor(median * Math.exp(sigma * normal(r)))));
}
