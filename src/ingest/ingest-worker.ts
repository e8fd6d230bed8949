// The ingest worker: one member of the consumer group. Each fetched batch is routed, its deliveries
// queued, and its offsets committed only behind records whose every delivery has settled (ARCHITECTURE.md
// "Delivery semantics"). A batch drains before the next one of its partition starts, so a rebalance
// or a SIGTERM (kafkajs waits for running batches) drains within the deadline, then commits.
import type { Consumer, EachBatchPayload, Kafka } from 'kafkajs';
import { Signal } from '../delivery/clock.js';
import { destinationRemovedLetter, type DeadLetter, type DeadLetterSink } from '../delivery/dead-letter.js';
import type { DestinationPool } from '../delivery/destination-pool.js';
import type { InFlightBudget } from '../delivery/in-flight-budget.js';
import type { OffsetTracker } from '../delivery/offset-tracker.js';
import { heartbeatFor } from '../kafka/group-session.js';
import { createLogger } from '../telemetry/logger.js';
import { consumerLag, recordsConsumed } from '../telemetry/metrics.js';
import type { RecordRouter } from './record-router.js';

export interface IngestWorkerOptions {
  readonly kafka: Kafka;
  readonly groupId: string;
  readonly topics: readonly string[];
  readonly router: RecordRouter;
  readonly pool: DestinationPool;
  readonly deadLetter: DeadLetterSink;
  readonly budget: InFlightBudget;
  readonly tracker: OffsetTracker;
  /** Settlements wake the batches waiting on them. */
  readonly settled: Signal;
  readonly drainTimeoutMs: number;
  readonly partitionsConsumedConcurrently?: number;
  /** The consumer group session timeout; kafkajs's default (30 s) when absent. */
  readonly sessionTimeoutMs?: number;
}

const log = createLogger('ingest');
const HEARTBEAT_EVERY_MS = 1_000;
/** A power of two: the loop checks `i & (STALE_CHECK_EVERY - 1)`. */
const STALE_CHECK_EVERY = 64;

export class IngestWorker {
  private readonly consumer: Consumer;
  private stopping = false;
  private stopDeadline = Number.POSITIVE_INFINITY;
  private readonly stopSignal = new AbortController();
  private connected = false;

  constructor(private readonly opts: IngestWorkerOptions) {
    this.consumer = opts.kafka.consumer({
      groupId: opts.groupId,
      maxWaitTimeInMs: 250,
      readUncommitted: false,
      ...(opts.sessionTimeoutMs !== undefined && { sessionTimeout: opts.sessionTimeoutMs, heartbeatInterval: heartbeatFor(opts.sessionTimeoutMs) }),
    });
    this.consumer.on(this.consumer.events.CONNECT, () => (this.connected = true));
    this.consumer.on(this.consumer.events.DISCONNECT, () => (this.connected = false));
    this.consumer.on(this.consumer.events.CRASH, (e) => {
      log.error({ err: e.payload.error, restart: e.payload.restart }, 'The consumer crashed.');
    });
  }

  get isConnected(): boolean {
    return this.connected;
  }

