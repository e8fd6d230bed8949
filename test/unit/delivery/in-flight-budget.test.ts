import { describe, expect, it } from 'vitest';
import { InFlightBudget } from '../../../src/delivery/in-flight-budget.js';
import { inFlightDeliveries } from '../../../src/telemetry/metrics.js';

describe('in-flight budget', () => {
  it('should report no capacity once either the count or the bytes are spent', () => {
    const b = new InFlightBudget({ maxDeliveries: 3, maxBytes: 100 });
    b.acquire(2, 50);
    expect(b.hasCapacity()).toBe(true);
    b.acquire(1, 10);
    expect(b.hasCapacity()).toBe(false);
    b.release(1, 10);
    b.acquire(0, 60);
    expect(b.hasCapacity()).toBe(false);
  });

  it('should wake every waiter when capacity comes back, and not before', async () => {
    const b = new InFlightBudget({ maxDeliveries: 1, maxBytes: 100 });
    b.acquire(2, 10);
    let woken = 0;
    const waits = [b.whenCapacity(), b.whenCapacity()].map((p) => p.then(() => woken++));
    b.release(1, 5);
    await new Promise((r) => setImmediate(r));
    expect(woken).toBe(0);
    b.release(1, 5);
    await Promise.all(waits);
    expect(woken).toBe(2);
    await b.whenCapacity();
  });

  it('should move the in-flight gauge with acquire and release', async () => {
    const before = (await inFlightDeliveries.get()).values[0]?.value ?? 0;
    const b = new InFlightBudget();
    b.acquire(4, 400);
    expect((await inFlightDeliveries.get()).values[0]?.value).toBe(before + 4);
    b.release(4, 400);
    expect((await inFlightDeliveries.get()).values[0]?.value).toBe(before);
  });
});
