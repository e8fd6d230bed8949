// At-least-once commit bookkeeping: per topic-partition, the offset that may be committed is the first
// record whose deliveries are not all settled (acknowledged, dead-lettered or parked).
import { inFlight } from '../telemetry/metrics.js';
import type { SourceRef } from './contract.js';

interface Entry {
  /** The object the record's deliveries carry: only their settlements count (see settle()). */
  readonly source: SourceRef;
  pending: number;
}

class PartitionState {
  /** Entries with pending deliveries, in offset order; entries[head] is the oldest still tracked. */
  entries: Entry[] = [];
  head = 0;
  readonly byOffset = new Map<number, Entry>();
  lastTracked = -1;
}

export interface CommittableOffset {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
}

/**
 * Offsets are plain numbers (exact up to 2^53, far beyond any real partition). Each call is O(1)
 * amortised: settle() finds its entry through a map, and the head only moves forward. Records whose
 * deliveries are all settled at track() time (including records with no deliveries) store nothing.
 */
export class OffsetTracker {
  private readonly topics = new Map<string, Map<number, PartitionState>>();

  /**
   * Records a consumed record with `pendingDeliveries` deliveries still to settle; their items carry
   * `source`. Offsets must increase.
   */
  track(source: SourceRef, pendingDeliveries: number): void {
    const { topic, partition, offset } = source;
    const state = this.state(topic, partition, true);
    if (offset <= state.lastTracked) {
      throw new RangeError(
        `Offset ${offset} of ${topic}/${partition} is not after ${state.lastTracked}; reset() the partition when it is reassigned.`,
      );
    }
    state.lastTracked = offset;
    if (pendingDeliveries <= 0) return;
    const entry: Entry = { source, pending: pendingDeliveries };
    state.entries.push(entry);
    state.byOffset.set(offset, entry);
    inFlight.records++;
  }

  /** Every record up to `offset` has been read; those not passed to track() have nothing to deliver. */
  advance(topic: string, partition: number, offset: number): void {
    const state = this.state(topic, partition, true);
    if (offset > state.lastTracked) state.lastTracked = offset;
  }

  /**
   * One delivery of the record is settled. Only a delivery of the tracked record counts (its item's
   * `source` is the object given to track()): one still in flight from before a reset() settles into
   * nothing, even when the same offset was read and tracked again since. Returns false then.
   */
  settle(source: SourceRef): boolean {
    const state = this.state(source.topic, source.partition, false);
    const entry = state?.byOffset.get(source.offset);
    if (state === undefined || entry === undefined || entry.source !== source) return false;
    entry.pending--;
    if (entry.pending > 0) return true;
    state.byOffset.delete(source.offset);
    inFlight.records--;
    while (state.head < state.entries.length && (state.entries[state.head] as Entry).pending === 0) state.head++;
    if (state.head === state.entries.length) {
      state.entries = [];
      state.head = 0;
    } else if (state.head > 1024 && state.head * 2 > state.entries.length) {
      state.entries = state.entries.slice(state.head);
      state.head = 0;
    }
    return true;
  }

  /**
   * The offset to commit, or undefined when nothing was tracked. Kafka's rule (KafkaConsumer#commitSync
   * javadoc): "The committed offset should be the next message your application will consume, i.e.
   * lastProcessedMessageOffset + 1." So it is the first unsettled offset, or last tracked + 1 when all
   * are settled: never past a record with a delivery still pending.
   */
  committable(topic: string, partition: number): number | undefined {
    const state = this.state(topic, partition, false);
    if (state === undefined || state.lastTracked < 0) return undefined;
    const first = state.entries[state.head];
    return first === undefined ? state.lastTracked + 1 : first.source.offset;
  }

  /** Every tracked partition with its committable offset. */
  committableOffsets(): CommittableOffset[] {
    const out: CommittableOffset[] = [];
    for (const [topic, partitions] of this.topics) {
      for (const partition of partitions.keys()) {
        const offset = this.committable(topic, partition);
        if (offset !== undefined) out.push({ topic, partition, offset });
      }
    }
    return out;
  }

  /** Records of the partition with deliveries still pending. */
  pending(topic: string, partition: number): number {
    return this.state(topic, partition, false)?.byOffset.size ?? 0;
  }

  /** Forgets every partition: after a consumer group join, each is read again from its committed offset. */
  resetAll(): void {
    for (const [topic, partitions] of [...this.topics]) for (const partition of [...partitions.keys()]) this.reset(topic, partition);
  }

  /** Forgets a partition (revoked, or reassigned and read again from its committed offset). */
  reset(topic: string, partition: number): void {
    const partitions = this.topics.get(topic);
    const state = partitions?.get(partition);
    if (partitions === undefined || state === undefined) return;
    inFlight.records -= state.byOffset.size;
    partitions.delete(partition);
    if (partitions.size === 0) this.topics.delete(topic);
  }

  private state(topic: string, partition: number, create: true): PartitionState;
  private state(topic: string, partition: number, create: false): PartitionState | undefined;
  private state(topic: string, partition: number, create: boolean): PartitionState | undefined {
    let partitions = this.topics.get(topic);
    if (partitions === undefined) {
      if (!create) return undefined;
      partitions = new Map();
      this.topics.set(topic, partitions);
    }
    let state = partitions.get(partition);
    if (state === undefined && create) {
      state = new PartitionState();
      partitions.set(partition, state);
    }
    return state;
  }
}
