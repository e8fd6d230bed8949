// The kafka kind's create-time check: the destination's topic exists on its cluster, or the service
// creates it there (the local broker, like many clusters, does not create topics on first use); when the
// cluster cannot be reached or refuses to create it, its reason is the answer. The destination's client
// gives up within seconds (app.ts), so the check answers within seconds too.
import { brokerHost } from '../../../kafka/brokers.js';
import { withAdmin, type KafkaAdmin, type KafkaClient } from '../../../kafka/seam.js';
import { problem, type ConfigProblem } from '../../destination-config.js';
import type { WriterDeps } from '../../destination-kind.js';
import { hostRefusal } from '../../egress-guard.js';
import type { KafkaTargetConfig } from './config.js';

export async function verifyKafkaTarget(config: KafkaTargetConfig, deps: WriterDeps): Promise<readonly ConfigProblem[]> {
  const kafka = deps.kafkaClient(config.brokers);
  return withAdmin(kafka, (admin) => ensureTopic(kafka, admin, config, deps)).catch((err: unknown) => {
    const refused = refusalProblem(kafka, err);
    if (refused === undefined) throw err;
    return [refused];
  });
}

/**
 * A broker the client was refused (SECURITY.md "Egress"), one of the cluster's metadata among them: the
 * 400 its guard answers for a listed broker.
 */
function refusalProblem(kafka: KafkaClient, err: unknown): ConfigProblem | undefined {
  if (kafka.errorKind(err) !== 'address_refused') return undefined;
  return refused(`the cluster leads to a broker destinations may not reach: ${kafka.describeError(err).message}`);
}

function refused(reason: string): ConfigProblem {
  return problem.egress('internal_address', 'target.kafka.brokers', reason);
}

async function ensureTopic(kafka: KafkaClient, admin: KafkaAdmin, config: KafkaTargetConfig, deps: WriterDeps): Promise<readonly ConfigProblem[]> {
  const field = 'target.kafka.topic';
  try {
    // A customer's cluster may advertise brokers inside the network: they are refused before the topic is
    // touched (the metadata comes through a listed broker, already judged), as its client would refuse them.
    if (config.brokers !== undefined) {
      for (const broker of (await admin.cluster()).addresses) {
        const why = await hostRefusal(brokerHost(broker), deps);
        if (why !== undefined) return [refused(`the cluster advertises the broker ${broker}, and ${why}`)];
      }
    }
    if (await admin.topicExists(config.topic)) return [];
  } catch (err) {
    const refused = refusalProblem(kafka, err);
    if (refused !== undefined) return [refused];
    const { code, message } = kafka.describeError(err);
    const kind = kafka.errorKind(err);
    if (kind === 'unreachable' || kind === 'timeout') {
      // A customer's cluster is told in the service's words only: whether a connection was refused or timed
      // out would tell which ports are open where it points (SECURITY.md "Egress").
      const customer = config.brokers !== undefined;
      return [problem.checkFailed('target.kafka.brokers', customer ? 'DESTINATION_UNREACHABLE' : code, `The cluster could not be reached${customer ? '' : `: ${message}`}`, 'DESTINATION_UNREACHABLE')];
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
    const refused = refusalProblem(kafka, err);
    if (refused !== undefined) return [refused];
    const { code, message } = kafka.describeError(err);
    const brokers = code === 'INVALID_REPLICATION_FACTOR' ? await admin.cluster().then((c) => c.brokers, () => undefined) : undefined;
    const more = brokers === undefined ? '' : ` (replication factor ${replicationFactor ?? "the broker's default"}; the cluster has ${brokers} broker${brokers === 1 ? '' : 's'})`;
    return [problem.topicNotCreated(field, config.topic, code, `${message}${more}`)];
  }
}
