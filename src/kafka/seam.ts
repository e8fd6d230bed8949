// The Kafka client seam: the few calls the service makes to Kafka, one adapter per client library behind
// them (platformatic/, the one there is), chosen by KAFKA_CLIENT (ARCHITECTURE.md "Kafka client"). Nothing
// outside src/kafka/ imports a client library but the load tools: the traffic generator (src/traffic/),
// the tests' and the benchmarks' own tools, for what the seam does not do (several topics in one request,
// read-uncommitted reads, aborted transactions).

import type { AddressGuard } from '../net/guarded-lookup.js';

export const KAFKA_CLIENT_NAMES = ['platformatic'] as const;
export type KafkaClientName = (typeof KAFKA_CLIENT_NAMES)[number];

/** A header value as a consumer hands it over: one value, or several under the same name. */
export type HeaderValue = Buffer | string | readonly (Buffer | string)[] | undefined;

/** A header value to produce: one value, or several under the same name, written in their order. */
export type OutgoingHeaderValue = Buffer | string | readonly (Buffer | string)[];

/** A record to produce. Without `partition`, a keyed record goes where the Java client puts it (murmur2). */
export interface OutgoingMessage {
  readonly key?: Buffer | string | null;
  readonly value: Buffer | string | null;
  readonly headers?: Readonly<Record<string, OutgoingHeaderValue>>;
  readonly partition?: number;
}

/** A consumed record. Offsets and timestamps are decimal strings (Kafka's int64). */
export interface IncomingMessage {
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly offset: string;
  /** The record's timestamp in milliseconds since the epoch. */
  readonly timestamp: string;
  readonly headers?: Readonly<Record<string, HeaderValue>>;
}

export interface TopicMessages {
  readonly topic: string;
  readonly messages: readonly OutgoingMessage[];
}

/**
 * An idempotent producer: acks from all in-sync replicas, one request in flight, so the client's own
 * retries neither duplicate nor reorder. A send that fails may still have been written (its answer lost):
 * after a failure the caller closes the producer and sends again with a new one (LazyProducer.reset).
 */
export interface IdempotentProducer {
  connect(): Promise<void>;
  /** Resolves once the broker acknowledged every message. */
  send(topic: string, messages: readonly OutgoingMessage[]): Promise<void>;
  close(): Promise<void>;
}

export interface IdempotentProducerOptions {
  /**
   * The client's retries of one send, which the caller's backoff wraps: bounded, so a send fails while a
   * broker is down. At least 2: @platformatic/kafka takes 0 or 1 for an idempotent producer as unlimited.
   */
  readonly retries: number;
}

/**
 * A transactional producer under one transactional id. connect() initializes the id, which fences every
 * earlier producer of it: the broker completes a commit the old one had begun and aborts anything else.
 */
export interface TransactionalProducer {
  connect(): Promise<void>;
  /** Sends every record in one transaction and commits it. When this throws, the outcome is unknown. */
  commitTransaction(records: readonly TopicMessages[]): Promise<void>;
  close(): Promise<void>;
}

export interface TransactionalProducerOptions {
  readonly transactionalId: string;
  /** How long the broker lets a transaction stay open before it aborts it. */
  readonly transactionTimeoutMs: number;
}

/** A topic to create. */
export interface TopicSpec {
  topic: string;
  /** Default 1; -1 asks for the broker's num.partitions. */
  partitions?: number;
  /** Default (and -1): the broker's default.replication.factor. */
  replicationFactor?: number;
  /** cleanup.policy=compact: the log keeps the latest record per key, and a null value deletes the key. */
  compacted?: boolean;
  /** Other topic-level settings, e.g. { 'retention.ms': '604800000' }. */
  config?: Record<string, string>;
}

/** The topic settings a spec asks for, compaction included. */
export function topicConfigOf(spec: TopicSpec): Record<string, string> {
  return { ...spec.config, ...(spec.compacted === true ? { 'cleanup.policy': 'compact' } : {}) };
}

export interface PartitionOffsets {
  readonly partition: number;
  readonly low: number;
  readonly high: number;
}

/** The first record of a partition at or after a time (ListOffsets by timestamp). */
export interface OffsetAtTime {
  readonly partition: number;
  /** Its offset; -1 when no record of the partition is stamped at or after the time. */
  readonly offset: number;
  /** Its Kafka timestamp (ms); -1 with offset -1. */
  readonly timestamp: number;
}

export interface ClusterFacts {
  readonly id: string;
  readonly brokers: number;
  readonly addresses: readonly string[];
}

