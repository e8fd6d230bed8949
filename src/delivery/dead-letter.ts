// The dead-letter sink: bad input records (ingest) and undeliverable events (delivery) go to one topic,
// with headers naming where they came from and why. A failed dead-letter write is retried, never dropped.
import { LazyProducer } from '../kafka/lazy-producer.js';
import type { KafkaClient, OutgoingHeaderValue } from '../kafka/seam.js';
import { createLogger, type Logger } from '../telemetry/logger.js';
import { DEFAULT_RETRY_POLICY, backoffDelay, type RetryPolicy } from './backoff.js';
import { systemClock, type Clock } from './clock.js';
import type { DeliveryItem, SourceRef } from './contract.js';
import { DeliveryError } from './errors.js';

export const DEFAULT_DEAD_LETTER_TOPIC = 'edge.dlq';

/** Header names on every dead-lettered record. */
export const DLQ_HEADERS = {
  sourceTopic: 'x-source-topic',
  sourcePartition: 'x-source-partition',
  sourceOffset: 'x-source-offset',
  errorCode: 'x-error-code',
  errorMessage: 'x-error-message',
  destinationId: 'x-destination-id',
} as const;

// Kafka headers share the record's size budget; a long error text must not push the record over it.
const MAX_ERROR_MESSAGE_LENGTH = 1000;

export interface DeadLetter {
  /** The raw input record (ingest) or the serialized envelope (delivery). */
  readonly value: Buffer | null;
  readonly key?: Buffer | string | null;
  readonly source?: SourceRef;
  readonly errorCode: string;
  readonly errorMessage: string;
  /** Set for delivery failures: the destination that refused the event. */
  readonly destinationId?: string;
  /** Extra headers, e.g. the input record's own, a repeated one with all its values. */
  readonly headers?: Readonly<Record<string, OutgoingHeaderValue>>;
}

export interface DeadLetterSink {
  /**
   * Resolves once the broker has acknowledged every letter. Retries failures until it succeeds;
   * rejects with DEAD_LETTER_FAILED only when `signal` aborts or the sink is closed, so a caller never
   * settles (and commits) a record whose dead letter was not written.
   */
  send(letters: readonly DeadLetter[], signal?: AbortSignal): Promise<void>;
  close(): Promise<void>;
}

export function deadLetterHeaders(letter: DeadLetter): Record<string, OutgoingHeaderValue> {
  const headers: Record<string, OutgoingHeaderValue> = { ...letter.headers };
  if (letter.source !== undefined) {
    headers[DLQ_HEADERS.sourceTopic] = letter.source.topic;
    headers[DLQ_HEADERS.sourcePartition] = String(letter.source.partition);
    headers[DLQ_HEADERS.sourceOffset] = String(letter.source.offset);
  }
  headers[DLQ_HEADERS.errorCode] = letter.errorCode;
  headers[DLQ_HEADERS.errorMessage] = letter.errorMessage.slice(0, MAX_ERROR_MESSAGE_LENGTH);
  if (letter.destinationId !== undefined) headers[DLQ_HEADERS.destinationId] = letter.destinationId;
  return headers;
}

/**
 * The dead letter of an event whose destination was deleted before it was delivered there. `source` is
 * where the event came from (by default the item's own record); `when` says at which stage, e.g.
 * "while this event was parked for it".
 */
export function destinationRemovedLetter(destinationId: string, item: DeliveryItem, when: string, source: SourceRef | undefined = item.source): DeadLetter {
  return {
    value: item.payload,
    key: item.eventId,
    ...(source !== undefined && { source }),
    errorCode: 'DESTINATION_REMOVED',
    errorMessage: `Destination ${destinationId} was deleted ${when}.`,
    destinationId,
  };
}

export interface KafkaDeadLetterSinkOptions {
  readonly kafka: KafkaClient;
  readonly topic?: string;
  readonly retry?: RetryPolicy;
  readonly clock?: Clock;
  readonly logger?: Logger;
}

export class KafkaDeadLetterSink implements DeadLetterSink {
  readonly topic: string;
  private readonly producer: LazyProducer;
  private readonly closed = new AbortController();
  private readonly retry: RetryPolicy;
  private readonly clock: Clock;
  private readonly log: Logger;

  constructor(opts: KafkaDeadLetterSinkOptions) {
    this.producer = new LazyProducer(opts.kafka, { retries: 3 });
    this.topic = opts.topic ?? DEFAULT_DEAD_LETTER_TOPIC;
    this.retry = opts.retry ?? DEFAULT_RETRY_POLICY;
    this.clock = opts.clock ?? systemClock;
    this.log = opts.logger ?? createLogger('dead-letter');
  }

  async send(letters: readonly DeadLetter[], signal?: AbortSignal): Promise<void> {
    if (letters.length === 0) return;
    const messages = letters.map((l) => ({ key: l.key ?? null, value: l.value, headers: deadLetterHeaders(l) }));
    for (let attempt = 1; ; attempt++) {
      if (this.closed.signal.aborted || signal?.aborted === true) {
        throw new DeliveryError('DEAD_LETTER_FAILED', 'Dead-lettering stopped before the broker acknowledged it.');
      }
      try {
        const producer = await this.producer.get();
        await producer.send(this.topic, messages);
        return;
      } catch (err) {
        this.log.warn({ err, topic: this.topic, attempt, letters: letters.length }, 'Writing to the dead-letter topic failed; retrying.');
        await this.producer.reset();
        await this.clock.sleep(backoffDelay(this.retry, attempt), signal ?? this.closed.signal);
      }
    }
  }

  async close(): Promise<void> {
    this.closed.abort();
    await this.producer.close();
  }
}
