import { describe, expect, it } from 'vitest';
import { DeliveryError } from '../../../src/delivery/errors.js';
import { sortOutcome } from '../../../src/delivery/write-outcome.js';
import { item } from './fakes.js';

describe('write outcome', () => {
  it('should treat every item as delivered when nothing failed', () => {
    const pending = [item(), item()];
    expect(sortOutcome(pending, [])).toMatchObject({ acked: pending, retry: [], dead: [] });
  });

  it('should split failures by retryability and keep the longest Retry-After', () => {
    const [a, b, c, d] = [item(), item(), item(), item()];
    const out = sortOutcome(
      [a, b, c, d],
      [
        { item: b, error: new DeliveryError('DESTINATION_THROTTLED', 'x', { retryAfterMs: 300 }) },
        { item: c, error: new DeliveryError('DESTINATION_SERVER_ERROR', 'y', { retryAfterMs: 900 }) },
        { item: d, error: new DeliveryError('DESTINATION_REJECTED', 'z') },
      ],
    );
    expect(out.acked).toEqual([a]);
    expect(out.retry).toEqual([b, c]);
    expect(out.dead.map((f) => f.item)).toEqual([d]);
    expect(out.retryAfterMs).toBe(900);
    expect(out.lastError?.code).toBe('DESTINATION_SERVER_ERROR');
  });

  it('should ignore failures for items outside the batch and count a repeated item once', () => {
    const [a, b] = [item(), item()];
    const stranger = item();
    const err = new DeliveryError('WRITE_FAILED', 'x');
    const out = sortOutcome([a, b], [
      { item: b, error: err },
      { item: b, error: err },
      { item: stranger, error: err },
    ]);
    expect(out.acked).toEqual([a]);
    expect(out.retry).toEqual([b]);
  });
});
