// The kafka destination kind: one message per event on a topic of this cluster or another one, the topic
// created when it is missing.
import { brokerHost } from '../../../kafka/brokers.js';
import { problem } from '../../destination-config.js';
import type { DestinationKind } from '../../destination-kind.js';
import { hostRefusal } from '../../egress-guard.js';
import { KAFKA_TARGET_SCHEMA, parseKafkaTarget, type KafkaTargetConfig } from './config.js';
import { KAFKA_LIMITS, KafkaWriter } from './kafka-writer.js';
import { deleteTopic, verifyKafkaTarget } from './topic-check.js';

export const kafkaKind: DestinationKind<KafkaTargetConfig> = {
  name: 'kafka',
  schema: KAFKA_TARGET_SCHEMA,
  secrets: [],
  limits: KAFKA_LIMITS,
  rules: [
    {
      code: 'internal_topic',
      rule: 'target.kafka.topic is none of the service\'s own topics (its config, audit, dead-letter, status and raw traffic topics, and those under its retry prefix) and does not start with "__"',
    },
    {
      code: 'topic_prefix_required',
      rule: 'for every account but the operator\'s, target.kafka.topic begins with the account\'s prefix (by default its id and a dot, "<account id>.": KAFKA_ACCOUNT_TOPIC_PREFIX), on any cluster',
    },
    {
      code: 'internal_address',
      rule: "target.kafka.brokers are not, and do not resolve to, internal addresses (loopback, link-local, private, ...; as for http URLs), unless the operator opens their range; checked when the target is set, \"verify\": false or not, for the brokers the cluster advertises in the check, and again at every connect",
    },
    { code: 'topic_not_created', rule: 'unless "verify" is false, a missing topic is created first; when the broker refuses, the answer is 422 with its reason' },
    { code: 'destination_check_failed', rule: 'unless "verify" is false, the cluster is reached before the target is stored; when it cannot be, the answer is 422' },
  ],
  parse: parseKafkaTarget,
  view: (stored) => ({
    topic: stored.topic,
    brokers: stored.brokers ?? null,
    key: stored.key ?? null,
    partitions: stored.partitions ?? null,
    replication_factor: stored.replication_factor ?? null,
  }),
  createWriter: (config, deps, account) => new KafkaWriter(config, deps.kafkaClient(config.brokers), {}, () => verifyKafkaTarget(config, deps, account)),
  verify: verifyKafkaTarget,
  // Only a topic on the service's own cluster: a customer's cluster is the customer's to tidy.
  removable: (config) => (config.brokers === undefined ? { key: `kafka:${config.topic}`, name: `the topic ${config.topic} on the service's cluster` } : undefined),
  remove: (config, deps) => deleteTopic(config, deps),
  // guard: a broker named by a host name is refused when any of its addresses is (an IP literal was judged
  // by parse()); the client judges every broker it connects to again, those of the cluster's metadata too.
  async guard(config, deps) {
    for (const broker of config.brokers ?? []) {
      const why = await hostRefusal(brokerHost(broker), deps);
      if (why !== undefined) return [problem.egress('internal_address', 'target.kafka.brokers', `its broker ${broker} resolves to an address destinations may not reach: ${why}`, { broker })];
    }
    return [];
  },
};
