// Sorts the result of one write attempt into delivered, retryable and dead items.
import type { DeliveryItem, ItemFailure } from './contract.js';
import type { DeliveryError } from './errors.js';

export interface SortedOutcome {
  readonly acked: readonly DeliveryItem[];
  /** Failed with a retryable error: written again after a backoff. */
  readonly retry: readonly DeliveryItem[];
  /** Failed for good: dead-lettered. */
  readonly dead: readonly ItemFailure[];
  /** The longest wait any failure asked for (Retry-After, throttling hints). */
  readonly retryAfterMs: number | undefined;
  /** The error of the last retryable failure, for logs and the budget-exhausted hook. */
  readonly lastError: DeliveryError | undefined;
}

/**
 * Items of `pending` not named in `failures` were delivered. Failures naming an item outside `pending`
 * are ignored, and an item named twice counts once (its last failure), so a writer's bookkeeping slip
 * can neither settle an item twice nor lose one.
 */
export function sortOutcome(pending: readonly DeliveryItem[], failures: readonly ItemFailure[]): SortedOutcome {
  if (failures.length === 0) return { acked: pending, retry: [], dead: [], retryAfterMs: undefined, lastError: undefined };
  const byItem = new Map<DeliveryItem, ItemFailure>();
  for (const f of failures) byItem.set(f.item, f);
  const acked: DeliveryItem[] = [];
  const retry: DeliveryItem[] = [];
  const dead: ItemFailure[] = [];
  let retryAfterMs: number | undefined;
  let lastError: DeliveryError | undefined;
  for (const item of pending) {
    const f = byItem.get(item);
    if (f === undefined) {
      acked.push(item);
    } else if (f.error.retryable) {
      retry.push(item);
      lastError = f.error;
      if (f.error.retryAfterMs !== undefined) retryAfterMs = Math.max(retryAfterMs ?? 0, f.error.retryAfterMs);
    } else {
      dead.push(f);
    }
  }
  return { acked, retry, dead, retryAfterMs, lastError };
}
