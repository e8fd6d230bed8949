// Helpers for integration tests against the suite's real broker: unique names, topics, produce, consume-until.
import { randomBytes } from 'node:crypto';
import type { Admin, Consumer, ConsumerConfig, Kafka, KafkaMessage, Message } from 'kafkajs';
import { inject } from 'vitest';
import { createClient, ensureTopics, isKafkaClientName, type TopicSpec } from '../../src/kafka/client.js';
import { KafkajsAdmin } from '../../src/kafka/kafkajs/kafkajs-adapter.js';
import type { KafkaClient, KafkaClientName } from '../../src/kafka/seam.js';
import { createKafkaClient, createProducer } from '../../src/kafka/kafkajs/kafkajs-client.js';
import './provided-context.js';

/** The broker address the global setup provided ("127.0.0.1:port"). */
export function testBrokers(): string {
  return inject('kafkaBrokers');
}

/**
 * A name no other test (or earlier run against a persistent broker) uses: topics and groups are never
 * shared, so tests cannot see each other's records or offsets. Legal as a topic name ([a-zA-Z0-9._-]).
 */
export function uniqueName(prefix: string): string {
  return `${prefix.replace(/[^a-zA-Z0-9._-]/g, '-')}-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
}

/** The client the service runs with in this test run: KAFKA_CLIENT when set, else the service's default. */
export function testClientName(): KafkaClientName | undefined {
  const name = process.env.KAFKA_CLIENT ?? '';
  return isKafkaClientName(name) ? name : undefined;
}

/** The service's client seam (src/kafka/seam.ts) on the suite's broker, for tests of the service's own parts. */
export function testClient(clientId = 'integration-test'): KafkaClient {
  const name = testClientName();
  return createClient({ clientId, brokers: testBrokers(), ...(name !== undefined && { name }) });
}

/** A kafkajs client on the suite's broker: the tests' own tool for producing, reading and inspecting. */
export function testKafka(clientId = 'integration-test'): Kafka {
  return createKafkaClient({ clientId, brokers: testBrokers(), logLevel: 'warn' });
}

/** Runs `fn` with a connected admin client and always disconnects it. */
export async function withAdmin<T>(kafka: Kafka, fn: (admin: Admin) => Promise<T>): Promise<T> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    return await fn(admin);
  } finally {
    await admin.disconnect();
  }
}

export async function createTopics(kafka: Kafka, specs: readonly TopicSpec[]): Promise<void> {
  const admin = new KafkajsAdmin(kafka);
  try {
    await ensureTopics(admin, specs);
  } finally {
    await admin.close();
  }
}

/** Sends the messages (acks from all in-sync replicas) and disconnects. */
export async function produce(kafka: Kafka, topic: string, messages: Message[]): Promise<void> {
  const producer = createProducer(kafka);
  await producer.connect();
  try {
    await producer.send({ topic, messages, acks: -1 });
  } finally {
    await producer.disconnect();
  }
}

export interface ConsumedMessage {
  topic: string;
  partition: number;
  offset: string;
  key: string | null;
  value: string | null;
  headers: Record<string, string>;
}

export interface ConsumeUntilOptions {
  topics: string[];
  /** Default: a fresh unique group, so the consumer starts from the committed offset of nobody. */
  groupId?: string;
  /** Default true; applies only to partitions the group has no committed offset for. */
  fromBeginning?: boolean;
  /** Stop consuming once this returns true for everything received so far. */
  until: (received: readonly ConsumedMessage[]) => boolean;
  timeoutMs?: number;
  /** Extra consumer settings (readUncommitted, session timeout, ...). */
  consumer?: Partial<ConsumerConfig>;
}

/**
 * Consumer settings that keep tests quick: a fetch long-polls the broker for up to maxWaitTimeInMs (5 s
 * by default), and disconnect waits for the poll in flight.
 */
export const TEST_CONSUMER = { maxWaitTimeInMs: 250 } as const satisfies Partial<ConsumerConfig>;

function text(buffer: Buffer | null | undefined): string | null {
  return buffer === null || buffer === undefined ? null : buffer.toString('utf8');
}

function toConsumed(topic: string, partition: number, message: KafkaMessage): ConsumedMessage {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(message.headers ?? {})) {
    headers[name] = Array.isArray(value) ? value.map((v) => String(v)).join(',') : String(value ?? '');
  }
  return { topic, partition, offset: message.offset, key: text(message.key), value: text(message.value), headers };
}

/**
 * Consumes in a group until `until` holds for the messages received, or fails after the timeout with
 * what it did receive. kafkajs auto-commits after each batch it hands over, and disconnect waits for the
 * batch in progress, so the result holds every message the group committed (possibly a few past the
 * one that satisfied `until`), and a later consumer in the same group starts after all of them.
 */
export async function consumeUntil(kafka: Kafka, options: ConsumeUntilOptions): Promise<ConsumedMessage[]> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const consumer: Consumer = kafka.consumer({ groupId: options.groupId ?? uniqueName('group'), ...TEST_CONSUMER, ...options.consumer });
  const received: ConsumedMessage[] = [];
  let timer: NodeJS.Timeout | undefined;
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: options.topics, fromBeginning: options.fromBeginning ?? true });
    await new Promise<void>((resolve, reject) => {
      timer = setTimeout(() => {
        const sample = received.slice(0, 5).map((m) => `${m.topic}/${m.partition}@${m.offset}=${m.value}`);
        reject(new Error(`consumeUntil timed out after ${timeoutMs} ms with ${received.length} messages: ${sample.join(', ')}`));
      }, timeoutMs);
      consumer
        .run({
          eachMessage: async ({ topic, partition, message }) => {
            received.push(toConsumed(topic, partition, message));
            if (options.until(received)) resolve();
          },
        })
        .catch(reject);
    });
    return received;
  } finally {
    clearTimeout(timer);
    await consumer.disconnect();
  }
}
