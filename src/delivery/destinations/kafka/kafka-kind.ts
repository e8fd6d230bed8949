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
