// How many deliveries wait in a destination's retry topic: its end offsets less what its re-drive group
// has committed, measured by the workers that re-drive it, for the destination's status (`parked_events`).
import type { KafkaAdmin, KafkaClient, PartitionOffsets } from '../../kafka/seam.js';
import { systemClock, type Clock } from '../clock.js';
import type { ParkedBacklog } from '../status/status-report.js';

export interface PartitionProgress extends PartitionOffsets {
  /** The re-drive group's next offset to read; -1 before its first commit. */
  readonly committed: number;
}

/** Where a retry topic's re-drive group stands on each partition. */
export async function retryTopicProgress(admin: KafkaAdmin, topic: string, groupId: string): Promise<PartitionProgress[]> {
  const offsets = await admin.partitionOffsets(topic);
  const committed = await admin.committedOffsets(groupId, topic);
  return offsets.map((o) => ({ ...o, committed: committed.get(o.partition) ?? -1 }));
}

/** Parked and not yet re-driven: from the committed offset (or the first one kept, before any commit) to the end. */
export function backlogOf(progress: readonly PartitionProgress[]): number {
  return progress.reduce((n, p) => n + Math.max(0, p.high - Math.max(p.committed, p.low)), 0);
}

export interface BacklogMeterOptions {
  readonly kafka: KafkaClient;
  readonly topicOf: (destinationId: string) => string;
  readonly groupOf: (destinationId: string) => string;
  /** A destination with a backlog, or one just parked, is measured this often... */
  readonly busyEveryMs: number;
  /** ...and one with none this often. */
  readonly idleEveryMs: number;
  readonly clock?: Clock;
}

export class BacklogMeter {
  private readonly measured = new Map<string, ParkedBacklog>();
  private readonly clock: Clock;
  /** One admin client for the measurements, made on first use and again after a failure. */
  private admin: KafkaAdmin | undefined;

  constructor(private readonly opts: BacklogMeterOptions) {
    this.clock = opts.clock ?? systemClock;
  }

  get(destinationId: string): ParkedBacklog | undefined {
    return this.measured.get(destinationId);
  }

  /** Measures those of `destinations` that are due; `busy` says which were parked to lately. Failures wait for the next round. */
  async measure(destinations: Iterable<{ readonly id: string; readonly busy: boolean }>): Promise<void> {
    const now = this.clock.now();
    for (const { id, busy } of destinations) {
      const last = this.measured.get(id);
      const every = busy || (last?.events ?? 0) > 0 ? this.opts.busyEveryMs : this.opts.idleEveryMs;
      if (last !== undefined && now - last.checkedAt < every) continue;
      try {
        this.admin ??= this.opts.kafka.admin();
        const admin = this.admin;
        const events = backlogOf(await retryTopicProgress(admin, this.opts.topicOf(id), this.opts.groupOf(id)));
        this.measured.set(id, { events, checkedAt: this.clock.now() });
      } catch {
        await this.close();
        return;
      }
    }
  }

  /** The destination's retry topic is gone, or no longer re-driven here. */
  forget(destinationId: string): void {
    this.measured.delete(destinationId);
  }

  async close(): Promise<void> {
    const admin = this.admin;
    this.admin = undefined;
    await admin?.close().catch(() => undefined);
  }
}
