// The kafka destination kind: one message per event on a topic of this cluster or another one.
import type { DestinationKind } from '../../destination-kind.js';
import { KAFKA_TARGET_SCHEMA, parseKafkaTarget, type KafkaTargetConfig } from './config.js';
import { KAFKA_LIMITS, KafkaWriter } from './kafka-writer.js';

export const kafkaKind: DestinationKind<KafkaTargetConfig> = {
  name: 'kafka',
  schema: KAFKA_TARGET_SCHEMA,
  secrets: [],
  limits: KAFKA_LIMITS,
  parse: parseKafkaTarget,
  view: (stored) => ({ topic: stored.topic, brokers: stored.brokers ?? null, key: stored.key ?? null }),
  createWriter: (config, deps) => new KafkaWriter(config, deps.kafkaClient(config.brokers)),
  // verify: none yet; a topic missing on its cluster shows at the first write (and parks).
};
