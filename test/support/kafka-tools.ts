// Kafka tools for tests and the fault harnesses (which run outside the test runner): unique names, topics,
// produce, read-until, transactions. The tools' client is the service's (src/kafka/seam.ts over
// @platformatic/kafka), or the library itself for what the seam does not do; reading goes to the library
// directly, in a group of its own from the beginning, read-committed as the service reads unless a test
// asks for the uncommitted records too.
import { randomBytes } from 'node:crypto';
import { Admin, Consumer, Producer, stringDeserializer, type Message, type MessageToProduce } from '@platformatic/kafka';
import { ensureTopics, parseBrokers, type TopicSpec } from '../../src/kafka/client.js';
import { baseOptions, toPlatformatic } from '../../src/kafka/platformatic/platformatic-adapter.js';
import { javaPartitioner } from '../../src/kafka/platformatic/java-partitioner.js';
import { ReadCommittedConsumer } from '../../src/kafka/platformatic/read-committed.js';
import { withAdmin, type KafkaClient, type OutgoingMessage } from '../../src/kafka/seam.js';

/**
 * A name no other test (or earlier run against a persistent broker) uses: topics and groups are never
 * shared, so tests cannot see each other's records or offsets. Legal as a topic name ([a-zA-Z0-9._-]).
 */
