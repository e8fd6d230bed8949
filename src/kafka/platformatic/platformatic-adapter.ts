// The seam (seam.ts) over @platformatic/kafka 2.x: producers, admin calls and error kinds; the consumer is in
// platformatic-consumer.ts.
import { Admin, Producer, TimeoutError, findErrorBy, kGetApi, type API, type BaseOptions, type Callback, type MessageToProduce } from '@platformatic/kafka';
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
import { REFUSED_WRITE_ERRORS, topicConfigOf, type OffsetAtTime } from '../seam.js';
import { ADDRESS_REFUSED, addressRefusalIn } from '../../net/guarded-lookup.js';
import { guardedContext } from './connect-guard.js';
import { javaPartitioner } from './java-partitioner.js';
import { PlatformaticGroupConsumer } from './platformatic-consumer.js';
import { fastProduceApi, type ProduceApi } from './produce-request.js';
import { substituteApi } from './substitute-api.js';

/** DescribeConfigs resource type of a topic. */
const TOPIC_RESOURCE = 2;
/** ListOffsets' timestamps for "the end" and "the first offset kept". */
const LATEST = -1n;
const EARLIEST = -2n;
/** InitProducerId's "no producer yet": the broker hands out the id and fences every earlier producer of the transactional id. */
const NEW_PRODUCER_ID = -1n;
const NEW_PRODUCER_EPOCH = -1;

/**
 * Retries back off from 100 ms, doubling to 5 s: with the default ten, a request gives up after about
 * half a minute, which covers a broker restart or a coordinator move. The client's own default (three
 * retries, 250 ms apart) gave up on a broker slowed by a busy machine.
 */
export const retryDelay = (_client: unknown, _operation: string, attempt: number): number => Math.min(5_000, 100 * 2 ** (attempt - 1));

export function baseOptions(options: KafkaClientOptions, timeoutMs = 30_000): BaseOptions {
  return {
    clientId: options.clientId,
    bootstrapBrokers: [...options.brokers],
    timeout: timeoutMs,
    connectTimeout: options.connectionTimeoutMs ?? 3_000,
    ...(options.requestTimeoutMs !== undefined && { requestTimeout: options.requestTimeoutMs }),
    retries: options.retries ?? 10,
    retryDelay,
    ...(options.connectGuard !== undefined && { context: guardedContext(options.connectGuard) }),
  };
}

export function platformaticClient(options: KafkaClientOptions): KafkaClient {
  return {
    name: 'platformatic',
    brokers: options.brokers,
    admin: () => new PlatformaticAdmin(options),
    idempotentProducer: (o) => new PlatformaticIdempotentProducer(options, o),
    transactionalProducer: (o) => new PlatformaticTransactionalProducer(options, o),
    groupConsumer: (o, listener) => new PlatformaticGroupConsumer(options, o, listener ?? {}),
    errorKind: platformaticErrorKind,
    describeError: platformaticErrorDescription,
  };
}

/** The client's TimeoutError carries the network error's code (PLT_KFK_NETWORK), so it is told by its class. */
function timedOut(err: unknown, depth = 0): boolean {
  if (err instanceof TimeoutError) return true;
  if (depth >= 6 || typeof err !== 'object' || err === null) return false;
  return ((err as { errors?: readonly unknown[] }).errors ?? []).some((inner) => timedOut(inner, depth + 1));
}

export function platformaticErrorKind(err: unknown): KafkaErrorKind {
  if (addressRefusalIn(err) !== undefined) return 'address_refused';
  const e = err instanceof Error ? err : undefined;
  if (findErrorBy(e, 'apiId', 'MESSAGE_TOO_LARGE') !== null || findErrorBy(e, 'apiId', 'RECORD_LIST_TOO_LARGE') !== null) return 'too_large';
  if (timedOut(err)) return 'timeout';
  if (findErrorBy(e, 'code', 'PLT_KFK_NETWORK') !== null) return 'unreachable';
  if (findErrorBy(e, 'apiId', 'UNKNOWN_TOPIC_OR_PARTITION') !== null || unknownTopic(err)) return 'unknown_topic';
  if (refusedWrite(err)) return 'refused';
  return 'other';
}

