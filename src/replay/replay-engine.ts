// The workers' side of replays (ARCHITECTURE.md "Replay"). Every worker follows the replays in the config
// log and joins the consumer group of each one that is neither ended nor done, up to WORKER_MAX_REPLAYS at
// once; Kafka spreads each replay's partitions over the workers in its group, so any worker can take them,
// and one that dies hands them to the others, which resume from the group's committed offsets (behind
// settled deliveries, as live commits are). Reading is paced by live delivery's health (replay-pace.ts).
import type { ConfigLog } from '../configlog/config-log.js';
import type { StoredDestination, StoredSubscription } from '../configlog/resources.js';
import type { DeliveryItem } from '../delivery/contract.js';
import { LazyProducer } from '../kafka/lazy-producer.js';
import type { BatchScope } from '../kafka/seam.js';
import { createLogger } from '../telemetry/logger.js';
import { replayLag, replayReadRate, replayRecordsScanned, replaysRunning } from '../telemetry/metrics.js';
import type { ReplayBoard } from './replay-board.js';
import { progressKey, replayStatus, type ReplayProgressReport, type StoredReplay } from './replay-record.js';
import { budgetHasRoomForReplays, ReplayPace, type LiveHealth, type ReplayPaceLimits } from './replay-pace.js';
import { ReplayRun, type ReplayReaderDeps } from './replay-run.js';

const log = createLogger('replay');
/** How often the engine looks for replays to start or stop, and adapts the read rate. */
const TICK_MS = 500;
/** The longest one wait for the read rate lasts before the batch heartbeats and waits again. */
const PACE_SLICE_MS = 1_000;
/** How often a replay's batch looks again whether the in-flight budget has room for it. */
const BUDGET_POLL_MS = 50;

export interface ReplayEngineOptions extends ReplayReaderDeps {
  readonly configLog: ConfigLog;
  readonly board: ReplayBoard;
  readonly progressTopic: string;
  readonly workerMax: number;
  readonly pace: ReplayPaceLimits;
  /** The live worker's health, asked once a tick. */
  live(): LiveHealth;
}

export class ReplayEngine {
  private readonly runs = new Map<string, ReplayRun>();
  private readonly stopping = new Set<Promise<void>>();
  /** The run each routed record source belongs to, so its deliveries' settlements come back to it. */
  private readonly sources = new WeakMap<object, ReplayRun>();
  private readonly producer: LazyProducer;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** The read rate of all of this worker's replays. */
  private readonly readRate: ReplayPace;
  private sending: Promise<void> = Promise.resolve();

  constructor(private readonly opts: ReplayEngineOptions) {
    this.readRate = new ReplayPace(opts.pace);
    this.producer = new LazyProducer(opts.kafka, { retries: 3 });
  }

  start(): void {
    this.timer = setInterval(() => this.tick(), TICK_MS);
    this.timer.unref();
    this.tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await Promise.allSettled([...this.runs.values()].map((r) => r.stop()));
    await Promise.allSettled([...this.stopping]);
    this.runs.clear();
    replaysRunning.set(0);
    replayReadRate.set(0);
    await this.sending;
    await this.producer.close();
  }

  /** A delivery settled: true when it was one of a replay's (its run takes it), false for live ones. */
  settle(item: DeliveryItem): boolean {
    const source = item.source;
    if (source === undefined) return false;
    const run = this.sources.get(source);
    if (run === undefined) return false;
    run.settle(source);
    return true;
  }

  /** Replays this worker reads now. */
  get running(): readonly string[] {
    return [...this.runs.keys()];
  }

