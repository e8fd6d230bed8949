// The kafka destination kind: one message per event on a topic of this cluster or another one, the topic
// created when it is missing.
import type { DestinationKind } from '../../destination-kind.js';
import { KAFKA_TARGET_SCHEMA, parseKafkaTarget, type KafkaTargetConfig } from './config.js';
import { KAFKA_LIMITS, KafkaWriter } from './kafka-writer.js';
import { verifyKafkaTarget } from './topic-check.js';

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
  createWriter: (config, deps) => new KafkaWriter(config, deps.kafkaClient(config.brokers)),
  verify: verifyKafkaTarget,
};
