// The ingest worker: one member of the consumer group. Each fetched batch is routed, its deliveries
// queued, and its offsets committed only behind records whose every delivery has settled
// (ARCHITECTURE.md "Delivery and commits"). A partition's next batch is routed while the deliveries of
// the one before are still in flight, and then waits for them; one loop per partition waits for its
// routed records to settle and commits behind them. A rebalance or a SIGTERM gives those loops
// DRAIN_TIMEOUT_MS, then they commit what settled, and only for partitions the worker still owns; a batch
// that ends because of one waits for its partition's loop, and a stopping worker for every loop, before
// the consumer stops.
import { Signal } from '../delivery/clock.js';
import { destinationRemovedLetter, writtenLetters, type DeadLetter, type DeadLetterSink } from '../delivery/dead-letter.js';
import type { DestinationPool } from '../delivery/destination-pool.js';
import type { InFlightBudget } from '../delivery/in-flight-budget.js';
import type { OffsetTracker } from '../delivery/offset-tracker.js';
import { heartbeatFor } from '../kafka/group-session.js';
import type { BatchScope, GroupConsumer, KafkaClient, PartitionBatch } from '../kafka/seam.js';
import { createLogger } from '../telemetry/logger.js';
import { consumerLag, recordsConsumed } from '../telemetry/metrics.js';
import { GroupMembership } from './group-membership.js';
import type { RecordRouter } from './record-router.js';
import { StallWatch } from './stall-watch.js';
import { TurnBudget } from './turn-budget.js';

export interface IngestWorkerOptions {
  readonly kafka: KafkaClient;
  readonly groupId: string;
  readonly topics: readonly string[];
  readonly router: Pick<RecordRouter, 'route' | 'flushMetrics'>;
  readonly pool: DestinationPool;
  readonly deadLetter: DeadLetterSink;
  readonly budget: InFlightBudget;
  readonly tracker: OffsetTracker;
  /** Settlements wake the batches waiting on them. */
  readonly settled: Signal;
  readonly drainTimeoutMs: number;
  /** STALLED_RECORD_AFTER_MS: a record unsettled this long is reported (stall-watch.ts). */
  readonly stalledRecordAfterMs: number;
  readonly partitionsConsumedConcurrently?: number;
  /** GroupConsumerOptions.fetchMaxBytes: the most bytes of records a fetch answers (decoded in one turn of the event loop). */
  readonly fetchMaxBytes?: number;
  /** The consumer group session timeout; 30 s when absent. */
  readonly sessionTimeoutMs?: number;
  /** Static membership (group.instance.id) for clients that have it: a restarted worker takes its partitions back at once. */
  readonly groupInstanceId?: string;
  /**
   * A replay's reader (src/replay/) is a worker of its own group: it keeps the live metrics
   * (edge_records_consumed_total, edge_consumer_lag) to the live group, waits in `beforeRecords` for its
   * read rate before each slice of a batch, and hears of each commit.
   */
  readonly replay?: {
    /** Records a batch routes between two waits for the read rate (one batch cannot hold the loop or the budget ahead of live ones). */
    readonly sliceRecords: number;
    /** Waits for the read rate before messages[from, to) of the batch are routed. */
    beforeRecords(batch: PartitionBatch, from: number, to: number, scope: BatchScope): Promise<void>;
    onCommitted(topic: string, partition: number, offset: number): void;
  };
}

const log = createLogger('ingest');
const HEARTBEAT_EVERY_MS = 1_000;
/**
 * The group waits for its members to rejoin for the rebalance timeout. A rebalance is noticed at the
 * latest one heartbeat interval after it began, so the timeout covers two of those, the drain deadline
 * and some slack, else the group would evict a draining worker.
 */