/** A broker's answer naming an error of REFUSED_WRITE_ERRORS, at any depth of the client's aggregates. */
function refusedWrite(err: unknown, depth = 0): boolean {
  if (depth >= 6 || typeof err !== 'object' || err === null) return false;
  const e = err as PlatformaticErrorShape;
  if (e.apiId !== undefined && REFUSED_WRITE_ERRORS.has(e.apiId)) return true;
  return (e.errors ?? []).some((inner) => refusedWrite(inner, depth + 1));
}

/** The client's own refusal of a topic its metadata does not list ("Unknown topic <name>."), at any depth of its aggregates. */
function unknownTopic(err: unknown, depth = 0): boolean {
  if (depth >= 6 || typeof err !== 'object' || err === null) return false;
  const e = err as PlatformaticErrorShape;
  if (e.code === 'PLT_KFK_USER' && typeof e.message === 'string' && e.message.startsWith('Unknown topic ')) return true;
  return (e.errors ?? []).some((inner) => unknownTopic(inner, depth + 1));
}

interface PlatformaticErrorShape {
  readonly name?: string;
  readonly code?: string;
  readonly apiId?: string;
  readonly serverErrorMessage?: string | null;
  readonly message?: string;
  readonly errors?: readonly unknown[];
  readonly cause?: unknown;
}

/**
 * Kafka's error name (`apiId`) and the broker's text where a broker answered; otherwise the innermost
 * error of the aggregates the client wraps failures in, with the system error behind it (ECONNREFUSED).
 */
export function platformaticErrorDescription(err: unknown): KafkaErrorDescription {
  const refused = addressRefusalIn(err);
  if (refused !== undefined) return { code: ADDRESS_REFUSED, message: refused };
  let e = (err ?? {}) as PlatformaticErrorShape;
  for (let depth = 0; depth < 6 && e.apiId === undefined; depth++) {
    const inner = e.errors?.[0];
    if (inner === undefined || inner === null || typeof inner !== 'object') break;
    e = inner as PlatformaticErrorShape;
  }
  if (e.apiId !== undefined) return { code: e.apiId, message: e.serverErrorMessage ?? e.message ?? String(err) };
  const cause = e.cause as PlatformaticErrorShape | undefined;
  const message = e.message ?? String(err);
  return cause?.code === undefined ? { code: e.code ?? e.name ?? 'Error', message } : { code: cause.code, message: `${message} ${cause.message ?? ''}`.trim() };
}

const asBuffer = (v: Buffer | string): Buffer => (typeof v === 'string' ? Buffer.from(v) : v);

type OutgoingHeaders = NonNullable<OutgoingMessage['headers']>;

/**
 * Frozen header objects (a writer's constant headers, the same for every message) are converted once:
 * the client only reads a message's header map, so one map serves them all.
 */
const frozenHeaderMaps = new WeakMap<OutgoingHeaders, Map<Buffer, Buffer>>();

function headerMap(headers: OutgoingHeaders): Map<Buffer, Buffer> {
  const frozen = Object.isFrozen(headers);
  const known = frozen ? frozenHeaderMaps.get(headers) : undefined;
  if (known !== undefined) return known;
  const map = new Map<Buffer, Buffer>();
  // The map is keyed by Buffer objects, so a name given several values is several entries, each its own record header.
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value === 'string' || Buffer.isBuffer(value)) map.set(Buffer.from(name), asBuffer(value));
    else for (const one of value) map.set(Buffer.from(name), asBuffer(one));
  }
  if (frozen) frozenHeaderMaps.set(headers, map);
  return map;
}

/** The client takes Buffers only (no serializers are set), header names included; a null value is a tombstone. */
export function toPlatformatic(topic: string, m: OutgoingMessage): MessageToProduce {
  const out: MessageToProduce = { topic, value: m.value === null ? (null as unknown as Buffer) : asBuffer(m.value) };
  if (m.key !== undefined && m.key !== null) out.key = asBuffer(m.key);
  if (m.partition !== undefined) out.partition = m.partition;
  if (m.headers !== undefined) out.headers = headerMap(m.headers);
  return out;
}

/** The client's producer with the adapter's Produce request encoder (produce-request.ts). */
class FastProducer extends Producer {
  private readonly produceApis = new WeakMap<API<unknown[], unknown>, API<unknown[], unknown>>();

  override [kGetApi]<RequestArguments extends unknown[], ResponseType>(name: string, callback: Callback<API<RequestArguments, ResponseType>>): void {
    if (name !== 'Produce') super[kGetApi](name, callback);
    else substituteApi((found) => super[kGetApi](name, found), this.produceApis, (api) => fastProduceApi(api as unknown as ProduceApi) as unknown as API<unknown[], unknown>, callback);
  }
}

