// Unit tests of the Kafka client factory: broker-list parsing, log routing, and what kafkajs logs when producers are made (no broker needed).
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { parseBrokers } from '../../../src/kafka/client.js';
import { createKafkaClient, createProducer } from '../../../src/kafka/kafkajs/kafkajs-client.js';
import { createRootLogger } from '../../../src/telemetry/logger.js';

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

describe('createKafkaClient log routing', () => {
  async function levelsOfAFailedConnect(quiet: boolean): Promise<number[]> {
    const levels: number[] = [];
    const logger = createRootLogger({ write: (line: string) => void levels.push((JSON.parse(line) as { level: number }).level) }, 'debug');
    // Port 1 on loopback refuses the connection, and kafkajs logs the failure itself.
    const kafka = createKafkaClient({ clientId: 'x', brokers: '127.0.0.1:1', logger, quiet, retry: { retries: 0 }, connectionTimeoutMs: 500 });
    const admin = kafka.admin();
    await expect(admin.connect()).rejects.toThrow();
    return levels;
  }

  it("should log kafkajs's own errors at error or warn by default", async () => {
    expect((await levelsOfAFailedConnect(false)).some((l) => l >= 40)).toBe(true);
  });

  it("should log kafkajs's own lines at debug only when quiet, for a caller that reports the failure itself", async () => {
    const levels = await levelsOfAFailedConnect(true);
    expect(levels.length).toBeGreaterThan(0);
    expect(levels.every((l) => l === 20)).toBe(true);
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
