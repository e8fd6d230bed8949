import { describe, expect, it } from 'vitest';
import { InFlightBudget } from '../../../src/delivery/in-flight-budget.js';
import { budgetHasRoomForReplays, LIVE_DELAY_GROWTH, ReplayPace } from '../../../src/replay/replay-pace.js';

const LIMITS = { maxRecordsPerSecond: 20_000, liveDelayMs: 100, liveLagRecords: 10_000 };
const ON_TIME = { delayMs: 50, lagRecords: 0 };
const LATE = { delayMs: 400, lagRecords: 0 };

function paceAt(): { pace: ReplayPace; clock: { now: number } } {
  const clock = { now: 1_000_000 };
  return { pace: new ReplayPace(LIMITS, () => clock.now), clock };
}

describe('ReplayPace', () => {
  it('should start at a hundredth of the highest rate and rise by a fortieth of it each tick while live is on time, up to the highest', () => {
    const { pace } = paceAt();
    expect(pace.rate).toBe(200);
    pace.tick(ON_TIME, true);
    expect(pace.rate).toBe(700);
    for (let i = 0; i < 100; i++) pace.tick(ON_TIME, true);
    expect(pace.rate).toBe(20_000);
  });

  it('should halve the rate each tick while live is late, by its delay or by its lag, down to the lowest', () => {
    const { pace } = paceAt();
    for (let i = 0; i < 100; i++) pace.tick(ON_TIME, true);
    pace.tick(LATE, true);
    expect(pace.rate).toBe(10_000);
    pace.tick({ delayMs: 0, lagRecords: 10_001 }, true);
    expect(pace.rate).toBe(5_000);
    for (let i = 0; i < 20; i++) pace.tick(LATE, true);
    expect(pace.rate).toBe(200);
  });

  it('should count live as late past LIVE_DELAY_GROWTH times its usual delay without replays, when that is above REPLAY_LIVE_DELAY_MS', () => {
    const { pace } = paceAt();
    expect(pace.lateAfterMs).toBe(100);
    for (let i = 0; i < 500; i++) pace.tick({ delayMs: 400, lagRecords: 0 }, false);
    expect(pace.lateAfterMs).toBeCloseTo(400 * LIVE_DELAY_GROWTH, 0);
    expect(pace.isLate({ delayMs: 450, lagRecords: 0 })).toBe(false);
    expect(pace.isLate({ delayMs: 520, lagRecords: 0 })).toBe(true);
  });

  it('should go back to the lowest rate once no replay runs', () => {
    const { pace } = paceAt();
    for (let i = 0; i < 10; i++) pace.tick(ON_TIME, true);
    expect(pace.rate).toBeGreaterThan(200);
    pace.tick(ON_TIME, false);
    expect(pace.rate).toBe(200);
  });

  it('should let records be read at the rate: a take below zero waits its share of a second', () => {
    const { pace, clock } = paceAt();
    for (let i = 0; i < 4; i++) pace.tick(ON_TIME, true);
    expect(pace.rate).toBe(2_200);
    // Ticks at one instant: the bucket holds nothing yet.
    expect(pace.waitMs()).toBe(0);
    pace.take(1_100);
    expect(pace.waitMs()).toBe(500);
    clock.now += 250;
    expect(pace.waitMs()).toBe(250);
    clock.now += 250;
    expect(pace.waitMs()).toBe(0);
    // An idle spell fills the bucket to a tenth of a second's worth, no more.
    clock.now += 60_000;
    pace.take(220);
    expect(pace.waitMs()).toBe(0);
    pace.take(1);
    expect(pace.waitMs()).toBe(1);
  });
});

describe('budgetHasRoomForReplays', () => {
  it('should leave the in-flight budget above half full to live deliveries', () => {
    const budget = new InFlightBudget({ maxDeliveries: 100, maxBytes: 1_000 });
    expect(budgetHasRoomForReplays(budget)).toBe(true);
    budget.acquire(50, 10);
    expect(budgetHasRoomForReplays(budget)).toBe(false);
    budget.release(1, 0);
    expect(budgetHasRoomForReplays(budget)).toBe(true);
    budget.acquire(0, 500);
    expect(budgetHasRoomForReplays(budget)).toBe(false);
  });
});
