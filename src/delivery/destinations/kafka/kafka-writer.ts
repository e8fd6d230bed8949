// The kafka destination writer: an idempotent producer with acks=all, one message per event, keyed by
// the event id unless the destination names an envelope field.
import { eventIdBytesOfPayload } from '../../../events/envelope.js';
import { LazyProducer } from '../../../kafka/lazy-producer.js';
import { withAdmin, type KafkaClient, type OutgoingMessage } from '../../../kafka/seam.js';
import { DELIVERED, type DeliveryItem, type DestinationWriter, type ItemFailure, type WriteOutcome, type WriterLimits } from '../../contract.js';
import { DeliveryError, type DeliveryErrorCode } from '../../errors.js';
import { compileKeyPath, isEventIdKey, type KeyOf } from '../../key-path.js';
import type { ConfigProblem } from '../../destination-config.js';
import type { KafkaTargetConfig } from './config.js';

/**
 * A broker takes record batches up to message.max.bytes (default 1048588) per partition. Capping a
 * whole write at 1 MiB keeps every partition's batch under it; the per-record cap leaves room for the
 * key, headers and batch framing.
 */
export const KAFKA_LIMITS: WriterLimits = Object.freeze({
  maxRecords: 1000,
  maxBytes: 1024 * 1024,
  maxRecordBytes: 1_000_000,
  recordOverheadBytes: 96,
});

const HEADERS = Object.freeze({ 'content-type': 'application/json' });

export class KafkaWriter implements DestinationWriter {
  readonly kind = 'kafka';
  readonly limits: WriterLimits;
  private readonly keyOf: (item: DeliveryItem) => Buffer | string;
  private readonly producer: LazyProducer;

  /**
   * `ensureTopic`: the kind's check (topic-check.ts), which makes the topic when it is missing; the health
   * check runs it, so a topic deleted under a destination is made again before its parked events are
   * re-driven. Without it the health check only reads the topic.
   */
  constructor(
    private readonly config: KafkaTargetConfig,
    private readonly kafka: KafkaClient,
    limits: Partial<WriterLimits> = {},
    private readonly ensureTopic?: () => Promise<readonly ConfigProblem[]>,
  ) {
    this.limits = { ...KAFKA_LIMITS, ...limits };
    const keyOf: KeyOf = compileKeyPath(config.key);
    // Keyed by the event id: its bytes are a view into the payload (the same bytes as the id's text).
    this.keyOf = isEventIdKey(config.key) ? (item) => eventIdBytesOfPayload(item.payload) ?? keyOf(item) : keyOf;
    // Retries inside the client stay short: the runner owns backoff.
    this.producer = new LazyProducer(kafka, {
      retries: 2,
      connectError: (err) => toKafkaDeliveryError(kafka, err, config),
      closedError: () => new DeliveryError('WRITER_CLOSED', 'The kafka writer is closed.'),
    });
  }

  async connect(): Promise<void> {
    await this.producer.get();
  }

  async write(batch: readonly DeliveryItem[]): Promise<WriteOutcome> {
    if (batch.length === 0) return DELIVERED;
    try {
      await this.send(batch);
      return DELIVERED;
    } catch (err) {
      // The broker refuses a batch over the topic's max.message.bytes without saying which record is
      // too big; sending one by one tells them apart, so only the oversized ones are dead-lettered.
      if (this.kafka.errorKind(err) === 'too_large' && batch.length > 1) return this.writeOneByOne(batch);
      throw toKafkaDeliveryError(this.kafka, err, this.config);
    }
  }

  async healthcheck(): Promise<void> {
    try {
      if (this.ensureTopic === undefined) await withAdmin(this.kafka, (admin) => admin.checkTopic(this.config.topic));
      else {
        const [first] = await this.ensureTopic();
        if (first !== undefined) throw new DeliveryError('DESTINATION_UNHEALTHY', `Topic ${this.config.topic} is not available: ${first.message}`);
      }
    } catch (err) {
      if (err instanceof DeliveryError) throw err;
      throw new DeliveryError('DESTINATION_UNHEALTHY', `Topic ${this.config.topic} is not available: ${classify(this.kafka, err, this.config).why}`, { cause: err });
    }
  }

  async close(): Promise<void> {
    await this.producer.close();
  }

  private async send(batch: readonly DeliveryItem[]): Promise<void> {
    const producer = await this.producer.get();
    const messages: OutgoingMessage[] = batch.map((item) => ({ key: this.keyOf(item), value: item.payload, headers: HEADERS }));
    try {
      await producer.send(this.config.topic, messages);
    } catch (err) {
      // A producer that failed may hold dead sockets or a fenced epoch; the next write starts a fresh one.
      await this.producer.reset();
      throw err;
    }
  }

  private async writeOneByOne(batch: readonly DeliveryItem[]): Promise<WriteOutcome> {
    const failed: ItemFailure[] = [];
    for (const item of batch) {
      try {
        await this.send([item]);
      } catch (err) {
        failed.push({ item, error: toKafkaDeliveryError(this.kafka, err, this.config) });
      }
    }
    return { failed };
  }
}

/** Why a customer's cluster is unreachable, in the service's words only (SECURITY.md "Egress"). */
function unreachable(brokers: readonly string[]): string {
  return `the cluster at ${brokers.join(', ')} could not be reached`;
}

/** A failure's delivery error code and what to say of it. */
function classify(kafka: KafkaClient, err: unknown, config: KafkaTargetConfig): { code: DeliveryErrorCode; why: string } {
  const kind = kafka.errorKind(err);
  const why = err instanceof Error ? err.message : String(err);
  // A customer's cluster: whether a connection was refused or timed out would tell which ports are open where it points.
  if (config.brokers !== undefined && (kind === 'timeout' || kind === 'unreachable')) return { code: 'DESTINATION_UNREACHABLE', why: unreachable(config.brokers) };
  switch (kind) {
    case 'address_refused':
      return { code: 'DESTINATION_ADDRESS_REFUSED', why: kafka.describeError(err).message };
    case 'too_large':
      return { code: 'RECORD_TOO_LARGE', why };
    case 'timeout':
      return { code: 'DESTINATION_TIMEOUT', why };
    case 'unreachable':
      return { code: 'DESTINATION_UNREACHABLE', why };
    case 'unknown_topic':
      return { code: 'DESTINATION_NOT_FOUND', why: `${why} The topic is made again at the destination's next health check.` };
    default:
      // Authorization or unknown-topic errors may be fixed by an operator; retrying (and, with parking,
      // parking) loses nothing, where dead-lettering a whole batch would.
      return { code: 'DESTINATION_SERVER_ERROR', why };
  }
}

function toKafkaDeliveryError(kafka: KafkaClient, err: unknown, config: KafkaTargetConfig): DeliveryError {
  if (err instanceof DeliveryError) return err;
  const { code, why } = classify(kafka, err, config);
  return new DeliveryError(code, `Producing to ${config.topic} failed: ${why}`, { cause: err });
}
