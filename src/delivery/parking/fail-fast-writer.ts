// A circuit in front of a parked destination's writer: while the destination is known to be down, writes
// fail at once (one real probe per interval) so new deliveries reach parking in milliseconds instead of
// each batch waiting out a connect or request timeout and holding the shared in-flight budget.
import { systemClock, type Clock } from '../clock.js';
import { holdsItsPartition, type DeliveryItem, type DestinationWriter, type WriteOutcome, type WriterLimits } from '../contract.js';
import { DeliveryError } from '../errors.js';

export const DEFAULT_PROBE_INTERVAL_MS = 5_000;

export class FailFastWriter implements DestinationWriter {
  private trippedAt: number | undefined;
  private lastProbeAt = 0;
  private lastError: DeliveryError | undefined;

  constructor(
    readonly inner: DestinationWriter,
    private readonly probeIntervalMs = DEFAULT_PROBE_INTERVAL_MS,
    private readonly clock: Clock = systemClock,
  ) {}

  get kind(): string {
    return this.inner.kind;
  }

  get limits(): WriterLimits {
    return this.inner.limits;
  }

  get isTripped(): boolean {
    return this.trippedAt !== undefined;
  }

  /** The destination's deliveries were parked: fail fast until a write or a health check succeeds. */
  trip(error: DeliveryError): void {
    this.lastError = error;
    if (this.trippedAt !== undefined) return;
    this.trippedAt = this.clock.now();
    this.lastProbeAt = this.trippedAt;
  }

  /** The destination looks healthy again: let every write through. */
  reset(): void {
    this.trippedAt = undefined;
  }

  connect(): Promise<void> {
    return this.inner.connect();
  }

  async write(batch: readonly DeliveryItem[]): Promise<WriteOutcome> {
    // Re-driven deliveries are written for real: their re-driver hands them over only after a health check passed.
    if (this.trippedAt !== undefined && batch.some(holdsItsPartition)) {
      const now = this.clock.now();
      if (now - this.lastProbeAt < this.probeIntervalMs) {
        const why = this.lastError === undefined ? '' : ` after ${this.lastError.code}: ${this.lastError.message}`;
        throw new DeliveryError('DESTINATION_UNHEALTHY', `The destination has been parked since ${new Date(this.trippedAt).toISOString()}${why}`, {
          cause: this.lastError,
        });
      }
      // One batch in a probe interval tries the destination for real.
      this.lastProbeAt = now;
    }
    const outcome = await this.inner.write(batch);
    // Any delivered item shows the destination takes writes again.
    if (outcome.failed.length < batch.length) this.reset();
    return outcome;
  }

  healthcheck(): Promise<void> {
    return this.inner.healthcheck();
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