class PlatformaticIdempotentProducer implements IdempotentProducer {
  private readonly producer: Producer;
  /** The idempotent producer refuses overlapping sends to a partition: one send at a time. */
  private wire: Promise<unknown> = Promise.resolve();

  constructor(client: KafkaClientOptions, options: IdempotentProducerOptions) {
    this.producer = new FastProducer({ ...baseOptions({ ...client, retries: options.retries }), idempotent: true, acks: -1, partitioner: javaPartitioner(), autocreateTopics: false });
  }

  async connect(): Promise<void> {
    await this.producer.initIdempotentProducer({});
  }

  send(topic: string, messages: readonly OutgoingMessage[]): Promise<void> {
    const sent = this.wire.then(() => this.producer.send({ messages: messages.map((m) => toPlatformatic(topic, m)) }));
    this.wire = sent.catch(() => undefined);
    return sent.then(() => undefined);
  }

  async close(): Promise<void> {
    await this.producer.close();
  }
}

class PlatformaticTransactionalProducer implements TransactionalProducer {
  private readonly producer: Producer;

  constructor(client: KafkaClientOptions, options: TransactionalProducerOptions) {
    // The client sends its request timeout as the transaction timeout (InitProducerId), so the two are one.
    this.producer = new FastProducer({
      ...baseOptions(client, options.transactionTimeoutMs),
      transactionalId: options.transactionalId,
      // InitProducerId asks for "a new producer of this id" only with producer id -1 and epoch -1. The
      // client's default (0 and 0) names a producer id the broker checks against the one it gave this
      // transactional id before, so a restarted or replaced writer was refused with PRODUCER_FENCED.
      producerId: NEW_PRODUCER_ID,
      producerEpoch: NEW_PRODUCER_EPOCH,
      idempotent: true,
      acks: -1,
      partitioner: javaPartitioner(),
      autocreateTopics: false,
    });
  }

  async connect(): Promise<void> {
    // The first transaction initializes the producer id; nothing is sent, so it ends without a request.
    await (await this.producer.beginTransaction()).cancel();
  }

  async commitTransaction(records: readonly TopicMessages[]): Promise<void> {
    const tx = await this.producer.beginTransaction();
    try {
      // One send per topic, in order, as the records were given.
      for (const r of records) if (r.messages.length > 0) await tx.send({ messages: r.messages.map((m) => toPlatformatic(r.topic, m)) });
      await tx.commit();
    } catch (err) {
      await tx.abort().catch(() => tx.cancel().catch(() => undefined));
      throw err;
    }
  }

  async close(): Promise<void> {
    await this.producer.close();
  }
}

class PlatformaticAdmin implements KafkaAdmin {
  private readonly admin: Admin;

  constructor(options: KafkaClientOptions) {
    this.admin = new Admin(baseOptions(options));
  }

  listTopics(): Promise<string[]> {
    return this.admin.listTopics();
  }

  async createTopics(specs: readonly TopicSpec[]): Promise<void> {
    for (const spec of specs) {
      try {
        await this.admin.createTopics({
          topics: [spec.topic],
          partitions: spec.partitions ?? 1,
          replicas: spec.replicationFactor ?? -1,
          configs: Object.entries(topicConfigOf(spec)).map(([name, value]) => ({ name, value })),
        });
      } catch (err) {
        if (findErrorBy(err as Error, 'apiId', 'TOPIC_ALREADY_EXISTS') === null) throw err;
      }
    }
    await this.waitForLeaders(specs.map((s) => s.topic));
  }

  deleteTopics(topics: readonly string[]): Promise<void> {
    return this.admin.deleteTopics({ topics: [...topics] });
  }

