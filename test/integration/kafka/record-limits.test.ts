// The record size bound against the real broker: chunks cut to a topic's max.message.bytes are all
// accepted, so the bound never undercounts what the broker checks.
import { describe, expect, it } from 'vitest';
import { splitToBatchLimit, topicMaxMessageBytes } from '../../../src/kafka/record-limits.js';
import { withAdmin } from '../../../src/kafka/seam.js';
import { createTopics, testClient, uniqueName } from '../../support/kafka.js';

describe('record limits on the broker', () => {
  it("should cut sends the broker accepts under a topic's max.message.bytes, read from the topic's config", async () => {
    const kafka = testClient();
    const topic = uniqueName('limits');
    await createTopics(kafka, [{ topic, partitions: 1, config: { 'max.message.bytes': '20000' } }]);
    const limit = await withAdmin(testClient(), (admin) => topicMaxMessageBytes(admin, topic));
    expect(limit).toBe(20_000);
    // Sizes from tiny to near the limit, with headers like the parking ones.
    const messages = Array.from({ length: 60 }, (_, i) => ({
      key: `ev_${i}`,
      value: Buffer.alloc((i * 7919) % 6000, 'x'),
      headers: { 'x-destination-id': 'ed_01JD000000000000000000000A', 'x-error-message': 'e'.repeat(i * 10) },
    }));
    const { chunks, oversize } = splitToBatchLimit(messages, limit);
    expect(oversize).toEqual([]);
    expect(chunks.length).toBeGreaterThan(5);
    const producer = kafka.idempotentProducer({ retries: 10 });
    await producer.connect();
    try {
      for (const chunk of chunks) await producer.send(topic, chunk);
    } finally {
      await producer.close();
    }
    const [end] = await withAdmin(testClient(), (admin) => admin.partitionOffsets(topic));
    expect(end?.high).toBe(messages.length);
  });
});
