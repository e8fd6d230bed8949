// The stall watch over the real offset tracker: a record unsettled past the bound is logged once with the
// destinations that still hold its deliveries, marked in their status, and cleared when it settles.
import { describe, expect, it } from 'vitest';
import { OffsetTracker, type TrackedRecord } from '../../../src/delivery/offset-tracker.js';
import type { DeliveryItem } from '../../../src/delivery/contract.js';
import { StallWatch } from '../../../src/ingest/stall-watch.js';
import type { Logger } from '../../../src/telemetry/logger.js';
import { oldestUnsettledAge } from '../../../src/telemetry/metrics.js';
import { item } from '../delivery/fakes.js';

const at = (offset: number): TrackedRecord => ({ topic: 'raw', partition: 3, offset, reading: 1 });

function setup(held: (destinationId: string, item: DeliveryItem) => boolean) {
  let now = 1_000_000;
  const tracker = new OffsetTracker(() => now);
  const lines: Array<{ fields: Record<string, unknown>; msg: string }> = [];
  const marks: Array<[string, number | undefined]> = [];
  const logger = { warn: (fields: Record<string, unknown>, msg: string) => lines.push({ fields, msg }) } as unknown as Logger;
  const watch = new StallWatch({ tracker, afterMs: 60_000, holds: held, mark: (id, since) => marks.push([id, since]), now: () => now, logger });
  return { tracker, watch, lines, marks, advance: (ms: number) => (now += ms), now: () => now };
}

async function gauge(): Promise<number | undefined> {
  return (await oldestUnsettledAge.get()).values.find((v) => v.labels.topic === 'raw' && v.labels.partition === '3')?.value;
}

describe('stall watch', () => {
  it('should report a record past the bound once, with the destinations that hold its deliveries, and clear it when it settles', async () => {
    const waiting = item(20, at(7));
    const { tracker, watch, lines, marks, advance, now } = setup((id, i) => id === 'ed_down' && i === waiting);
    tracker.begin('raw', 3, 1, 7);
    const began = now();
    tracker.track(at(7), 2, [
      { destinationId: 'ed_up', item: item(20, at(7)) },
      { destinationId: 'ed_down', item: waiting },
    ]);
    tracker.settle(at(7));
    advance(30_000);
    watch.check('raw', 3);
    expect(await gauge()).toBe(30);
    expect(lines).toEqual([]);
    advance(31_000);
    watch.check('raw', 3);
    advance(5_000);
    watch.check('raw', 3);
    expect(lines).toHaveLength(1);
    expect(lines[0]?.fields).toMatchObject({ topic: 'raw', partition: 3, offset: 7, destinations: ['ed_down'], held: true, pending: 1 });
    expect(marks).toEqual([['ed_down', began]]);
    expect(await gauge()).toBe(66);

    tracker.settle(at(7));
    watch.check('raw', 3);
    expect(marks).toEqual([['ed_down', began], ['ed_down', undefined]]);
    expect(await gauge()).toBe(0);
    watch.done('raw', 3);
    expect(lines).toHaveLength(1);
  });

  it('should name every destination of the record when none holds its deliveries any more', () => {
    const { tracker, watch, lines, marks, advance } = setup(() => false);
    tracker.begin('raw', 3, 1, 1);
    tracker.track(at(1), 2, [
      { destinationId: 'ed_a', item: item(20, at(1)) },
      { destinationId: 'ed_b', item: item(20, at(1)) },
    ]);
    advance(61_000);
    watch.check('raw', 3);
    expect(lines[0]?.fields).toMatchObject({ destinations: ['ed_a', 'ed_b'], held: false });
    expect(lines[0]?.msg).toContain('no destination holds them');
    watch.done('raw', 3);
    expect(marks.map(([id, since]) => [id, since === undefined])).toEqual([
      ['ed_a', false],
      ['ed_b', false],
      ['ed_a', true],
      ['ed_b', true],
    ]);
  });
});
