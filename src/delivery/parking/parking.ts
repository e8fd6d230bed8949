// Per-destination isolation (ARCHITECTURE.md "Isolation"): the budget-exhausted hook that parks a destination's
// deliveries, the fail-fast circuit in front of its writer, one re-driver per retry topic, the retirement
// of a deleted destination's retry topic once its backlog is dead-lettered, and what the destination's
// status says of its parked deliveries.
import { withAdmin, type KafkaAdmin, type KafkaClient } from '../../kafka/seam.js';
import { oldestParkedAge } from '../../telemetry/metrics.js';
import { createLogger, type Logger } from '../../telemetry/logger.js';
import type { RetryPolicy } from '../backoff.js';
import type { DeliveryItem, DestinationWriter } from '../contract.js';
import type { DeadLetterSink } from '../dead-letter.js';
import { toDeliveryError, underlyingError } from '../errors.js';
import type { DestinationRunner } from '../destination-runner.js';
import type { OnBudgetExhausted, Settlement } from '../runner-options.js';
import type { ParkedBacklog } from '../status/status-report.js';
import { BacklogMeter, retryTopicProgress } from './backlog.js';
import { FailFastWriter } from './fail-fast-writer.js';
import type { KafkaParkingStore } from './parking-store.js';
import { ReDriver } from './re-driver.js';

export interface ParkingOptions {
  readonly kafka: KafkaClient;
  readonly store: KafkaParkingStore;
  /** The retry topic prefix (`topics.retryPrefix`). */
  readonly prefix: string;
  /** Re-drivers use the group `<groupPrefix>.redrive.<destination id>`. */
  readonly groupPrefix: string;
  readonly runner: (destinationId: string) => DestinationRunner | undefined;
  /** Whether the destination still exists in the config (a deleted one's parked deliveries are dead-lettered). */
  readonly exists: (destinationId: string) => boolean;
  readonly deadLetter: DeadLetterSink;
  /** How often retry topics are listed to find parked deliveries left by this or other workers. */
  readonly scanIntervalMs?: number;
  /** While a destination is parked, one real write per interval probes it; the rest fail fast. */
  readonly probeIntervalMs?: number;
  readonly redriveBackoff?: Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs'>;
  readonly redriveChunkSize?: number;
  /** The re-driver groups' session timeout (CONSUMER_SESSION_TIMEOUT_MS, as the ingest group's). */
  readonly sessionTimeoutMs?: number;
  /**
   * How long a destination must have been deleted before its drained retry topic and re-drive group are
   * deleted: longer than any worker may still park for it (a replaced runner drains within its deadline).
   */
  readonly retireAfterMs?: number;
  readonly logger?: Logger;
}

export const DEFAULT_RETIRE_AFTER_MS = 60_000;
/** How often a retry topic with parked deliveries is measured for the destination's status. */
const BUSY_BACKLOG_EVERY_MS = 2_000;

export class Parking {
  private readonly gates = new Map<string, FailFastWriter>();
  private readonly reDrivers = new Map<string, ReDriver>();
  /** When each destination first parked since its re-driver last caught up (for the age gauge). */
  private readonly firstParkedAt = new Map<string, number>();
  /** When each scan first found a retry topic whose destination is not in the config. */
  private readonly deletedSince = new Map<string, number>();
  private readonly log: Logger;
  private readonly meter: BacklogMeter;
  private measuring: Promise<void> | undefined;
  private scanning: Promise<void> | undefined;
  private timers: NodeJS.Timeout[] = [];
  private stopped = false;

  constructor(private readonly opts: ParkingOptions) {
    this.log = opts.logger ?? createLogger('parking');
    this.meter = new BacklogMeter({
      kafka: opts.kafka,
      topicOf: (id) => opts.store.topicFor(id),
      groupOf: (id) => this.groupOf(id),
      busyEveryMs: BUSY_BACKLOG_EVERY_MS,
      idleEveryMs: opts.scanIntervalMs ?? 10_000,
    });
    opts.store.onParked((id, at) => {
      if (!this.firstParkedAt.has(id)) this.firstParkedAt.set(id, at);
      this.ensureReDriver(id);
    });
  }

  /**
   * The destination pool's budget-exhausted hook: park, trip the circuit, make sure re-driving runs. Made
   * for a runner after wrapWriter() wrapped its writer: it trips that writer's circuit, never the one of a
   * runner that replaced it meanwhile (a config update fixing the destination).
   */
  hookFor(destinationId: string): OnBudgetExhausted {
    const gate = this.gates.get(destinationId);
    return async (ctx) => {
      // Parked records name the destination's own error, not the fail-fast circuit's.
      const reason = underlyingError(ctx.lastError);
      const refused = await this.opts.store.park(destinationId, ctx.items, reason, ctx.signal);
      gate?.trip(reason);
      return refused.length === 0 ? 'parked' : { parkedExcept: refused };
    };
  }

