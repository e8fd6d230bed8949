// The seam (seam.ts) over kafkajs 2.2: producers, admin calls and error kinds; the consumer is in kafkajs-consumer.ts.
import type { Admin, Kafka, Message, Producer } from 'kafkajs';
import type {
  ClusterFacts,
  IdempotentProducer,
  IdempotentProducerOptions,
  KafkaAdmin,
  KafkaClient,
  KafkaClientOptions,
  KafkaErrorDescription,
  KafkaErrorKind,
  OutgoingMessage,
  PartitionOffsets,
  TopicMessages,
  TopicSpec,
  TransactionalProducer,
  TransactionalProducerOptions,
} from '../seam.js';
import { brokerAddress } from '../brokers.js';
import { topicConfigOf } from '../seam.js';
import { ADDRESS_REFUSED, addressRefusalIn } from '../../net/guarded-lookup.js';
import { guardedSocketFactory } from './connect-guard.js';
import { createKafkaClient, createProducer } from './kafkajs-client.js';
import { KafkajsGroupConsumer } from './kafkajs-consumer.js';

/** How long CreateTopics may take, waiting for the new partitions' leaders included. */
const CREATE_TIMEOUT_MS = 10_000;
/** Kafka's ConfigResource type id for topics (kafkajs's enum is not importable by name from ESM). */
const TOPIC_RESOURCE = 2;

export function kafkajsClient(options: KafkaClientOptions): KafkaClient {
  const kafka = createKafkaClient({
    clientId: options.clientId,
    brokers: options.brokers,
    ...(options.quiet === true && { quiet: true }),
    ...(options.silent === true && { logLevel: 'nothing' as const }),
    ...(options.retries !== undefined && { retry: { retries: options.retries, initialRetryTime: 50 } }),
    ...(options.connectionTimeoutMs !== undefined && { connectionTimeoutMs: options.connectionTimeoutMs }),
    ...(options.connectGuard !== undefined && { socketFactory: guardedSocketFactory(options.connectGuard) }),
  });
  // kafkajs refuses an idempotent producer without retries (the readiness probe's client has none).
  return kafkajsClientOf(kafka, options.brokers, options.retries === 0 ? 1 : undefined);
}

/** The seam over a kafkajs client made elsewhere (the tests' clients whose connections can be cut). */
export function kafkajsClientOf(kafka: Kafka, brokers: readonly string[], transactionRetries?: number): KafkaClient {
  return {
    name: 'kafkajs',
    brokers,
    admin: () => new KafkajsAdmin(kafka),
    idempotentProducer: (o) => new KafkajsIdempotentProducer(kafka, o),
    transactionalProducer: (o) => new KafkajsTransactionalProducer(kafka, o, transactionRetries),
    groupConsumer: (o, listener) => new KafkajsGroupConsumer(kafka, o, listener ?? {}),
    errorKind: kafkajsErrorKind,
    describeError: kafkajsErrorDescription,
  };
}

function causes(err: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let e = err; e !== undefined && e !== null && chain.length < 5; e = (e as { cause?: unknown }).cause) chain.push(e);
  return chain;
}

export function kafkajsErrorKind(err: unknown): KafkaErrorKind {
  if (addressRefusalIn(err) !== undefined) return 'address_refused';
  const chain = causes(err);
  if (chain.some((e) => (e as { type?: string }).type === 'MESSAGE_TOO_LARGE')) return 'too_large';
  const names = chain.map((e) => (e as { name?: string }).name ?? '');
  if (names.includes('KafkaJSRequestTimeoutError')) return 'timeout';
  if (names.some((n) => n === 'KafkaJSConnectionError' || n === 'KafkaJSConnectionClosedError' || n === 'KafkaJSBrokerNotFound')) return 'unreachable';
  return 'other';
}

interface KafkajsErrorShape {
  readonly name?: string;
  readonly type?: string;
  readonly message?: string;
  readonly errors?: readonly unknown[];
  readonly originalError?: unknown;
  readonly cause?: unknown;
}

/** Kafka's error name (`type`) and text from whatever kafkajs threw: the first error of an aggregate, the error behind "retries exceeded". */
export function kafkajsErrorDescription(err: unknown): KafkaErrorDescription {
  // kafkajs makes a new error of a socket's, keeping its code and message after "Connection error: ".
  const refused = addressRefusalIn(err);
  if (refused !== undefined) return { code: ADDRESS_REFUSED, message: refused.replace(/^Connection error: /, '') };
  let e = (err ?? {}) as KafkajsErrorShape;
  for (let depth = 0; depth < 5; depth++) {
    const inner = e.errors?.[0] ?? (e.type === undefined ? (e.originalError ?? e.cause) : undefined);
    if (inner === undefined || inner === null || typeof inner !== 'object') break;
    e = inner as KafkajsErrorShape;
  }
  return { code: e.type ?? e.name ?? 'Error', message: e.message ?? String(err) };
}

function toKafkajs(m: OutgoingMessage): Message {
  return { key: m.key ?? null, value: m.value, ...(m.headers !== undefined && { headers: { ...m.headers } }), ...(m.partition !== undefined && { partition: m.partition }) };
}

class KafkajsIdempotentProducer implements IdempotentProducer {
  private readonly producer: Producer;

