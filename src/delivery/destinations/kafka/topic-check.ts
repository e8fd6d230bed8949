// The kafka kind's create-time check: the destination's topic exists on its cluster, or the service
// creates it there (the local broker, like many clusters, does not create topics on first use); when the
// cluster cannot be reached or refuses to create it, its reason is the answer.
import type { Admin } from 'kafkajs';
import { problem, type ConfigProblem } from '../../destination-config.js';
import type { WriterDeps } from '../../destination-kind.js';
import type { KafkaTargetConfig } from './config.js';

/** A check answers within seconds: one retry, not the client's minute of them. */
const CHECK_RETRY = { retries: 1, initialRetryTime: 200, maxRetryTime: 1_000 };
/** How long CreateTopics may take, waiting for the new partitions' leaders included. */
const CREATE_TIMEOUT_MS = 10_000;
/** kafkajs's answer to a metadata request for a topic the cluster does not have. */
const MISSING = 'UNKNOWN_TOPIC_OR_PARTITION';

export async function verifyKafkaTarget(config: KafkaTargetConfig, deps: WriterDeps): Promise<readonly ConfigProblem[]> {
  const admin = deps.kafkaClient(config.brokers).admin({ retry: CHECK_RETRY });
  try {
    await admin.connect();
  } catch (err) {
    const { error, reason } = kafkaReason(err);
    return [problem.checkFailed('target.kafka.brokers', error, `The cluster could not be reached: ${reason}`, 'DESTINATION_UNREACHABLE')];
  }
  try {
    return await ensureTopic(admin, config, deps);
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

async function ensureTopic(admin: Admin, config: KafkaTargetConfig, deps: WriterDeps): Promise<readonly ConfigProblem[]> {
  const field = 'target.kafka.topic';
  try {
    await admin.fetchTopicMetadata({ topics: [config.topic] });
    return [];
  } catch (err) {
    const { error, reason } = kafkaReason(err);
    if (error !== MISSING) return [problem.checkFailed(field, error, `The topic's metadata could not be read: ${reason}`, 'DESTINATION_SERVER_ERROR')];
  }
  const replicationFactor = config.replication_factor ?? deps.kafkaTopicDefaults?.replicationFactor;
  try {
    // Resolves false when the topic appeared meanwhile (another worker or replica created it): fine too.
    await admin.createTopics({
      waitForLeaders: true,
      timeout: CREATE_TIMEOUT_MS,
      // -1 asks the broker for its own default (num.partitions, default.replication.factor).
      topics: [{ topic: config.topic, numPartitions: config.partitions ?? deps.kafkaTopicDefaults?.partitions ?? -1, replicationFactor: replicationFactor ?? -1 }],
    });
    return [];
  } catch (err) {
    const { error, reason } = kafkaReason(err);
    const brokers = error === 'INVALID_REPLICATION_FACTOR' ? await brokerCount(admin) : undefined;
    const more = brokers === undefined ? '' : ` (replication factor ${replicationFactor ?? "the broker's default"}; the cluster has ${brokers} broker${brokers === 1 ? '' : 's'})`;
    return [problem.topicNotCreated(field, config.topic, error, `${reason}${more}`)];
  }
}

async function brokerCount(admin: Admin): Promise<number | undefined> {
  try {
    return (await admin.describeCluster()).brokers.length;
  } catch {
    return undefined;
  }
}

interface KafkaErrorShape {
  readonly name?: string;
  readonly type?: string;
  readonly message?: string;
  readonly errors?: readonly unknown[];
  readonly originalError?: unknown;
  readonly cause?: unknown;
}

/**
 * Kafka's own error code (`type`, e.g. INVALID_REPLICATION_FACTOR) and text from whatever kafkajs threw:
 * the first error of an aggregate, the error behind "retries exceeded".
 */
export function kafkaReason(err: unknown): { error: string; reason: string } {
  let e = (err ?? {}) as KafkaErrorShape;
  for (let depth = 0; depth < 5; depth++) {
    const inner = e.errors?.[0] ?? (e.type === undefined ? (e.originalError ?? e.cause) : undefined);
    if (inner === undefined || inner === null || typeof inner !== 'object') break;
    e = inner as KafkaErrorShape;
  }
  return { error: e.type ?? e.name ?? 'Error', reason: e.message ?? String(err) };
}
