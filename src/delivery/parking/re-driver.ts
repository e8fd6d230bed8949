// Re-drives one destination's retry topic: once the destination's health check passes, parked deliveries
// go back through its runner (the same batching, retry and parking path as new ones), and the retry topic
// is committed only behind deliveries that were acknowledged, dead-lettered or parked again.
import { heartbeatFor } from '../../kafka/group-session.js';
import type { BatchScope, GroupConsumer, KafkaClient, PartitionBatch } from '../../kafka/seam.js';
import { redrivenDeliveries } from '../../telemetry/metrics.js';
import { createLogger, type Logger } from '../../telemetry/logger.js';
import { backoffDelay, type RetryPolicy } from '../backoff.js';
import { systemClock, type Clock } from '../clock.js';
import type { DeliveryItem } from '../contract.js';
import { destinationRemovedLetter, type DeadLetterSink } from '../dead-letter.js';
import type { DestinationRunner } from '../destination-runner.js';
import type { Settlement } from '../runner-options.js';
import { fromParkedMessage, metaOf } from './parked-record.js';

export interface ReDriverOptions {
  readonly kafka: KafkaClient;
  readonly destinationId: string;
  readonly topic: string;
  readonly groupId: string;
  /** The destination's current runner; undefined while it has none (not built, or being replaced). */
  readonly runner: () => DestinationRunner | undefined;
  /** False once the destination was deleted from the config: its parked deliveries are dead-lettered. */
  readonly exists: () => boolean;
  /** Resolves when the destination looks able to take writes again. */
  readonly healthcheck: () => Promise<void>;
  readonly deadLetter: DeadLetterSink;
  /** Told when every assigned partition has been re-driven to its end. */
  readonly onCaughtUp?: () => void;
  /** Deliveries handed to the runner at once. */
  readonly chunkSize?: number;
  /** Waits between failed health checks, and after a chunk whose deliveries were parked again. */
  readonly backoff?: Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs'>;
  readonly clock?: Clock;
  readonly logger?: Logger;
  /** How long the group waits for a silent re-driver (one killed) before another takes its partitions; default 30 s. */
  readonly sessionTimeoutMs?: number;
}

// Health checks are cheap reads; a recovered destination should not wait long for its parked deliveries,
// nor its status for the delivery that shows it ok.
const DEFAULT_BACKOFF = { baseDelayMs: 1_000, maxDelayMs: 5_000 };
// A client that heartbeats from a batch only when asked (BatchScope.heartbeat) is asked at least this often during long waits.
const HEARTBEAT_EVERY_MS = 2_000;

export class ReDriver {
  readonly destinationId: string;
  private consumer: GroupConsumer | undefined;
  /** Set when the coordinator said the group is rebalancing or moved on: the batch in hand is given up. */
  private groupMoved = false;
  /** Re-driven deliveries the runner still holds; each resolves true once settled, false if abandoned at a stop. */
  private readonly pending = new Map<DeliveryItem, (settled: boolean) => void>();
  private readonly stopping = new AbortController();
  /** Aborted by wake(): a wait for the next health check ends early. */
  private waking = new AbortController();
  /** Parked-at time of the first delivery not yet re-driven, per partition being worked on. */
  private readonly heads = new Map<number, number>();
  /** The retry topic's partitions this re-driver was given at the last group join. */
  private partitions: readonly number[] = [];
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly backoff: Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs'>;
  /** Until a health check passes, nothing is handed to the runner. */
  private suspect = true;
  private reparkRounds = 0;
  /** The last health check outcome logged: a line only when it changes, not per round of re-driving. */
  private lastGate: 'passed' | 'failed' | undefined;
  private reparkedInChunk = false;

  constructor(private readonly opts: ReDriverOptions) {
    this.destinationId = opts.destinationId;
    this.clock = opts.clock ?? systemClock;
    this.backoff = opts.backoff ?? DEFAULT_BACKOFF;
    this.log = (opts.logger ?? createLogger('re-driver')).child({ destination: opts.destinationId, topic: opts.topic });
  }

