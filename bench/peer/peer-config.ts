// Redpanda Connect as one configuration of a Kafka benchmark session: kafka_franz in, the generated mapping,
// `unarchive`, kafka_franz out (idempotent, so acks=all), its commits behind the output's acks.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { StoredSubscription } from '../../src/configlog/resources.js';
import type { TrafficEventType } from '../../src/events/catalog.js';
import { childOf } from '../e2e/child.js';
import type { Configuration, KafkaBenchSession } from '../e2e/session.js';
import { createTopics } from '../e2e/setup.js';
import { peerMapping, type PeerForm } from './mapping.js';

const SCHEMAS = fileURLToPath(new URL('../../schemas/', import.meta.url));
const RUN_DIR = fileURLToPath(new URL('../../.local/peer/run/', import.meta.url));

/** Records a batch of the input carries through the pipeline; the output writes each batch as it comes. */
export const INPUT_BATCH = 500;

/** The peer's configuration (JSON, which its YAML reader takes as it is). */
export function peerConfig(o: { brokers: string; topics: Readonly<Record<TrafficEventType, string>>; output: string; group: string; form: PeerForm; mapping: string }): object {
  const decode =
    o.form === 'avro'
      ? [
          {
            switch: Object.entries(o.topics).map(([type, topic]) => ({
              check: `@kafka_topic == ${JSON.stringify(topic)}`,
              processors: [{ avro: { operator: 'to_json', encoding: 'binary', schema: readFileSync(join(SCHEMAS, `${type}.avsc`), 'utf8') } }],
            })),
          },
        ]
      : [];
  return {
    http: { enabled: false },
    logger: { level: 'WARN' },
    input: {
      kafka_franz: {
        seed_brokers: [o.brokers],
        topics: Object.values(o.topics),
        consumer_group: o.group,
        start_offset: 'earliest',
        commit_period: '1s',
        batching: { count: INPUT_BATCH, period: '10ms' },
      },
    },
    pipeline: { processors: [...decode, { mapping: o.mapping }, { unarchive: { format: 'json_array' } }] },
    output: { kafka_franz: { seed_brokers: [o.brokers], topic: o.output, idempotent_write: true, max_in_flight: 10 } },
  };
}

/**
 * Redpanda Connect (`bin`) on the session's raw topics of `form` with the subscriptions `subscriptions()` returns
 * (read when it is prepared: the worker configuration beside it writes them), writing to one output topic.
 */
export function peerConfiguration(session: KafkaBenchSession, name: string, bin: string, form: PeerForm, subscriptions: () => readonly StoredSubscription[]): Configuration {
  const output = session.output(name);
  const topics = session.trafficOf(form);
  let mapping: string | undefined;
  return {
    name,
    outputs: [output],
    inputTime: 'header',
    ...(form !== 'avro' && { inputs: session.inputsOf(form) }),
    prepare: async () => {
      if (mapping !== undefined) return;
      await createTopics(session.kafka, session.topics, [output]);
      mapping = peerMapping({ subscriptions: subscriptions(), topics, form });
    },
    start: (group) => {
      if (mapping === undefined) throw new Error(`${name} was not prepared`);
      mkdirSync(RUN_DIR, { recursive: true });
      const file = join(RUN_DIR, `${group}.yaml`);
      writeFileSync(file, JSON.stringify(peerConfig({ brokers: session.broker.brokers, topics, output, group, form, mapping }), null, 2));
      const child = spawn(bin, ['run', file], { stdio: ['ignore', 'pipe', 'pipe'] });
      return Promise.resolve([childOf(name, child)]);
    },
  };
}
