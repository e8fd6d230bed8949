// Unit tests of the Kafka client factory: broker-list parsing (no broker needed).
import { describe, expect, it } from 'vitest';
import { createClient, parseBrokers } from '../../../src/kafka/client.js';

describe('parseBrokers', () => {
  it('should split a KAFKA_BROKERS string on commas and trim each address', () => {
    expect(parseBrokers(' kafka:9092, 10.0.0.2:19092 ,[::1]:9092')).toEqual(['kafka:9092', '10.0.0.2:19092', '[::1]:9092']);
  });

  it('should accept an already split list', () => {
    expect(parseBrokers(['a:1', 'b:65535'])).toEqual(['a:1', 'b:65535']);
  });

  it.each([[''], [' , '], ['kafka'], ['kafka:'], ['kafka:0'], ['kafka:70000'], ['http://kafka:9092'], ['a b:9092']])(
    'should reject %j with code INVALID_BROKERS',
    (brokers) => {
      expect(() => parseBrokers(brokers)).toThrow(expect.objectContaining({ code: 'INVALID_BROKERS' }));
    },
  );

  it('should make createClient fail fast on a bad broker list rather than at first connect', () => {
    expect(() => createClient({ clientId: 'x', brokers: 'nohostport' })).toThrow(expect.objectContaining({ code: 'INVALID_BROKERS' }));
  });
});
