// Tests of the Zipf sampler and the weighted choice under it: exact probabilities and empirical frequencies.
import { describe, expect, it } from 'vitest';
import { WeightedChoice, seededRandom } from '../../../src/traffic/random.js';
import { Zipf } from '../../../src/traffic/zipf.js';

describe('Zipf', () => {
  it('should give rank k a probability proportional to 1 / k^s that sums to one', () => {
    const z = new Zipf(1000, 1.1);
    let total = 0;
    for (let k = 1; k <= 1000; k++) total += z.probability(k);
    expect(total).toBeCloseTo(1, 9);
    expect(z.probability(1) / z.probability(2)).toBeCloseTo(2 ** 1.1, 9);
    expect(z.probability(10) / z.probability(100)).toBeCloseTo(10 ** 1.1, 6);
    expect(z.probability(0)).toBe(0);
    expect(z.probability(1001)).toBe(0);
  });

  it('should draw ranks with the frequencies its probabilities state', () => {
    const z = new Zipf(5000, 1);
    const r = seededRandom(42);
    const draws = 200_000;
    const counts = new Map<number, number>();
    for (let i = 0; i < draws; i++) {
      const k = z.draw(r);
      counts.set(k, (counts.get(k) ?? 0) + 1);
    }
    expect(Math.min(...counts.keys())).toBe(1);
    expect(Math.max(...counts.keys())).toBeLessThanOrEqual(5000);
    // H(5000) is about 9.09, so rank 1 takes about 11% of draws and rank 10 about 1.1%.
    for (const k of [1, 2, 10]) {
      const p = z.probability(k);
      const sd = Math.sqrt((p * (1 - p)) / draws);
      expect(Math.abs((counts.get(k) ?? 0) / draws - p)).toBeLessThan(5 * sd);
    }
    expect(z.probability(1)).toBeCloseTo(1 / 9.094, 3);
    // A long tail: most of the thousands of ranks are drawn at least once.
    expect(counts.size).toBeGreaterThan(3000);
  });

  it('should refuse a rank count or exponent that makes no distribution', () => {
    expect(() => new Zipf(0, 1)).toThrow(RangeError);
    expect(() => new Zipf(10, -1)).toThrow(RangeError);
    expect(() => new Zipf(2.5, 1)).toThrow(RangeError);
  });
});

describe('WeightedChoice', () => {
  it('should never draw an entry of weight zero and follow the other weights', () => {
    const c = new WeightedChoice([['a', 1], ['never', 0], ['b', 3]] as const);
    const r = seededRandom(7);
    const seen = { a: 0, b: 0, never: 0 };
    for (let i = 0; i < 40_000; i++) seen[c.draw(r)]++;
    expect(seen.never).toBe(0);
    expect(seen.b / seen.a).toBeGreaterThan(2.7);
    expect(seen.b / seen.a).toBeLessThan(3.3);
  });
});
