// One destination's delivery loop: its own queue and batcher, the single place where retry, backoff,
// dead-lettering and acknowledgement happen. Each destination has its own runner, so a broken one
// never holds back another's writes.
import { batchLatency, deliveries } from '../telemetry/metrics.js';
import { createLogger, type Logger } from '../telemetry/logger.js';
import { DEFAULT_RETRY_POLICY, retryDelay, type RetryPolicy } from './backoff.js';
import { Batcher, firstBatch } from './batcher.js';
import { Signal, systemClock, type Clock } from './clock.js';
import { holdsItsPartition, payloadSize, type DeliveryItem, type DestinationWriter, type ItemFailure, type WriterLimits } from './contract.js';
import { writtenLetters, type DeadLetterSink } from './dead-letter.js';
import { DestinationHealth } from './destination-health.js';
import { DeliveryError, toDeliveryError } from './errors.js';
import type { DeliveryTally } from './history/history-recorder.js';
import type { InFlightBudget } from './in-flight-budget.js';
import { sortOutcome } from './write-outcome.js';
import {
  DEFAULT_BATCHING,
  keepRetrying,
  type BatchingOptions,
  type CloseResult,
  type DestinationRunnerOptions,
  type OnBudgetExhausted,
  type Settlement,
  type SettlementListener,
} from './runner-options.js';

const OUTCOME_LABEL: Record<Settlement, string> = { acked: 'ok', dead_lettered: 'dead_lettered', parked: 'parked' };

/** Queued deliveries that come due within this long of the oldest are parked with it (parkOverdue()). */
const OVERDUE_SLICE_MS = 1_000;
/** The least time a write gets before it counts as unanswered, even past the retry budget (attempt()). */
const ATTEMPT_FLOOR_MS = 30_000;
/** How long a dead letter may take, without PARK_AFTER_MS, before its deliveries are parked instead (deadLetter()). */
const DEAD_LETTER_DEADLINE_MS = 30_000;
// After the drain deadline, in-flight writes get this long to notice the writer was closed.
const ABORT_GRACE_MS = 2_000;

export class DestinationRunner {
  readonly destinationId: string;
  readonly kind: string;
  /** The batching limits in force: the runner's options capped by the writer's limits. */
  readonly limits: WriterLimits;
  private readonly writer: DestinationWriter;
  private readonly budget: InFlightBudget;
  private readonly deadLetterSink: DeadLetterSink;
  private readonly onSettled: SettlementListener;
  private readonly onBudgetExhausted: OnBudgetExhausted;
  private readonly onAbandoned: ((items: readonly DeliveryItem[]) => void) | undefined;
  /** The delivery history's counts (src/delivery/history/). */
  private readonly tally: DeliveryTally | undefined;
  private readonly parkAfterMs: number | undefined;
  /** How long a dead letter may take before its deliveries are parked instead (deadLetter()). */
  private readonly deadLetterDeadlineMs: number;
  private readonly batching: BatchingOptions;
  private readonly retry: RetryPolicy;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly log: Logger;
  /** The destination's state and last error; its log lines say when it changes, not per attempt. */
  readonly health: DestinationHealth;
  private readonly batcher: Batcher;
  private readonly changed = new Signal();
  private readonly abort = new AbortController();
  private tasks = 0;
  private inFlightBatches = 0;
  /** The batches being written (retries and parking included), for holds(). */
  private readonly writing = new Set<readonly DeliveryItem[]>();
  private flushing = 0;
  private closing = false;
  private abandoned = 0;
  /** When the destination's current run of failed attempts began; undefined while it delivers. */
  private failingSince: number | undefined;
  /** A batch was parked since the destination began failing: the next ones park after one failed attempt. */
  private parkedWhileFailing = false;
  /** When the oldest queued delivery of a consumed record may have waited past parkAfterMs; undefined when none is queued. */
  private overdueAt: number | undefined;
  /** Queued deliveries being parked for waiting (parkOverdue): one park at a time. */
  private parkingOverdue = false;
  /**
   * Since deliveries of consumed records first waited past parkAfterMs: the destination is slow, and new
   * ones park at once, unwritten, until a write is answered within half of parkAfterMs (answeredIn()).
   */
  private slowSince: number | undefined;
  /** A parked batch written anyway, to see whether a slow destination answers in time again (probe()). */
  private probing = false;
  private lastProbeAt = Number.NEGATIVE_INFINITY;
  /** After a park at once that the hook could not make: new deliveries are not parked at once again before this. */
  private parkAtOnceAgainAt = Number.NEGATIVE_INFINITY;
  private loopDone: Promise<void> | undefined;
  private closeResult: Promise<CloseResult> | undefined;

