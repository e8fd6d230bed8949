// One replay read by this worker (ARCHITECTURE.md "Replay"): an ingest worker of the replay's own
// consumer group, whose router holds the subscription alone as it is now, with no start time and the
// replay's destinations, and passes only records of the range ([from, to) by timestamp, below each
// partition's end offset). Its deliveries go through the same destination runners as live ones; each
// commit behind settled deliveries is a checkpoint written to the progress topic.
import type { TrafficOwners } from '../accounts/traffic-owners.js';
import type { StoredDestination, StoredSubscription } from '../configlog/resources.js';
import { Signal } from '../delivery/clock.js';
import type { DeadLetterSink } from '../delivery/dead-letter.js';
import type { DestinationPool } from '../delivery/destination-pool.js';
import type { InFlightBudget } from '../delivery/in-flight-budget.js';
import { OffsetTracker } from '../delivery/offset-tracker.js';
import type { TrafficEventType } from '../events/catalog.js';
import { IngestWorker } from '../ingest/ingest-worker.js';
import { RecordRouter, type ConsumedMessage, type RouteResult } from '../ingest/record-router.js';
import type { BatchScope, KafkaClient, PartitionBatch } from '../kafka/seam.js';
import { createAuditDecoder } from '../records/audit-decoder.js';
import { createRecordDecoder } from '../records/record-decoder.js';
import { SubscriptionSet } from '../subscriptions/subscription-set.js';
import { REPLAY_FETCH_MAX_BYTES, REPLAY_SLICE_RECORDS } from './replay-pace.js';
import { progressKey, replayGroupId, type ReplayPartition, type ReplayProgressReport, type StoredReplay } from './replay-record.js';

/** What a replay's reader needs of the worker, handed on by the engine as it has them. */
export interface ReplayReaderDeps {
  readonly kafka: KafkaClient;
  readonly consumerGroup: string;
  readonly owners: TrafficOwners;
  readonly trafficTopics: ReadonlyMap<string, TrafficEventType>;
  readonly pool: DestinationPool;
  readonly deadLetter: DeadLetterSink;
  readonly budget: InFlightBudget;
  readonly drainTimeoutMs: number;
  readonly stalledRecordAfterMs: number;
  readonly sessionTimeoutMs: number;
}

export interface ReplayRunDeps extends ReplayReaderDeps {
  /** Waits until `records` more may be read (the worker's replay read rate). */
  pace(records: number, scope: BatchScope): Promise<void>;
  /** The latest checkpoint of a partition, from the progress board. */
  checkpoint(key: string): ReplayProgressReport | undefined;
  /** Writes a checkpoint to the progress topic. */
  publish(report: ReplayProgressReport): void;
  /** Called with each record source this run routes deliveries of, so their settlements come back here. */
  claim(source: object, run: ReplayRun): void;
  /** Records of the range read, for the metrics. */
  scanned(replay: string, records: number): void;
}

const NOTHING: RouteResult = Object.freeze({ type: 'deliver', deliveries: Object.freeze([]) });
/** A partition's checkpoint is written at most this often while it runs; its last one at once. */
const CHECKPOINT_EVERY_MS = 500;

/** The subscription as a replay matches it: its current sources of the replay's types, to the replay's destinations, from any time. */
export function replaySubscription(sub: StoredSubscription, replay: StoredReplay): StoredSubscription {
  return {
    ...sub,
    // The subscription-start rule does not apply inside a replay's range (ARCHITECTURE.md "Replay").
    created_at: '1970-01-01T00:00:00.000Z',
    enabled: true,
    sources: sub.sources.filter((s) => replay.sources.includes(s.type)),
    destination_ids: sub.destination_ids.filter((d) => replay.destination_ids.includes(d)),
  };
}

export class ReplayRun {
  private readonly worker: IngestWorker;
  private readonly tracker = new OffsetTracker();
  private readonly settled = new Signal();
  private readonly partitions = new Map<string, ReplayPartition>();
  private readonly delivered = new Map<string, number>();
  private readonly startedAt = new Map<string, number>();
  private readonly lastWritten = new Map<string, number>();
  private readonly trailing = new Set<string>();
  private readonly committed = new Map<string, number>();
  private readonly set: SubscriptionSet;
  private stopped: Promise<void> | undefined;

