// The kafka kind's create-time check: the destination's topic exists on its cluster, or the service
// creates it there (the local broker, like many clusters, does not create topics on first use); when the
// cluster cannot be reached or refuses to create it, its reason is the answer. The destination's client
// gives up within seconds (app.ts), so the check answers within seconds too. A normal account's topic on the
// service's own cluster is created only within the account's room there: the partitions of every topic under
// its prefix count (ACCOUNT_MAX_PARTITIONS, SECURITY.md "Egress").
import type { AccountContext } from '../../../accounts/account.js';
import { brokerHost } from '../../../kafka/brokers.js';
import { withAdmin, type KafkaAdmin, type KafkaClient } from '../../../kafka/seam.js';
import { problem, type ConfigProblem } from '../../destination-config.js';
import type { WriterDeps } from '../../destination-kind.js';
import { hostRefusal } from '../../egress-guard.js';
import type { KafkaTargetConfig } from './config.js';

export async function verifyKafkaTarget(config: KafkaTargetConfig, deps: WriterDeps, account: AccountContext): Promise<readonly ConfigProblem[]> {
  const kafka = deps.kafkaClient(config.brokers);
  return withAdmin(kafka, (admin) => ensureTopic(kafka, admin, config, deps, account)).catch((err: unknown) => {
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

/** The partitions of the topics under `prefix` on the cluster, and how many topics they are. */
async function partitionsUnder(admin: KafkaAdmin, prefix: string): Promise<{ used: number; topics: number }> {
  const counts = await admin.topicPartitionCounts((await admin.listTopics()).filter((t) => t.startsWith(prefix)));
  let used = 0;
  for (const n of counts.values()) used += n;
  return { used, topics: counts.size };
}

/**
 * Why the service may not create `topic` with `partitions` for `account` on its own cluster (undefined: it
 * may). A broker's default partition count (`partitions` undefined) is not known before the topic exists;
 * it counts as one here, and the check after the creation holds it to the limit.
 */
async function roomProblem(admin: KafkaAdmin, config: KafkaTargetConfig, partitions: number | undefined, deps: WriterDeps, account: AccountContext, created: boolean): Promise<ConfigProblem | undefined> {
  const limit = config.brokers === undefined ? deps.egress.accountPartitionLimit(account) : undefined;
  const prefix = deps.egress.topicPrefix(account);
  if (limit === undefined || prefix === undefined) return undefined;
  const room = await partitionsUnder(admin, prefix);
  // After the creation the new topic is among them.
  const used = created ? room.used - (partitions ?? 0) : room.used;
  const adding = partitions ?? 1;
  if (used + adding <= limit) return undefined;
  return problem.accountPartitionLimit('target.kafka.partitions', { account_id: account.accountId, topic: config.topic, partitions: adding, used, topics: room.topics - (created ? 1 : 0), limit });
}

async function ensureTopic(kafka: KafkaClient, admin: KafkaAdmin, config: KafkaTargetConfig, deps: WriterDeps, account: AccountContext): Promise<readonly ConfigProblem[]> {
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
    const full = await roomProblem(admin, config, config.partitions ?? deps.kafkaTopicDefaults?.partitions, deps, account, false);
    if (full !== undefined) return [full];
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
    const partitions = config.partitions ?? deps.kafkaTopicDefaults?.partitions;
    await admin.createTopics([{ topic: config.topic, partitions: partitions ?? -1, replicationFactor: replicationFactor ?? -1 }]);
    if (partitions !== undefined) return [];
    // Made with the broker's default count, known only now: past the account's room, it goes again.
    const made = (await admin.topicPartitionCounts([config.topic])).get(config.topic) ?? 0;
    const full = await roomProblem(admin, config, made, deps, account, true);
    if (full === undefined) return [];
    await admin.deleteTopics([config.topic]);
    return [full];
  } catch (err) {
    const refused = refusalProblem(kafka, err);
    if (refused !== undefined) return [refused];
    const { code, message } = kafka.describeError(err);
    const brokers = code === 'INVALID_REPLICATION_FACTOR' ? await admin.cluster().then((c) => c.brokers, () => undefined) : undefined;
    const more = brokers === undefined ? '' : ` (replication factor ${replicationFactor ?? "the broker's default"}; the cluster has ${brokers} broker${brokers === 1 ? '' : 's'})`;
    return [problem.topicNotCreated(field, config.topic, code, `${message}${more}`)];
  }
}

/** Deletes the destination's topic on its cluster (a delete with delete_topic); a topic already gone is no error. */
export async function deleteTopic(config: KafkaTargetConfig, deps: WriterDeps): Promise<void> {
  const kafka = deps.kafkaClient(config.brokers);
  await withAdmin(kafka, async (admin) => {
    if (await admin.topicExists(config.topic)) await admin.deleteTopics([config.topic]);
  });
}