  constructor(opts: DestinationRunnerOptions) {
    this.destinationId = opts.destinationId;
    this.writer = opts.writer;
    this.kind = opts.writer.kind;
    this.budget = opts.budget;
    this.deadLetterSink = opts.deadLetter;
    this.onSettled = opts.onSettled;
    this.retry = { ...DEFAULT_RETRY_POLICY, ...opts.retry };
    this.clock = opts.clock ?? systemClock;
    this.random = opts.random ?? Math.random;
    this.log = (opts.logger ?? createLogger('delivery')).child({ destination: this.destinationId, kind: this.kind });
    this.health = opts.health ?? new DestinationHealth(this.destinationId, opts.logger, this.clock);
    this.onBudgetExhausted = opts.onBudgetExhausted ?? keepRetrying(this.log);
    this.onAbandoned = opts.onAbandoned;
    this.tally = opts.tally;
    this.parkAfterMs = opts.parkAfterMs;
    this.deadLetterDeadlineMs = opts.parkAfterMs ?? DEAD_LETTER_DEADLINE_MS;
    const w = opts.writer.limits;
    const own = w.lingerMs === undefined ? {} : { maxRecords: w.maxRecords, maxBytes: w.maxBytes, lingerMs: w.lingerMs };
    this.batching = { ...DEFAULT_BATCHING, ...opts.batching, ...own };
    // The per-record limit is the writer's alone: a record bigger than the runner's preferred batch
    // size still fits the destination and travels in a batch of its own. A writer's own batching only
    // says where a batch is cut (object_store), so its maxBytes bounds no single record.
    this.limits = {
      maxRecords: Math.max(1, Math.min(this.batching.maxRecords, w.maxRecords)),
      maxBytes: Math.min(this.batching.maxBytes, w.maxBytes),
      maxRecordBytes: w.lingerMs === undefined ? Math.min(w.maxRecordBytes, w.maxBytes - w.recordOverheadBytes) : w.maxRecordBytes,
      recordOverheadBytes: w.recordOverheadBytes,
    };
    // A batch is all deliveries of consumed records or none: only those park for waiting (parkAfterMs).
    this.batcher = new Batcher(this.limits, holdsItsPartition);
  }

  /**
   * Starts the delivery loop. The first connect is attempted at once, so a destination that cannot be
   * reached says so before its first event; write() reconnects as needed.
   */
  start(): void {
    if (this.loopDone !== undefined) return;
    this.loopDone = this.loop();
    this.writer.connect().catch((err: unknown) => {
      // A replaced runner's late failure says nothing of the destination's new target.
      if (!this.closing) this.health.connectFailed(toDeliveryError(err));
    });
  }

  get queued(): number {
    return this.batcher.size;
  }

  /**
   * Queues one delivery. Returns false once the runner is closing: the item is then not taken, and its
   * offset must stay uncommitted. Never blocks; the caller watches the shared in-flight budget.
   */
  enqueue(item: DeliveryItem): boolean {
    if (this.closing) return false;
    const size = payloadSize(item);
    this.budget.acquire(1, size);
    this.tally?.queued(item);
    if (size > this.limits.maxRecordBytes) {
      const error = new DeliveryError(
        'RECORD_TOO_LARGE',
        `The event is ${size} bytes; this destination takes at most ${this.limits.maxRecordBytes}.`,
      );
      deliveries.inc({ destination: this.destinationId, outcome: 'failed' });
      this.runTask(this.deadLetter([{ item, error }]));
      return true;
    }
    this.queue(item);
    this.changed.notify();
    return true;
  }

