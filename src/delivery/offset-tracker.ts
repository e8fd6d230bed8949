// At-least-once commit bookkeeping: per topic-partition, the offset that may be committed is the first
// record whose deliveries are not all settled (acknowledged, dead-lettered or parked).
import { inFlight } from '../telemetry/metrics.js';
import type { DeliveryItem, SourceRef } from './contract.js';

/**
 * A record as the tracker knows it: its place, and the reading of its partition it came from (a number
 * the consumer gives each read of the partition from its committed offset: PartitionBatch.reading). A
 * delivery settles the record whose topic, partition, offset and reading equal its item's `source`; any
 * object with those values does, so no route can make a delivery that settles nothing.
 */
export interface TrackedRecord extends SourceRef {
  readonly reading: number;
}

/** A delivery of a tracked record, as the tracker keeps it for a report of what a record waits for. */
export interface TrackedDelivery {
  readonly destinationId: string;
  readonly item: DeliveryItem;
}

interface Entry {
  readonly offset: number;
  pending: number;
  /** When the batch that read the record began (ms since the epoch). */
  readonly at: number;
  readonly deliveries: readonly TrackedDelivery[] | undefined;
}

/** The oldest record of a partition whose deliveries are not all settled. */
export interface UnsettledRecord {
  readonly offset: number;
  readonly reading: number;
  /** When the batch that read it began (ms since the epoch). */
  readonly at: number;
  readonly pending: number;
  /** Its deliveries (settled ones included), or undefined for a record whose one delivery is its dead letter. */
  readonly deliveries: readonly TrackedDelivery[] | undefined;
}

/** A partition's bookkeeping before any batch began (advance() after a reset): matches no reading. */
const NO_READING = -1;

class PartitionState {
  /** Entries with pending deliveries, in offset order; entries[head] is the oldest still tracked. */
  entries: Entry[] = [];
  head = 0;
  readonly byOffset = new Map<number, Entry>();
  lastTracked = -1;
  /** When the current batch began. */
  batchAt: number;

  constructor(
    readonly reading: number,
    now: number,
  ) {
    this.batchAt = now;
  }
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

  constructor(private readonly now: () => number = Date.now) {}

  /**
   * A batch of the partition begins. A batch of another reading than the partition's bookkeeping (the
   * consumer read the partition again from its committed offset: a group join, a restart of its stream),
   * or one starting before the committable offset (a seek), starts the bookkeeping afresh, whatever the
   * offsets: deliveries still in flight from before settle into nothing (settle()).
   */
  begin(topic: string, partition: number, reading: number, firstOffset: number): void {
    let state = this.state(topic, partition);
    if (state !== undefined && (state.reading !== reading || firstOffset < (this.committable(topic, partition) ?? 0))) {
      this.reset(topic, partition);
      state = undefined;
    }
    state ??= this.create(topic, partition, reading);
    state.batchAt = this.now();
  }

  /**
   * Records a consumed record with `pendingDeliveries` deliveries still to settle; `deliveries`, when
   * given, is kept (not copied) to tell what a record that waits too long waits for. Offsets must increase
   * within a reading.
   */
  track(source: TrackedRecord, pendingDeliveries: number, deliveries?: readonly TrackedDelivery[]): void {
    const { topic, partition, offset } = source;
    let state = this.state(topic, partition);
    if (state === undefined || state.reading !== source.reading) {
      if (state !== undefined) this.reset(topic, partition);
      state = this.create(topic, partition, source.reading);
    }
    if (offset <= state.lastTracked) {
      throw new RangeError(`Offset ${offset} of ${topic}/${partition} is not after ${state.lastTracked} in one reading of the partition.`);
    }
    state.lastTracked = offset;
    if (pendingDeliveries <= 0) return;
    const entry: Entry = { offset, pending: pendingDeliveries, at: state.batchAt, deliveries };
    state.entries.push(entry);
    state.byOffset.set(offset, entry);
    inFlight.records++;
  }

  /** Every record up to `offset` has been read; those not passed to track() have nothing to deliver. */
  advance(topic: string, partition: number, offset: number): void {
    const state = this.state(topic, partition) ?? this.create(topic, partition, NO_READING);
    if (offset > state.lastTracked) state.lastTracked = offset;
  }

  /**
   * One delivery of the record is settled: the record with the topic, partition, offset and reading of
   * `source`. A delivery from an earlier reading (one in flight across a reset) settles into nothing,
   * even when the same offset was read and tracked again since; returns false then.
   */
  settle(source: SourceRef): boolean {
    const state = this.state(source.topic, source.partition);
    if (state === undefined || state.reading !== source.reading) return false;
    const entry = state.byOffset.get(source.offset);
    if (entry === undefined) return false;
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
    const state = this.state(topic, partition);
    if (state === undefined || state.lastTracked < 0) return undefined;
    const first = state.entries[state.head];
    return first === undefined ? state.lastTracked + 1 : first.offset;
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
    return this.state(topic, partition)?.byOffset.size ?? 0;
  }

  /** The partition's oldest record with deliveries still pending, or undefined when none is. */
  oldestUnsettled(topic: string, partition: number): UnsettledRecord | undefined {
    const state = this.state(topic, partition);
    const first = state?.entries[state.head];
    if (state === undefined || first === undefined) return undefined;
    return { offset: first.offset, reading: state.reading, at: first.at, pending: first.pending, deliveries: first.deliveries };
  }

  /** When the batch of the oldest record with deliveries pending began, over every partition; undefined when none is pending. */
  oldestPendingAt(): number | undefined {
    let oldest: number | undefined;
    for (const partitions of this.topics.values()) {
      for (const state of partitions.values()) {
        const first = state.entries[state.head];
        if (first !== undefined && (oldest === undefined || first.at < oldest)) oldest = first.at;
      }
    }
    return oldest;
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

  private create(topic: string, partition: number, reading: number): PartitionState {
    let partitions = this.topics.get(topic);
    if (partitions === undefined) this.topics.set(topic, (partitions = new Map()));
    const state = new PartitionState(reading, this.now());
    partitions.set(partition, state);
    return state;
  }

  private state(topic: string, partition: number): PartitionState | undefined {
    return this.topics.get(topic)?.get(partition);
  }
}
