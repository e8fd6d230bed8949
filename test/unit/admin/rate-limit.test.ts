// The per-key token bucket of the admin API: a burst at once, then the sustained rate, per key.
import { describe, expect, it } from 'vitest';
import { KeyRateLimiter } from '../../../src/admin/rate-limit.js';

function limiter(perSecond: number, burst: number): { l: KeyRateLimiter; advance(ms: number): void } {
  let now = 1_000_000;
  const l = new KeyRateLimiter({ perSecond, burst }, () => now);
  return { l, advance: (ms) => (now += ms) };
}

describe('KeyRateLimiter', () => {
  it('should allow a burst at once, then refuse with the wait until the next token', () => {
    const { l } = limiter(2, 3);
    expect([l.take('k'), l.take('k'), l.take('k')]).toEqual([0, 0, 0]);
    expect(l.take('k')).toBe(500);
  });

  it('should refill at the sustained rate and never above the burst', () => {
    const { l, advance } = limiter(10, 2);
    l.take('k');
    l.take('k');
    advance(100);
    expect(l.take('k')).toBe(0);
    expect(l.take('k')).toBe(100);
    advance(60_000);
    expect([l.take('k'), l.take('k'), l.take('k')]).toEqual([0, 0, 100]);
  });

  it('should count each key on its own', () => {
    const { l } = limiter(1, 1);
    expect(l.take('a')).toBe(0);
    expect(l.take('a')).toBeGreaterThan(0);
    expect(l.take('b')).toBe(0);
  });

  it('should forget keys idle long enough to be full again', () => {
    const { l, advance } = limiter(100, 10);
    for (let i = 0; i < 50; i++) l.take(`k${i}`);
    advance(61_000);
    l.take('fresh');
    expect(l.size).toBe(1);
  });
});
