// Config of the kafka destination: a topic on this cluster or another one, and an optional key path.
import { ConfigReader, type ParseResult } from '../../destination-config.js';
import { KEY_PATH_PATTERN } from '../../key-path.js';

export interface KafkaTargetConfig {
  readonly topic: string;
  /** Bootstrap brokers of another cluster; absent means the service's own cluster. */
  readonly brokers?: readonly string[];
  /** Dotted envelope path for the message key, e.g. "object.conn.client_ip"; the default is the event id. */
  readonly key?: string;
}

// Kafka's topic name rule (Topic.validate): at most 249 characters of [a-zA-Z0-9._-], and not "." or "..".
const TOPIC = /^[a-zA-Z0-9._-]{1,249}$/;
const BROKER = /^[^\s:/]+:\d{1,5}$/;

export function parseKafkaTarget(raw: unknown, prefix: string): ParseResult<KafkaTargetConfig> {
  const r = new ConfigReader(raw, prefix, ['topic', 'brokers', 'key']);
  const topic = r.string('topic', true);
  if (topic !== undefined && (!TOPIC.test(topic) || topic === '.' || topic === '..')) {
    r.problem('topic', `${prefix}.topic must be 1 to 249 characters of letters, digits, ".", "_" and "-".`);
  }
  const brokers = r.stringList('brokers');
  for (const b of brokers ?? []) {
    if (!BROKER.test(b)) r.problem('brokers', `${prefix}.brokers has "${b}", which is not host:port.`);
  }
  const key = r.string('key', false);
  if (key !== undefined && !KEY_PATH_PATTERN.test(key)) {
    r.problem('key', `${prefix}.key must be a dotted envelope path such as "object.conn.client_ip".`);
  }
  return r.result({ topic: topic ?? '', ...(brokers && { brokers }), ...(key !== undefined && { key }) });
}