const MIN_REBALANCE_TIMEOUT_MS = 60_000;
/** A power of two: the loop checks `i & (STALE_CHECK_EVERY - 1)`. */
const STALE_CHECK_EVERY = 64;
/**
 * A fetch is answered once 64 KiB of records wait, or after 100 ms. Answered at once, a worker with 10,000
 * subscriptions under 1,000 records/s routed, delivered and committed a few records at a time and spent
 * 0.43 ms of CPU a record, against 0.16 ms this way; records wait up to 100 ms more at low rates
 * (bench/results/PROFILE.md, "Fetches that wait for records").
 */
const FETCH_MIN_BYTES = 64 * 1024;
const FETCH_MAX_WAIT_MS = 100;

export class IngestWorker {
  private readonly consumer: GroupConsumer;
  private readonly membership = new GroupMembership();
  /** This worker's member id in the group since its last join (a live tap's acknowledgement names it). */
  private member: string | undefined;
  private stopping = false;
  private stopDeadline = Number.POSITIVE_INFINITY;
  private readonly stopSignal = new AbortController();
  /** Per partition (`topic\0partition`), the loop that waits for its routed records and commits behind them. */
  private readonly settling = new Map<string, SettleLoop>();
  /** Commits not awaited by their loop: a loop that goes on to a later target commits again behind it. */
  private readonly commitsInFlight = new Set<Promise<void>>();
  private readonly stalls: StallWatch;
  /** Each partition's lag behind its end when its last batch was routed. */
  private readonly lags = new Map<string, number>();
  /** The longest wait from a record's Kafka timestamp to its batch's routing, over batches routed since delayMs() last asked. */
  private routeDelayMs = 0;

  constructor(private readonly opts: IngestWorkerOptions) {
    this.stalls = new StallWatch({
      tracker: opts.tracker,
      afterMs: opts.stalledRecordAfterMs,
      holds: (id, item) => opts.pool.get(id)?.holds(item) ?? false,
      mark: (id, since) => opts.pool.stalled(id, since),
    });
    const session = opts.sessionTimeoutMs ?? 30_000;
    this.consumer = opts.kafka.groupConsumer(
      {
        groupId: opts.groupId,
        topics: opts.topics,
        maxWaitMs: FETCH_MAX_WAIT_MS,
        minBytes: FETCH_MIN_BYTES,
        sessionTimeoutMs: session,
        heartbeatIntervalMs: heartbeatFor(session),
        rebalanceTimeoutMs: Math.max(MIN_REBALANCE_TIMEOUT_MS, opts.drainTimeoutMs + 2 * heartbeatFor(session) + 10_000),
        partitionsConcurrently: opts.partitionsConsumedConcurrently ?? 4,
        ...(opts.fetchMaxBytes !== undefined && { fetchMaxBytes: opts.fetchMaxBytes }),
        ...(opts.groupInstanceId !== undefined && { groupInstanceId: opts.groupInstanceId }),
      },
      {
        onJoin: (assignment, join) => {
          this.member = join.memberId;
          this.membership.joined(assignment, { group: opts.groupId, ...(join.durationMs !== undefined && { durationMs: join.durationMs }) });
          // After a join every assigned partition is read again from its committed offset, so no
          // bookkeeping carries over; deliveries still in flight from before settle into nothing
          // (OffsetTracker.settle) and their records are delivered again.
          opts.tracker.resetAll();
        },
        onGroupError: (code) => this.membership.groupError(code),
        onCrash: (err, restart) => log.error({ err, restart }, 'The consumer crashed.'),
      },
    );
  }

  get memberId(): string | undefined {
    return this.member;
  }

  /** Records behind the partitions' ends, over every partition this worker routed, as of each one's last batch. */
  lagRecords(): number {
    let n = 0;
    for (const lag of this.lags.values()) n += lag;
    return n;
  }

  /**
   * How late this worker's records are, in ms, since the last call: the longer of the wait from a batch's
   * first record's Kafka timestamp to the batch's routing, and the age of the oldest record still waiting
   * for deliveries (from its batch's routing). Replays pace themselves by it (src/replay/replay-pace.ts).
   */
  delayMs(): number {
    const oldestAt = this.opts.tracker.oldestPendingAt();
    const delay = Math.max(this.routeDelayMs, oldestAt === undefined ? 0 : Date.now() - oldestAt);
    this.routeDelayMs = 0;
    return delay;
  }

