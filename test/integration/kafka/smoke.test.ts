// Smoke test of the service's Kafka client against the pinned broker: the protocol paths the service relies on all work.
import { findErrorBy } from '@platformatic/kafka';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureTopics } from '../../../src/kafka/client.js';
import { withAdmin, type GroupConsumer, type IncomingMessage, type KafkaClient } from '../../../src/kafka/seam.js';
import { consumeUntil, createTopics, produce, testClient, transactions, uniqueName, type ConsumedMessage } from '../../support/kafka.js';

let kafka: KafkaClient;

beforeAll(() => {
  kafka = testClient('smoke-test');
});

const values = (messages: readonly ConsumedMessage[]): Array<string | null> => messages.map((m) => m.value);

/**
 * Reads the topic as a member of `groupId` (from its committed offset, else the beginning) until the
 * record `last`, then runs `before` with the member and leaves the group.
 */
async function readAsMember(groupId: string, topic: string, last: string, before: (member: GroupConsumer) => Promise<void>): Promise<IncomingMessage[]> {
  const member = kafka.groupConsumer({ groupId, topics: [topic], sessionTimeoutMs: 10_000, heartbeatIntervalMs: 1_000, maxWaitMs: 250 });
  const seen: IncomingMessage[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${last} within 30 s; read ${seen.map((m) => String(m.value)).join(', ')}`)), 30_000);
      member
        .start(async ({ messages }, scope) => {
          seen.push(...messages);
          const lastRead = messages[messages.length - 1];
          if (lastRead !== undefined) scope.resolve(lastRead.offset);
          if (messages.some((m) => m.value?.toString() === last)) {
            clearTimeout(timer);
            resolve();
          }
        })
        .catch(reject);
    });
    await before(member);
  } finally {
    await member.stop();
  }
  return seen;
}

describe("the service's Kafka client against the pinned broker", () => {
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

    // First member: it reads all five but commits offset 3, the next one to read, as if it had finished
    // only m0..m2.
    const firstSeen = await readAsMember(groupId, topic, 'm4', async (member) => member.commit(topic, 0, 3));
    expect(firstSeen.map((m) => m.value?.toString())).toEqual(['m0', 'm1', 'm2', 'm3', 'm4']);

    const committed = await withAdmin(kafka, (admin) => admin.committedOffsets(groupId, topic));
    expect(committed).toEqual(new Map([[0, 3]]));

    await produce(kafka, topic, [{ value: 'm5' }]);
    // The beginning applies only without a committed offset: the group must restart at m3, not m0.
    const second = await readAsMember(groupId, topic, 'm5', async () => undefined);
    expect(second.map((m) => m.value?.toString())).toEqual(['m3', 'm4', 'm5']);
    expect(second[0]?.offset).toBe('3');
  });

  it('should show committed transactions to read_committed consumers and hide aborted ones', async () => {
    const topic = uniqueName('smoke-tx');
    await createTopics(kafka, [{ topic, partitions: 1 }]);
    await transactions(kafka, topic, [
      { values: ['aborted'], end: 'abort' },
      { values: ['committed-1', 'committed-2'], end: 'commit' },
    ]);

    const until = (got: readonly ConsumedMessage[]): boolean => got.some((m) => m.value === 'committed-2');
    const readCommitted = await consumeUntil(kafka, { topics: [topic], until });
    expect(values(readCommitted)).toEqual(['committed-1', 'committed-2']);
    // The aborted record is in the log: a read_uncommitted consumer sees it, so the filter above is real.
    const readUncommitted = await consumeUntil(kafka, { topics: [topic], until, readUncommitted: true });
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
    const strict = kafka.idempotentProducer({ retries: 2 });
    await strict.connect();
    try {
      const refusal = await strict.send(topic, [{ value: 'no key' }]).then(
        () => new Error('the broker took a record without a key'),
        (err: unknown) => err as Error,
      );
      expect(findErrorBy(refusal, 'apiId', 'INVALID_RECORD'), refusal.message).not.toBeNull();
      expect(kafka.describeError(refusal).message).toMatch(/Compacted topic cannot accept message without key/);
    } finally {
      await strict.close();
    }

    await withAdmin(testClient(), async (admin) => {
      await expect(ensureTopics(admin, [{ topic: plain, compacted: true }])).rejects.toMatchObject({ code: 'TOPIC_CONFIG_MISMATCH' });
    });
  });
});
