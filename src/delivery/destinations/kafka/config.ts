// Config of the kafka destination: a topic on this cluster or another one, an optional key path, and
// how to create the topic when it is missing; its JSON schemas and its rules.
import type { AccountContext } from '../../../accounts/account.js';
import { brokerHost } from '../../../kafka/brokers.js';
import { reachedAddress } from '../../../net/internal-ranges.js';
import { HOST_NAME, IPV4, PORT } from '../../../net/ip-patterns.js';
import { ConfigReader, problem, type ParseResult } from '../../destination-config.js';
import type { EgressRules } from '../../egress-rules.js';
import { KEY_PATH_EXAMPLE, KEY_PATH_PATTERN } from '../../key-path.js';
import { named, nullable, obj, patterned, str, withError } from '../target-schema.js';

// Kafka's topic name rule (Topic.validate): at most 249 characters of [a-zA-Z0-9._-], and not "." or "..".
const TOPIC_PATTERN = '^[a-zA-Z0-9._-]{1,249}$';
/** A bootstrap broker as the API takes it: a DNS name or IPv4 address, and a port 1-65535. */
const BROKER_PATTERN = `^(?:${HOST_NAME}|${IPV4}):${PORT}$`;
/** What a stored target may hold (laxer than the API's rule, so targets stored before it still load). */
const STORED_BROKER = /^[^\s:/]+:\d{1,5}$/;

export interface KafkaTargetConfig {
  readonly topic: string;
  /** Bootstrap brokers of another cluster; absent means the service's own cluster. */
  readonly brokers?: readonly string[];
  /** Dotted envelope path for the message key (KEY_PATH_EXAMPLE); the default is the event id. */
  readonly key?: string;
  /** Partitions of the topic when the service creates it; absent: KAFKA_DESTINATION_PARTITIONS. */
  readonly partitions?: number;
  /** Replication factor of the topic when the service creates it; absent: KAFKA_DESTINATION_REPLICATION_FACTOR. */
  readonly replication_factor?: number;
}

/** Bounds of the creation settings: enough for any destination topic, and no broker-sized accident. */
export const MAX_PARTITIONS = 1_000;
export const MAX_REPLICATION_FACTOR = 16;

const topic = str('Topic to write to. Created when missing (see partitions and replication_factor).');
const topicRequest = patterned(TOPIC_PATTERN, 'Topic to write to: 1 to 249 letters, digits, ".", "_" and "-", and not "." or "..". Created when missing (see partitions and replication_factor).', {
  not: { type: 'string', enum: ['.', '..'] },
  examples: ['edge-events'],
});
const partitionsAbout = "Partitions of the topic if the service creates it; ignored when the topic exists. Null means the service's default (the operator's, else the broker's num.partitions). A normal account's topic on the service's own cluster takes at most 32 partitions, and is created only while all the topics under the account's prefix there, those of deleted destinations too, hold at most 256 together (409 account_partition_limit), unless the operator sets other limits.";
const replicationAbout =
  "Replication factor of the topic if the service creates it; ignored when the topic exists. Null means the service's default (the operator's, else the broker's default.replication.factor).";

export const KAFKA_TARGET_SCHEMA = {
  request: named('KafkaTarget', obj(
    {
      topic: topicRequest,
      brokers: nullable({
        type: 'array',
        minItems: 1,
        items: withError(patterned(BROKER_PATTERN, 'host:port, the host a DNS name or an IPv4 address, the port 1 to 65535.', { examples: ['kafka-1.example.com:9092'] }), 'invalid_body', {
          reason: 'must be host:port with a DNS name or IPv4 host and a port from 1 to 65535',
        }),
        description: "Bootstrap brokers of another cluster; omit to use the service's own cluster. Held to the egress rules: no internal address (internal_address).",
      }),
      key: nullable(patterned(KEY_PATH_PATTERN.source, `Dotted envelope path for the message key, e.g. ${KEY_PATH_EXAMPLE}; the default is the event id.`, { examples: [KEY_PATH_EXAMPLE] })),
      partitions: nullable({ type: 'integer', minimum: 1, maximum: MAX_PARTITIONS, description: partitionsAbout }),
      replication_factor: nullable({ type: 'integer', minimum: 1, maximum: MAX_REPLICATION_FACTOR, description: replicationAbout }),
    },
    ['topic'],
    'A Kafka topic.',
  )),
  response: named('KafkaTargetView', obj(
    {
      topic,
      brokers: nullable({ type: 'array', items: { type: 'string' }, description: "Bootstrap brokers; null means the service's own cluster." }),
      key: nullable(str('Envelope path used as message key; null means the event id.')),
      partitions: nullable({ type: 'integer', description: partitionsAbout }),
      replication_factor: nullable({ type: 'integer', description: replicationAbout }),
    },
    ['topic', 'brokers', 'key', 'partitions', 'replication_factor'],
    'A Kafka topic.',
  )),
};