  /** Resolves once everything queued so far is settled (or abandoned); linger is skipped meanwhile. */
  async flush(): Promise<void> {
    this.flushing++;
    this.changed.notify();
    try {
      await this.idle();
    } finally {
      this.flushing--;
    }
  }

  /**
   * Drains within `deadlineMs`, then closes the writer. Deliveries still unsettled at the deadline are
   * abandoned: not acknowledged, so their offsets are not committed and they are read again later.
   */
  close(deadlineMs = 30_000): Promise<CloseResult> {
    this.closeResult ??= this.doClose(deadlineMs);
    return this.closeResult;
  }

  /** True while `item` is queued or in a batch being written: a report of what a stalled record waits for, not the hot path. */
  holds(item: DeliveryItem): boolean {
    if (this.batcher.includes(item)) return true;
    for (const batch of this.writing) if (batch.includes(item)) return true;
    return false;
  }

  /** Drops queued (not yet written) deliveries matching `predicate`, e.g. of revoked partitions. */
  discard(predicate: (item: DeliveryItem) => boolean): number {
    const removed = this.batcher.remove(predicate);
    this.abandon(removed);
    this.changed.notify();
    return removed.length;
  }

  private async doClose(deadlineMs: number): Promise<CloseResult> {
    this.closing = true;
    this.changed.notify();
    // A runner never started has nothing in flight; it only needs its loop if items were queued.
    if (this.loopDone === undefined && this.batcher.size > 0) this.start();
    const timer = new AbortController();
    const drained = await Promise.race([
      this.idle().then(() => true),
      this.clock.sleep(deadlineMs, timer.signal).then(() => false),
    ]);
    timer.abort();
    if (!drained) {
      this.log.warn({ queued: this.batcher.size, tasks: this.tasks }, 'The destination did not drain before the deadline.');
      this.abort.abort();
      this.abandon(this.batcher.remove(() => true));
      this.changed.notify();
    }
    await this.writer.close().catch((err: unknown) => {
      this.log.warn({ err: toDeliveryError(err) }, 'Closing the destination writer failed.');
    });
    if (!drained) {
      const grace = new AbortController();
      await Promise.race([this.idle(), this.clock.sleep(ABORT_GRACE_MS, grace.signal)]);
      grace.abort();
    }
    await (this.loopDone ?? Promise.resolve());
    return { drained, abandoned: this.abandoned };
  }

  private async idle(): Promise<void> {
    while (this.batcher.size > 0 || this.tasks > 0) await this.changed.wait();
  }

  private async loop(): Promise<void> {
    while (true) {
      if (this.batcher.size === 0) {
        if (this.closing) return;
        await this.changed.wait();
        continue;
      }
      // A slow destination's new deliveries park at once; re-driven ones are still written.
      if (this.slowSince !== undefined && this.overdueAt !== undefined && this.clock.now() >= this.parkAtOnceAgainAt) {
        if (!this.parkingOverdue) {
          this.parkOverdue(this.clock.now(), true);
          continue;
        }
        if (holdsItsPartition(this.batcher.peek() as DeliveryItem)) {
          await this.changed.wait();
          continue;
        }
      }
      if (!this.batcher.isFull() && !this.closing && this.flushing === 0) {
        const waitMs = (this.batcher.oldestAt ?? 0) + this.batching.lingerMs - this.clock.now();
        if (waitMs > 0) {
          await this.waitForChange(waitMs);
          continue;
        }
      }
      if (this.inFlightBatches >= this.batching.maxInFlightBatches) {
        const now = this.clock.now();
        if (this.overdueAt === undefined || this.parkingOverdue) await this.changed.wait();
        else if (now < this.overdueAt) await this.waitForChange(this.overdueAt - now);
        else this.parkOverdue(now);
        continue;
      }
      const arrivedAt = this.batcher.oldestAt ?? this.clock.now();
      const batch = this.batcher.take();
      this.inFlightBatches++;
      this.writing.add(batch);
      this.runTask(
        this.deliver(batch, arrivedAt).finally(() => {
          this.inFlightBatches--;
          this.writing.delete(batch);
        }),
      );
    }
  }

