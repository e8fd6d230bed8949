// Parks deliveries in their destination's retry topic, created on demand. A park resolves only once the
// broker acknowledged every record, so the deliveries can be settled (and their offsets committed).
import type { Kafka } from 'kafkajs';
import { ensureTopics } from '../../kafka/client.js';
import { LazyProducer } from '../../kafka/lazy-producer.js';
import { parkedDeliveries } from '../../telemetry/metrics.js';
import { createLogger, type Logger } from '../../telemetry/logger.js';
import { DEFAULT_RETRY_POLICY, backoffDelay } from '../backoff.js';
import { systemClock, type Clock } from '../clock.js';
import type { DeliveryItem } from '../contract.js';
import { DeliveryError } from '../errors.js';
import { retryTopic, toParkedMessage } from './parked-record.js';

const LOG_EVERY_MS = 10_000;

export interface ParkingStoreOptions {
  readonly kafka: Kafka;
  /** Retry topics are `<prefix><destination id>`. */
  readonly prefix: string;
  readonly partitions?: number;
  /** retention.ms of retry topics. */
  readonly retentionMs?: number;
  readonly clock?: Clock;
  readonly logger?: Logger;
}

/** Told after deliveries of a destination were parked, so re-driving can start without waiting for a scan. */
export type ParkedListener = (destinationId: string, parkedAt: number) => void;

export class KafkaParkingStore {
  private readonly producer: LazyProducer;
  private readonly created = new Set<string>();
  private readonly closed = new AbortController();
  private readonly listeners: ParkedListener[] = [];
  private readonly logged = new Map<string, { at: number; records: number }>();
  private readonly clock: Clock;
  private readonly log: Logger;

  constructor(private readonly opts: ParkingStoreOptions) {
    this.producer = new LazyProducer(opts.kafka, { retry: { retries: 3, initialRetryTime: 100, maxRetryTime: 2000 } });
    this.clock = opts.clock ?? systemClock;
    this.log = opts.logger ?? createLogger('parking');
  }

  topicFor(destinationId: string): string {
    return retryTopic(this.opts.prefix, destinationId);
  }

  onParked(listener: ParkedListener): void {
    this.listeners.push(listener);
  }

  /**
   * Writes the items to the destination's retry topic and resolves once the broker acknowledged them.
   * Failures are retried with backoff; it rejects with PARKING_FAILED only when `signal` aborts or the
   * store is closed, so a caller never settles a delivery that was not parked.
   */
  async park(destinationId: string, items: readonly DeliveryItem[], error: DeliveryError, signal?: AbortSignal): Promise<void> {
    if (items.length === 0) return;
    const topic = this.topicFor(destinationId);
    const now = this.clock.now();
    const messages = items.map((item) => toParkedMessage(item, destinationId, error, now));
    for (let attempt = 1; ; attempt++) {
      if (this.closed.signal.aborted || signal?.aborted === true) {
        throw new DeliveryError('PARKING_FAILED', `Parking ${items.length} deliveries in ${topic} stopped before the broker acknowledged them.`);
      }
      try {
        await this.ensureTopic(topic);
        const producer = await this.producer.get();
        await producer.send({ topic, messages, acks: -1 });
        break;
      } catch (err) {
        this.log.warn({ err, topic, attempt, records: items.length }, 'Writing to the retry topic failed; retrying.');
        await this.producer.reset();
        await this.clock.sleep(backoffDelay(DEFAULT_RETRY_POLICY, attempt), signal ?? this.closed.signal);
      }
    }
    parkedDeliveries.inc({ destination: destinationId }, items.length);
    this.logParked(destinationId, topic, items.length, error, now);
    for (const l of this.listeners) {
      try {
        l(destinationId, now);
      } catch (err) {
        this.log.error({ err }, 'A parking listener failed.');
      }
    }
  }

  // One line per destination per LOG_EVERY_MS, with the count since the last line: a parked destination
  // parks every batch, and a line each would flood the log.
  private logParked(destinationId: string, topic: string, records: number, error: DeliveryError, now: number): void {
    const last = this.logged.get(destinationId);
    if (last !== undefined && now - last.at < LOG_EVERY_MS) {
      last.records += records;
      return;
    }
    this.logged.set(destinationId, { at: now, records: 0 });
    this.log.warn(
      { destination: destinationId, topic, records: records + (last?.records ?? 0), code: error.code, reason: error.message },
      'The destination spent its retry budget; its deliveries were parked in its retry topic and will be re-driven when it recovers.',
    );
  }

  async close(): Promise<void> {
    this.closed.abort();
    await this.producer.close();
  }

  private async ensureTopic(topic: string): Promise<void> {
    if (this.created.has(topic)) return;
    const admin = this.opts.kafka.admin();
    await admin.connect();
    try {
      await ensureTopics(admin, [
        {
          topic,
          partitions: this.opts.partitions ?? 1,
          ...(this.opts.retentionMs !== undefined && { config: { 'retention.ms': String(this.opts.retentionMs) } }),
        },
      ]);
    } finally {
      await admin.disconnect();
    }
    this.created.add(topic);
  }
}
