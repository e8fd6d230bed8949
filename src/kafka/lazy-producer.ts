// An idempotent kafkajs producer that connects on first use, starts afresh after a failure, and stays shut once closed.
import type { Kafka, Producer, RetryOptions } from 'kafkajs';
import { createProducer } from './client.js';

export interface LazyProducerOptions {
  /**
   * kafkajs's own retries of one send, which the caller's backoff wraps: explicit and bounded, so a
   * send fails while a broker is down (kafkajs's default for idempotent producers is unlimited).
   */
  readonly retry: RetryOptions;
  /** What a failed connect rejects with; by default kafkajs's error as is. */
  readonly connectError?: (err: unknown) => Error;
  /** What get() rejects with once closed; by default a plain Error. */
  readonly closedError?: () => Error;
}

export class LazyProducer {
  private producer: Producer | undefined;
  private connecting: Promise<Producer> | undefined;
  private closed = false;

  constructor(
    private readonly kafka: Kafka,
    private readonly opts: LazyProducerOptions,
  ) {}

  /** The connected producer; concurrent callers share one connect, and a failed connect is tried again next time. */
  get(): Promise<Producer> {
    if (this.closed) return Promise.reject(this.closedError());
    if (this.producer !== undefined) return Promise.resolve(this.producer);
    this.connecting ??= (async () => {
      // Idempotent with acks=all (the callers send with acks: -1): the broker drops duplicates of a
      // retried send, and an acknowledged write survives the loss of the leader.
      const producer = createProducer(this.kafka, { idempotent: true, maxInFlightRequests: 1, retry: this.opts.retry });
      try {
        await producer.connect();
      } catch (err) {
        await producer.disconnect().catch(() => undefined);
        throw this.opts.connectError?.(err) ?? err;
      }
      // close() ran while connecting: nothing would ever disconnect this producer.
      if (this.closed) {
        await producer.disconnect().catch(() => undefined);
        throw this.closedError();
      }
      this.producer = producer;
      return producer;
    })().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  /**
   * Drops the producer after a failed send: it may hold dead sockets, a fenced epoch, or sequence
   * numbers the broker no longer agrees with once kafkajs's retries ran out (a produce whose answer was
   * lost was still written), which would fail every later send with OUT_OF_ORDER_SEQUENCE_NUMBER. The
   * next get() connects a new producer, with a new producer id; the caller sends the failed records
   * again (at least once), in order, since it retries them before anything after them.
   */
  async reset(): Promise<void> {
    const producer = this.producer;
    this.producer = undefined;
    if (producer !== undefined) await producer.disconnect().catch(() => undefined);
  }

  /** Disconnects; get() rejects from now on. Safe to call twice. */
  async close(): Promise<void> {
    this.closed = true;
    await this.reset();
  }

  private closedError(): Error {
    return this.opts.closedError?.() ?? new Error('The producer is closed.');
  }
}
