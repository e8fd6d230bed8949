// Per-destination isolation (DESIGN.md "Isolation"): the budget-exhausted hook that parks a destination's
// deliveries, the fail-fast circuit in front of its writer, and one re-driver per retry topic.
import type { Kafka } from 'kafkajs';
import { oldestParkedAge } from '../../telemetry/metrics.js';
import { createLogger, type Logger } from '../../telemetry/logger.js';
import type { RetryPolicy } from '../backoff.js';
import type { DeliveryItem, DestinationWriter } from '../contract.js';
import type { DeadLetterSink } from '../dead-letter.js';
import { underlyingError } from '../errors.js';
import type { DestinationRunner } from '../destination-runner.js';
import type { OnBudgetExhausted, Settlement } from '../runner-options.js';
import { FailFastWriter } from './fail-fast-writer.js';
import type { KafkaParkingStore } from './parking-store.js';
import { ReDriver } from './re-driver.js';

export interface ParkingOptions {
  readonly kafka: Kafka;
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
  readonly logger?: Logger;
}

export class Parking {
  private readonly gates = new Map<string, FailFastWriter>();
  private readonly reDrivers = new Map<string, ReDriver>();
  /** When each destination first parked since its re-driver last caught up (for the age gauge). */
  private readonly firstParkedAt = new Map<string, number>();
  private readonly log: Logger;
  private timers: NodeJS.Timeout[] = [];
  private stopped = false;

  constructor(private readonly opts: ParkingOptions) {
    this.log = opts.logger ?? createLogger('parking');
    opts.store.onParked((id, at) => {
      if (!this.firstParkedAt.has(id)) this.firstParkedAt.set(id, at);
      this.ensureReDriver(id);
    });
  }

  /** The destination pool's budget-exhausted hook: park, trip the circuit, make sure re-driving runs. */
  hookFor(destinationId: string): OnBudgetExhausted {
    return async (ctx) => {
      // Parked records name the destination's own error, not the fail-fast circuit's.
      const refused = await this.opts.store.park(destinationId, ctx.items, underlyingError(ctx.lastError), ctx.signal);
      this.gates.get(destinationId)?.trip(ctx.lastError);
      return refused.length === 0 ? 'parked' : { parkedExcept: refused };
    };
  }

  /** The destination pool's writer wrapper: the fail-fast circuit. */
  wrapWriter(destinationId: string, writer: DestinationWriter): DestinationWriter {
    const gate = new FailFastWriter(writer, this.opts.probeIntervalMs);
    this.gates.set(destinationId, gate);
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
    const held = this.reDrivers.get(destinationId)?.oldestHeld();
    const local = this.firstParkedAt.get(destinationId);
    const oldest = held === undefined ? local : local === undefined ? held : Math.min(held, local);
    return oldest === undefined ? 0 : Math.max(0, (now - oldest) / 1000);
  }

  /** Starts re-drivers for retry topics already holding deliveries, then keeps looking. */
  async start(): Promise<void> {
    await this.scan();
    const every = this.opts.scanIntervalMs ?? 10_000;
    const scan = setInterval(() => void this.scan(), every);
    const gauge = setInterval(() => this.updateGauge(), 1_000);
    scan.unref();
    gauge.unref();
    this.timers = [scan, gauge];
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearInterval(t);
    await Promise.all([...this.reDrivers.values()].map((r) => r.stop()));
    this.reDrivers.clear();
  }

  private async scan(): Promise<void> {
    if (this.stopped) return;
    const admin = this.opts.kafka.admin();
    try {
      await admin.connect();
      const topics = await admin.listTopics();
      for (const t of topics) if (t.startsWith(this.opts.prefix)) this.ensureReDriver(t.slice(this.opts.prefix.length));
      // Another worker may own a retry topic's partitions: it is caught up once its group committed the end.
      for (const id of this.firstParkedAt.keys()) {
        const topic = this.opts.store.topicFor(id);
        const ends = await admin.fetchTopicOffsets(topic);
        const [committed] = await admin.fetchOffsets({ groupId: `${this.opts.groupPrefix}.redrive.${id}`, topics: [topic] });
        const done = ends.every((e) => Number(committed?.partitions.find((c) => c.partition === e.partition)?.offset ?? -1) >= Number(e.high));
        if (done) this.firstParkedAt.delete(id);
      }
    } catch (err) {
      this.log.warn({ err }, 'Listing retry topics failed; the next scan tries again.');
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
    this.updateGauge();
  }

  private ensureReDriver(destinationId: string): void {
    if (this.stopped || destinationId === '' || this.reDrivers.has(destinationId)) return;
    const r = new ReDriver({
      kafka: this.opts.kafka,
      destinationId,
      topic: this.opts.store.topicFor(destinationId),
      groupId: `${this.opts.groupPrefix}.redrive.${destinationId}`,
      runner: () => this.opts.runner(destinationId),
      exists: () => this.opts.exists(destinationId),
      healthcheck: async () => {
        const gate = this.gates.get(destinationId);
        if (gate === undefined) throw new Error('The destination has no writer in this process.');
        await gate.healthcheck();
        gate.reset();
      },
      deadLetter: this.opts.deadLetter,
      onCaughtUp: () => this.firstParkedAt.delete(destinationId),
      ...(this.opts.redriveBackoff !== undefined && { backoff: this.opts.redriveBackoff }),
      ...(this.opts.redriveChunkSize !== undefined && { chunkSize: this.opts.redriveChunkSize }),
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
