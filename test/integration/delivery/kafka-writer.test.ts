import { describe, expect, it, onTestFinished } from 'vitest';
import { KafkaWriter } from '../../../src/delivery/destinations/kafka/kafka-writer.js';
import type { Envelope } from '../../../src/events/envelope.js';
import { createClient } from '../../../src/kafka/client.js';
import { API_KEYS, BrokerProxy } from '../../support/broker-proxy.js';
import { consumeUntil, createTopics, testBrokers, testClient, uniqueName, withAdmin } from '../../support/kafka.js';
import { OPERATOR } from '../../../src/accounts/account.js';
import { verifyKafkaTarget } from '../../../src/delivery/destinations/kafka/topic-check.js';
import { writerDeps } from '../../support/writer-deps.js';
import { describeWriterContract, testItems } from './writer-contract.js';

async function readTopic(topic: string, atLeast: number): Promise<Envelope[]> {
  const messages = await consumeUntil(testClient('contract-read-back'), {
    topics: [topic],
    until: (got) => new Set(got.map((m) => m.key)).size >= atLeast,
    timeoutMs: 30_000,
  });
  return messages.map((m) => JSON.parse(m.value ?? 'null') as Envelope);
}

describeWriterContract('kafka', async () => {
  const topic = uniqueName('contract.kafka');
  await createTopics(testClient(), [{ topic, partitions: 3 }]);
  // Its outage is a proxy in front of the broker that resets every connection and refuses new ones.
  const breakable = await BrokerProxy.start(testBrokers());
  const kafka = breakable.client('contract-kafka-writer', { retries: 2, requestTimeoutMs: 5_000 });
  return {
    createWriter: async () => new KafkaWriter({ topic }, kafka),
    readBack: (atLeast) => readTopic(topic, atLeast),
    disrupt: () => breakable.disrupt(),
    restore: () => breakable.restore(),
    cleanup: () => breakable.stop(),
  };
});

describe('kafka writer specifics', () => {
  it('should deliver the next batches with a fresh producer after one whose produce answers were lost past the client retries', async () => {
    const topic = uniqueName('kafka.writer.lost');
    await createTopics(testClient(), [{ topic, partitions: 1 }]);
    const faults = await BrokerProxy.start(testBrokers());
    onTestFinished(() => faults.stop());
    const writer = new KafkaWriter({ topic }, faults.client('kafka-writer-lost', { retries: 2 }));
    const items = testItems(7);
    faults.lose.add(API_KEYS.produce);
    // The records reach the broker; the writer never hears so, and its client's retries run out.
    await expect(writer.write(items.slice(0, 3))).rejects.toMatchObject({ code: 'DESTINATION_TIMEOUT' });
    faults.lose.clear();
    // A batch of another size: with the old producer's sequence numbers the broker would answer
    // OUT_OF_ORDER_SEQUENCE_NUMBER to it, and to every later one.
    await writer.write(items.slice(3, 5));
    await writer.write(items.slice(5));
    await writer.close();
    const ids = new Set((await readTopic(topic, 7)).map((e) => e.event_id));
    expect(ids).toEqual(new Set(items.map((i) => i.eventId)));
  });

  it('should key each message by its event id and mark it as JSON', async () => {
    const kafka = testClient();
    const topic = uniqueName('kafka.writer.key');
    await createTopics(kafka, [{ topic, partitions: 3 }]);
    const writer = new KafkaWriter({ topic }, testClient());
    const items = testItems(30);
    await writer.write(items);
    await writer.close();
    const got = await consumeUntil(kafka, { topics: [topic], until: (m) => m.length >= items.length });
    for (const m of got) {
      const envelope = JSON.parse(m.value ?? '') as Envelope;
      expect(m.key).toBe(envelope.event_id);
      expect(m.headers['content-type']).toBe('application/json');
    }
    // Keys spread the events over the partitions.
    expect(new Set(got.map((m) => m.partition)).size).toBeGreaterThan(1);
  });

  it('should key by a configured envelope field', async () => {
    const kafka = testClient();
    const topic = uniqueName('kafka.writer.keypath');
    await createTopics(kafka, [{ topic }]);
    const writer = new KafkaWriter({ topic, key: 'object.conn.client_ip' }, testClient());
    await writer.write(testItems(3));
    await writer.close();
    const got = await consumeUntil(kafka, { topics: [topic], until: (m) => m.length >= 3 });
    expect(got.map((m) => m.key)).toEqual(['192.0.2.7', '192.0.2.7', '192.0.2.7']);
  });

  it('should dead-letter only the records over the topic max.message.bytes', async () => {
    const kafka = testClient();
    const topic = uniqueName('kafka.writer.small');
    await createTopics(kafka, [{ topic, config: { 'max.message.bytes': '2000' } }]);
    const writer = new KafkaWriter({ topic }, testClient());
    const small = testItems(3);
    const [big] = testItems(1, 5000);
    const outcome = await writer.write([small[0]!, big!, small[1]!, small[2]!]);
    expect(outcome.failed.map((f) => [f.item, f.error.code, f.error.retryable])).toEqual([[big, 'RECORD_TOO_LARGE', false]]);
    await writer.close();
    const got = await consumeUntil(kafka, { topics: [topic], until: (m) => m.length >= 3 });
    expect(got.map((m) => m.key).sort()).toEqual(small.map((i) => i.eventId).sort());
  });

  it('should say a deleted topic is not found, and make it again in its health check, as the re-driver runs it', async () => {
    const kafka = testClient();
    const topic = uniqueName('kafka.writer.deleted');
    const config = { topic, partitions: 2 };
    const writer = new KafkaWriter(config, kafka, {}, () => verifyKafkaTarget(config, writerDeps({ kafkaClient: () => kafka }), OPERATOR));
    onTestFinished(() => writer.close());
    await writer.healthcheck();
    await writer.write(testItems(1));
    await withAdmin(kafka, (admin) => admin.deleteTopics([topic]));
    let failure: unknown;
    for (let i = 0; i < 20 && failure === undefined; i++) {
      await writer.write(testItems(1)).catch((err: unknown) => (failure = err));
      if (failure === undefined) await new Promise((r) => setTimeout(r, 500));
    }
    expect(failure).toMatchObject({ code: 'DESTINATION_NOT_FOUND' });
    await writer.healthcheck();
    expect(await withAdmin(kafka, (admin) => admin.topicExists(topic))).toBe(true);
    const items = testItems(3);
    await writer.write(items);
    expect(new Set((await readTopic(topic, 3)).map((e) => e.event_id))).toEqual(new Set(items.map((i) => i.eventId)));
  });

  it('should fail its health check for a cluster it cannot reach', async () => {
    const writer = new KafkaWriter(
      { topic: 'x' },
      createClient({ clientId: 'unreachable', brokers: ['127.0.0.1:1'], connectionTimeoutMs: 300, retries: 0 }),
    );
    await expect(writer.healthcheck()).rejects.toMatchObject({ code: 'DESTINATION_UNHEALTHY' });
    await expect(writer.write(testItems(1))).rejects.toMatchObject({ code: 'DESTINATION_UNREACHABLE', retryable: true });
    await writer.close();
  });
});
