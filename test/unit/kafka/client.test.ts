// Unit tests of the Kafka client factory: broker-list parsing, and what kafkajs logs when producers are made (no broker needed).
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createKafkaClient, createProducer, parseBrokers } from '../../../src/kafka/client.js';

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

  it('should make createKafkaClient fail fast on a bad broker list rather than at first connect', () => {
    expect(() => createKafkaClient({ clientId: 'x', brokers: 'nohostport' })).toThrow(expect.objectContaining({ code: 'INVALID_BROKERS' }));
  });
});

describe('producers', () => {
  function captured(): { lines: Array<{ level: number; msg: string }>; logger: pino.Logger } {
    const lines: Array<{ level: number; msg: string }> = [];
    const logger = pino({ level: 'debug' }, { write: (l: string) => lines.push(JSON.parse(l) as { level: number; msg: string }) });
    return { lines, logger };
  }

  it('should make an idempotent producer with bounded retries and the murmur2 partitioner without a warning, keeping the retry notice at debug', () => {
    const { lines, logger } = captured();
    const kafka = createKafkaClient({ clientId: 'x', brokers: '127.0.0.1:9', logger, logLevel: 'debug' });
    createProducer(kafka, { idempotent: true, maxInFlightRequests: 1, retry: { retries: 2 } });
    expect(lines.filter((l) => l.level >= 40)).toEqual([]);
    expect(lines.filter((l) => /Limiting retries/.test(l.msg)).map((l) => l.level)).toEqual([20]);
  });

  it('should still warn about a producer left to the default partitioner of kafkajs', () => {
    const { lines, logger } = captured();
    createKafkaClient({ clientId: 'x', brokers: '127.0.0.1:9', logger, logLevel: 'debug' }).producer();
    expect(lines.filter((l) => l.level === 40).map((l) => l.msg)).toEqual([expect.stringContaining('switched default partitioner')]);
  });
});