  async topicPartitionCounts(topics: readonly string[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    if (topics.length === 0) return out;
    const metadata = await this.admin.metadata({ topics: [...topics], forceUpdate: true });
    for (const [name, t] of metadata.topics) out.set(name, t.partitionsCount);
    return out;
  }

  async topicConfig(topic: string, names: readonly string[]): Promise<Map<string, string>> {
    const [described] = await this.admin.describeConfigs({ resources: [{ resourceType: TOPIC_RESOURCE, resourceName: topic, configurationKeys: [...names] }] });
    return new Map((described?.configs ?? []).map((c) => [c.name, c.value ?? '']));
  }

  async topicExists(topic: string): Promise<boolean> {
    return (await this.admin.listTopics()).includes(topic);
  }

  async checkTopic(topic: string): Promise<void> {
    const metadata = await this.admin.metadata({ topics: [topic], forceUpdate: true });
    const t = metadata.topics.get(topic);
    if (t === undefined || t.partitions.some((p) => p.leader < 0)) throw new Error(`Topic ${topic} has no leader for every partition.`);
  }

  async partitionOffsets(topic: string): Promise<PartitionOffsets[]> {
    const count = await this.partitions(topic);
    const list = async (timestamp: bigint): Promise<Map<number, number>> => {
      const [listed] = await this.admin.listOffsets({
        topics: [{ name: topic, partitions: Array.from({ length: count }, (_, partitionIndex) => ({ partitionIndex, timestamp })) }],
      });
      return new Map((listed?.partitions ?? []).map((p) => [p.partitionIndex, Number(p.offset)]));
    };
    const [low, high] = await Promise.all([list(EARLIEST), list(LATEST)]);
    return [...high].map(([partition, end]) => ({ partition, low: low.get(partition) ?? 0, high: end }));
  }

  async offsetsForTime(topic: string, timestampMs: number): Promise<OffsetAtTime[]> {
    const count = await this.partitions(topic);
    const timestamp = BigInt(Math.max(0, Math.trunc(timestampMs)));
    const [listed] = await this.admin.listOffsets({ topics: [{ name: topic, partitions: Array.from({ length: count }, (_, partitionIndex) => ({ partitionIndex, timestamp })) }] });
    return (listed?.partitions ?? []).map((p) => ({ partition: p.partitionIndex, offset: Number(p.offset), timestamp: Number(p.timestamp) }));
  }

  async commitGroupOffsets(groupId: string, topic: string, offsets: ReadonlyMap<number, number>): Promise<void> {
    await this.admin.alterConsumerGroupOffsets({ groupId, topics: [{ name: topic, partitionOffsets: [...offsets].map(([partition, offset]) => ({ partition, offset: BigInt(offset) })) }] });
  }

  async committedOffsets(groupId: string, topic: string): Promise<Map<number, number>> {
    const count = await this.partitions(topic);
    const [group] = await this.admin.listConsumerGroupOffsets({ groups: [{ groupId, topics: [{ name: topic, partitionIndexes: Array.from({ length: count }, (_, i) => i) }] }] });
    const out = new Map<number, number>();
    for (const t of group?.topics ?? []) for (const p of t.partitions) out.set(p.partitionIndex, Number(p.committedOffset));
    return out;
  }

  deleteGroups(groupIds: readonly string[]): Promise<void> {
    return this.admin.deleteGroups({ groups: [...groupIds] });
  }

  async cluster(): Promise<ClusterFacts> {
    const metadata = await this.admin.metadata({ topics: [] });
    return { id: metadata.id, brokers: metadata.brokers.size, addresses: [...metadata.brokers.values()].map((b) => brokerAddress(b.host, b.port)) };
  }

  async describeGroups(groupIds: readonly string[]): Promise<void> {
    await this.admin.describeGroups({ groups: [...groupIds] });
  }

  async groupMembers(groupId: string): Promise<string[]> {
    const group = (await this.admin.describeGroups({ groups: [groupId] })).get(groupId);
    return [...(group?.members.keys() ?? [])];
  }

  async close(): Promise<void> {
    await this.admin.close();
  }

  private async partitions(topic: string): Promise<number> {
    const t = (await this.admin.metadata({ topics: [topic] })).topics.get(topic);
    if (t === undefined) throw new Error(`Topic ${topic} does not exist.`);
    return t.partitionsCount;
  }

  /** createTopics answers before every partition has a leader; producers and consumers want one. */
  private async waitForLeaders(topics: readonly string[]): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        const metadata = await this.admin.metadata({ topics: [...topics], forceUpdate: true });
        if (topics.every((t) => metadata.topics.get(t)?.partitions.every((p) => p.leader >= 0) === true)) return;
      } catch (err) {
        if (attempt >= 50) throw err;
      }
      if (attempt >= 50) throw new Error(`Topics ${topics.join(', ')} have no leaders after creation.`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