// Kafka's topic name rule (org.apache.kafka.common.internals.Topic.validate): "Topic name is illegal, it
// can't be empty", "... cannot be \".\" or \"..\"", "... is illegal, it can't be longer than 249
// characters", "... contains a character other than ASCII alphanumerics, '.', '_' and '-'".
const MAX_TOPIC_LENGTH = 249;
const ILLEGAL_TOPIC_CHAR = /[^a-zA-Z0-9._-]/;

/** Which of Kafka's topic name rules the name breaks, or undefined when it keeps them all. */
export function topicNameProblem(name: string): string | undefined {
  if (name === '.' || name === '..') return 'it cannot be "." or ".."';
  if (name.length > MAX_TOPIC_LENGTH) return `it is ${name.length} characters long; the limit is ${MAX_TOPIC_LENGTH}`;
  const bad = ILLEGAL_TOPIC_CHAR.exec(name)?.[0];
  if (bad !== undefined) return `it contains ${JSON.stringify(bad)}; only ASCII letters, digits, ".", "_" and "-" are allowed`;
  return undefined;
}

export function parseKafkaTarget(raw: unknown, prefix: string, account: AccountContext, egress?: EgressRules): ParseResult<KafkaTargetConfig> {
  const r = new ConfigReader(raw, prefix, ['topic', 'brokers', 'key', 'partitions', 'replication_factor']);
  const topic = r.string('topic', true);
  if (topic !== undefined) {
    const broken = topicNameProblem(topic);
    const refused = broken === undefined ? egress?.topicRefusal(topic) : undefined;
    // A name too long to print whole is cut in the problem: it travels in the API error and in logs.
    const shown = topic.length > 80 ? `${topic.slice(0, 80)}…` : topic;
    const accountPrefix = egress?.topicPrefix(account);
    if (broken !== undefined) r.add(problem.topicName(r.path('topic'), shown, broken));
    else if (refused !== undefined) r.add(problem.internalTopic(r.path('topic'), topic, refused));
    else if (accountPrefix !== undefined && !topic.startsWith(accountPrefix)) r.add(problem.topicPrefix(r.path('topic'), topic, accountPrefix));
  }
  const brokers = r.stringList('brokers');
  for (const b of brokers ?? []) {
    if (!STORED_BROKER.test(b)) r.invalid('brokers', `has "${b}", which is not host:port`);
    // A broker written as an address is judged here; a name by its addresses (kafka-kind.ts guard) and at every connect.
    else if (reachedAddress(brokerHost(b)) !== undefined) {
      const why = egress?.addressRefusal(brokerHost(b));
      if (why !== undefined) r.add(problem.egress('internal_address', r.path('brokers'), `its broker ${b} is at an address destinations may not reach: ${why}`, { broker: b }));
    }
  }
  const key = r.string('key', false);
  if (key !== undefined && !KEY_PATH_PATTERN.test(key)) r.invalid('key', `must be a dotted envelope path such as "${KEY_PATH_EXAMPLE}"`);
  const partitions = r.integer('partitions', 1, MAX_PARTITIONS);
  // Topics on the service's own cluster are shared room (SECURITY.md "Egress").
  const partitionLimit = brokers === undefined ? egress?.topicPartitionLimit(account) : undefined;
  if (partitions !== undefined && partitionLimit !== undefined && partitions > partitionLimit) {
    r.invalid('partitions', `asks for ${partitions} partitions; a topic this account creates on the service's own cluster may have at most ${partitionLimit} (a limit the operator sets)`);
  }
  const replication = r.integer('replication_factor', 1, MAX_REPLICATION_FACTOR);
  return r.result({
    topic: topic ?? '',
    ...(brokers && { brokers }),
    ...(key !== undefined && { key }),
    ...(partitions !== undefined && { partitions }),
    ...(replication !== undefined && { replication_factor: replication }),
  });
}
