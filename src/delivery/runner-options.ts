// Options and hooks of a destination runner: batching, retry budget, settlement and the budget-exhausted hook.
import type { Logger } from '../telemetry/logger.js';
import type { RetryPolicy } from './backoff.js';
import type { Clock } from './clock.js';
import type { DeliveryItem, DestinationWriter, ItemFailure } from './contract.js';
import type { DeadLetterSink } from './dead-letter.js';
import type { DestinationHealth } from './destination-health.js';
import type { DeliveryError } from './errors.js';
import type { DeliveryTally } from './history/history-recorder.js';
import type { InFlightBudget } from './in-flight-budget.js';

export interface BatchingOptions {
  /** Cut a batch at this many records (further capped by the writer's limits). */
  readonly maxRecords: number;
  /** Cut a batch at this many bytes (further capped by the writer's limits). */
  readonly maxBytes: number;
  /** How long the first queued item may wait for a batch to fill. */
  readonly lingerMs: number;
  /**
   * Batches written at once. 1 keeps a destination's events in order (a failing batch holds back the
   * ones behind it); more trades that order for throughput.
   */
  readonly maxInFlightBatches: number;
}

/**
 * Each writer's limits cap these (http and the AWS stream kinds take 500 records a request). Kafka
 * writes of 1,000 events cost the worker about 5% less CPU a record than writes of 500 (measured with
 * bench/profile/profile-worker.ts, bench/results/PROFILE.md).
 */
export const DEFAULT_BATCHING: BatchingOptions = Object.freeze({
  maxRecords: 1000,
  maxBytes: 1024 * 1024,
  lingerMs: 50,
  maxInFlightBatches: 1,
});

/** How one delivery ended. Each settles the item's offset (ARCHITECTURE.md "Delivery semantics"). */
export type Settlement = 'acked' | 'dead_lettered' | 'parked';

/** Called once per item and destination when its delivery is settled. Must not throw (it is guarded anyway). */
export type SettlementListener = (item: DeliveryItem, settlement: Settlement, destinationId: string) => void;

export interface BudgetExhaustedContext {
  readonly destinationId: string;
  readonly kind: string;
  /** The items still failing, all with retryable errors. */
  readonly items: readonly DeliveryItem[];
  readonly attempts: number;
  readonly elapsedMs: number;
  readonly lastError: DeliveryError;
  /** Aborts when the runner is closed past its drain deadline. */
  readonly signal: AbortSignal;
}

/**
 * What to do once a batch has spent its retry budget. 'parked' means the hook has durably stored the
 * items elsewhere (the destination's retry topic), so the runner settles them as parked; `{ parkedExcept }`
 * means it stored all but those, which can never be stored there (an event over the retry topic's size
 * limit), so the runner dead-letters them with their error; 'keep_retrying' starts a new budget window.
 */
export type BudgetExhaustedDecision = 'keep_retrying' | 'parked' | { readonly parkedExcept: readonly ItemFailure[] };
export type OnBudgetExhausted = (ctx: BudgetExhaustedContext) => Promise<BudgetExhaustedDecision>;

/**
 * The default until parking exists: never give up on a delivery, but say so once per budget window.
 * `log` is the runner's logger, which already names the destination.
 */
export function keepRetrying(log: Logger): OnBudgetExhausted {
  return async (ctx) => {
    log.error(
      {
        records: ctx.items.length,
        attempts: ctx.attempts,
        elapsedMs: ctx.elapsedMs,
        code: ctx.lastError.code,
        reason: ctx.lastError.message,
      },
      'The destination has spent its retry budget; its deliveries stay queued and are retried.',
    );
    return 'keep_retrying';
  };
}

export interface DestinationRunnerOptions {
  readonly destinationId: string;
  readonly writer: DestinationWriter;
  readonly budget: InFlightBudget;
  readonly deadLetter: DeadLetterSink;
  readonly onSettled: SettlementListener;
  readonly batching?: Partial<BatchingOptions>;
  readonly retry?: Partial<RetryPolicy>;
  readonly onBudgetExhausted?: OnBudgetExhausted;
  /**
   * PARK_AFTER_MS: a delivery of a consumed record, which holds its partition's commit and next
   * batches, is handed to onBudgetExhausted once it has waited this long for the destination, queued
   * behind a write or in a write not yet answered (ARCHITECTURE.md "Isolation"). Absent: it waits.
   */
  readonly parkAfterMs?: number;
  /** The destination's health, kept by the pool across runner replacements; the runner makes its own without. */
  readonly health?: DestinationHealth;
  /**
   * Called with deliveries the runner gives up unsettled (close past its deadline, discard). Without
   * it they simply stay unsettled, so their offsets are not committed and they are read again.
   */
  readonly onAbandoned?: (items: readonly DeliveryItem[]) => void;
  /** Counts each delivery into the destination's history (src/delivery/history/); none without it. */
  readonly tally?: DeliveryTally;
  readonly clock?: Clock;
  /** Source of jitter; tests pass a fixed one. */
  readonly random?: () => number;
  readonly logger?: Logger;
}

export interface CloseResult {
  /** True when everything queued was settled before the deadline. */
  readonly drained: boolean;
  /** Deliveries given up unsettled at the deadline: their offsets stay uncommitted and are read again. */
  readonly abandoned: number;
}
