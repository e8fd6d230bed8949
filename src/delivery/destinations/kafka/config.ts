// Config of the kafka destination: a topic on this cluster or another one, and an optional key path;
// its JSON schemas and its rules.
import { HOST_NAME, IPV4, PORT } from '../../../net/ip-patterns.js';
import { ConfigReader, type ParseResult } from '../../destination-config.js';
import { KEY_PATH_EXAMPLE, KEY_PATH_PATTERN } from '../../key-path.js';
import { nullable, obj, patterned, str, withError } from '../target-schema.js';

// Kafka's topic name rule (Topic.validate): at most 249 characters of [a-zA-Z0-9._-], and not "." or "..".
const TOPIC_PATTERN = '^[a-zA-Z0-9._-]{1,249}$';
const TOPIC = new RegExp(TOPIC_PATTERN);
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
}

const topic = str('Topic to write to.');
const topicRequest = patterned(TOPIC_PATTERN, 'Topic to write to: 1 to 249 letters, digits, ".", "_" and "-", and not "." or "..".', {
  not: { type: 'string', enum: ['.', '..'] },
  examples: ['edge-events'],
});

export const KAFKA_TARGET_SCHEMA = {
  request: obj(
    {
      topic: topicRequest,
      brokers: nullable({
        type: 'array',
        minItems: 1,
        items: withError(patterned(BROKER_PATTERN, 'host:port, the host a DNS name or an IPv4 address, the port 1 to 65535.', { examples: ['kafka-1.example.com:9092'] }), 'invalid_body', {
          reason: 'must be host:port with a DNS name or IPv4 host and a port from 1 to 65535',
        }),
        description: "Bootstrap brokers of another cluster; omit to use the service's own cluster.",
      }),
      key: nullable(patterned(KEY_PATH_PATTERN.source, `Dotted envelope path for the message key, e.g. ${KEY_PATH_EXAMPLE}; the default is the event id.`, { examples: [KEY_PATH_EXAMPLE] })),
    },
    ['topic'],
    'A Kafka topic.',
  ),
  response: obj(
    {
      topic,
      brokers: nullable({ type: 'array', items: { type: 'string' }, description: "Bootstrap brokers; null means the service's own cluster." }),
      key: nullable(str('Envelope path used as message key; null means the event id.')),
    },
    ['topic', 'brokers', 'key'],
    'A Kafka topic.',
  ),
};

export function parseKafkaTarget(raw: unknown, prefix: string): ParseResult<KafkaTargetConfig> {
  const r = new ConfigReader(raw, prefix, ['topic', 'brokers', 'key']);
  const topic = r.string('topic', true);
  if (topic !== undefined && (!TOPIC.test(topic) || topic === '.' || topic === '..')) {
    r.invalid('topic', 'must be 1 to 249 characters of letters, digits, ".", "_" and "-"');
  }
  const brokers = r.stringList('brokers');
  for (const b of brokers ?? []) {
    if (!STORED_BROKER.test(b)) r.invalid('brokers', `has "${b}", which is not host:port`);
  }
  const key = r.string('key', false);
  if (key !== undefined && !KEY_PATH_PATTERN.test(key)) r.invalid('key', `must be a dotted envelope path such as "${KEY_PATH_EXAMPLE}"`);
  return r.result({ topic: topic ?? '', ...(brokers && { brokers }), ...(key !== undefined && { key }) });
}