  /**
   * Parks the queued deliveries of consumed records that have waited parkAfterMs behind the
   * destination's writes, or, once it is slow (`atOnce`), all of them: their records commit, and their
   * partitions' next batches are routed, without waiting for a slow destination (ARCHITECTURE.md "Isolation").
   */
  private parkOverdue(now: number, atOnce = false): void {
    const waitMs = this.parkAfterMs as number;
    // In slices: what comes due within the next moment goes too, so a steady stream parks in a few sends a second.
    const overdue = this.batcher.remove(holdsItsPartition, atOnce ? Number.POSITIVE_INFINITY : now - waitMs + Math.min(OVERDUE_SLICE_MS, waitMs / 10));
    const next = this.batcher.firstArrival(holdsItsPartition);
    this.overdueAt = next === undefined ? undefined : next + waitMs;
    if (overdue.length === 0) return;
    if (!atOnce) this.slowSince ??= now;
    const error = atOnce
      ? new DeliveryError('DESTINATION_TIMEOUT', `The destination is slow: its events waited longer than ${formatSeconds(waitMs)} s, so new ones are parked at once and re-driven until a write is answered within ${formatSeconds(waitMs / 2)} s (PARK_AFTER_MS).`)
      : new DeliveryError('DESTINATION_TIMEOUT', `These events waited ${formatSeconds(waitMs)} s behind the destination's writes; they are parked and re-driven, so the records they came from do not wait for it (PARK_AFTER_MS).`);
    this.parkingOverdue = true;
    this.writing.add(overdue);
    this.runTask(
      this.park(overdue, 0, waitMs, error)
        .then((settled) => {
          if (settled && atOnce) this.probe(overdue);
          if (settled) return;
          // Not parked (the hook failed): queued again, to be written or parked later; at a stop, given up.
          if (this.closing || this.abort.signal.aborted) this.abandon(overdue);
          else for (const item of overdue) this.queue(item);
          // Not parked at once again straight away: a hook that fails at once would have the loop spin.
          if (atOnce) this.parkAtOnceAgainAt = this.clock.now() + Math.min(1_000, waitMs);
        })
        .finally(() => {
          this.parkingOverdue = false;
          this.writing.delete(overdue);
        }),
    );
  }

  /**
   * Writes parked deliveries anyway, at most one batch per parkAfterMs, to see whether a slow destination
   * answers in time again. If it lands, those events arrive twice (at least once).
   */
  private probe(parked: readonly DeliveryItem[]): void {
    const now = this.clock.now();
    if (this.probing || this.closing || now - this.lastProbeAt < (this.parkAfterMs as number)) return;
    const items = firstBatch(parked, this.limits);
    const before = this.lastProbeAt;
    this.probing = true;
    this.lastProbeAt = now;
    void this.attempt(items, 0, this.parkAfterMs)
      .then(({ failures, cutShort }) => {
        // Refused by the fail-fast circuit (parking.ts) without reaching the destination: it does not count.
        if (failures.length > 0 && failures.every((f) => f.error.code === 'DESTINATION_UNHEALTHY')) this.lastProbeAt = before;
        if (cutShort || failures.length === items.length) return;
        this.answeredIn(this.clock.now() - now);
        this.health.delivered(items.length - failures.length, this.slowSince !== undefined);
      })
      .finally(() => (this.probing = false));
  }

  /** A write delivered in `ms`: quick enough, and a slow destination's new deliveries are written again. */
  private answeredIn(ms: number): void {
    if (this.slowSince !== undefined && ms < (this.parkAfterMs as number) / 2) {
      this.log.info({ slowForMs: this.clock.now() - this.slowSince, answeredInMs: ms }, 'The destination answers in time again; its new events are written, not parked.');
      this.slowSince = undefined;
    }
  }

  /** Queues one delivery; a delivery of a consumed record may bring the next time one comes due (parkOverdue()). */
  private queue(item: DeliveryItem): void {
    const now = this.clock.now();
    this.batcher.push(item, now);
    if (this.parkAfterMs !== undefined && this.overdueAt === undefined && holdsItsPartition(item)) this.overdueAt = now + this.parkAfterMs;
  }