  get isConnected(): boolean {
    return this.consumer.connected;
  }

  async start(): Promise<void> {
    await this.consumer.start((batch, scope) => this.onBatch(batch, scope));
    log.info({ topics: this.opts.topics, group: this.opts.groupId }, 'The ingest worker is consuming.');
  }

  /** Stops fetching, drains in-flight deliveries within the deadline, commits what settled, leaves the group. */
  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.stopDeadline = Date.now() + this.opts.drainTimeoutMs;
    setTimeout(() => this.stopSignal.abort(), this.opts.drainTimeoutMs).unref();
    this.opts.settled.notify();
    await Promise.allSettled([...this.settling.values()].map((l) => l.done));
    await Promise.allSettled([...this.commitsInFlight]);
    await this.consumer.stop();
  }

  private async onBatch(batch: PartitionBatch, scope: BatchScope): Promise<void> {
    const { topic, partition } = batch;
    const { router, tracker, pool, budget } = this.opts;
    const first = batch.messages[0];
    // Fetched before the rebalance was noticed: left unread, for whoever owns the partition next.
    if (first === undefined || this.membership.rebalancing) return;
    const replay = this.opts.replay;
    const slice = replay?.sliceRecords ?? Number.POSITIVE_INFINITY;
    await replay?.beforeRecords(batch, 0, slice, scope);
    if (this.halted() || scope.isStale()) return;
    // A producer's clock ahead of this one's counts as no wait.
    this.routeDelayMs = Math.max(this.routeDelayMs, Date.now() - Number(first.timestamp));
    const generation = this.membership.generation;
    // A batch of a new reading of the partition (a join, a restart of the stream) or a seek starts its bookkeeping afresh.
    const reading = batch.reading;
    tracker.begin(topic, partition, reading, Number(first.offset));
    const beat = (): Promise<void> => scope.heartbeat();
    const isStale = (): boolean => scope.isStale();

    const letters: DeadLetter[] = [];
    let last: string | undefined;
    let lastBeat = Date.now();
    const turn = new TurnBudget();
    const messages = batch.messages;
    for (let i = 0; i < messages.length; i++) {
      const msg = messages[i] as (typeof messages)[number];
      if (replay !== undefined && i > 0 && i % slice === 0) {
        await replay.beforeRecords(batch, i, i + slice, scope);
        if (this.halted() || isStale()) break;
      }
      if (turn.spent()) {
        // Routing gives way to the event loop (turn-budget.ts); the partition may have moved meanwhile.
        await turn.yield();
        if (this.halted() || isStale()) break;
      }
      // isStale() is the client adapter's and may cost more than a field read: asked
      // every STALE_CHECK_EVERY records, not each one (a revoked partition's few extra records are
      // delivered, at least once).
      if (this.halted() || ((i & (STALE_CHECK_EVERY - 1)) === 0 && isStale())) break;
      if (!budget.hasCapacity()) {
        // The batch's own letters may hold the budget: they are written now, not at the batch's end.
        if (letters.length > 0) this.sendLetters(letters.splice(0));
        for (const r of pool.all()) void r.flush();
        while (!budget.hasCapacity() && !this.halted()) {
          await Promise.race([budget.whenCapacity(), sleep(HEARTBEAT_EVERY_MS)]);
          await beat();
          lastBeat = Date.now();
        }
        if (this.halted()) break;
      }
      const result = router.route(topic, partition, msg, reading);
      if (result.type === 'dead_letter') {
        tracker.track(result.letter.source, 1);
        letters.push(this.heldLetter(result.letter));
      } else if (result.source !== undefined) {
        tracker.track(result.source, result.deliveries.length, result.deliveries);
        for (const d of result.deliveries) {
          const runner = pool.get(d.destinationId);
          // Every destination in the config has a runner; one deleted meanwhile gets a dead letter, never nothing.
          if (runner === undefined) letters.push(this.heldLetter(destinationRemovedLetter(d.destinationId, d.item, 'before this event was delivered to it', result.source)));
          // A runner refuses work only at shutdown: the delivery stays unsettled and its record is read again.
          else runner.enqueue(d.item);
        }
      }
      last = msg.offset;
      if (Date.now() - lastBeat > HEARTBEAT_EVERY_MS) {
        await beat();
        lastBeat = Date.now();
      }
    }
    router.flushMetrics();
    if (last === undefined) return;
    tracker.advance(topic, partition, Number(last));
    scope.resolve(last);
    const lag = Math.max(0, Number(batch.highWatermark) - Number(last) - 1);
    this.lags.set(`${topic}\u0000${partition}`, lag);
    if (this.opts.replay === undefined) {
      recordsConsumed.inc({ topic }, Number(last) - Number(first.offset) + 1);
      consumerLag.set({ topic, partition: String(partition) }, lag);
    }

    if (letters.length > 0) this.sendLetters(letters);
    for (const r of pool.all()) void r.flush();
    const before = this.settling.get(`${topic}\u0000${partition}`);
    const previous = before !== undefined && before.generation === generation ? before.target : undefined;
    const loop = this.settleBehind(topic, partition, Number(last) + 1, generation, scope);
    // A batch that ends the worker's hold on the partition waits for what settles by the deadline, and its commit.
    if (this.halted() || isStale()) await loop.done;
    // At most two batches of a partition unsettled: routing far ahead of the writes cost a long drain at
    // the 1% workload 12-28% more CPU a record (bench/results/PROFILE.md, "A partition's next batch without waiting").
    // The partition waits out of the consumer's turns, so a slow destination's partitions leave them to the others.
    else if (previous !== undefined) scope.holdNext(this.waitSettledWatched(topic, partition, previous, beat, isStale));
  }

  /**
   * Has the partition's loop wait until every record before `target` is settled and commit behind them,
   * starting the loop when none of this generation runs. The loop's target moves on with each batch, so a
   * partition commits about once per write to its destinations, however small its batches.
   */
  private settleBehind(topic: string, partition: number, target: number, generation: number, scope: BatchScope): SettleLoop {
    const key = `${topic}\u0000${partition}`;
    const running = this.settling.get(key);
    if (running !== undefined && running.generation === generation) {
      running.target = target;
      running.scope = scope;
      return running;
    }
    const loop: SettleLoop = { target, generation, scope, done: Promise.resolve() };
    loop.done = (async () => {
      for (;;) {
        const reached = loop.target;
        await this.waitSettled(topic, partition, reached, () => loop.scope.heartbeat(), () => loop.scope.isStale());
        const committed = this.commit(topic, partition, generation);
        if (loop.target === reached) {
          // Batches from here on start a loop of their own.
          if (this.settling.get(key) === loop) this.settling.delete(key);
          return committed;
        }
        this.commitsInFlight.add(committed);
        void committed.finally(() => this.commitsInFlight.delete(committed));
      }
    })();
    this.settling.set(key, loop);
    return loop;
  }

  /** Stopping or rebalancing: route no more records. */
  private halted(): boolean {
    return this.stopping || this.membership.rebalancing;
  }

  /**
   * A dead letter counts against the in-flight budget until it is written, as a delivery does: the next
   * batches of its partition are routed meanwhile, and a slow dead-letter topic must stop them.
   */
  private heldLetter(letter: DeadLetter): DeadLetter {
    this.opts.budget.acquire(1, letter.value?.length ?? 0);
    return letter;
  }

  private lettersWritten(letters: readonly DeadLetter[]): void {
    for (const l of letters) if (l.source !== undefined) this.opts.tracker.settle(l.source);
    this.opts.settled.notify();
  }

  private sendLetters(letters: readonly DeadLetter[]): void {
    this.opts.deadLetter
      .send(letters, this.stopSignal.signal)
      .then(
        () => this.lettersWritten(letters),
        (err: unknown) => {
          const written = writtenLetters(letters, err);
          this.lettersWritten(written);
          log.warn({ err, records: letters.length - written.length }, 'Dead letters were not written; their records stay uncommitted and will be read again.');
        },
      )
      .finally(() => {
        for (const l of letters) this.opts.budget.release(1, l.value?.length ?? 0);
      });
  }

  /**
   * Waits until the records before `target` are settled, or a deadline passes: DRAIN_TIMEOUT_MS from a SIGTERM,
   * from a rebalance, or from a seek of the partition. Deliveries still in flight then are abandoned by
   * the ingest side: their records are not committed and are read again by the partition's next owner.
   * Outside those there is no deadline (at least once), but never silence: a record waiting past
   * STALLED_RECORD_AFTER_MS is reported (stall-watch.ts).
   */
  private async waitSettled(topic: string, partition: number, target: number, beat: () => Promise<void>, isStale: () => boolean): Promise<void> {
    try {
      await this.waitSettledWatched(topic, partition, target, beat, isStale);
    } finally {
      this.stalls.done(topic, partition);
    }
  }

  private async waitSettledWatched(topic: string, partition: number, target: number, beat: () => Promise<void>, isStale: () => boolean): Promise<void> {
    const { tracker, settled, drainTimeoutMs } = this.opts;
    let staleDeadline = Number.POSITIVE_INFINITY;
    for (;;) {
      const c = tracker.committable(topic, partition);
      if (c !== undefined && c >= target) return;
      // A join since the loop began forgot the partition (tracker.resetAll): nothing it waits for can
      // be committed any more, and its records are read again from the committed offset. Waiting would
      // only hold the worker until the drain deadline.
      if (c === undefined) return;
      if (staleDeadline === Number.POSITIVE_INFINITY && isStale()) staleDeadline = Date.now() + drainTimeoutMs;
      if (Date.now() >= Math.min(this.stopDeadline, staleDeadline, this.membership.drainDeadline(drainTimeoutMs))) {
        log.warn({ topic, partition, pending: tracker.pending(topic, partition) }, 'The drain deadline passed; unsettled records will be read again.');
        return;
      }
      this.stalls.check(topic, partition);
      await Promise.race([settled.wait(), sleep(HEARTBEAT_EVERY_MS)]);
      await beat();
    }
  }

  /** Commits what settled, if the partition is still this worker's in the generation the batch began in. */
  private async commit(topic: string, partition: number, generation: number): Promise<void> {
    const offset = this.opts.tracker.committable(topic, partition);
    if (offset === undefined) return;
    if (!this.membership.owns(topic, partition, generation)) {
      log.info({ topic, partition, offset }, 'The partition is no longer this worker\'s; its offset is left to the new owner.');
      return;
    }
    try {
      await this.consumer.commit(topic, partition, offset);
      this.opts.replay?.onCommitted(topic, partition, offset);
    } catch (err) {
      // A commit refused because the group rebalanced is safe: the new owner reads these records again.
      log.warn({ err, topic, partition, offset }, 'An offset commit failed; the records after the last commit will be read again.');
    }
  }
}

/** A partition's settle loop (IngestWorker.settleBehind): the batch whose records it waits for moves on. */
interface SettleLoop {
  /** The offset after the last routed record the loop waits for. */
  target: number;
  /** The latest batch's: its heartbeat and whether its reading of the partition has ended. */
  scope: BatchScope;
  /** The join count of the batches it serves; a batch of a later join starts a loop of its own. */
  readonly generation: number;
  /** Resolves once it reached its target, or gave up at a deadline, and that commit was answered. */
  done: Promise<void>;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
