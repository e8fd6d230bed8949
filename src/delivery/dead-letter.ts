// The dead-letter sink: bad input records (ingest) and undeliverable events (delivery) go to one topic,
// with headers naming where they came from and why. Letters are written in produces within the topic's
// max.message.bytes (topic-sender.ts, shared with parking); a failed write is retried while it may
// succeed, and reported with the letters it did not write when it cannot (README.md "Dead letters").
import { topicMaxMessageBytes } from '../kafka/record-limits.js';
import type { KafkaClient, OutgoingHeaderValue, OutgoingMessage } from '../kafka/seam.js';
import { createLogger, type Logger } from '../telemetry/logger.js';
import type { RetryPolicy } from './backoff.js';
import { systemClock, type Clock } from './clock.js';
import type { DeliveryItem, SourceRef } from './contract.js';
import { DeliveryError } from './errors.js';
import { SendEnded, TopicSender } from './topic-sender.js';

export const DEFAULT_DEAD_LETTER_TOPIC = 'edge.dlq';

/** Header names on every dead-lettered record. */
export const DLQ_HEADERS = {
  sourceTopic: 'x-source-topic',
  sourcePartition: 'x-source-partition',
  sourceOffset: 'x-source-offset',
  errorCode: 'x-error-code',
  errorMessage: 'x-error-message',
  destinationId: 'x-destination-id',
  /** On a letter written without its value, which alone was over the topic's limit: why, with the sizes. */
  valueOmitted: 'x-value-omitted',
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
   * Resolves once the broker has acknowledged every letter, written in produces within the topic's
   * max.message.bytes; a letter over it alone is written without its value (`x-value-omitted`: its
   * source record is still where `x-source-*` say). Retries what may succeed; rejects with a
   * DeadLetterError naming the letters not written when `signal` aborts or the sink is closed
   * (retryable), or when the broker refuses them for good (not retryable), so a caller never settles
   * (and commits) a record whose dead letter was not written, and never waits for ever on one that cannot be.
   */
  send(letters: readonly DeadLetter[], signal?: AbortSignal): Promise<void>;
  close(): Promise<void>;
}

/** DEAD_LETTER_FAILED, with the letters the broker did not acknowledge (the others were written). */
export class DeadLetterError extends DeliveryError {
  constructor(
    message: string,
    readonly unwritten: readonly DeadLetter[],
    options: { cause?: unknown; retryable: boolean },
  ) {
    super('DEAD_LETTER_FAILED', message, options);
  }
}

/** The letters of `letters` that `err`, a failed send's, says were written: none unless it is a DeadLetterError. */
export function writtenLetters(letters: readonly DeadLetter[], err: unknown): DeadLetter[] {
  if (!(err instanceof DeadLetterError)) return [];
  const unwritten = new Set(err.unwritten);
  return letters.filter((l) => !unwritten.has(l));
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
  private readonly sender: TopicSender;

  constructor(opts: KafkaDeadLetterSinkOptions) {
    this.topic = opts.topic ?? DEFAULT_DEAD_LETTER_TOPIC;
    this.sender = new TopicSender({
      kafka: opts.kafka,
      limitOf: topicMaxMessageBytes,
      ...(opts.retry !== undefined && { retry: opts.retry }),
      clock: opts.clock ?? systemClock,
      log: opts.logger ?? createLogger('dead-letter'),
      what: 'the dead-letter topic',
    });
  }

  async send(letters: readonly DeadLetter[], signal?: AbortSignal): Promise<void> {
    if (letters.length === 0) return;
    const letterOf = new Map<OutgoingMessage, DeadLetter>(letters.map((l) => [{ key: l.key ?? null, value: l.value, headers: deadLetterHeaders(l) }, l]));
    try {
      const oversize = await this.sender.send(this.topic, [...letterOf.keys()], signal);
      if (oversize.length === 0) return;
      // Alone over the limit: written without the value (and the record's own headers), which no send could take.
      const stubs = new Map<OutgoingMessage, DeadLetter>();
      for (const { message, bytes, limit } of oversize) {
        const letter = letterOf.get(message) as DeadLetter;
        const omitted = `${bytes} bytes with its headers; ${this.topic} takes at most ${limit} (max.message.bytes)`;
        const stub = { key: message.key ?? null, value: null, headers: { ...deadLetterHeaders({ ...letter, headers: {} }), [DLQ_HEADERS.valueOmitted]: omitted } };
        stubs.set(stub, letter);
        letterOf.set(stub, letter);
      }
      const still = await this.sender.send(this.topic, [...stubs.keys()], signal);
      if (still.length > 0) {
        const first = still[0] as (typeof still)[number];
        throw new DeadLetterError(
          `${still.length} dead letters do not fit ${this.topic} even without their values: one takes ${first.bytes} bytes, and the topic takes at most ${first.limit} (max.message.bytes).`,
          still.map((o) => letterOf.get(o.message) as DeadLetter),
          { retryable: false },
        );
      }
    } catch (err) {
      if (!(err instanceof SendEnded)) throw err;
      const unsent = (err.unsent as readonly OutgoingMessage[]).map((m) => letterOf.get(m) as DeadLetter);
      const stopped = err.reason === 'stopped';
      const why = stopped ? `Dead-lettering stopped before the broker acknowledged ${unsent.length} letters.` : err.message;
      throw new DeadLetterError(why, unsent, { cause: err, retryable: stopped });
    }
  }

  async close(): Promise<void> {
    await this.sender.close();
  }
}