  private async waitForChange(ms: number): Promise<void> {
    const timer = new AbortController();
    await Promise.race([this.changed.wait(), this.clock.sleep(ms, timer.signal)]);
    timer.abort();
  }

  private runTask(task: Promise<void>): void {
    this.tasks++;
    task
      .catch((err: unknown) => this.log.error({ err }, 'A delivery task failed unexpectedly.'))
      .finally(() => {
        this.tasks--;
        this.changed.notify();
      });
  }

  /**
   * Writes one batch until every item is settled. The attempt budget is per batch; the time budget
   * runs from when the destination started failing (the first of the attempts in a row in which every
   * item failed retryably), so once a destination has been down past the budget, each new batch reaches the
   * budget-exhausted hook after its first failed attempt instead of waiting out a fresh window. A batch
   * of consumed records' deliveries reaches the hook once its first item, queued at `arrivedAt`, has
   * waited parkAfterMs: in a write not answered, or between failed attempts.
   */
  private async deliver(batch: readonly DeliveryItem[], arrivedAt: number): Promise<void> {
    const started = this.clock.now();
    const destination = this.destinationId;
    const parkAfterMs = this.parkAfterMs !== undefined && holdsItsPartition(batch[0] as DeliveryItem) ? this.parkAfterMs : undefined;
    const parkAt = parkAfterMs === undefined ? Number.POSITIVE_INFINITY : arrivedAt + parkAfterMs;
    let pending = batch;
    let windowAttempts = 0;
    for (let attempt = 1; ; attempt++) {
      windowAttempts++;
      // No attempt outlasts the retry budget: a write never answered holds its partition only that long;
      // nor what is left until parkAt (at least a second, so a destination that answers at once still can).
      const holdLeftMs = parkAfterMs === undefined ? undefined : Math.max(parkAt - this.clock.now(), Math.min(1_000, parkAfterMs));
      const attemptedAt = this.clock.now();
      const { failures, cutShort } = await this.attempt(pending, this.retry.maxElapsedMs - (this.clock.now() - (this.failingSince ?? started)), holdLeftMs);
      const { acked, retry, dead, retryAfterMs, lastError } = sortOutcome(pending, failures);
      if (acked.length > 0) this.answeredIn(this.clock.now() - attemptedAt);
      else if (cutShort) this.slowSince ??= this.clock.now();
      // Any answer other than "try again" for every item shows the destination is working.
      if (retry.length < pending.length) {
        this.failingSince = undefined;
        this.parkedWhileFailing = false;
      } else this.failingSince ??= this.clock.now();
      if (failures.length > 0) {
        deliveries.inc({ destination, outcome: 'failed' }, retry.length + dead.length);
        this.tally?.failed(failures);
      }
      const failure = lastError ?? dead[0]?.error;
      if (acked.length > 0) this.health.delivered(acked.length, this.slowSince !== undefined);
      else if (failure !== undefined) this.health.failed(failure);
      this.settle(acked, 'acked');
      if (dead.length > 0) await this.deadLetter(dead);
      if (retry.length === 0 || lastError === undefined) break;
      pending = retry;
      if (this.abort.signal.aborted) {
        this.abandon(pending);
        break;
      }
      const elapsedMs = this.clock.now() - (this.failingSince ?? started);
      // Never sleep past the time budget: a long backoff (or Retry-After) would hold the batch, and with it
      // the partition's commit and every other destination's events behind it, beyond the budget.
      const backoffMs = retryDelay(this.retry, attempt, retryAfterMs, this.random);
      const delayMs = (): number => Math.min(backoffMs, Math.max(0, this.retry.maxElapsedMs - (this.clock.now() - (this.failingSince ?? started))));
      // Parked now rather than after a wait: the next attempt would begin past parkAt.
      const pastParkAt = cutShort || this.clock.now() + delayMs() >= parkAt;
      if (windowAttempts >= this.retry.maxAttempts || elapsedMs >= this.retry.maxElapsedMs || this.parkedWhileFailing || pastParkAt) {
        if (await this.park(pending, attempt, elapsedMs, lastError)) break;
        // A new window: the hook (and its log line) runs again only once the next budget is spent.
        if (this.failingSince !== undefined) this.failingSince = this.clock.now();
        this.parkedWhileFailing = false;
        windowAttempts = 0;
      }
      const delay = delayMs();
      deliveries.inc({ destination, outcome: 'retried' }, pending.length);
      await this.clock.sleep(delay, this.abort.signal);
      if (this.abort.signal.aborted) {
        this.abandon(pending);
        break;
      }
    }
    batchLatency.observe({ kind: this.kind }, (this.clock.now() - started) / 1000);
  }

