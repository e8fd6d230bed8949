// What a destination may not point at: the service's own insides. The kinds ask these rules (a kafka
// topic of the service itself is refused); this is the one home of such rules, where per-account ones
// (an account's own topic prefix, folder and addresses) will join them.
import type { ServiceConfig } from '../config/service-config.js';

export interface EgressRules {
  /**
   * Why a destination may not write to this Kafka topic, completing "The topic … is refused: …", or
   * undefined when it may. Applied whatever cluster the destination names: a topic of another cluster
   * that happens to share a name with one of the service's is refused too, rather than guessing whether
   * two broker lists reach the same cluster.
   */
  topicRefusal(topic: string): string | undefined;
}

/** Kafka keeps its own internal topics (`__consumer_offsets`, `__transaction_state`, …) under this prefix. */
const KAFKA_INTERNAL_PREFIX = '__';

/** The rules of a service with these topics (its config, audit, dead-letter, status, raw traffic and retry topics). */
export function egressRules(topics: ServiceConfig['topics']): EgressRules {
  const own = new Map<string, string>([
    [topics.config, 'the config log'],
    [topics.audit, 'the audit topic'],
    [topics.deadLetter, 'the dead-letter topic'],
    [topics.status, 'the destination status topic'],
    [topics.httpRequestComplete, 'a raw traffic topic'],
    [topics.tcpConnectionClosed, 'a raw traffic topic'],
  ]);
  return {
    topicRefusal(topic) {
      const what = own.get(topic);
      if (what !== undefined) return `it is ${what} of this service`;
      if (topic.startsWith(topics.retryPrefix)) return `it is under the prefix of this service's retry topics (${topics.retryPrefix})`;
      if (topic.startsWith(KAFKA_INTERNAL_PREFIX)) return `topics beginning with "${KAFKA_INTERNAL_PREFIX}" are Kafka's own`;
      return undefined;
    },
  };
}
