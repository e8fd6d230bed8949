import { describe, expect, it } from 'vitest';
import { recordDigits } from '../../../src/ids.js';
import { SAMPLE_ALL, sampleSeed, sampleThreshold, sampled } from '../../../src/subscriptions/sampling.js';

const digitsOf = (offset: number): Uint8Array => recordDigits('edge.traffic.http_request_complete.v0', offset % 6, offset);

describe('sampling', () => {
  it('should keep every match at rate 1 or without a rate, and the threshold of a rate should be floor(rate * 2^32)', () => {
    expect(sampleThreshold(undefined)).toBe(SAMPLE_ALL);
    expect(sampleThreshold(1)).toBe(SAMPLE_ALL);
    expect(sampleThreshold(0.25)).toBe(2 ** 30);
    expect(sampled(digitsOf(1), sampleSeed('esb_a'), SAMPLE_ALL)).toBe(true);
  });

  it('should keep a share of 20,000 records within 5 binomial deviations of the rate, for several rates', () => {
    const n = 20_000;
    for (const rate of [0.01, 0.25, 0.5, 0.9]) {
      const seed = sampleSeed(`esb_rate_${rate}`);
      let kept = 0;
      for (let i = 0; i < n; i++) if (sampled(digitsOf(i), seed, sampleThreshold(rate))) kept++;
      const sd = Math.sqrt(n * rate * (1 - rate));
      expect(Math.abs(kept - n * rate), `rate ${rate}: kept ${kept}`).toBeLessThan(5 * sd);
    }
  });

  it('should make the same choice for the same record and subscription, and independent choices for two subscriptions', () => {
    const n = 20_000;
    const t = sampleThreshold(0.5);
    const a = sampleSeed('esb_a');
    const b = sampleSeed('esb_b');
    let both = 0;
    for (let i = 0; i < n; i++) {
      const d = digitsOf(i);
      const inA = sampled(d, a, t);
      expect(sampled(digitsOf(i), a, t)).toBe(inA);
      if (inA && sampled(d, b, t)) both++;
    }
    // Independent halves overlap on a quarter: Binomial(20,000, 0.25), sd 61.
    expect(Math.abs(both - n / 4)).toBeLessThan(5 * Math.sqrt(n * 0.25 * 0.75));
  });
});