  private tick(): void {
    if (this.stopped) return;
    const live = this.opts.live();
    this.readRate.tick(live, this.runs.size > 0);
    const wanted = new Map<string, StoredReplay>();
    for (const v of this.opts.configLog.list('replay')) {
      const r = v.data as unknown as StoredReplay;
      if (this.shouldRun(r)) wanted.set(r.id, r);
    }
    for (const [id, run] of this.runs) {
      if (wanted.has(id)) continue;
      this.runs.delete(id);
      replayLag.remove({ replay: id });
      const stopping = run.stop().catch((err: unknown) => log.warn({ err, replay: id }, 'A replay reader did not stop cleanly.'));
      this.stopping.add(stopping);
      void stopping.finally(() => this.stopping.delete(stopping));
      log.info({ replay: id }, 'This worker stopped reading a replay.');
    }
    for (const [id, r] of wanted) {
      if (this.runs.has(id)) {
        const s = replayStatus(r, this.opts.board.reports(id));
        replayLag.set({ replay: id }, s.records_total - s.records_scanned);
        continue;
      }
      if (this.runs.size >= this.opts.workerMax) break;
      const sub = this.opts.configLog.get(r.subscription_id)?.data as unknown as StoredSubscription | undefined;
      if (sub === undefined) continue;
      const destinations = r.destination_ids.flatMap((d) => {
        const dest = this.opts.configLog.get(d)?.data as unknown as StoredDestination | undefined;
        return dest === undefined ? [] : [dest];
      });
      const run = new ReplayRun(r, sub, destinations, {
        kafka: this.opts.kafka,
        consumerGroup: this.opts.consumerGroup,
        owners: this.opts.owners,
        trafficTopics: this.opts.trafficTopics,
        pool: this.opts.pool,
        deadLetter: this.opts.deadLetter,
        budget: this.opts.budget,
        drainTimeoutMs: this.opts.drainTimeoutMs,
        stalledRecordAfterMs: this.opts.stalledRecordAfterMs,
        sessionTimeoutMs: this.opts.sessionTimeoutMs,
        pace: (n, scope) => this.pace(n, scope),
        checkpoint: (key) => this.opts.board.reports(r.id).get(key),
        publish: (report) => this.publish(report),
        claim: (source, owner) => this.sources.set(source, owner),
        scanned: (replay, n) => replayRecordsScanned.inc({ replay }, n),
      });
      this.runs.set(id, run);
      run.start().then(
        () => log.info({ replay: id, subscription: r.subscription_id }, 'This worker reads a replay.'),
        (err: unknown) => {
          log.error({ err, replay: id }, 'A replay reader could not start; the next tick tries again.');
          if (this.runs.get(id) === run) this.runs.delete(id);
          void run.stop().catch(() => undefined);
        },
      );
    }
    replaysRunning.set(this.runs.size);
    replayReadRate.set(this.runs.size === 0 ? 0 : Math.round(this.readRate.rate));
  }

  /** Not ended (cancelled, or its end written), its subscription there, and some partition not read to its end. */
  private shouldRun(r: StoredReplay): boolean {
    if (r.ended !== undefined) return false;
    if (this.opts.configLog.get(r.subscription_id) === undefined) return false;
    const state = replayStatus(r, this.opts.board.reports(r.id)).state;
    return state === 'queued' || state === 'running';
  }

  /** Waits until `records` more may be read and the in-flight budget has room for replays, heartbeating the batch's group while it waits. */
  private async pace(records: number, scope: BatchScope): Promise<void> {
    let beatAt = Date.now();
    for (;;) {
      if (this.stopped || scope.isStale()) break;
      const wait = budgetHasRoomForReplays(this.opts.budget) ? this.readRate.waitMs() : BUDGET_POLL_MS;
      if (wait === 0) break;
      await sleep(Math.min(PACE_SLICE_MS, wait));
      if (Date.now() - beatAt >= PACE_SLICE_MS) {
        await scope.heartbeat();
        beatAt = Date.now();
      }
    }
    this.readRate.take(records);
  }

  /** Checkpoints go out one send at a time, in order; this process's board applies each at once. */
  private publish(report: ReplayProgressReport): void {
    const key = progressKey(report.replay, report.topic, report.partition);
    const value = Buffer.from(JSON.stringify(report));
    // Sent until written (a replay's last checkpoint is what ends it), then applied here: the board never
    // holds a checkpoint the topic may not.
    this.sending = this.sending.then(async () => {
      for (let attempt = 0; !this.stopped || attempt === 0; attempt++) {
        try {
          const producer = await this.producer.get();
          await producer.send(this.opts.progressTopic, [{ key, value }]);
          this.opts.board.apply(key, value);
          return;
        } catch (err) {
          await this.producer.reset().catch(() => undefined);
          if (attempt === 0) log.warn({ err, key }, 'A replay checkpoint was not written; it is sent again.');
          await sleep(Math.min(5_000, 200 * 2 ** attempt));
        }
      }
    });
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(1, ms)).unref());
}