  /** The destination pool's writer wrapper: the fail-fast circuit. A new writer wakes the destination's re-driver. */
  wrapWriter(destinationId: string, writer: DestinationWriter): DestinationWriter {
    const gate = new FailFastWriter(writer, this.opts.probeIntervalMs);
    this.gates.set(destinationId, gate);
    this.reDrivers.get(destinationId)?.wake();
    return gate;
  }

  /** Settles a re-driven delivery; false for deliveries of the main path. Cheap for those: one prefix test. */
  settle(item: DeliveryItem, settlement: Settlement, destinationId: string): boolean {
    if (item.source === undefined || !item.source.topic.startsWith(this.opts.prefix)) return false;
    const r = this.reDrivers.get(destinationId);
    if (r === undefined || !r.owns(item)) return false;
    r.settle(item, settlement);
    return true;
  }

  /** Seconds since the oldest parked delivery not yet re-driven was parked, as this worker sees it; 0 when none. */
  oldestParkedAgeSeconds(destinationId: string, now = Date.now()): number {
    const oldest = this.oldestParkedAt(destinationId);
    return oldest === undefined ? 0 : Math.max(0, (now - oldest) / 1000);
  }

  /** When the oldest parked delivery not yet re-driven was parked, as this worker sees it (its re-driver, its own parking). */
  oldestParkedAt(destinationId: string): number | undefined {
    const held = this.reDrivers.get(destinationId)?.oldestHeld();
    const local = this.firstParkedAt.get(destinationId);
    return held === undefined ? local : local === undefined ? held : Math.min(held, local);
  }

  /**
   * The destination's retry topic backlog, as last measured here; measured only by workers whose re-driver
   * has partitions of the topic (every few seconds while it has parked deliveries), undefined elsewhere.
   */
  backlog(destinationId: string): ParkedBacklog | undefined {
    return this.meter.get(destinationId);
  }

  /** Starts re-drivers for retry topics already holding deliveries, then keeps looking. */
  async start(): Promise<void> {
    await this.scan();
    const every = this.opts.scanIntervalMs ?? 10_000;
    const scan = setInterval(() => void this.scan(), every);
    const gauge = setInterval(() => this.updateGauge(), 1_000);
    const backlog = setInterval(() => void this.measureBacklogs(), BUSY_BACKLOG_EVERY_MS);
    for (const t of [scan, gauge, backlog]) t.unref();
    this.timers = [scan, gauge, backlog];
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearInterval(t);
    await Promise.all([...this.reDrivers.values()].map((r) => r.stop()));
    this.reDrivers.clear();
    await this.measuring;
    await this.meter.close();
  }

  /** One round of backlog measurements at a time, of the retry topics this worker re-drives. */
  private measureBacklogs(): Promise<void> {
    this.measuring ??= (async () => {
      const owned: { id: string; busy: boolean }[] = [];
      for (const [id, r] of this.reDrivers) {
        if (r.assigned) owned.push({ id, busy: this.firstParkedAt.has(id) });
        else this.meter.forget(id);
      }
      await this.meter.measure(owned);
    })().finally(() => (this.measuring = undefined));
    return this.measuring;
  }

  /**
   * One scan at a time: a scan that listed a retry topic before another retired it would start a
   * re-driver for it again, whose group join brings the deleted re-drive group back.
   */
  private scan(): Promise<void> {
    this.scanning ??= (async () => {
      if (this.stopped) return;
      try {
        await withAdmin(this.opts.kafka, (admin) => this.scanWith(admin));
      } catch (err) {
        this.log.warn({ err }, 'Listing retry topics failed; the next scan tries again.');
      }
      this.updateGauge();
    })().finally(() => (this.scanning = undefined));
    return this.scanning;
  }

  private async scanWith(admin: KafkaAdmin): Promise<void> {
    const ids = (await admin.listTopics()).filter((t) => t.startsWith(this.opts.prefix)).map((t) => t.slice(this.opts.prefix.length));
    const withTopic = new Set(ids);
    for (const id of ids) this.ensureReDriver(id);
    // Another worker may own a retry topic's partitions: it is caught up once its group committed the end
    // (or, for a deleted destination, once another worker retired the topic). A topic created since the
    // listing is looked at in the next scan.
    for (const id of this.firstParkedAt.keys()) {
      if (withTopic.has(id) ? await this.drained(admin, id) : !this.opts.exists(id)) this.firstParkedAt.delete(id);
    }
    await this.retireDeleted(admin, withTopic);
  }