  async start(): Promise<void> {
    const session = this.opts.sessionTimeoutMs ?? 30_000;
    const consumer = this.opts.kafka.groupConsumer(
      { groupId: this.opts.groupId, topics: [this.opts.topic], sessionTimeoutMs: session, heartbeatIntervalMs: heartbeatFor(session), maxWaitMs: 500 },
      {
        onJoin: (assignment) => {
          this.heads.clear();
          this.partitions = assignment[this.opts.topic] ?? [];
          this.groupMoved = false;
        },
        onGroupError: () => (this.groupMoved = true),
      },
    );
    this.consumer = consumer;
    await consumer.start((batch, scope) => this.eachBatch(batch, scope));
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    this.partitions = [];
    // Not delivered yet: their chunk is neither resolved nor committed, so they are re-driven again later.
    for (const done of this.pending.values()) done(false);
    this.pending.clear();
    await this.consumer?.stop().catch((err: unknown) => this.log.warn({ err }, 'The re-driver consumer did not disconnect cleanly.'));
  }

  /** The destination's writer changed (a config update may have fixed it): check its health now, not after the backoff. */
  wake(): void {
    const woken = this.waking;
    this.waking = new AbortController();
    woken.abort();
  }

  /** True when `item` is one this re-driver handed to the runner and still waits for. */
  owns(item: DeliveryItem): boolean {
    return this.pending.has(item);
  }

  /** A re-driven delivery was settled by the runner (or the pool, if the destination changed meanwhile). */
  settle(item: DeliveryItem, settlement: Settlement): void {
    const done = this.pending.get(item);
    if (done === undefined) return;
    this.pending.delete(item);
    redrivenDeliveries.inc({ destination: this.destinationId, outcome: settlement });
    if (settlement === 'parked') this.reparkedInChunk = true;
    done(true);
  }

  /** True while this re-driver has partitions of the retry topic to work on. */
  get assigned(): boolean {
    return this.partitions.length > 0;
  }

  /** The parked-at time of the oldest delivery this re-driver holds and has not re-driven yet. */
  oldestHeld(): number | undefined {
    let oldest: number | undefined;
    for (const t of this.heads.values()) oldest = oldest === undefined ? t : Math.min(oldest, t);
    return oldest;
  }

  private running(p: BatchScope): boolean {
    return !this.stopping.signal.aborted && !this.groupMoved && !p.isStale();
  }

  /** Still running the batch, and the partition is in this member's assignment since the last join. */
  private holdsPartition(partition: number, p: BatchScope): boolean {
    return this.running(p) && this.partitions.includes(partition);
  }

  private async eachBatch(batch: PartitionBatch, p: BatchScope): Promise<void> {
    const chunkSize = this.opts.chunkSize ?? 500;
    for (let i = 0; i < batch.messages.length; i += chunkSize) {
      if (!this.running(p)) return;
      const slice = batch.messages.slice(i, i + chunkSize);
      const items = slice.flatMap((m) => fromParkedMessage(batch.topic, batch.partition, m) ?? []);
      const first = items[0];
      if (first !== undefined) this.heads.set(batch.partition, metaOf(first)?.parkedAt ?? this.clock.now());
      if (items.length > 0 && !(await this.redrive(items, p))) return;
      const last = slice[slice.length - 1];
      if (last === undefined) continue;
      // The group may have given the partition to another member while its deliveries were in flight: its
      // offset is the new owner's to commit, and the new owner re-drives them again (at least once).
      if (!this.holdsPartition(batch.partition, p)) return;
      p.resolve(last.offset);
      const next = Number(last.offset) + 1;
      await this.consumer?.commit(batch.topic, batch.partition, next);
      if (next >= Number(batch.highWatermark)) {
        this.heads.delete(batch.partition);
        if (this.heads.size === 0) this.opts.onCaughtUp?.();
      }
    }
  }