  constructor(kafka: Kafka, options: IdempotentProducerOptions) {
    // kafkajs means idempotent producers to retry without limit, but kafka.producer() always hands the
    // producer a retry object, so the bound set here is the one that applies (ARCHITECTURE.md "Producers").
    this.producer = createProducer(kafka, { idempotent: true, maxInFlightRequests: 1, retry: { retries: options.retries, initialRetryTime: 100, maxRetryTime: 2_000 } });
  }

  connect(): Promise<void> {
    return this.producer.connect();
  }

  async send(topic: string, messages: readonly OutgoingMessage[]): Promise<void> {
    await this.producer.send({ topic, messages: messages.map(toKafkajs), acks: -1 });
  }

  close(): Promise<void> {
    return this.producer.disconnect();
  }
}

class KafkajsTransactionalProducer implements TransactionalProducer {
  private readonly producer: Producer;

  constructor(kafka: Kafka, options: TransactionalProducerOptions, retries?: number) {
    this.producer = createProducer(kafka, {
      transactionalId: options.transactionalId,
      transactionTimeout: options.transactionTimeoutMs,
      idempotent: true,
      maxInFlightRequests: 1,
      ...(retries !== undefined && { retry: { retries, initialRetryTime: 50 } }),
    });
  }

  async connect(): Promise<void> {
    await this.producer.connect();
    // kafkajs initializes the producer id (fencing earlier producers of the id) at the first transaction.
    await (await this.producer.transaction()).abort();
  }

  async commitTransaction(records: readonly TopicMessages[]): Promise<void> {
    const tx = await this.producer.transaction();
    try {
      for (const r of records) if (r.messages.length > 0) await tx.send({ topic: r.topic, messages: r.messages.map(toKafkajs) });
      await tx.commit();
    } catch (err) {
      await tx.abort().catch(() => undefined);
      throw err;
    }
  }

  close(): Promise<void> {
    return this.producer.disconnect();
  }
}

/** The seam's admin calls over a kafkajs client; the tests' and benchmarks' kafkajs tools use it too. */
export class KafkajsAdmin implements KafkaAdmin {
  private connected: Promise<Admin> | undefined;

  constructor(private readonly kafka: Kafka) {}

  async listTopics(): Promise<string[]> {
    return (await this.admin()).listTopics();
  }

  async createTopics(specs: readonly TopicSpec[]): Promise<void> {
    // Resolves false when every topic already exists: another process created them meanwhile.
    await (await this.admin()).createTopics({
      waitForLeaders: true,
      timeout: CREATE_TIMEOUT_MS,
      topics: specs.map((spec) => ({
        topic: spec.topic,
        numPartitions: spec.partitions ?? 1,
        replicationFactor: spec.replicationFactor ?? -1,
        configEntries: Object.entries(topicConfigOf(spec)).map(([name, value]) => ({ name, value })),
      })),
    });
  }

  async deleteTopics(topics: readonly string[]): Promise<void> {
    await (await this.admin()).deleteTopics({ topics: [...topics] });
  }

  async topicConfig(topic: string, names: readonly string[]): Promise<Map<string, string>> {
    const described = await (await this.admin()).describeConfigs({ includeSynonyms: false, resources: [{ type: TOPIC_RESOURCE, name: topic, configNames: [...names] }] });
    return new Map((described.resources[0]?.configEntries ?? []).map((e) => [e.configName, e.configValue]));
  }

  async checkTopic(topic: string): Promise<void> {
    await (await this.admin()).fetchTopicMetadata({ topics: [topic] });
  }

  async topicExists(topic: string): Promise<boolean> {
    try {
      await this.checkTopic(topic);
      return true;
    } catch (err) {
      if (kafkajsErrorDescription(err).code === 'UNKNOWN_TOPIC_OR_PARTITION') return false;
      throw err;
    }
  }

  async partitionOffsets(topic: string): Promise<PartitionOffsets[]> {
    return (await (await this.admin()).fetchTopicOffsets(topic)).map((p) => ({ partition: p.partition, low: Number(p.low), high: Number(p.high) }));
  }

  async committedOffsets(groupId: string, topic: string): Promise<Map<number, number>> {
    const [t] = await (await this.admin()).fetchOffsets({ groupId, topics: [topic] });
    return new Map((t?.partitions ?? []).map((p) => [p.partition, Number(p.offset)]));
  }

  async deleteGroups(groupIds: readonly string[]): Promise<void> {
    await (await this.admin()).deleteGroups([...groupIds]);
  }

  async cluster(): Promise<ClusterFacts> {
    const described = await (await this.admin()).describeCluster();
    return { id: described.clusterId, brokers: described.brokers.length, addresses: described.brokers.map((b) => brokerAddress(b.host, b.port)) };
  }

  async describeGroups(groupIds: readonly string[]): Promise<void> {
    const admin = await this.admin();
    await admin.describeCluster();
    await admin.describeGroups([...groupIds]);
  }

  async groupMembers(groupId: string): Promise<string[]> {
    const { groups } = await (await this.admin()).describeGroups([groupId]);
    return (groups[0]?.members ?? []).map((m) => m.memberId);
  }

  async close(): Promise<void> {
    const connecting = this.connected;
    this.connected = undefined;
    if (connecting !== undefined) await (await connecting.catch(() => undefined))?.disconnect();
  }

  private admin(): Promise<Admin> {
    this.connected ??= (async () => {
      const admin = this.kafka.admin();
      try {
        await admin.connect();
      } catch (err) {
        this.connected = undefined;
        throw err;
      }
      return admin;
    })();
    return this.connected;
  }
}
