// The service's client reads committed records only, on the real broker: a producer that aborts more than
// one transaction (the config writer replaces its producer after a failure, and the producer id stays the
// same), and an aborted transaction larger than one fetch, leave nothing behind for a whole-topic reader.
import { afterEach, describe, expect, it } from 'vitest';
import { WholeTopicReader } from '../../../src/kafka/whole-topic-reader.js';
import { consumeUntil, createTopics, testClient, transactions, uniqueName } from '../../support/kafka.js';

const readers: WholeTopicReader[] = [];

afterEach(async () => {
  await Promise.allSettled(readers.splice(0).map((r) => r.stop()));
});

/** What a whole-topic reader on the service's client hands over, up to and including `last`. */
async function readWhole(topic: string, last: string): Promise<string[]> {
  const reader = new WholeTopicReader(testClient('read-committed-test'), { groupId: uniqueName('read-committed'), topic, maxWaitMs: 250 });
  readers.push(reader);
  const got: string[] = [];
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the reader did not reach ${last.slice(0, 20)}; it read ${got.map((v) => v.slice(0, 20)).join(', ')}`)), 30_000);
    reader
      .start((m) => {
        const value = m.value?.toString() ?? '';
        got.push(value);
        if (value === last) {
          clearTimeout(timer);
          resolve();
        }
      })
      .catch(reject);
  });
  return got;
}

describe("the service's Kafka client reading committed records", () => {
  it("should hand a whole-topic reader none of the records of a producer's aborted transactions, however many it aborted", async () => {
    const kafka = testClient('read-committed-test');
    const topic = uniqueName('read-committed');
    await createTopics(kafka, [{ topic, partitions: 1 }]);
    await transactions(kafka, topic, [
      { values: ['aborted-1a', 'aborted-1b'], end: 'abort' },
      { values: ['aborted-2'], end: 'abort' },
      { values: ['committed-1', 'committed-2'], end: 'commit' },
      { values: ['aborted-3'], end: 'abort' },
      { values: ['committed-3'], end: 'commit' },
    ]);

    expect(await readWhole(topic, 'committed-3')).toEqual(['committed-1', 'committed-2', 'committed-3']);
    // Every aborted record is in the log: a read-uncommitted reader sees them, so the filter above is real.
    const uncommitted = await consumeUntil(kafka, { topics: [topic], readUncommitted: true, until: (got) => got.some((m) => m.value === 'committed-3') });
    expect(uncommitted.map((m) => m.value)).toEqual(['aborted-1a', 'aborted-1b', 'aborted-2', 'committed-1', 'committed-2', 'aborted-3', 'committed-3']);
  });

  it('should hand a whole-topic reader none of the records of an aborted transaction larger than one fetch', async () => {
    const kafka = testClient('read-committed-test');
    const topic = uniqueName('read-committed-large');
    await createTopics(kafka, [{ topic, partitions: 1 }]);
    // 24 records of 100 kB: a fetch (1 MiB a partition) ends inside the transaction, before its abort marker.
    const big = Array.from({ length: 24 }, (_, i) => `aborted-${String(i).padStart(2, '0')}-${'x'.repeat(100_000)}`);
    await transactions(kafka, topic, [
      { values: big, end: 'abort' },
      { values: ['committed-after'], end: 'commit' },
    ]);

    const got = await readWhole(topic, 'committed-after');
    expect(got.map((v) => v.slice(0, 20))).toEqual(['committed-after']);
  });
});
