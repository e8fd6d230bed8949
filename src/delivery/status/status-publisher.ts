// A worker's side of the destination status: its report of every destination it has something to say
// about, on the status topic (status-report.ts). A report goes out within a tick of a change that matters
// (state, error, parked backlog) and again every interval, so readers can tell a running worker from one
// that stopped reporting; a deleted destination's report is tombstoned, and a clean stop marks them all
// stopped.
import { LazyProducer } from '../../kafka/lazy-producer.js';
import type { KafkaClient, OutgoingMessage } from '../../kafka/seam.js';
import { createLogger, type Logger } from '../../telemetry/logger.js';
import { systemClock, type Clock } from '../clock.js';
import type { DestinationStatus } from '../destination-health.js';
import { encodeReport, reportKey, type ParkedBacklog, type StatusReport } from './status-report.js';

/** The destinations a worker has, with its view of each. */
export interface HealthSource {
  statuses(): Iterable<readonly [string, DestinationStatus]>;
}

/** What the worker knows of each destination's parked deliveries (src/delivery/parking/). */
export interface ParkedSource {
  backlog(destinationId: string): ParkedBacklog | undefined;
  oldestParkedAt(destinationId: string): number | undefined;
}

export interface StatusPublisherOptions {
  readonly kafka: KafkaClient;
  readonly topic: string;
  /** This process's name in report keys; a new one per process. */
  readonly workerId: string;
  readonly health: HealthSource;
  readonly parked?: ParkedSource;
  /** A report is sent again at least this often (STATUS_REPORT_INTERVAL_MS). */
  readonly intervalMs: number;
  /** How often changes are looked for. */
  readonly tickMs?: number;
  readonly clock?: Clock;
  readonly logger?: Logger;
}

export const DEFAULT_STATUS_TICK_MS = 500;
const FAILURE_LINE_EVERY_MS = 60_000;

interface Sent {
  readonly signature: string;
  readonly at: number;
}

export class StatusPublisher {
  private readonly producer: LazyProducer;
  private readonly sent = new Map<string, Sent>();
  private readonly clock: Clock;
  private readonly log: Logger;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private lastFailureLineAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly opts: StatusPublisherOptions) {
    this.clock = opts.clock ?? systemClock;
    this.log = opts.logger ?? createLogger('destination-status');
    this.producer = new LazyProducer(opts.kafka, { retries: 2 });
  }

  start(): void {
    this.timer = setInterval(() => void this.publish(), this.opts.tickMs ?? DEFAULT_STATUS_TICK_MS);
    this.timer.unref();
  }

  /** Sends what changed or is due now; one send at a time (a tick during a send is skipped). */
  publish(): Promise<void> {
    this.running ??= this.publishDue(false).finally(() => (this.running = undefined));
    return this.running;
  }

  /** Marks every report of this worker stopped, so readers stop counting its state at once. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
    await this.publishDue(true);
    await this.producer.close();
  }

  private async publishDue(stopped: boolean): Promise<void> {
    const now = this.clock.now();
    const messages: OutgoingMessage[] = [];
    const next = new Map<string, Sent | undefined>();
    const present = new Set<string>();
    for (const [id, status] of this.opts.health.statuses()) {
      present.add(id);
      const report = this.reportOf(id, status, now, stopped);
      const before = this.sent.get(id);
      if (before === undefined && isEmpty(report)) continue;
      const signature = signatureOf(report);
      if (!stopped && before !== undefined && before.signature === signature && now - before.at < this.opts.intervalMs) continue;
      messages.push({ key: reportKey(id, this.opts.workerId), value: encodeReport(report) });
      next.set(id, { signature, at: now });
    }
    // A destination deleted from the config: its report goes with it.
    for (const id of this.sent.keys()) {
      if (present.has(id)) continue;
      messages.push({ key: reportKey(id, this.opts.workerId), value: null });
      next.set(id, undefined);
    }
    if (messages.length === 0) return;
    try {
      const producer = await this.producer.get();
      await producer.send(this.opts.topic, messages);
    } catch (err) {
      await this.producer.reset();
      if (now - this.lastFailureLineAt >= FAILURE_LINE_EVERY_MS) {
        this.lastFailureLineAt = now;
        this.log.warn({ err, topic: this.opts.topic }, 'Publishing destination status failed; it is sent again at the next change or interval.');
      }
      return;
    }
    for (const [id, sent] of next) {
      if (sent === undefined) this.sent.delete(id);
      else this.sent.set(id, sent);
    }
  }

  private reportOf(id: string, s: DestinationStatus, now: number, stopped: boolean): StatusReport {
    const backlog = this.opts.parked?.backlog(id);
    return {
      destination: id,
      worker: this.opts.workerId,
      state: s.state,
      since: s.since,
      lastAttemptAt: s.lastAttemptAt ?? null,
      lastDeliveredAt: s.lastDeliveredAt ?? null,
      lastError: s.lastError ?? null,
      parked: backlog ?? null,
      oldestParkedAt: this.opts.parked?.oldestParkedAt(id) ?? null,
      stalledSince: s.stalledSince ?? null,
      reportedAt: now,
      stopped,
    };
  }
}

/** Nothing to say: never attempted, nothing parked that this worker knows of. */
function isEmpty(r: StatusReport): boolean {
  return r.state === 'unknown' && r.lastError === null && r.lastDeliveredAt === null && (r.parked?.events ?? 0) === 0 && r.oldestParkedAt === null && r.stalledSince === null;
}

/** What makes a report worth sending at once; times that move with every attempt wait for the interval. */
function signatureOf(r: StatusReport): string {
  return JSON.stringify([r.state, r.since, r.lastError?.code, r.lastError?.message, r.lastDeliveredAt === null, r.parked?.events, r.oldestParkedAt, r.stalledSince]);
}
