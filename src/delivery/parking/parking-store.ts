// Parks deliveries in their destination's retry topic, created on demand. A park resolves only once the
// broker acknowledged every record, so the deliveries can be settled (and their offsets committed).
// Sends are split to the topic's max.message.bytes; an event over it alone is handed back to be dead-lettered.
import { ensureTopics } from '../../kafka/client.js';
import { LazyProducer } from '../../kafka/lazy-producer.js';
import { splitToBatchLimit, topicMaxMessageBytes } from '../../kafka/record-limits.js';
import { withAdmin, type KafkaClient, type OutgoingMessage } from '../../kafka/seam.js';
import { parkedDeliveries } from '../../telemetry/metrics.js';
import { createLogger, type Logger } from '../../telemetry/logger.js';
import { DEFAULT_RETRY_POLICY, backoffDelay } from '../backoff.js';
import { systemClock, type Clock } from '../clock.js';
import type { DeliveryItem, ItemFailure } from '../contract.js';
import { DeliveryError } from '../errors.js';
import { retryTopic, toParkedMessage } from './parked-record.js';

/**
 * max.message.bytes of the retry topics this service creates: room for the largest event any writer
 * takes (4 MiB, file) with its parking headers. A topic created by someone else keeps its own limit,
 * read from the broker.
 */
export const RETRY_TOPIC_MAX_MESSAGE_BYTES = 8 * 1024 * 1024;

export interface ParkingStoreOptions {
  readonly kafka: KafkaClient;
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
  /** Retry topics known to exist, with their max.message.bytes. */
  private readonly limits = new Map<string, number>();
  private readonly closed = new AbortController();
  private readonly listeners: ParkedListener[] = [];
  private readonly clock: Clock;
  private readonly log: Logger;

  constructor(private readonly opts: ParkingStoreOptions) {
    this.producer = new LazyProducer(opts.kafka, { retries: 3 });
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
   * Writes the items to the destination's retry topic and resolves once the broker acknowledged them,
   * with the items it could not take: each alone over the topic's max.message.bytes (RECORD_TOO_LARGE),
   * for the caller to dead-letter. Failures are retried with backoff; it rejects with PARKING_FAILED only
   * when `signal` aborts or the store is closed, so a caller never settles a delivery that was not parked.
   */
  async park(destinationId: string, items: readonly DeliveryItem[], error: DeliveryError, signal?: AbortSignal): Promise<ItemFailure[]> {
    if (items.length === 0) return [];
    const topic = this.topicFor(destinationId);
    const now = this.clock.now();
    const itemOf = new Map<OutgoingMessage, DeliveryItem>(items.map((item) => [toParkedMessage(item, destinationId, error, now), item]));
    let unsent: OutgoingMessage[] = [...itemOf.keys()];
    let refused: ItemFailure[] = [];
    for (let attempt = 1; unsent.length > 0; attempt++) {
      if (this.closed.signal.aborted || signal?.aborted === true) {
        throw new DeliveryError('PARKING_FAILED', `Parking ${unsent.length} deliveries in ${topic} stopped before the broker acknowledged them.`);
      }
      try {
        const limit = await this.limitOf(topic);
        const split = splitToBatchLimit(unsent, limit);
        refused = split.oversize.map(({ message, bytes }) => ({ item: itemOf.get(message) as DeliveryItem, error: tooLarge(topic, bytes, limit) }));
        const producer = await this.producer.get();
        for (const chunk of split.chunks) {
          await producer.send(topic, chunk);
          // Acknowledged chunks are not sent again when a later one fails.
          const sent = new Set(chunk);
          unsent = unsent.filter((m) => !sent.has(m));
        }
        unsent = [];
      } catch (err) {
        this.log.warn({ err, topic, attempt, records: unsent.length }, 'Writing to the retry topic failed; retrying.');
        // The topic may have been deleted or had its limit changed: look at it again on the next attempt.
        this.limits.delete(topic);
        if (this.opts.kafka.errorKind(err) !== 'too_large') await this.producer.reset();
        await this.clock.sleep(backoffDelay(DEFAULT_RETRY_POLICY, attempt), signal ?? this.closed.signal);
      }
    }
    const parked = items.length - refused.length;
    if (parked > 0) {
      parkedDeliveries.inc({ destination: destinationId }, parked);
      for (const l of this.listeners) {
        try {
          l(destinationId, now);
        } catch (err) {
          this.log.error({ err }, 'A parking listener failed.');
        }
      }
    }
    return refused;
  }

  /** Forgets what it knows of a destination's retry topic (it was deleted). */
  forget(destinationId: string): void {
    this.limits.delete(this.topicFor(destinationId));
  }

  async close(): Promise<void> {
    this.closed.abort();
    await this.producer.close();
  }

  /** Creates the retry topic when it is missing and reads the record batch size it takes. */
  private async limitOf(topic: string): Promise<number> {
    const known = this.limits.get(topic);
    if (known !== undefined) return known;
    return withAdmin(this.opts.kafka, async (admin) => {
      const config: Record<string, string> = { 'max.message.bytes': String(RETRY_TOPIC_MAX_MESSAGE_BYTES) };
      if (this.opts.retentionMs !== undefined) config['retention.ms'] = String(this.opts.retentionMs);
      await ensureTopics(admin, [{ topic, partitions: this.opts.partitions ?? 1, config }]);
      const limit = await topicMaxMessageBytes(admin, topic);
      this.limits.set(topic, limit);
      return limit;
    });
  }
}

function tooLarge(topic: string, bytes: number, limit: number): DeliveryError {
  return new DeliveryError(
    'RECORD_TOO_LARGE',
    `The event takes ${bytes} bytes with its parking headers; the retry topic ${topic} takes at most ${limit} (max.message.bytes), so it cannot be parked.`,
  );
}
