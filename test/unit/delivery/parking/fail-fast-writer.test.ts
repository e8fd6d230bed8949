import { describe, expect, it } from 'vitest';
import { DeliveryError } from '../../../../src/delivery/errors.js';
import { FailFastWriter } from '../../../../src/delivery/parking/fail-fast-writer.js';
import type { DeliveryItem } from '../../../../src/delivery/contract.js';
import { FakeWriter, VirtualClock, item } from '../fakes.js';

/** A delivery of a consumed record (the circuit holds these back), and a re-driven one (it lets them through). */
const consumed = (): DeliveryItem => ({ ...item(), source: { topic: 'edge.tcp', partition: 0, offset: 1, reading: 1 } });
const reDriven = (): DeliveryItem => ({ ...item(), source: { topic: 'edge.retry.ed_x', partition: 0, offset: 1 } });

describe('fail-fast writer', () => {
  it('should pass writes through until tripped', async () => {
    const inner = new FakeWriter();
    const w = new FailFastWriter(inner, 5_000, new VirtualClock());
    await w.write([item()]);
    expect(inner.batches).toHaveLength(1);
    expect(w.isTripped).toBe(false);
  });

  it('should fail fast while tripped, let one probe through per interval, and close on a delivered probe', async () => {
    const clock = new VirtualClock();
    const inner = new FakeWriter(undefined, [new DeliveryError('DESTINATION_UNREACHABLE', 'refused')]);
    const w = new FailFastWriter(inner, 5_000, clock);
    w.trip(new DeliveryError('DESTINATION_UNREACHABLE', 'refused'));
    await expect(w.write([consumed()])).rejects.toMatchObject({ code: 'DESTINATION_UNHEALTHY', retryable: true });
    expect(inner.batches).toHaveLength(0);
    clock.t += 5_000;
    // The probe reaches the destination, which still refuses: the circuit stays open.
    await expect(w.write([consumed()])).rejects.toMatchObject({ code: 'DESTINATION_UNREACHABLE' });
    expect(inner.batches).toHaveLength(1);
    w.trip(new DeliveryError('DESTINATION_UNREACHABLE', 'refused'));
    await expect(w.write([consumed()])).rejects.toMatchObject({ code: 'DESTINATION_UNHEALTHY' });
    clock.t += 5_000;
    await w.write([consumed()]);
    expect(w.isTripped).toBe(false);
    await w.write([consumed()]);
    expect(inner.batches).toHaveLength(3);
  });

  it('should keep probing on schedule however often it is tripped again', async () => {
    const clock = new VirtualClock();
    const inner = new FakeWriter();
    const w = new FailFastWriter(inner, 1_000, clock);
    w.trip(new DeliveryError('DESTINATION_TIMEOUT', 'slow'));
    for (let i = 0; i < 5; i++) {
      clock.t += 300;
      w.trip(new DeliveryError('DESTINATION_TIMEOUT', 'slow'));
    }
    await w.write([item()]);
    expect(inner.batches).toHaveLength(1);
    expect(w.isTripped).toBe(false);
  });

  it('should be reset by a passing health check through reset()', async () => {
    const w = new FailFastWriter(new FakeWriter(), 60_000, new VirtualClock());
    w.trip(new DeliveryError('DESTINATION_TIMEOUT', 'slow'));
    await w.healthcheck();
    w.reset();
    await expect(w.write([item()])).resolves.toEqual({ failed: [] });
  });

  it('should let re-driven deliveries through while tripped, as their re-driver sends them only after a health check', async () => {
    const clock = new VirtualClock();
    const inner = new FakeWriter();
    const w = new FailFastWriter(inner, 5_000, clock);
    w.trip(new DeliveryError('DESTINATION_TIMEOUT', 'slow'));
    await expect(w.write([consumed()])).rejects.toMatchObject({ code: 'DESTINATION_UNHEALTHY' });
    await expect(w.write([reDriven(), reDriven()])).resolves.toEqual({ failed: [] });
    expect(inner.batches.map((b) => b.length)).toEqual([2]);
  });
});