/** The admin calls the service makes. Every call connects as needed; close() ends the connections. */
export interface KafkaAdmin {
  listTopics(): Promise<string[]>;
  /** Creates the topics and waits for their leaders; a topic that exists meanwhile is not an error. */
  createTopics(specs: readonly TopicSpec[]): Promise<void>;
  deleteTopics(topics: readonly string[]): Promise<void>;
  /** How many partitions each of the topics has; a topic the cluster does not have is left out. */
  topicPartitionCounts(topics: readonly string[]): Promise<Map<string, number>>;
  /** The named settings of a topic as the broker applies them (its own, or the broker's default). */
  topicConfig(topic: string, names: readonly string[]): Promise<Map<string, string>>;
  /** Throws when the topic does not exist or has no leader. */
  checkTopic(topic: string): Promise<void>;
  /** False when the cluster does not have the topic; throws when it cannot tell (unreachable, refused). */
  topicExists(topic: string): Promise<boolean>;
  /** Each partition's first offset retention kept (low) and its end offset, the next record's (high). */
  partitionOffsets(topic: string): Promise<PartitionOffsets[]>;
  /**
   * For each partition of `topic`, the first record stamped at or after `timestampMs` (ListOffsets by
   * timestamp); `timestampMs` 0 finds the earliest record retention kept, with its timestamp.
   */
  offsetsForTime(topic: string, timestampMs: number): Promise<OffsetAtTime[]>;
  /** Commits offsets for a group that has no members now (as Kafka's AdminClient alterConsumerGroupOffsets does). */
  commitGroupOffsets(groupId: string, topic: string, offsets: ReadonlyMap<number, number>): Promise<void>;
  /** The group's committed offset of each partition of `topic`; -1 where it committed none. */
  committedOffsets(groupId: string, topic: string): Promise<Map<number, number>>;
  deleteGroups(groupIds: readonly string[]): Promise<void>;
  /** The cluster the brokers belong to: its id, how many brokers it has, and their "host:port" as its metadata advertises them. */
  cluster(): Promise<ClusterFacts>;
  /** Throws while a group's coordinator is not available or still loading (the readiness probe). */
  describeGroups(groupIds: readonly string[]): Promise<void>;
  /** The member ids of a consumer group now (none when it has no members). */
  groupMembers(groupId: string): Promise<string[]>;
  close(): Promise<void>;
}

export interface GroupConsumerOptions {
  readonly groupId: string;
  readonly topics: readonly string[];
  readonly sessionTimeoutMs: number;
  readonly heartbeatIntervalMs: number;
  /** How long the group waits for its members to rejoin; default the larger of 60 s and the session. */
  readonly rebalanceTimeoutMs?: number;
  /** How long the broker may hold a fetch waiting for records. */
  readonly maxWaitMs: number;
  /** The bytes of records the broker waits for (up to maxWaitMs) before it answers a fetch; default 1. */
  readonly minBytes?: number;
  /** How many partitions' batches are handled at once (one batch per partition at a time). */
  readonly partitionsConcurrently?: number;
  /** The most bytes of records one fetch answers, for a partition and in all (one record batch more at least); 1 MiB a partition and 10 MiB in all when absent. */
  readonly fetchMaxBytes?: number;
  /**
   * A stable member name across restarts (Kafka's static membership, group.instance.id): a restarted
   * member takes its partitions back at once instead of after the session timeout.
   */
  readonly groupInstanceId?: string;
}

/** One fetched batch of one partition, in offset order. Reads are read-committed. */
export interface PartitionBatch {
  readonly topic: string;
  readonly partition: number;
  readonly messages: readonly IncomingMessage[];
  /** The partition's end offset when the batch was fetched. */
  readonly highWatermark: string;
  /**
   * Which read of the partition the batch belongs to: a new, larger number each time the consumer reads
   * the partition again from its committed offset (a group join, a restart of its stream), so a handler
   * can tell a batch that follows such a seek whatever its offsets.
   */
  readonly reading: number;
}

/** What a batch handler can ask of the consumer while it works. */
export interface BatchScope {
  /**
   * Lets the group know the member is alive during a long batch. Never throws: what the coordinator
   * answered is reported through GroupListener.onGroupError. A no-op for clients that heartbeat on
   * their own.
   */
  heartbeat(): Promise<void>;
  /**
   * True once the batch's records should no longer be worked on: the consumer is stopping, the group
   * was joined again since the batch was fetched, or the partition is to be read again from another
   * offset.
   */
  isStale(): boolean;
  /**
   * Marks the batch's records up to and including `offset` as handled (not committed): the partition's
   * next batch starts after them. Records a handler leaves unresolved are read again, from the committed
   * offset.
   */
  resolve(offset: string): void;
  /**
   * The partition's next batch starts only once `until` settled, but the batch ends now: its turn among
   * the partitions handled at once (partitionsConcurrently) goes to another partition meanwhile.
   */
  holdNext(until: Promise<unknown>): void;
}

/** About one completed join. */
export interface JoinFacts {
  /** The member id the coordinator gave this member (a live tap's acknowledgement names it). */
  readonly memberId: string;
  /** From the member's start, or from the rebalance it noticed, to its assignment (when the client can tell). */
  readonly durationMs?: number;
}

