// The global bound on in-flight deliveries, shared by every destination runner: memory stays bounded
// because the ingest consumer pauses when the budget is spent instead of letting a queue grow.
import { inFlight } from '../telemetry/metrics.js';

export interface InFlightLimits {
  /** Most deliveries (one item at one destination) queued or being written, across all destinations. */
  readonly maxDeliveries: number;
  /** Most payload bytes of those deliveries. A payload shared by several destinations counts once per destination. */
  readonly maxBytes: number;
}

export const DEFAULT_IN_FLIGHT_LIMITS: InFlightLimits = Object.freeze({
  maxDeliveries: 50_000,
  maxBytes: 256 * 1024 * 1024,
});

/**
 * A soft limit: acquire() never blocks, because a consumed record must always be accepted. The
 * consumer checks hasCapacity() before fetching more, so the overshoot is at most one fetch.
 */
export class InFlightBudget {
  private deliveries = 0;
  private bytes = 0;
  private waiting: Promise<void> | undefined;
  private wake: (() => void) | undefined;

  constructor(readonly limits: InFlightLimits = DEFAULT_IN_FLIGHT_LIMITS) {}

  get usedDeliveries(): number {
    return this.deliveries;
  }

  get usedBytes(): number {
    return this.bytes;
  }

  hasCapacity(): boolean {
    return this.deliveries < this.limits.maxDeliveries && this.bytes < this.limits.maxBytes;
  }

  /** Resolves as soon as hasCapacity() is true (at once if it already is). */
  whenCapacity(): Promise<void> {
    if (this.hasCapacity()) return Promise.resolve();
    this.waiting ??= new Promise<void>((resolve) => {
      this.wake = resolve;
    });
    return this.waiting;
  }

  acquire(deliveries: number, bytes: number): void {
    this.deliveries += deliveries;
    this.bytes += bytes;
    inFlight.deliveries += deliveries;
    inFlight.deliveryBytes += bytes;
  }

  release(deliveries: number, bytes: number): void {
    this.deliveries -= deliveries;
    this.bytes -= bytes;
    inFlight.deliveries -= deliveries;
    inFlight.deliveryBytes -= bytes;
    if (this.wake !== undefined && this.hasCapacity()) {
      const wake = this.wake;
      this.wake = undefined;
      this.waiting = undefined;
      wake();
    }
  }
}
