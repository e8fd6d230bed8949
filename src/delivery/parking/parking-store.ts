// Parks deliveries in their destination's retry topic, created on demand. A park resolves only once the
// broker acknowledged every record, so the deliveries can be settled (and their offsets committed).
// Sends are split to the topic's max.message.bytes (topic-sender.ts, shared with the dead-letter sink); an
// event over it alone is handed back to be dead-lettered.
import { ensureTopics } from '../../kafka/client.js';
import { topicMaxMessageBytes } from '../../kafka/record-limits.js';
import type { KafkaAdmin, KafkaClient, OutgoingMessage } from '../../kafka/seam.js';
import { parkedDeliveries } from '../../telemetry/metrics.js';
import { createLogger, type Logger } from '../../telemetry/logger.js';
import { systemClock, type Clock } from '../clock.js';
import type { DeliveryItem, ItemFailure } from '../contract.js';
import { DeliveryError } from '../errors.js';
import { SendEnded, TopicSender, type Oversize } from '../topic-sender.js';
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
  private readonly sender: TopicSender;
  private readonly listeners: ParkedListener[] = [];
  private readonly clock: Clock;
  private readonly log: Logger;

  constructor(private readonly opts: ParkingStoreOptions) {
    this.clock = opts.clock ?? systemClock;
    this.log = opts.logger ?? createLogger('parking');
    this.sender = new TopicSender({ kafka: opts.kafka, limitOf: (admin, topic) => this.createAndRead(admin, topic), clock: this.clock, log: this.log, what: 'the retry topic' });
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
   * for the caller to dead-letter. Failures are retried with backoff (topic-sender.ts); it rejects with
   * PARKING_FAILED when `signal` aborts or the store is closed (retryable), or when the broker refuses the
   * records for good (not retryable), so a caller never settles a delivery that was not parked.
   */
  async park(destinationId: string, items: readonly DeliveryItem[], error: DeliveryError, signal?: AbortSignal): Promise<ItemFailure[]> {
    if (items.length === 0) return [];
    const topic = this.topicFor(destinationId);
    const now = this.clock.now();
    const itemOf = new Map<OutgoingMessage, DeliveryItem>(items.map((item) => [toParkedMessage(item, destinationId, error, now), item]));
    let oversize: Oversize<OutgoingMessage>[];
    try {
      oversize = await this.sender.send(topic, [...itemOf.keys()], signal);
    } catch (err) {
      if (!(err instanceof SendEnded)) throw err;
      const stopped = err.reason === 'stopped';
      const why = stopped ? `Parking ${err.unsent.length} deliveries in ${topic} stopped before the broker acknowledged them.` : err.message;
      throw new DeliveryError('PARKING_FAILED', why, { cause: err, retryable: stopped });
    }
    const refused = oversize.map(({ message, bytes, limit }) => ({ item: itemOf.get(message) as DeliveryItem, error: tooLarge(topic, bytes, limit) }));
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
    this.sender.forget(this.topicFor(destinationId));
  }

  async close(): Promise<void> {
    await this.sender.close();
  }

  /** Creates the retry topic when it is missing and reads the record batch size it takes. */
  private async createAndRead(admin: KafkaAdmin, topic: string): Promise<number> {
    const config: Record<string, string> = { 'max.message.bytes': String(RETRY_TOPIC_MAX_MESSAGE_BYTES) };
    if (this.opts.retentionMs !== undefined) config['retention.ms'] = String(this.opts.retentionMs);
    await ensureTopics(admin, [{ topic, partitions: this.opts.partitions ?? 1, config }]);
    return topicMaxMessageBytes(admin, topic);
  }
}

function tooLarge(topic: string, bytes: number, limit: number): DeliveryError {
  return new DeliveryError(
    'RECORD_TOO_LARGE',
    `The event takes ${bytes} bytes with its parking headers; the retry topic ${topic} takes at most ${limit} (max.message.bytes), so it cannot be parked.`,
  );
}