/** The group's news, as the member sees it. */
export interface GroupListener {
  /**
   * A join completed with this assignment (topic -> partitions). After every join each assigned
   * partition is read again from its committed offset, so no bookkeeping of earlier batches carries over.
   */
  onJoin?(assignment: Readonly<Record<string, readonly number[]>>, join: JoinFacts): void;
  /**
   * The coordinator answered with a group error (Kafka's names): REBALANCE_IN_PROGRESS (a rebalance
   * began; the member still owns its partitions until it rejoins), or ILLEGAL_GENERATION,
   * UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID (the group moved on without this member).
   */
  onGroupError?(code: string): void;
  /** The consumer failed; `restarting` when the client starts it again by itself. */
  onCrash?(err: unknown, restarting: boolean): void;
}

export type BatchHandler = (batch: PartitionBatch, scope: BatchScope) => Promise<void>;

/** A member of a consumer group that hands its records over in per-partition batches; offsets are committed by hand only. */
export interface GroupConsumer {
  /** Joins the group, reading partitions without a committed offset from the beginning; resolves once consuming. */
  start(handler: BatchHandler): Promise<void>;
  /** Commits `offset` (the next record to read) for the partition, in the member's current generation. */
  commit(topic: string, partition: number, offset: number): Promise<void>;
  /** Stops fetching, waits for the running handlers, and leaves the group. Safe to call twice. */
  stop(): Promise<void>;
  /** True while connected to the broker. */
  readonly connected: boolean;
}

/**
 * What a failed call was, for the callers that react differently (the kafka writer, the parking store):
 * `address_refused` when the client's connectGuard refused a broker's address; `refused` when the broker
 * refused the records for good (REFUSED_WRITE_ERRORS), so sending them again cannot succeed.
 */
export type KafkaErrorKind = 'too_large' | 'timeout' | 'unreachable' | 'address_refused' | 'unknown_topic' | 'refused' | 'other';

/**
 * Kafka's produce errors that sending the same records again cannot cure (the Java producer does not
 * retry them either): the records or the topic are invalid, or the client may not write there. Too large
 * (MESSAGE_TOO_LARGE, RECORD_LIST_TOO_LARGE) is its own kind, since smaller sends can cure it. Errors of
 * the producer's own state (OUT_OF_ORDER_SEQUENCE_NUMBER, UNKNOWN_PRODUCER_ID) are not here: a new
 * producer cures them (LazyProducer.reset).
 */
export const REFUSED_WRITE_ERRORS: ReadonlySet<string> = new Set([
  'INVALID_RECORD',
  'INVALID_TOPIC_EXCEPTION',
  'INVALID_REQUIRED_ACKS',
  'INVALID_TIMESTAMP',
  'CORRUPT_MESSAGE',
  'UNSUPPORTED_FOR_MESSAGE_FORMAT',
  'TOPIC_AUTHORIZATION_FAILED',
  'CLUSTER_AUTHORIZATION_FAILED',
  'TRANSACTIONAL_ID_AUTHORIZATION_FAILED',
  'POLICY_VIOLATION',
]);

/** A failed call in words: Kafka's error name when a broker answered with one (e.g. INVALID_REPLICATION_FACTOR), and its text. */
export interface KafkaErrorDescription {
  readonly code: string;
  readonly message: string;
}

export interface KafkaClientOptions {
  readonly clientId: string;
  readonly brokers: readonly string[];
  /** Retries of one request; the adapter's default (about a minute of backoff) when absent. */
  readonly retries?: number;
  /** How long a request may wait for its answer on its connection; default the client's (30 s). */
  readonly requestTimeoutMs?: number;
  /** How long a connection attempt may take; default 3 s. */
  readonly connectionTimeoutMs?: number;
  /**
   * Where the client may connect (SECURITY.md "Egress"): every broker, from the bootstrap list or learned
   * from the cluster's metadata, is judged by this before its socket opens, and the socket opens to the
   * address it answered. Absent: any broker, resolved by the system (the service's own cluster).
   */
  readonly connectGuard?: AddressGuard;
}

/** One client library behind the seam, for one cluster. */
export interface KafkaClient {
  readonly name: KafkaClientName;
  readonly brokers: readonly string[];
  admin(): KafkaAdmin;
  idempotentProducer(options: IdempotentProducerOptions): IdempotentProducer;
  transactionalProducer(options: TransactionalProducerOptions): TransactionalProducer;
  groupConsumer(options: GroupConsumerOptions, listener?: GroupListener): GroupConsumer;
  errorKind(err: unknown): KafkaErrorKind;
  describeError(err: unknown): KafkaErrorDescription;
}

/** Runs `fn` with an admin client and always closes it. */
export async function withAdmin<T>(client: KafkaClient, fn: (admin: KafkaAdmin) => Promise<T>): Promise<T> {
  const admin = client.admin();
  try {
    return await fn(admin);
  } finally {
    await admin.close().catch(() => undefined);
  }
}
