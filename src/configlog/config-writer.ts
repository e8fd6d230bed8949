// The config log's transactional producer: one Kafka transaction per write, under a transactional id
// that stays the writer's across restarts, and a fresh producer after any failure.
import type { KafkaClient, TopicMessages, TransactionalProducer } from '../kafka/seam.js';

export type ExtraRecords = TopicMessages;

/**
 * How long the broker lets a transaction stay open before it aborts it (the Java client's default is 60 s). A
 * write takes milliseconds; a writer that died inside one, and was not restarted under the same id,
 * holds back every reader of the topic this long, plus up to the broker's check interval for timed-out
 * transactions (transaction.abort.timed.out.transaction.cleanup.interval.ms, 10 s by default).
 */
export const TRANSACTION_TIMEOUT_MS = 10_000;

/** The transactional id of a config log writer: the topic and the writer's identity (ARCHITECTURE.md "The config log"). */
export function transactionalIdOf(topic: string, writerId: string): string {
  return `edge-config-writer.${topic}.${writerId}`;
}

export class ConfigWriter {
  private producer: TransactionalProducer | undefined;

  constructor(
    private readonly kafka: KafkaClient,
    readonly transactionalId: string,
  ) {}

  /**
   * Sends every record in one transaction and commits it. When this throws, the transaction may or
   * may not have been committed (a lost answer): renew() settles that.
   */
  async commit(records: readonly ExtraRecords[]): Promise<void> {
    const producer = await this.connected();
    await producer.commitTransaction(records);
  }

  /**
   * Replaces the producer after a failure. The old one may hold an open transaction, or sequence
   * numbers the broker no longer agrees with (OUT_OF_ORDER_SEQUENCE_NUMBER, UNKNOWN_PRODUCER_ID), which
   * a client need not repair. The new producer initializes the same transactional id when it connects,
   * and the broker then completes a commit the old one had begun and aborts anything else open.
   */
  async renew(): Promise<void> {
    const old = this.producer;
    this.producer = undefined;
    await old?.close().catch(() => undefined);
  }

  async close(): Promise<void> {
    await this.renew();
  }

  private async connected(): Promise<TransactionalProducer> {
    if (this.producer !== undefined) return this.producer;
    const producer = this.kafka.transactionalProducer({ transactionalId: this.transactionalId, transactionTimeoutMs: TRANSACTION_TIMEOUT_MS });
    try {
      await producer.connect();
    } catch (err) {
      await producer.close().catch(() => undefined);
      throw err;
    }
    this.producer = producer;
    return producer;
  }
}