  /** True when the destination's re-drive group has committed every partition of its retry topic to the end. */
  private async drained(admin: KafkaAdmin, destinationId: string): Promise<boolean> {
    const progress = await retryTopicProgress(admin, this.opts.store.topicFor(destinationId), this.groupOf(destinationId));
    return progress.every((p) => p.committed >= p.high);
  }

  /**
   * A deleted destination's re-driver dead-letters its backlog (DESTINATION_REMOVED). Once that is
   * committed and the destination has been gone for `retireAfterMs`, its retry topic and re-drive group
   * are deleted, so broken destinations do not leave retry topics behind forever. A worker whose retry
   * topic another worker deleted stops its re-driver.
   */
  private async retireDeleted(admin: KafkaAdmin, withTopic: ReadonlySet<string>): Promise<void> {
    const now = Date.now();
    for (const id of this.deletedSince.keys()) if (!withTopic.has(id) || this.opts.exists(id)) this.deletedSince.delete(id);
    for (const id of [...this.reDrivers.keys()]) if (!withTopic.has(id) && !this.opts.exists(id)) await this.forget(admin, id);
    for (const id of withTopic) {
      if (this.opts.exists(id)) continue;
      const since = this.deletedSince.get(id) ?? now;
      this.deletedSince.set(id, since);
      if (now - since < (this.opts.retireAfterMs ?? DEFAULT_RETIRE_AFTER_MS) || !(await this.drained(admin, id))) continue;
      await this.forget(admin, id);
      await admin.deleteTopics([this.opts.store.topicFor(id)]);
      this.deletedSince.delete(id);
      this.log.info({ destination: id, topic: this.opts.store.topicFor(id) }, 'A deleted destination\'s parked events were all dead-lettered; its retry topic was deleted.');
    }
  }

  /** Stops the destination's re-driver and drops its re-drive group and what this worker knew of it. */
  private async forget(admin: KafkaAdmin, destinationId: string): Promise<void> {
    const r = this.reDrivers.get(destinationId);
    this.reDrivers.delete(destinationId);
    await r?.stop();
    this.gates.delete(destinationId);
    this.firstParkedAt.delete(destinationId);
    this.meter.forget(destinationId);
    this.opts.store.forget(destinationId);
    oldestParkedAge.remove({ destination: destinationId });
    // Fails while another worker's re-driver is still a member; the last one to stop deletes it.
    await admin.deleteGroups([this.groupOf(destinationId)]).catch(() => undefined);
  }

  private groupOf(destinationId: string): string {
    return `${this.opts.groupPrefix}.redrive.${destinationId}`;
  }

  private ensureReDriver(destinationId: string): void {
    if (this.stopped || destinationId === '' || this.reDrivers.has(destinationId)) return;
    const r = new ReDriver({
      kafka: this.opts.kafka,
      destinationId,
      topic: this.opts.store.topicFor(destinationId),
      groupId: this.groupOf(destinationId),
      runner: () => this.opts.runner(destinationId),
      exists: () => this.opts.exists(destinationId),
      healthcheck: async () => {
        const gate = this.gates.get(destinationId);
        if (gate === undefined) throw new Error('The destination has no writer in this process.');
        try {
          await gate.healthcheck();
        } catch (err) {
          // The status says why the parked deliveries still wait, which may no longer be why they were parked.
          this.opts.runner(destinationId)?.health.healthCheckFailed(toDeliveryError(err));
          throw err;
        }
        gate.reset();
      },
      deadLetter: this.opts.deadLetter,
      onCaughtUp: () => this.firstParkedAt.delete(destinationId),
      ...(this.opts.redriveBackoff !== undefined && { backoff: this.opts.redriveBackoff }),
      ...(this.opts.redriveChunkSize !== undefined && { chunkSize: this.opts.redriveChunkSize }),
      ...(this.opts.sessionTimeoutMs !== undefined && { sessionTimeoutMs: this.opts.sessionTimeoutMs }),
    });
    this.reDrivers.set(destinationId, r);
    r.start().catch((err: unknown) => {
      this.log.error({ err, destination: destinationId }, 'A re-driver could not start; the next scan tries again.');
      if (this.reDrivers.get(destinationId) === r) this.reDrivers.delete(destinationId);
      void r.stop();
    });
  }

  private updateGauge(): void {
    const now = Date.now();
    const ids = new Set([...this.reDrivers.keys(), ...this.firstParkedAt.keys()]);
    for (const id of ids) oldestParkedAge.set({ destination: id }, this.oldestParkedAgeSeconds(id, now));
  }
}
