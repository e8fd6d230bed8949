// The one send loop of the writes that settle a record, parking's and dead-lettering's: records go to a
// topic of the service's cluster in produces that fit its max.message.bytes (src/kafka/record-limits.ts),
// what may succeed is retried with backoff, and what cannot succeed is not retried (src/delivery/README.md
// "Dead letters").
import { LazyProducer } from '../kafka/lazy-producer.js';
import { splitToBatchLimit } from '../kafka/record-limits.js';
import { withAdmin, type KafkaAdmin, type KafkaClient, type OutgoingMessage } from '../kafka/seam.js';
import type { Logger } from '../telemetry/logger.js';
import { DEFAULT_RETRY_POLICY, backoffDelay, type RetryPolicy } from './backoff.js';
import type { Clock } from './clock.js';

export interface TopicSenderOptions {
  readonly kafka: KafkaClient;
  /** The topic's max.message.bytes as the broker applies it; a caller that creates its topics on demand creates it here first. */
  readonly limitOf: (admin: KafkaAdmin, topic: string) => Promise<number>;
  /** The backoff between attempts; DEFAULT_RETRY_POLICY's by default. */
  readonly retry?: RetryPolicy;
  readonly clock: Clock;
  readonly log: Logger;
  /** What the topics are, for the log: "the retry topic". */
  readonly what: string;
}

/** A message over the topic's limit alone, which no send can take: never sent. */
export interface Oversize<M> {
  readonly message: M;
  /** Its record batch's size, framing included. */
  readonly bytes: number;
  /** The topic's max.message.bytes. */
  readonly limit: number;
}

/**
 * A send that ended before the broker acknowledged `unsent` (the chunks before them were acknowledged):
 * `stopped` when the caller's signal aborted or the sender was closed, `refused` when the broker refused
 * them for good (a non-retryable error, or too large again at the limit just read), so no retry is made.
 */
export class SendEnded<M> extends Error {
  override readonly name = 'SendEnded';

  constructor(
    message: string,
    readonly unsent: readonly M[],
    readonly reason: 'stopped' | 'refused',
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export class TopicSender {
  private readonly producer: LazyProducer;
  /** The limits of the topics sent to, as last read. */
  private readonly limits = new Map<string, number>();
  private readonly closed = new AbortController();

  constructor(private readonly opts: TopicSenderOptions) {
    this.producer = new LazyProducer(opts.kafka, { retries: 3 });
  }

  /**
   * Sends `messages` to `topic`, split into produces within its max.message.bytes, and resolves once the
   * broker acknowledged all of them but those over the limit alone, which it resolves with. An acknowledged
   * chunk is not sent again when a later one fails. Retryable failures are retried with backoff; it rejects
   * with SendEnded when `signal` aborts, the sender is closed, or the broker refuses the records for good.
   */
  async send<M extends OutgoingMessage>(topic: string, messages: readonly M[], signal?: AbortSignal): Promise<Oversize<M>[]> {
    const oversize: Oversize<M>[] = [];
    const stop = signal === undefined ? this.closed.signal : AbortSignal.any([this.closed.signal, signal]);
    let unsent: readonly M[] = messages;
    // The limit under which the broker last answered "too large": the same answer at the same limit is final.
    let tooLargeAt: number | undefined;
    for (let attempt = 1; unsent.length > 0; attempt++) {
      if (stop.aborted) throw new SendEnded(`Writing ${unsent.length} records to ${this.opts.what} ${topic} stopped before the broker acknowledged them.`, unsent, 'stopped');
      let limit: number | undefined;
      try {
        limit = await this.limitOf(topic);
        const split = splitToBatchLimit(unsent, limit);
        for (const { message, bytes } of split.oversize) oversize.push({ message, bytes, limit });
        unsent = split.chunks.flat();
        const producer = await this.producer.get();
        for (const chunk of split.chunks) {
          await producer.send(topic, chunk);
          unsent = unsent.slice(chunk.length);
        }
      } catch (err) {
        const kind = this.opts.kafka.errorKind(err);
        if (kind === 'refused' || (kind === 'too_large' && limit !== undefined && limit === tooLargeAt)) {
          const { code, message } = this.opts.kafka.describeError(err);
          throw new SendEnded(`${capitalized(this.opts.what)} ${topic} refused ${unsent.length} records: ${code}: ${message}`, unsent, 'refused', { cause: err });
        }
        this.opts.log.warn({ err, topic, attempt, records: unsent.length }, `Writing to ${this.opts.what} failed; retrying.`);
        // The topic may have been deleted or had its limit changed: it is read again on the next attempt.
        this.limits.delete(topic);
        if (kind === 'too_large') tooLargeAt = limit;
        else await this.producer.reset();
        await this.opts.clock.sleep(backoffDelay(this.opts.retry ?? DEFAULT_RETRY_POLICY, attempt), stop);
      }
    }
    return oversize;
  }

  /** Forgets what it knows of a topic (it was deleted). */
  forget(topic: string): void {
    this.limits.delete(topic);
  }

  async close(): Promise<void> {
    this.closed.abort();
    await this.producer.close();
  }

  private async limitOf(topic: string): Promise<number> {
    const known = this.limits.get(topic);
    if (known !== undefined) return known;
    const limit = await withAdmin(this.opts.kafka, (admin) => this.opts.limitOf(admin, topic));
    this.limits.set(topic, limit);
    return limit;
  }
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
