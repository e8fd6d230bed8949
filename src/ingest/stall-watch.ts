// The safety net under the offset tracker (ARCHITECTURE.md "Delivery and commits"): a partition's commits
// stop at its oldest record whose deliveries are not all settled, so a delivery that never settles would
// stall the partition for good, in silence. While a partition's settle loop waits for its records, the
// worker asks this watch about the partition: the age of the oldest unsettled record goes to /metrics,
// and once it is older than STALLED_RECORD_AFTER_MS the record is logged once, with the destinations it
// waits for, whose status then says since when (`stalled_since`).
import type { DeliveryItem } from '../delivery/contract.js';
import type { OffsetTracker, UnsettledRecord } from '../delivery/offset-tracker.js';
import { createLogger, type Logger } from '../telemetry/logger.js';
import { oldestUnsettledAge } from '../telemetry/metrics.js';

export interface StallWatchOptions {
  readonly tracker: OffsetTracker;
  /** STALLED_RECORD_AFTER_MS. */
  readonly afterMs: number;
  /** Whether the destination's runner still holds the delivery (queued, or in a batch being written). */
  readonly holds: (destinationId: string, item: DeliveryItem) => boolean;
  /** Tells a destination's status that a record waits for it since `since`, or no longer (undefined). */
  readonly mark: (destinationId: string, since: number | undefined) => void;
  readonly now?: () => number;
  readonly logger?: Logger;
}

interface Stall {
  readonly offset: number;
  readonly reading: number;
  readonly since: number;
  readonly destinations: readonly string[];
}

export class StallWatch {
  /** Per partition (`topic\0partition`), the record that stalls it. */
  private readonly stalls = new Map<string, Stall>();
  private readonly now: () => number;
  private readonly log: Logger;

  constructor(private readonly opts: StallWatchOptions) {
    this.now = opts.now ?? Date.now;
    this.log = opts.logger ?? createLogger('ingest');
  }

  /** The partition's settle loop waits for its records: measure, and report a record waiting past the bound. */
  check(topic: string, partition: number): void {
    const oldest = this.opts.tracker.oldestUnsettled(topic, partition);
    const now = this.now();
    oldestUnsettledAge.set({ topic, partition: String(partition) }, oldest === undefined ? 0 : Math.max(0, now - oldest.at) / 1000);
    const key = `${topic}\u0000${partition}`;
    const current = this.stalls.get(key);
    if (oldest === undefined || now - oldest.at < this.opts.afterMs) {
      if (current !== undefined) this.end(key, current);
      return;
    }
    if (current !== undefined && current.offset === oldest.offset && current.reading === oldest.reading) return;
    if (current !== undefined) this.end(key, current);
    const { destinations, held } = this.waitingFor(oldest);
    const stall: Stall = { offset: oldest.offset, reading: oldest.reading, since: oldest.at, destinations };
    this.stalls.set(key, stall);
    this.log.warn(
      { topic, partition, offset: oldest.offset, waitingMs: now - oldest.at, pending: oldest.pending, destinations, held, afterMs: this.opts.afterMs },
      held
        ? "A record's deliveries have waited longer than STALLED_RECORD_AFTER_MS; its partition commits nothing past it until they settle."
        : "A record's deliveries have waited longer than STALLED_RECORD_AFTER_MS and no destination holds them any more; its partition commits nothing past it until it is read again.",
    );
    this.remark(destinations);
  }

  /** The partition's settle loop stopped waiting (settled, deadline, stop): nothing of it stalls any more. */
  done(topic: string, partition: number): void {
    oldestUnsettledAge.set({ topic, partition: String(partition) }, 0);
    const key = `${topic}\u0000${partition}`;
    const current = this.stalls.get(key);
    if (current !== undefined) this.end(key, current);
  }

  /**
   * The destinations whose runners still hold one of the record's deliveries; when none does (a delivery
   * lost to the bookkeeping), every destination of the record, with `held` false. A dead letter's record
   * has none: its one delivery is the dead-letter topic.
   */
  private waitingFor(record: UnsettledRecord): { destinations: string[]; held: boolean } {
    const all = new Set<string>();
    const holding = new Set<string>();
    for (const d of record.deliveries ?? []) {
      all.add(d.destinationId);
      if (!holding.has(d.destinationId) && this.opts.holds(d.destinationId, d.item)) holding.add(d.destinationId);
    }
    return holding.size > 0 ? { destinations: [...holding], held: true } : { destinations: [...all], held: false };
  }

  private end(key: string, stall: Stall): void {
    this.stalls.delete(key);
    this.remark(stall.destinations);
  }

  /** Each destination's status: the earliest stall that waits for it, or none. */
  private remark(destinations: readonly string[]): void {
    for (const id of destinations) {
      let since: number | undefined;
      for (const s of this.stalls.values()) if (s.destinations.includes(id) && (since === undefined || s.since < since)) since = s.since;
      this.opts.mark(id, since);
    }
  }
}
