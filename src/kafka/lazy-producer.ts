// An idempotent producer (seam.ts) that connects on first use, starts afresh after a failure, and stays shut once closed.
import type { IdempotentProducer, KafkaClient } from './seam.js';

export interface LazyProducerOptions {
  /**
   * The client's own retries of one send, which the caller's backoff wraps: explicit and bounded, so a
   * send fails while a broker is down (ARCHITECTURE.md "Producers").
   */
  readonly retries: number;
  /** What a failed connect rejects with; by default the client's error as is. */
  readonly connectError?: (err: unknown) => Error;
  /** What get() rejects with once closed; by default a plain Error. */
  readonly closedError?: () => Error;
}

export class LazyProducer {
  private producer: IdempotentProducer | undefined;
  private connecting: Promise<IdempotentProducer> | undefined;
  private closed = false;

  constructor(
    private readonly client: KafkaClient,
    private readonly opts: LazyProducerOptions,
  ) {}

  /** The connected producer; concurrent callers share one connect, and a failed connect is tried again next time. */
  get(): Promise<IdempotentProducer> {
    if (this.closed) return Promise.reject(this.closedError());
    if (this.producer !== undefined) return Promise.resolve(this.producer);
    this.connecting ??= (async () => {
      // Idempotent with acks=all: the broker drops duplicates of a retried send, and an acknowledged
      // write survives the loss of the leader.
      const producer = this.client.idempotentProducer({ retries: this.opts.retries });
      try {
        await producer.connect();
      } catch (err) {
        await producer.close().catch(() => undefined);
        throw this.opts.connectError?.(err) ?? err;
      }
      // close() ran while connecting: nothing would ever close this producer.
      if (this.closed) {
        await producer.close().catch(() => undefined);
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
   * numbers the broker no longer agrees with once the client's retries ran out (a produce whose answer
   * was lost was still written), which would fail every later send with OUT_OF_ORDER_SEQUENCE_NUMBER. The
   * next get() connects a new producer, with a new producer id; the caller sends the failed records
   * again (at least once), in order, since it retries them before anything after them.
   */
  async reset(): Promise<void> {
    const producer = this.producer;
    this.producer = undefined;
    if (producer !== undefined) await producer.close().catch(() => undefined);
  }

  /** Closes; get() rejects from now on. Safe to call twice. */
  async close(): Promise<void> {
    this.closed = true;
    await this.reset();
  }

  private closedError(): Error {
    return this.opts.closedError?.() ?? new Error('The producer is closed.');
  }
}
