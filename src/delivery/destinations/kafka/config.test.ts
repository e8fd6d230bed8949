import { describe, expect, it } from 'vitest';
import { parseKafkaTarget } from './config.js';

describe('kafka target config', () => {
  it('should accept a topic alone, or with other brokers and a key path', () => {
    expect(parseKafkaTarget({ topic: 'customer.events' }, 't')).toEqual({ ok: true, config: { topic: 'customer.events' } });
    expect(parseKafkaTarget({ topic: 'a', brokers: ['k1:9092', 'k2:9093'], key: 'object.conn.client_ip' }, 't')).toEqual({
      ok: true,
      config: { topic: 'a', brokers: ['k1:9092', 'k2:9093'], key: 'object.conn.client_ip' },
    });
  });

  it('should reject an illegal topic name, a broker without a port and a bad key path', () => {
    const result = parseKafkaTarget({ topic: 'bad topic!', brokers: ['k1'], key: 'object..x' }, 'target.kafka');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems.map((p) => p.field)).toEqual(['target.kafka.topic', 'target.kafka.brokers', 'target.kafka.key']);
    expect(parseKafkaTarget({ topic: '..' }, 't').ok).toBe(false);
    expect(parseKafkaTarget({ topic: 'x'.repeat(250) }, 't').ok).toBe(false);
    expect(parseKafkaTarget({}, 't').ok).toBe(false);
  });
});
