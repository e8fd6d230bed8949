import { describe, expect, it } from 'vitest';
import { loadServiceConfig } from '../../../src/config/service-config.js';
import { egressRules } from '../../../src/delivery/egress-rules.js';

describe('egress rules', () => {
  it("should refuse the service's own topics as configured, its retry topics and Kafka's own, and nothing else", () => {
    const rules = egressRules(loadServiceConfig({ TOPIC_CONFIG: 'acme.config', TOPIC_RETRY_PREFIX: 'acme.retry.', TOPIC_STATUS: 'acme.status' }).topics);
    expect(rules.topicRefusal('acme.config')).toBe('it is the config log of this service');
    expect(rules.topicRefusal('acme.status')).toBe('it is the destination status topic of this service');
    expect(rules.topicRefusal('edge.audit')).toBe('it is the audit topic of this service');
    expect(rules.topicRefusal('edge.dlq')).toBe('it is the dead-letter topic of this service');
    expect(rules.topicRefusal('edge.traffic.tcp_connection_closed.v0')).toBe('it is a raw traffic topic of this service');
    expect(rules.topicRefusal('acme.retry.ed_1')).toBe("it is under the prefix of this service's retry topics (acme.retry.)");
    expect(rules.topicRefusal('__transaction_state')).toBe("topics beginning with \"__\" are Kafka's own");
    // The defaults of the names it was not given are not reserved.
    for (const free of ['edge.config', 'edge.retry.ed_1', 'acme.config.copy', 'customer.events', '_single']) expect(rules.topicRefusal(free), free).toBeUndefined();
  });
});