  constructor(
    readonly replay: StoredReplay,
    sub: StoredSubscription,
    destinations: readonly StoredDestination[],
    private readonly deps: ReplayRunDeps,
  ) {
    for (const p of replay.partitions) this.partitions.set(`${p.topic}\u0000${p.partition}`, p);
    this.set = new SubscriptionSet(deps.owners);
    for (const d of destinations) this.set.setFormat(d);
    this.set.put(replaySubscription(sub, replay));
    const inner = new RecordRouter({
      subscriptions: this.set,
      // Malformed records were dead-lettered by live delivery; a replay skips them.
      decoder: createRecordDecoder({ validateAll: false }),
      auditDecoder: createAuditDecoder(),
      trafficTopics: deps.trafficTopics,
      auditTopic: '',
      clockSkewMs: 0,
    });
    const fromMs = Date.parse(replay.from);
    const toMs = Date.parse(replay.to);
    const router = {
      route: (topic: string, partition: number, msg: ConsumedMessage, reading: number): RouteResult => {
        const p = this.partitions.get(`${topic}\u0000${partition}`);
        const offset = Number(msg.offset);
        const ts = Number(msg.timestamp);
        if (p === undefined || offset < p.start || offset >= p.end || ts < fromMs || ts >= toMs) return NOTHING;
        const result = inner.route(topic, partition, msg, reading);
        if (result.type === 'dead_letter') return NOTHING;
        if (result.source !== undefined) deps.claim(result.source, this);
        return result;
      },
      flushMetrics: () => inner.flushMetrics(),
    };
    const topics = [...new Set(replay.partitions.map((p) => p.topic))];
    this.worker = new IngestWorker({
      kafka: deps.kafka,
      groupId: replayGroupId(deps.consumerGroup, replay.id),
      topics,
      router,
      pool: deps.pool,
      deadLetter: deps.deadLetter,
      budget: deps.budget,
      tracker: this.tracker,
      settled: this.settled,
      drainTimeoutMs: deps.drainTimeoutMs,
      stalledRecordAfterMs: deps.stalledRecordAfterMs,
      sessionTimeoutMs: deps.sessionTimeoutMs,
      partitionsConsumedConcurrently: 2,
      fetchMaxBytes: REPLAY_FETCH_MAX_BYTES,
      replay: {
        sliceRecords: REPLAY_SLICE_RECORDS,
        beforeRecords: (batch, from, to, scope) => this.beforeRecords(batch, from, to, scope),
        onCommitted: (topic, partition, offset) => this.checkpoint(topic, partition, offset),
      },
    });
  }

  get id(): string {
    return this.replay.id;
  }

  start(): Promise<void> {
    return this.worker.start();
  }

  /** Stops reading at once (the records in flight settle within the drain deadline) and leaves the group. */
  stop(): Promise<void> {
    // The subscription set follows nothing of its own (the traffic owners are the live ones'), so there is nothing more to stop.
    this.stopped ??= this.worker.stop();
    return this.stopped;
  }

  /** A delivery of this run settled: its record may be committed, and it counts as delivered. */
  settle(source: { topic: string; partition: number; offset: number; reading?: number }): void {
    if (source.reading === undefined) return;
    this.tracker.settle(source as Required<typeof source>);
    const key = `${source.topic}\u0000${source.partition}`;
    this.delivered.set(key, (this.delivered.get(key) ?? this.resumedDelivered(source.topic, source.partition)) + 1);
    this.settled.notify();
  }

  private resumedDelivered(topic: string, partition: number): number {
    return this.deps.checkpoint(progressKey(this.replay.id, topic, partition))?.events_delivered ?? 0;
  }

  private async beforeRecords(batch: PartitionBatch, from: number, to: number, scope: BatchScope): Promise<void> {
    const key = `${batch.topic}\u0000${batch.partition}`;
    const p = this.partitions.get(key);
    if (p === undefined || batch.messages[from] === undefined) return;
    if (!this.startedAt.has(key)) {
      this.startedAt.set(key, this.deps.checkpoint(progressKey(this.replay.id, batch.topic, batch.partition))?.started_at ?? Date.now());
    }
    // Only records of the range cost the read rate: those past its end are passed over.
    const inRange = batch.messages.slice(from, to).filter((m) => Number(m.offset) < p.end).length;
    if (inRange > 0) {
      await this.deps.pace(inRange, scope);
      this.deps.scanned(this.replay.id, inRange);
    }
  }

  private checkpoint(topic: string, partition: number, offset: number): void {
    const key = `${topic}\u0000${partition}`;
    const p = this.partitions.get(key);
    if (p === undefined) return;
    const latest = Math.max(offset, this.committed.get(key) ?? 0);
    this.committed.set(key, latest);
    const next = Math.min(latest, p.end);
    const before = this.deps.checkpoint(progressKey(this.replay.id, topic, partition));
    if (before !== undefined && before.next >= next) return;
    const now = Date.now();
    const wait = CHECKPOINT_EVERY_MS - (now - (this.lastWritten.get(key) ?? 0));
    if (next < p.end && wait > 0) {
      // Written once the interval is up, unless a later commit writes first.
      if (!this.trailing.has(key)) {
        this.trailing.add(key);
        setTimeout(() => {
          this.trailing.delete(key);
          this.checkpoint(topic, partition, this.committed.get(key) ?? offset);
        }, wait).unref();
      }
      return;
    }
    this.lastWritten.set(key, now);
    this.deps.publish({
      v: 1,
      replay: this.replay.id,
      topic,
      partition,
      next,
      end: p.end,
      events_delivered: this.delivered.get(key) ?? this.resumedDelivered(topic, partition),
      started_at: this.startedAt.get(key) ?? now,
      at: now,
    });
  }
}