export function uniqueName(prefix: string): string {
  return `${prefix.replace(/[^a-zA-Z0-9._-]/g, '-')}-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
}

export async function createTopics(client: KafkaClient, specs: readonly TopicSpec[]): Promise<void> {
  await withAdmin(client, (admin) => ensureTopics(admin, specs));
}

/** Runs `fn` with the client library's own admin, for what the seam's admin has no call for (the service never asks it). */
export async function withLibraryAdmin<T>(brokers: string | readonly string[], fn: (admin: Admin) => Promise<T>): Promise<T> {
  const admin = new Admin(baseOptions({ clientId: 'integration-test-admin', brokers: parseBrokers(brokers) }));
  try {
    return await fn(admin);
  } finally {
    await admin.close();
  }
}

/** The ids of the cluster's consumer groups. */
export async function groupIds(client: KafkaClient): Promise<string[]> {
  return withLibraryAdmin(client.brokers, async (admin) => [...(await admin.listGroups()).keys()]);
}

/** Sends the messages with an idempotent producer (acks from all in-sync replicas) and closes it. */
export async function produce(client: KafkaClient, topic: string, messages: readonly OutgoingMessage[]): Promise<void> {
  const producer = client.idempotentProducer({ retries: 10 });
  await producer.connect();
  try {
    await producer.send(topic, messages);
  } finally {
    await producer.close();
  }
}

/** A record as the load tools produce it: the seam's, with a create time of its own (ms since the epoch) when given. */
export interface ToolMessage extends OutgoingMessage {
  readonly timestamp?: number;
}

/**
 * An idempotent producer (acks from all in-sync replicas) of the client library itself, for the load
 * tools of the fault harnesses and the model, which send to several topics in one request and set
 * records' create times; the seam's producer sends to one topic at a time. One send at a time.
 */
export function toolProducer(brokers: string | readonly string[], clientId: string): Producer {
  return new Producer({ ...baseOptions({ clientId, brokers: parseBrokers(brokers) }), idempotent: true, acks: -1, partitioner: javaPartitioner(), autocreateTopics: false });
}

/** A ToolMessage for toolProducer's send. */
export function toolRecord(topic: string, m: ToolMessage): MessageToProduce {
  const out = toPlatformatic(topic, m);
  if (m.timestamp !== undefined) out.timestamp = BigInt(m.timestamp);
  return out;
}

export interface TransactionStep {
  readonly values: readonly string[];
  readonly end: 'commit' | 'abort';
}

/**
 * Runs the transactions in order with one transactional producer, so they all share its producer id
 * (as the config writer's producers do), one send per record: batches of their own, as a writer that
 * sends, fails and sends again makes. The seam's producer never aborts on purpose, so this is the
 * client's own.
 */
export async function transactions(client: KafkaClient, topic: string, steps: readonly TransactionStep[]): Promise<void> {
  const producer = new Producer({
    ...baseOptions({ clientId: 'integration-test-transactions', brokers: client.brokers }),
    transactionalId: uniqueName('test-transactions'),
    // A new producer of the transactional id (the adapter's transactional producer says why).
    producerId: -1n,
    producerEpoch: -1,
    idempotent: true,
    acks: -1,
    autocreateTopics: false,
  });
  try {
    for (const step of steps) {
      const tx = await producer.beginTransaction();
      for (const value of step.values) await tx.send({ messages: [toPlatformatic(topic, { key: value.slice(0, 8), value })] });
      await (step.end === 'commit' ? tx.commit() : tx.abort());
    }
  } finally {
    await producer.close();
  }
}

export interface ConsumedMessage {
  topic: string;
  partition: number;
  offset: string;
  key: string | null;
  value: string | null;
  /** The value as it was written (a binary record's text is not its bytes). */
  bytes: Buffer | null;
  /** A header given several times reads as its values joined by commas; `headerList` has each one. */
  headers: Record<string, string>;
  headerList: Array<[string, string]>;
  /** The record's timestamp, ms since the epoch. */
  timestampMs: number;
}

export interface TopicReaderOptions {
  readonly topics: readonly string[];
  /** Default: a group of its own (it commits nothing, so a group id may also be read again). */
  readonly groupId?: string;
  /** Also the records of open and aborted transactions (Kafka's read_uncommitted). */
  readonly readUncommitted?: boolean;
  /** How long the broker may hold a fetch waiting for records; short, so a reader stops quickly. */
  readonly maxWaitMs?: number;
}

type TextMessage = Message<string, Buffer, string, string>;

function toConsumed(m: TextMessage): ConsumedMessage {
  const headers: Record<string, string> = {};
  for (const [name, value] of m.headerEntries) headers[name] = headers[name] === undefined ? value : `${headers[name]},${value}`;
  const headerList = m.headerEntries.map(([name, value]): [string, string] => [name, value]);
  return { topic: m.topic, partition: m.partition, offset: String(m.offset), key: m.key ?? null, value: m.value?.toString('utf8') ?? null, bytes: m.value ?? null, headers, headerList, timestampMs: Number(m.timestamp) };
}

/**
 * Reads every record of the topics from the beginning and follows live, in a group of its own that
 * commits nothing, handing each record to `onMessage` as text. Resolves once joined; stop() ends it.
 * `failed` rejects when the reader fails for good.
 */
export async function readTopics(client: KafkaClient, options: TopicReaderOptions, onMessage: (m: ConsumedMessage) => void): Promise<{ stop: () => Promise<void>; failed: Promise<never> }> {
  const consumerOptions = {
    ...baseOptions({ clientId: 'integration-test-reader', brokers: client.brokers }),
    groupId: options.groupId ?? uniqueName('reader'),
    autocommit: false,
    maxWaitTime: options.maxWaitMs ?? 250,
    deserializers: { key: stringDeserializer, headerKey: stringDeserializer, headerValue: stringDeserializer },
  };
  // The uncommitted reader needs no filter; the committed one drops aborted transactions by Kafka's rule (read-committed.ts).
  const consumer: Consumer<string, Buffer, string, string> =
    options.readUncommitted === true ? new Consumer({ ...consumerOptions, isolationLevel: 0 }) : new ReadCommittedConsumer(consumerOptions);
  const stream = await consumer.consume({ topics: [...options.topics], mode: 'earliest', autocommit: false, maxWaitTime: consumerOptions.maxWaitTime });
  const failed = new Promise<never>((_, reject) => stream.on('error', reject));
  failed.catch(() => undefined);
  stream.on('data', (m: TextMessage) => onMessage(toConsumed(m)));
  return {
    failed,
    stop: async () => {
      await stream.close().catch(() => undefined);
      await consumer.close(true).catch(() => undefined);
    },
  };
}

export interface ConsumeUntilOptions extends TopicReaderOptions {
  /** Stop reading once this returns true for everything received so far. */
  readonly until: (received: readonly ConsumedMessage[]) => boolean;
  readonly timeoutMs?: number;
}

/**
 * Reads from the beginning until `until` holds for the messages received, or fails after the timeout
 * with what it did receive.
 */
export async function consumeUntil(client: KafkaClient, options: ConsumeUntilOptions): Promise<ConsumedMessage[]> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const received: ConsumedMessage[] = [];
  let done: () => void = () => undefined;
  const satisfied = new Promise<void>((resolve) => (done = resolve));
  const reader = await readTopics(client, options, (m) => {
    received.push(m);
    if (options.until(received)) done();
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const sample = received.slice(0, 5).map((m) => `${m.topic}/${m.partition}@${m.offset}=${m.value}`);
        reject(new Error(`consumeUntil timed out after ${timeoutMs} ms with ${received.length} messages: ${sample.join(', ')}`));
      }, timeoutMs);
    });
    await Promise.race([satisfied, timedOut, reader.failed]);
    return [...received];
  } finally {
    clearTimeout(timer);
    await reader.stop();
  }
}