  async start(): Promise<void> {
    await this.consumer.connect();
    for (const topic of this.opts.topics) await this.consumer.subscribe({ topic, fromBeginning: true });
    await this.consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: this.opts.partitionsConsumedConcurrently ?? 4,
      eachBatch: (payload) => this.onBatch(payload),
    });
    log.info({ topics: this.opts.topics, group: this.opts.groupId }, 'The ingest worker is consuming.');
  }

  /** Stops fetching, drains in-flight deliveries within the deadline, commits what settled, leaves the group. */
  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.stopDeadline = Date.now() + this.opts.drainTimeoutMs;
    setTimeout(() => this.stopSignal.abort(), this.opts.drainTimeoutMs).unref();
    this.opts.settled.notify();
    await this.consumer.disconnect();
  }

  private async onBatch({ batch, resolveOffset, heartbeat, isRunning, isStale }: EachBatchPayload): Promise<void> {
    const { topic, partition } = batch;
    const { router, tracker, pool, budget } = this.opts;
    const first = batch.messages[0];
    if (first === undefined) return;
    // The partition was read again from its committed offset (reassigned): forget the old bookkeeping.
    const before = tracker.committable(topic, partition);
    if (before !== undefined && Number(first.offset) < before) tracker.reset(topic, partition);

    const letters: Array<{ letter: DeadLetter; offset: number }> = [];
    let last: string | undefined;
    let lastBeat = Date.now();
    const messages = batch.messages;
    for (let i = 0; i < messages.length; i++) {
      const msg = messages[i] as (typeof messages)[number];
      // isStale() builds a key and looks up the group's seek offsets: asked every STALE_CHECK_EVERY
      // records, not each one (a revoked partition's few extra records are delivered, at least once).
      if (this.stopping || ((i & (STALE_CHECK_EVERY - 1)) === 0 && (!isRunning() || isStale()))) break;
      if (!budget.hasCapacity()) {
        for (const r of pool.all()) void r.flush();
        while (!budget.hasCapacity() && !this.stopping) {
          await Promise.race([budget.whenCapacity(), sleep(HEARTBEAT_EVERY_MS)]);
          await heartbeat().catch(() => undefined);
          lastBeat = Date.now();
        }
        if (this.stopping) break;
      }
      const offset = Number(msg.offset);
      const result = router.route(topic, partition, msg);
      if (result.type === 'dead_letter') {
        tracker.track(topic, partition, offset, 1);
        letters.push({ letter: result.letter, offset });
      } else {
        tracker.track(topic, partition, offset, result.deliveries.length);
        for (const d of result.deliveries) {
          const runner = pool.get(d.destinationId);
          // Every destination in the config has a runner; one deleted meanwhile gets a dead letter, never nothing.
          if (runner === undefined) letters.push({ letter: destinationRemovedLetter(d.destinationId, d.item, 'before this event was delivered to it'), offset });
          // A runner refuses work only at shutdown: the delivery stays unsettled and its record is read again.
          else runner.enqueue(d.item);
        }
      }
      last = msg.offset;
      if (Date.now() - lastBeat > HEARTBEAT_EVERY_MS) {
        await heartbeat().catch(() => undefined);
        lastBeat = Date.now();
      }
    }
    router.flushMetrics();
    if (last === undefined) return;
    // Once for the batch: kafkajs resolves through Long arithmetic on every call, a few per cent of
    // the worker's CPU when called per record, and reads the resolved offset only after eachBatch.
    resolveOffset(last);
    recordsConsumed.inc({ topic }, Number(last) - Number(first.offset) + 1);
    consumerLag.set({ topic, partition: String(partition) }, Math.max(0, Number(batch.highWatermark) - Number(last) - 1));

    if (letters.length > 0) this.sendLetters(topic, partition, letters);
    for (const r of pool.all()) void r.flush();
    await this.waitSettled(topic, partition, Number(last) + 1, heartbeat, isStale);
    await this.commit(topic, partition);
  }

  private sendLetters(topic: string, partition: number, letters: Array<{ letter: DeadLetter; offset: number }>): void {
    this.opts.deadLetter
      .send(letters.map((l) => l.letter), this.stopSignal.signal)
      .then(() => {
        for (const l of letters) this.opts.tracker.settle(topic, partition, l.offset);
        this.opts.settled.notify();
      })
      .catch((err: unknown) => log.warn({ err, topic, partition }, 'Dead letters were not written before shutdown; their records will be read again.'));
  }

  private async waitSettled(
    topic: string,
    partition: number,
    target: number,
    heartbeat: () => Promise<void>,
    isStale: () => boolean,
  ): Promise<void> {
    const { tracker, settled } = this.opts;
    // A pending rebalance (the partition may be revoked) gets the same drain deadline as a shutdown.
    let staleDeadline = Number.POSITIVE_INFINITY;
    for (;;) {
      const c = tracker.committable(topic, partition);
      if (c !== undefined && c >= target) return;
      if (staleDeadline === Number.POSITIVE_INFINITY && isStale()) staleDeadline = Date.now() + this.opts.drainTimeoutMs;
      if (Date.now() >= Math.min(this.stopDeadline, staleDeadline)) {
        log.warn({ topic, partition, pending: tracker.pending(topic, partition) }, 'The drain deadline passed; unsettled records will be read again.');
        return;
      }
      await Promise.race([settled.wait(), sleep(HEARTBEAT_EVERY_MS)]);
      await heartbeat().catch(() => undefined);
    }
  }

  private async commit(topic: string, partition: number): Promise<void> {
    const offset = this.opts.tracker.committable(topic, partition);
    if (offset === undefined) return;
    try {
      await this.consumer.commitOffsets([{ topic, partition, offset: String(offset) }]);
    } catch (err) {
      // A commit refused because the group rebalanced is safe: the new owner reads these records again.
      log.warn({ err, topic, partition, offset }, 'An offset commit failed; the records after the last commit will be read again.');
    }
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