  /**
   * Hands `items` to the budget-exhausted hook and settles what it parked (dead-lettering what it
   * refused). False when the hook says to keep retrying: the items are then still the caller's.
   */
  private async park(items: readonly DeliveryItem[], attempts: number, elapsedMs: number, lastError: DeliveryError): Promise<boolean> {
    const decision = await this.budgetExhausted(items, attempts, elapsedMs, lastError);
    if (decision === 'keep_retrying') return false;
    const refused = decision === 'parked' ? [] : decision.parkedExcept;
    const unparked = new Set(refused.map((f) => f.item));
    const parked = unparked.size === 0 ? items : items.filter((item) => !unparked.has(item));
    if (parked.length > 0) this.health.parked(parked.length, lastError);
    if (parked.length > 0 && this.failingSince !== undefined) this.parkedWhileFailing = true;
    this.settle(parked, 'parked');
    if (refused.length > 0) await this.deadLetter(refused, false);
    return true;
  }

  /**
   * One write, failed with DESTINATION_TIMEOUT when it is not answered within `withinMs`, or the floor
   * an attempt always gets (ATTEMPT_FLOOR_MS, at most the budget): once the budget is spent, a write to a
   * destination that is back but slow must still have its time. With `holdLeftMs` (deliveries of
   * consumed records), it fails then at the latest, and `cutShort` says so. The write itself goes on:
   * if it lands later, its events arrive twice (at least once).
   */
  private async attempt(pending: readonly DeliveryItem[], withinMs: number, holdLeftMs?: number): Promise<{ failures: readonly ItemFailure[]; cutShort: boolean }> {
    const failAll = (error: DeliveryError): ItemFailure[] => pending.map((item) => ({ item, error }));
    const write = this.writer.write(pending).then(
      (outcome) => ({ failures: outcome.failed, cutShort: false }),
      (err: unknown) => ({ failures: failAll(toDeliveryError(err)), cutShort: false }),
    );
    const budgetMs = Math.max(withinMs, 1_000, Math.min(ATTEMPT_FLOOR_MS, this.retry.maxElapsedMs));
    const cutShort = holdLeftMs !== undefined && holdLeftMs < budgetMs;
    const limitMs = cutShort ? holdLeftMs : budgetMs;
    const why = cutShort
      ? `The destination did not answer a write within ${formatSeconds(limitMs)} s; its events are parked and re-driven, so the records they came from do not wait for it (PARK_AFTER_MS).`
      : `The destination did not answer a write within ${formatSeconds(limitMs)} s.`;
    // The real timer, not this.clock: a test's clock drives the backoff, and a fake write answers at once.
    let timer: NodeJS.Timeout | undefined;
    const unanswered = new Promise<{ failures: readonly ItemFailure[]; cutShort: boolean }>((resolve) => {
      timer = setTimeout(() => resolve({ failures: failAll(new DeliveryError('DESTINATION_TIMEOUT', why)), cutShort }), limitMs);
    });
    try {
      return await Promise.race([write, unanswered]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async budgetExhausted(items: readonly DeliveryItem[], attempts: number, elapsedMs: number, lastError: DeliveryError) {
    try {
      return await this.onBudgetExhausted({
        destinationId: this.destinationId,
        kind: this.kind,
        items,
        attempts,
        elapsedMs,
        lastError,
        signal: this.abort.signal,
      });
    } catch (err) {
      this.log.error({ err }, 'The budget-exhausted hook failed; the deliveries stay queued and are retried.');
      return 'keep_retrying' as const;
    }
  }

  /**
   * Dead-letters refused deliveries and settles them once the broker acknowledged their letters. The
   * write has a deadline (deadLetterDeadlineMs): letters it did not write by then, or that the dead-letter
   * topic refused for good, are parked instead (unless `parkOnFailure` is false: they come from a park),
   * so their records settle and the destination's status says why; at a stop they stay unsettled.
   */
  private async deadLetter(failures: readonly ItemFailure[], parkOnFailure = true): Promise<void> {
    let pending = failures;
    for (let attempt = 1; pending.length > 0; attempt++) {
      const letters = pending.map(({ item, error }) => ({
        value: item.payload,
        key: item.eventId,
        source: item.source,
        errorCode: error.code,
        errorMessage: error.message,
        destinationId: this.destinationId,
      }));
      const deadline = AbortSignal.any([this.abort.signal, AbortSignal.timeout(this.deadLetterDeadlineMs)]);
      try {
        await this.deadLetterSink.send(letters, deadline);
        this.deadLettered(pending);
        return;
      } catch (err) {
        const written = new Set(writtenLetters(letters, err));
        this.deadLettered(pending.filter((_, i) => written.has(letters[i] as (typeof letters)[number])));
        pending = pending.filter((_, i) => !written.has(letters[i] as (typeof letters)[number]));
        if (this.abort.signal.aborted) {
          this.log.warn({ err, records: pending.length }, 'Dead-lettering stopped at shutdown; the records stay uncommitted.');
          this.abandon(pending.map((f) => f.item));
          return;
        }
        // Parked instead, so the records they came from settle (ARCHITECTURE.md "Isolation"); the status shows why.
        const parking = deadLetterFailed(pending, err, this.deadLetterDeadlineMs, "They are parked in the destination's retry topic instead.");
        if (parkOnFailure && (await this.park(pending.map((f) => f.item), attempt, 0, parking))) return;
        this.health.failed(deadLetterFailed(pending, err, this.deadLetterDeadlineMs, 'Writing them is tried again; the records they came from wait for it.'));
        await this.clock.sleep(retryDelay(this.retry, attempt, undefined, this.random), this.abort.signal);
      }
    }
  }

  private deadLettered(failures: readonly ItemFailure[]): void {
    const first = failures[0];
    if (first === undefined) return;
    this.health.deadLetteredFor(failures.length, first.error);
    this.settle(
      failures.map((f) => f.item),
      'dead_lettered',
    );
  }

  private settle(items: readonly DeliveryItem[], settlement: Settlement): void {
    if (items.length === 0) return;
    let bytes = 0;
    for (const item of items) {
      bytes += payloadSize(item);
      this.tally?.settled(item, settlement);
      try {
        this.onSettled(item, settlement, this.destinationId);
      } catch (err) {
        this.log.error({ err }, 'The settlement listener threw; the delivery still counts as settled.');
      }
    }
    this.budget.release(items.length, bytes);
    deliveries.inc({ destination: this.destinationId, outcome: OUTCOME_LABEL[settlement] }, items.length);
  }

  private abandon(items: readonly DeliveryItem[]): void {
    if (items.length === 0) return;
    let bytes = 0;
    for (const item of items) bytes += payloadSize(item);
    this.budget.release(items.length, bytes);
    this.abandoned += items.length;
    try {
      this.onAbandoned?.(items);
    } catch (err) {
      this.log.error({ err }, 'The abandoned-deliveries hook failed.');
    }
  }
}

/** Why refused events were not dead-lettered, in the destination's status: what refused them, and what became of them. */
function deadLetterFailed(pending: readonly ItemFailure[], err: unknown, deadlineMs: number, then: string): DeliveryError {
  const first = pending[0] as ItemFailure;
  const stopped = err instanceof DeliveryError && err.retryable;
  const said = err instanceof Error ? err.message : String(err);
  const why = stopped ? `the dead-letter topic did not acknowledge them within ${formatSeconds(deadlineMs)} s` : said.charAt(0).toLowerCase() + said.slice(1).replace(/\.$/, '');
  return new DeliveryError('DEAD_LETTER_FAILED', `The destination refused ${pending.length} events for good (${first.error.code}: ${first.error.message}), and they could not be dead-lettered: ${why}. ${then}`, { cause: err });
}

function formatSeconds(ms: number): string {
  return String(Math.round(ms / 100) / 10);
}