  /** Settles every item (delivered, dead-lettered or parked again); false when stopped first. */
  private async redrive(items: readonly DeliveryItem[], p: BatchScope): Promise<boolean> {
    if (!this.opts.exists()) return this.deadLetterRemoved(items);
    if (!(await this.gate(p))) return false;
    // The destination may have been deleted while the gate waited for it to recover.
    if (!this.opts.exists()) return this.deadLetterRemoved(items);
    const runner = this.opts.runner();
    if (runner === undefined) return false;
    this.reparkedInChunk = false;
    const settled = items.map((item) => new Promise<boolean>((resolve) => this.pending.set(item, resolve)));
    for (const item of items) {
      if (!runner.enqueue(item)) {
        // The runner is closing (shutdown or replacement): what it did not take stays uncommitted.
        this.pending.delete(item);
        return false;
      }
    }
    // Written now, as the ingest worker has its runners write after each batch: a destination's own
    // batching (object_store's upload interval) would otherwise hold each chunk for its whole linger.
    void runner.flush();
    const all = Promise.all(settled).then((outcomes) => outcomes.every(Boolean));
    if (!(await this.waitFor(all, p)) || !(await all)) return false;
    if (this.reparkedInChunk) {
      // The destination failed again: its deliveries are back in the retry topic. Wait, then check health.
      this.suspect = true;
      this.reparkRounds++;
      await this.pause(backoffDelay({ ...this.backoff, maxAttempts: 0, maxElapsedMs: 0, maxRetryAfterMs: 0 }, this.reparkRounds + 2), p);
    } else {
      this.reparkRounds = 0;
    }
    return true;
  }

  /** Waits until the destination has a runner and passes its health check; false when stopped first. */
  private async gate(p: BatchScope): Promise<boolean> {
    if (!this.suspect && this.opts.runner() !== undefined) return true;
    for (let attempt = 1; this.running(p); attempt++) {
      // A deleted destination will never pass its health check: stop waiting, the caller dead-letters.
      if (!this.opts.exists()) return true;
      // A config change during the health check below ends the wait after it at once.
      const woken = this.waking.signal;
      if (this.opts.runner() !== undefined) {
        try {
          await this.opts.healthcheck();
          this.suspect = false;
          if (this.lastGate !== 'passed') this.log.info('The destination passed its health check; re-driving its parked deliveries.');
          this.lastGate = 'passed';
          return true;
        } catch (err) {
          if (this.lastGate !== 'failed') this.log.info({ reason: err instanceof Error ? err.message : String(err) }, 'The destination is still unhealthy; parked deliveries wait.');
          this.lastGate = 'failed';
        }
      }
      const delay = backoffDelay({ ...this.backoff, maxAttempts: 0, maxElapsedMs: 0, maxRetryAfterMs: 0 }, attempt);
      if (!(await this.pause(Math.max(delay, this.backoff.baseDelayMs / 2), p, woken))) return false;
    }
    return false;
  }

  private async deadLetterRemoved(items: readonly DeliveryItem[]): Promise<boolean> {
    const letters = items.map((item) => destinationRemovedLetter(this.destinationId, item, 'while this event was parked for it', metaOf(item)?.origin));
    try {
      await this.opts.deadLetter.send(letters, this.stopping.signal);
    } catch {
      return false;
    }
    redrivenDeliveries.inc({ destination: this.destinationId, outcome: 'dead_lettered' }, items.length);
    return true;
  }

  /** Waits for `done` while heartbeating; false when the re-driver stops or loses the partition first. */
  private async waitFor(done: Promise<unknown>, p: BatchScope): Promise<boolean> {
    let finished = false;
    void done.then(() => (finished = true));
    while (!finished) {
      if (!this.running(p)) return false;
      const timer = new AbortController();
      await Promise.race([done, this.clock.sleep(HEARTBEAT_EVERY_MS, timer.signal)]);
      timer.abort();
      if (!finished) await p.heartbeat();
    }
    return true;
  }

  /** Sleeps `ms` while heartbeating, or until woken; false when the re-driver stops or loses the partition first. */
  private async pause(ms: number, p: BatchScope, woken = this.waking.signal): Promise<boolean> {
    const until = this.clock.now() + ms;
    const interrupt = AbortSignal.any([this.stopping.signal, woken]);
    while (this.running(p)) {
      const left = until - this.clock.now();
      if (left <= 0 || woken.aborted) return true;
      await this.clock.sleep(Math.min(left, HEARTBEAT_EVERY_MS), interrupt);
      await p.heartbeat();
    }
    return false;
  }
}
