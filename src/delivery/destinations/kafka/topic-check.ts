// The kafka kind's create-time check: the destination's topic exists on its cluster, or the service
// creates it there (the local broker, like many clusters, does not create topics on first use); when the
// cluster cannot be reached or refuses to create it, its reason is the answer. The destination's client
// gives up within seconds (app.ts), so the check answers within seconds too.
import { withAdmin, type KafkaAdmin, type KafkaClient } from '../../../kafka/seam.js';
import { problem, type ConfigProblem } from '../../destination-config.js';
import type { WriterDeps } from '../../destination-kind.js';
import type { KafkaTargetConfig } from './config.js';

export async function verifyKafkaTarget(config: KafkaTargetConfig, deps: WriterDeps): Promise<readonly ConfigProblem[]> {
  const kafka = deps.kafkaClient(config.brokers);
  return withAdmin(kafka, (admin) => ensureTopic(kafka, admin, config, deps));
}

async function ensureTopic(kafka: KafkaClient, admin: KafkaAdmin, config: KafkaTargetConfig, deps: WriterDeps): Promise<readonly ConfigProblem[]> {
  const field = 'target.kafka.topic';
  try {
    if (await admin.topicExists(config.topic)) return [];
  } catch (err) {
    const { code, message } = kafka.describeError(err);
    const kind = kafka.errorKind(err);
    if (kind === 'unreachable' || kind === 'timeout') {
      return [problem.checkFailed('target.kafka.brokers', code, `The cluster could not be reached: ${message}`, 'DESTINATION_UNREACHABLE')];
    }
    return [problem.checkFailed(field, code, `The topic's metadata could not be read: ${message}`, 'DESTINATION_SERVER_ERROR')];
  }
  const replicationFactor = config.replication_factor ?? deps.kafkaTopicDefaults?.replicationFactor;
  try {
    // A topic that appeared meanwhile (another worker or replica created it) is fine too.
    // -1 asks the broker for its own default (num.partitions, default.replication.factor).
    await admin.createTopics([{ topic: config.topic, partitions: config.partitions ?? deps.kafkaTopicDefaults?.partitions ?? -1, replicationFactor: replicationFactor ?? -1 }]);
    return [];
  } catch (err) {
    const { code, message } = kafka.describeError(err);
    const brokers = code === 'INVALID_REPLICATION_FACTOR' ? await admin.cluster().then((c) => c.brokers, () => undefined) : undefined;
    const more = brokers === undefined ? '' : ` (replication factor ${replicationFactor ?? "the broker's default"}; the cluster has ${brokers} broker${brokers === 1 ? '' : 's'})`;
    return [problem.topicNotCreated(field, config.topic, code, `${message}${more}`)];
  }
}
