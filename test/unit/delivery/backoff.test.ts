import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { backoffDelay, retryDelay, type RetryPolicy } from '../../../src/delivery/backoff.js';

const policy: RetryPolicy = { baseDelayMs: 100, maxDelayMs: 5000, maxAttempts: 5, maxElapsedMs: 60_000, maxRetryAfterMs: 30_000 };

describe('backoff', () => {
  it('should double the jitter window per attempt up to the cap', () => {
    const top = () => 0.9999;
    expect([1, 2, 3, 4, 5, 6, 7].map((a) => backoffDelay(policy, a, top))).toEqual([99, 199, 399, 799, 1599, 3199, 4999]);
  });

  it('should draw every delay from zero up to the window (full jitter)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100 }), fc.double({ min: 0, max: 0.999999, noNaN: true }), (attempt, r) => {
        const d = backoffDelay(policy, attempt, () => r);
        const window = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
        expect(d).toBeGreaterThanOrEqual(0);
        expect(d).toBeLessThan(window);
      }),
    );
    expect(backoffDelay(policy, 3, () => 0)).toBe(0);
  });

  it('should wait at least the Retry-After hint, capped by the policy', () => {
    expect(retryDelay(policy, 1, 2000, () => 0.5)).toBe(2000);
    expect(retryDelay(policy, 7, 10, () => 0.5)).toBe(2500);
    expect(retryDelay(policy, 1, 3_600_000, () => 0)).toBe(30_000);
    expect(retryDelay(policy, 1, undefined, () => 0.5)).toBe(50);
  });
});
