// The read rate of a worker's replays (ARCHITECTURE.md "Replay"), the one home of their pacing: a token
// bucket over all of the worker's replays, whose rate an AIMD controller sets each tick from live
// delivery's health. Live is late when its delay passes the larger of REPLAY_LIVE_DELAY_MS and
// LIVE_DELAY_GROWTH times its usual delay (its average while no replay ran), or its lag passes
// REPLAY_LIVE_LAG_RECORDS. While it is late the rate halves each tick, down to a hundredth of
// REPLAY_RECORDS_PER_SECOND; while it is on time the rate rises by a fortieth of that each tick, up to
// REPLAY_RECORDS_PER_SECOND. Replays start at the lowest rate, so they find the spare capacity rather
// than take it at once.
// A replay's batch is read in slices of REPLAY_SLICE_RECORDS, each waiting for the rate, and waits while the
// in-flight budget is more than REPLAY_BUDGET_SHARE full.
import type { InFlightBudget } from '../delivery/in-flight-budget.js';

export interface ReplayPaceLimits {
  /** REPLAY_RECORDS_PER_SECOND: the highest rate. */
  readonly maxRecordsPerSecond: number;
  /** REPLAY_LIVE_DELAY_MS: live is late once its delay (LiveHealth.delayMs) passes this, and LIVE_DELAY_GROWTH times its usual delay. */
  readonly liveDelayMs: number;
  /** REPLAY_LIVE_LAG_RECORDS: live is late once its lag passes this many records. */
  readonly liveLagRecords: number;
}

/** Live delivery as the worker sees it at a tick. */
export interface LiveHealth {
  /** The live worker's delay (IngestWorker.delayMs): how late its records are routed or stay unsettled. */
  readonly delayMs: number;
  /** The live worker's lag behind its partitions' ends, in records. */
  readonly lagRecords: number;
}

/**
 * Records of a replay's batch routed between two waits for the rate (IngestWorker's `replay.sliceRecords`):
 * a fetch of 1 MiB holds thousands, which at once would fill the destinations' queues ahead of live
 * deliveries.
 */
export const REPLAY_SLICE_RECORDS = 200;
/**
 * The most bytes of records a replay's fetch answers (live fetches: 1 MiB a partition, 10 MiB in all). A
 * fetch's records are decoded in one turn of the event loop; a replay's larger ones held live batches
 * behind them.
 */
export const REPLAY_FETCH_MAX_BYTES = 128 * 1024;
/** Replays wait while the in-flight budget (src/delivery/in-flight-budget.ts) is fuller than this share: the rest is live delivery's. */
export const REPLAY_BUDGET_SHARE = 1 / 2;

/** Whether the budget has room for replays' deliveries (below REPLAY_BUDGET_SHARE of either limit). */
export function budgetHasRoomForReplays(budget: InFlightBudget): boolean {
  return budget.usedDeliveries < budget.limits.maxDeliveries * REPLAY_BUDGET_SHARE && budget.usedBytes < budget.limits.maxBytes * REPLAY_BUDGET_SHARE;
}

/**
 * Live is late once its delay is this many times its usual one: the bound on live latency while a
 * replay runs (live p99 within 1.5x of its figure without one) is held with some room.
 */
export const LIVE_DELAY_GROWTH = 1.25;
/** The weight of each tick's delay in the usual delay (an average over the last 20 or so ticks without replays). */
const USUAL_DELAY_WEIGHT = 0.05;
/** The lowest rate, as a share of the highest: replays go on, slowly, however late live is. */
export const MIN_RATE_SHARE = 1 / 100;
/** The rise each tick while live is on time, as a share of the highest rate. */
export const RATE_STEP_SHARE = 1 / 40;
/** The cut each tick while live is late. */
export const RATE_CUT = 0.5;

export class ReplayPace {
  private readonly minRate: number;
  private readonly step: number;
  private currentRate: number;
  /** Live delivery's usual delay, averaged over ticks while no replay ran. */
  private usualDelayMs = 0;
  /** Records that may be read now; refilled at the rate, never above a tenth of a second's worth, below zero after a large take. */
  private tokens = 0;
  private refilledAt: number;

  constructor(
    private readonly limits: ReplayPaceLimits,
    private readonly now: () => number = Date.now,
  ) {
    this.minRate = Math.max(1, limits.maxRecordsPerSecond * MIN_RATE_SHARE);
    this.step = Math.max(1, limits.maxRecordsPerSecond * RATE_STEP_SHARE);
    this.currentRate = this.minRate;
    this.refilledAt = now();
  }

  /** Records a second the replays may read now. */
  get rate(): number {
    return this.currentRate;
  }

  /** Live's delay past which it is late, in ms. */
  get lateAfterMs(): number {
    return Math.max(this.limits.liveDelayMs, LIVE_DELAY_GROWTH * this.usualDelayMs);
  }

  /** Whether live delivery is late by the limits. */
  isLate(live: LiveHealth): boolean {
    return live.delayMs > this.lateAfterMs || live.lagRecords > this.limits.liveLagRecords;
  }

  /**
   * One tick of the controller. While replays run: a cut while live is late, a step up while it is on
   * time. While none runs: live's delay goes into its usual delay, and the rate goes back to the lowest.
   */
  tick(live: LiveHealth, replaying: boolean): void {
    this.refill();
    if (!replaying) {
      this.usualDelayMs += USUAL_DELAY_WEIGHT * (live.delayMs - this.usualDelayMs);
      this.currentRate = this.minRate;
      this.tokens = 0;
      return;
    }
    const next = this.isLate(live) ? this.currentRate * RATE_CUT : this.currentRate + this.step;
    this.currentRate = Math.min(this.limits.maxRecordsPerSecond, Math.max(this.minRate, next));
  }

  /** Milliseconds until a read may start (0: now). */
  waitMs(): number {
    this.refill();
    return this.tokens >= 0 ? 0 : Math.ceil((-this.tokens / this.currentRate) * 1000);
  }

  /** `records` were read: taken whatever their number, so a large read leaves the bucket below zero and the next one waits. */
  take(records: number): void {
    this.refill();
    this.tokens -= records;
  }

  private refill(): void {
    const now = this.now();
    // A tenth of a second's worth at most: after an idle spell reads start at the rate, not in a burst.
    this.tokens = Math.min(this.currentRate / 10, this.tokens + ((now - this.refilledAt) / 1000) * this.currentRate);
    this.refilledAt = now;
  }
}
