import { OPERATOR } from '../../../accounts/account.js';
import { describe, expect, it } from 'vitest';
import { DEFAULT_EGRESS, TEST_EGRESS } from '../../../../test/support/writer-deps.js';
import { parseKafkaTarget, topicNameProblem } from './config.js';

describe('kafka target config', () => {
  it('should accept a topic alone, or with other brokers, a key path and creation settings', () => {
    expect(parseKafkaTarget({ topic: 'customer.events' }, 't', OPERATOR)).toEqual({ ok: true, config: { topic: 'customer.events' } });
    expect(parseKafkaTarget({ topic: 'a', brokers: ['k1:9092', 'k2:9093'], key: 'object.conn.client_ip', partitions: 6, replication_factor: 3 }, 't', OPERATOR)).toEqual({
      ok: true,
      config: { topic: 'a', brokers: ['k1:9092', 'k2:9093'], key: 'object.conn.client_ip', partitions: 6, replication_factor: 3 },
    });
  });

  it('should reject an illegal topic name, a broker without a port and a bad key path', () => {
    const result = parseKafkaTarget({ topic: 'bad topic!', brokers: ['k1'], key: 'object..x' }, 'target.kafka', OPERATOR);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems.map((p) => p.field)).toEqual(['target.kafka.topic', 'target.kafka.brokers', 'target.kafka.key']);
    expect(parseKafkaTarget({ topic: '..' }, 't', OPERATOR).ok).toBe(false);
    expect(parseKafkaTarget({ topic: 'x'.repeat(250) }, 't', OPERATOR).ok).toBe(false);
    expect(parseKafkaTarget({}, 't', OPERATOR).ok).toBe(false);
  });

  it("should name the rule of Kafka's a topic name breaks", () => {
    expect(topicNameProblem('.')).toBe('it cannot be "." or ".."');
    expect(topicNameProblem('x'.repeat(250))).toBe('it is 250 characters long; the limit is 249');
    expect(topicNameProblem('orders/eu')).toBe('it contains "/"; only ASCII letters, digits, ".", "_" and "-" are allowed');
    expect(topicNameProblem('événements')).toMatch(/^it contains "é"/);
    expect(topicNameProblem('a.B_c-9')).toBeUndefined();
  });

  it("should refuse the service's own topics only when it is given the rules", () => {
    expect(parseKafkaTarget({ topic: 'edge.dlq' }, 't', OPERATOR).ok).toBe(true);
    const refused = parseKafkaTarget({ topic: 'edge.dlq' }, 'target.kafka', OPERATOR, DEFAULT_EGRESS);
    expect(refused.ok ? [] : refused.problems.map((p) => [p.code, p.details.reason])).toEqual([['internal_topic', 'it is the dead-letter topic of this service']]);
  });

  it('should refuse a broker written as an internal address, for every account, unless EGRESS_ALLOW_CIDRS opens it', () => {
    const refused = parseKafkaTarget({ topic: 'a', brokers: ['kafka.example.com:9092', '127.0.0.1:9092', '169.254.169.254:9092'] }, 'target.kafka', OPERATOR, DEFAULT_EGRESS);
    expect(refused.ok ? [] : refused.problems.map((p) => [p.code, p.field, p.details.broker])).toEqual([
      ['internal_address', 'target.kafka.brokers', '127.0.0.1:9092'],
      ['internal_address', 'target.kafka.brokers', '169.254.169.254:9092'],
    ]);
    expect(refused.ok ? undefined : refused.problems[0]?.message).toBe(
      'target.kafka.brokers is refused: its broker 127.0.0.1:9092 is at an address destinations may not reach: 127.0.0.1 is a loopback address (127.0.0.0/8) inside the network, which destinations of this service may not reach.',
    );
    // A name is judged by its addresses (the kind's guard, and the client at every connect); the suite's allow list opens loopback.
    expect(parseKafkaTarget({ topic: 'a', brokers: ['localhost:9092'] }, 't', OPERATOR, DEFAULT_EGRESS).ok).toBe(true);
    expect(parseKafkaTarget({ topic: 'a', brokers: ['127.0.0.1:9092'] }, 't', OPERATOR, TEST_EGRESS).ok).toBe(true);
  });
});
