// Smoke test of kafkajs against the pinned broker: the protocol paths the service relies on all work.
import type { Kafka } from 'kafkajs';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureTopics } from '../../../src/kafka/client.js';
import { createProducer } from '../../../src/kafka/kafkajs/kafkajs-client.js';
import { withAdmin } from '../../../src/kafka/seam.js';
import { TEST_CONSUMER, consumeUntil, createTopics, produce, testClient, testKafka, uniqueName, withAdmin as withKafkajsAdmin, type ConsumedMessage } from '../../support/kafka.js';

let kafka: Kafka;

beforeAll(() => {
  kafka = testKafka('smoke-test');
});

const values = (messages: readonly ConsumedMessage[]): Array<string | null> => messages.map((m) => m.value);

describe('kafkajs against the pinned broker', () => {
  it('should produce keyed records and consume them all in a consumer group, each key on one partition', async () => {
    const topic = uniqueName('smoke-produce');
    await createTopics(kafka, [{ topic, partitions: 3 }]);
    const sent = Array.from({ length: 30 }, (_, i) => ({ key: `key-${i % 7}`, value: `value-${i}` }));
    await produce(kafka, topic, sent);

    const received = await consumeUntil(kafka, { topics: [topic], until: (got) => got.length >= sent.length });

    expect(values(received).sort()).toEqual(sent.map((m) => m.value).sort());
    const partitionsByKey = new Map<string | null, Set<number>>();
    for (const m of received) partitionsByKey.set(m.key, (partitionsByKey.get(m.key) ?? new Set()).add(m.partition));
    expect([...partitionsByKey.values()].every((partitions) => partitions.size === 1)).toBe(true);
    expect(new Set(received.map((m) => m.partition)).size).toBeGreaterThan(1);
  });

  it('should resume a re-joining consumer group after the offset it committed', async () => {
    const topic = uniqueName('smoke-commit');
    const groupId = uniqueName('smoke-group');
    await createTopics(kafka, [{ topic, partitions: 1 }]);
    await produce(kafka, topic, ['m0', 'm1', 'm2', 'm3', 'm4'].map((value) => ({ value })));

    // First member: manual commits only. It reads all five but commits offset 3, the next one to read,
    // as if it had finished only m0..m2.
    const first = kafka.consumer({ groupId, ...TEST_CONSUMER });
    await first.connect();
    await first.subscribe({ topics: [topic], fromBeginning: true });
    const firstSeen: string[] = [];
    await new Promise<void>((resolve, reject) => {
      first
        .run({
          autoCommit: false,
          eachMessage: async ({ message }) => {
            firstSeen.push(message.value?.toString() ?? '');
            if (firstSeen.length === 5) resolve();
          },
        })
        .catch(reject);
    });
    await first.commitOffsets([{ topic, partition: 0, offset: '3' }]);
    await first.disconnect();
    expect(firstSeen).toEqual(['m0', 'm1', 'm2', 'm3', 'm4']);

    const committed = await withKafkajsAdmin(kafka, (admin) => admin.fetchOffsets({ groupId, topics: [topic] }));
    expect(committed).toEqual([{ topic, partitions: [{ partition: 0, offset: '3', metadata: null }] }]);

    await produce(kafka, topic, [{ value: 'm5' }]);
    // fromBeginning applies only without a committed offset: the group must restart at m3, not m0.
    const second = await consumeUntil(kafka, { topics: [topic], groupId, until: (got) => got.some((m) => m.value === 'm5') });
    expect(values(second)).toEqual(['m3', 'm4', 'm5']);
    expect(second[0]?.offset).toBe('3');
  });

  it('should show committed transactions to read_committed consumers and hide aborted ones', async () => {
    const topic = uniqueName('smoke-tx');
    await createTopics(kafka, [{ topic, partitions: 1 }]);
    const producer = createProducer(kafka, { transactionalId: uniqueName('smoke-txn'), idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    try {
      const aborted = await producer.transaction();
      await aborted.send({ topic, messages: [{ value: 'aborted' }] });
      await aborted.abort();
      const committed = await producer.transaction();
      await committed.send({ topic, messages: [{ value: 'committed-1' }, { value: 'committed-2' }] });
      await committed.commit();
    } finally {
      await producer.disconnect();
    }

    const until = (got: readonly ConsumedMessage[]): boolean => got.some((m) => m.value === 'committed-2');
    const readCommitted = await consumeUntil(kafka, { topics: [topic], until });
    expect(values(readCommitted)).toEqual(['committed-1', 'committed-2']);
    // The aborted record is in the log: a read_uncommitted consumer sees it, so the filter above is real.
    const readUncommitted = await consumeUntil(kafka, { topics: [topic], until, consumer: { readUncommitted: true } });
    expect(values(readUncommitted)).toEqual(['aborted', 'committed-1', 'committed-2']);
  });

  it('should create a compacted topic once, keep it compacted, and refuse records without a key', async () => {
    const topic = uniqueName('smoke-compacted');
    const plain = uniqueName('smoke-plain');
    const spec = { topic, partitions: 1, compacted: true };

    const results = await withAdmin(testClient(), async (admin) => [
      await ensureTopics(admin, [spec, { topic: plain }]),
      await ensureTopics(admin, [spec]),
    ]);
    expect(results).toEqual([
      { created: [topic, plain], existing: [] },
      { created: [], existing: [topic] },
    ]);

    const config = await withAdmin(testClient(), (admin) => admin.topicConfig(topic, ['cleanup.policy']));
    expect(config.get('cleanup.policy')).toBe('compact');

    // A tombstone (key, null value) is how the config log deletes a resource.
    await produce(kafka, topic, [{ key: 'ed_1', value: '{"v":1}' }, { key: 'ed_1', value: null }]);
    const got = await consumeUntil(kafka, { topics: [topic], until: (m) => m.length >= 2 });
    expect(got.map((m) => [m.key, m.value])).toEqual([['ed_1', '{"v":1}'], ['ed_1', null]]);

    // Kafka's log validator: "Compacted topic cannot accept message without key".
    const strict = createProducer(kafka, { retry: { retries: 0 } });
    await strict.connect();
    try {
      await expect(strict.send({ topic, messages: [{ value: 'no key' }] })).rejects.toMatchObject({
        type: expect.stringMatching(/^(INVALID_RECORD|CORRUPT_MESSAGE)$/),
      });
    } finally {
      await strict.disconnect();
    }

    await withAdmin(testClient(), async (admin) => {
      await expect(ensureTopics(admin, [{ topic: plain, compacted: true }])).rejects.toMatchObject({ code: 'TOPIC_CONFIG_MISMATCH' });
    });
  });
});
