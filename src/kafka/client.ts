// The service's Kafka client: the adapter KAFKA_CLIENT names (seam.ts), brokers from a string, and topic
// creation the way every process does it at start-up.
import { parseBrokers } from './brokers.js';
import { KafkaSetupError } from './errors.js';
import { platformaticClient } from './platformatic/platformatic-adapter.js';
import { KAFKA_CLIENT_NAMES, type KafkaAdmin, type KafkaClient, type KafkaClientName, type KafkaClientOptions, type TopicSpec } from './seam.js';

export { parseBrokers } from './brokers.js';
export type { TopicSpec } from './seam.js';

/** The client the service uses when KAFKA_CLIENT is unset (chosen by measurement: bench/results/kafka-client-choice.md). */
export const DEFAULT_KAFKA_CLIENT: KafkaClientName = 'platformatic';

export function isKafkaClientName(name: string): name is KafkaClientName {
  return (KAFKA_CLIENT_NAMES as readonly string[]).includes(name);
}

/** A client of the named library (default DEFAULT_KAFKA_CLIENT) for `options.brokers`. */
export function createClient(options: Omit<KafkaClientOptions, 'brokers'> & { brokers: string | readonly string[]; name?: KafkaClientName }): KafkaClient {
  const resolved = { ...options, brokers: parseBrokers(options.brokers) };
  switch (options.name ?? DEFAULT_KAFKA_CLIENT) {
    case 'platformatic':
      return platformaticClient(resolved);
  }
}

export interface EnsureTopicsResult {
  created: string[];
  existing: string[];
}

/**
 * Creates the topics that do not exist yet and leaves existing ones alone, so every process may call
 * it at start-up. An existing topic that a spec wants compacted must already be compacted: a config log
 * on a deleting topic would silently lose resources once retention passes.
 */
export async function ensureTopics(admin: KafkaAdmin, specs: readonly TopicSpec[]): Promise<EnsureTopicsResult> {
  const known = new Set(await admin.listTopics());
  const missing = specs.filter((spec) => !known.has(spec.topic));
  // Another process may create them between the calls: createTopics takes that as done.
  if (missing.length > 0) await admin.createTopics(missing);
  const existing = specs.filter((spec) => known.has(spec.topic));
  for (const spec of existing.filter((s) => s.compacted)) {
    const policy = (await admin.topicConfig(spec.topic, ['cleanup.policy'])).get('cleanup.policy') ?? '';
    if (!policy.split(',').includes('compact')) {
      throw new KafkaSetupError('TOPIC_CONFIG_MISMATCH', `Topic ${spec.topic} exists with cleanup.policy=${policy || 'delete'}, but it must be compacted.`);
    }
  }
  return { created: missing.map((s) => s.topic), existing: existing.map((s) => s.topic) };
}
