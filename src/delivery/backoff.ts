// Retry policy of the delivery layer: exponential backoff with full jitter, bounded by a retry budget.

export interface RetryPolicy {
  /** Delay cap of the first retry; it doubles with every attempt. */
  readonly baseDelayMs: number;
  /** No single wait is longer than this (except a destination's own Retry-After, see below). */
  readonly maxDelayMs: number;
  /** The retry budget in attempts: after this many failed attempts the budget-exhausted hook runs. */
  readonly maxAttempts: number;
  /** The retry budget in time since the batch's first attempt. */
  readonly maxElapsedMs: number;
  /** A destination's Retry-After is honoured up to this much, so a bogus header cannot stall a runner for days. */
  readonly maxRetryAfterMs: number;
}

/**
 * No wait between attempts is longer than 5 s (a destination's Retry-After aside): a destination that
 * comes back is written to, and shows ok in its status, within seconds (ARCHITECTURE.md "Destination
 * status"). The 10 attempts then take about 11 s on average (at most 21 s of waits) before parking;
 * deliveries of consumed records park sooner, once they have waited PARK_AFTER_MS (runner-options.ts).
 */
export const DEFAULT_RETRY_POLICY: RetryPolicy = Object.freeze({
  baseDelayMs: 100,
  maxDelayMs: 5_000,
  maxAttempts: 10,
  maxElapsedMs: 120_000,
  maxRetryAfterMs: 300_000,
});

/**
 * The wait before retry number `attempt` (1 for the first retry). "Full jitter", from the AWS
 * Architecture Blog's "Exponential Backoff And Jitter": sleep = random_between(0, min(cap, base * 2 ** attempt)).
 * Spreading retries over the whole window keeps many workers from hammering a recovering destination in step.
 */
export function backoffDelay(policy: RetryPolicy, attempt: number, random: () => number = Math.random): number {
  const exponent = Math.min(Math.max(attempt - 1, 0), 30);
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** exponent);
  return Math.floor(random() * ceiling);
}

/** The backoff delay, but never shorter than the destination asked for (capped by maxRetryAfterMs). */
export function retryDelay(
  policy: RetryPolicy,
  attempt: number,
  retryAfterMs: number | undefined,
  random: () => number = Math.random,
): number {
  const jittered = backoffDelay(policy, attempt, random);
  if (retryAfterMs === undefined || retryAfterMs <= 0) return jittered;
  return Math.max(jittered, Math.min(retryAfterMs, policy.maxRetryAfterMs));
}
