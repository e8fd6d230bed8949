// A group consumer's fetch that waits for bytes (GroupConsumerOptions.minBytes, Kafka's fetch.min.bytes) on
// the real broker: records that trickle in reach its handler in batches of many, where a consumer answered
// at once gets them a few at a time. The ingest worker waits for 64 KiB or 100 ms (ingest-worker.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GroupConsumer, KafkaClient } from '../../../src/kafka/seam.js';
import { createTopics, testClient, uniqueName } from '../../support/kafka.js';
import { waitFor } from '../../chaos/harness/timing.js';

let kafka: KafkaClient;
const members: GroupConsumer[] = [];

beforeAll(() => {
  kafka = testClient('fetch-wait-test');
});

afterAll(async () => {
  await Promise.allSettled(members.map((m) => m.stop()));
});

/**
 * A member of a group of its own on `topic`; `batches` counts the batches its handler got, `values` what
 * they held, `failed` why it stopped, if it did.
 */
function member(topic: string, minBytes: number | undefined): { batches: number; values: string[]; failed?: unknown } {
  const seen: { batches: number; values: string[]; failed?: unknown } = { batches: 0, values: [] };
  const consumer = kafka.groupConsumer({
    groupId: uniqueName('fetch-wait'),
    topics: [topic],
    sessionTimeoutMs: 10_000,
    heartbeatIntervalMs: 1_000,
    maxWaitMs: 100,
    ...(minBytes !== undefined && { minBytes }),
  });
  members.push(consumer);
  consumer
    .start(async ({ messages }, scope) => {
      seen.batches++;
      seen.values.push(...messages.map((m) => String(m.value)));
      const last = messages[messages.length - 1];
      if (last !== undefined) scope.resolve(last.offset);
    })
    .catch((err: unknown) => (seen.failed = err));
  return seen;
}

describe('a fetch that waits for bytes', () => {
  it('should hand records that trickle in over in batches of many, up to maxWaitMs apart, and lose none', async () => {
    const topic = uniqueName('fetch-wait');
    await createTopics(kafka, [{ topic, partitions: 1 }]);
    const waiting = member(topic, 64 * 1024);
    const eager = member(topic, undefined);
    const producer = kafka.idempotentProducer({ retries: 10 });
    await producer.connect();
    try {
      // Both members fetch before the trickle starts.
      await producer.send(topic, [{ value: 'ready' }]);
      await waitFor('the ready record at both members', () => waiting.values.includes('ready') && eager.values.includes('ready'), 30_000, 20);
      const before = { waiting: waiting.batches, eager: eager.batches };
      // 100 records of 100 bytes, one every 10 ms or more: 10 KiB, never the 64 KiB waited for.
      const sent = Array.from({ length: 100 }, (_, i) => `r${String(i).padStart(3, '0')}-${'x'.repeat(95)}`);
      const started = Date.now();
      for (const value of sent) {
        await producer.send(topic, [{ value }]);
        await new Promise((r) => setTimeout(r, 10));
      }
      const trickleMs = Date.now() - started;
      await waitFor('the last record at both members', () => waiting.values.length >= 101 && eager.values.length >= 101, 30_000, 20);
      expect([waiting.failed, eager.failed]).toEqual([undefined, undefined]);
      expect(waiting.values.slice(1)).toEqual(sent);
      expect(eager.values.slice(1)).toEqual(sent);
      const waitingBatches = waiting.batches - before.waiting;
      const eagerBatches = eager.batches - before.eager;
      // A batch at most every 100 ms while the records trickled in (about 14 over 1.4 s on a quiet machine),
      // and the last one after them.
      expect(waitingBatches).toBeLessThanOrEqual(Math.ceil(trickleMs / 100) + 3);
      expect(eagerBatches).toBeGreaterThan(1.5 * waitingBatches);
    } finally {
      await producer.close();
    }
  });
});
