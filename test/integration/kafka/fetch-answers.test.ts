// The consumer adapter's own parser of fetch answers (src/kafka/platformatic/fetch-response.ts) on the real
// broker: the Fetch version the client speaks to it is one the parser reads, and a group member hands over
// every record, byte for byte with its key, headers, offset and timestamp, as the client's own reader of
// the same topic does, over answers large enough to span many socket chunks.
import { Consumer, kGetApi, type API, type Callback } from '@platformatic/kafka';
import { afterAll, describe, expect, it } from 'vitest';
import { baseOptions } from '../../../src/kafka/platformatic/platformatic-adapter.js';
import { fastFetchApi } from '../../../src/kafka/platformatic/fetch-response.js';
import type { IncomingMessage, KafkaClient } from '../../../src/kafka/seam.js';
import { consumeUntil, createTopics, produce, testBrokers, testClient, uniqueName } from '../../support/kafka.js';

const kafka: KafkaClient = testClient('fetch-answers-test');
const PARTITIONS = 3;
const RECORDS = 3_000;

const bare = new Consumer({ ...baseOptions({ clientId: 'fetch-answers-test', brokers: testBrokers().split(',') }), groupId: uniqueName('fetch-version') });
afterAll(async () => {
  await bare.close(true).catch(() => undefined);
});

/** Reads every record of `topic` as a member of a group of its own, through the service's consumer. */
async function readAsMember(topic: string, count: number): Promise<(IncomingMessage & { partition: number })[]> {
  const member = kafka.groupConsumer({ groupId: uniqueName('fetch-answers'), topics: [topic], sessionTimeoutMs: 10_000, heartbeatIntervalMs: 1_000, maxWaitMs: 250 });
  const seen: (IncomingMessage & { partition: number })[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`read ${seen.length} of ${count} records within 60 s`)), 60_000);
      member
        .start(async ({ partition, messages }, scope) => {
          for (const m of messages) seen.push({ ...m, partition });
          const last = messages[messages.length - 1];
          if (last !== undefined) scope.resolve(last.offset);
          if (seen.length >= count) {
            clearTimeout(timer);
            resolve();
          }
        })
        .catch(reject);
    });
  } finally {
    await member.stop();
  }
  return seen;
}

describe('fetch answers read by the adapter', () => {
  it('should be read in the Fetch version the client speaks to the broker', async () => {
    await bare.metadata({ topics: [] });
    const api = await new Promise<API<unknown[], unknown>>((resolve, reject) => {
      const found: Callback<API<unknown[], unknown>> = (error, a) => (error === null && a !== undefined ? resolve(a) : reject(error ?? new Error('no Fetch API')));
      (bare as unknown as { [kGetApi]: (name: string, cb: Callback<API<unknown[], unknown>>) => void })[kGetApi]('Fetch', found);
    });
    expect(fastFetchApi(api)).not.toBe(api);
  });

  it('should hand over every record as the client reads it, over answers of many socket chunks', async () => {
    const topic = uniqueName('fetch-answers');
    await createTopics(kafka, [{ topic, partitions: PARTITIONS }]);
    const messages = Array.from({ length: RECORDS }, (_, i) => ({
      key: i % 7 === 0 ? null : Buffer.from(`key-${i}`),
      value: i % 11 === 0 ? null : Buffer.from(`${i}:${'é-x'.repeat(200 + (i % 300))}`),
      partition: i % PARTITIONS,
      headers: i % 3 === 0 ? undefined : { 'content-type': 'application/json', [`h-${i % 5}`]: `v${i}` },
    }));
    // In requests under the broker's 1 MiB a batch.
    for (let i = 0; i < RECORDS; i += 300) await produce(kafka, topic, messages.slice(i, i + 300));

    const own = await readAsMember(topic, RECORDS);
    const client = await consumeUntil(kafka, { topics: [topic], until: (got) => got.length >= RECORDS, timeoutMs: 60_000 });
    const asText = (partition: number, offset: string, key: Buffer | string | null, value: Buffer | null, timestamp: number | string, headers: Record<string, string>) =>
      JSON.stringify([partition, offset, key === null ? null : key.toString(), value?.toString('base64') ?? null, String(timestamp), headers]);
    const ownHeaders = (m: IncomingMessage): Record<string, string> => Object.fromEntries(Object.entries(m.headers ?? {}).map(([k, v]) => [k, String(v)]));
    const ours = own.map((m) => asText(m.partition, m.offset, m.key, m.value, m.timestamp, ownHeaders(m))).sort();
    const theirs = client.map((m) => asText(m.partition, m.offset, m.key, m.bytes, m.timestampMs, m.headers)).sort();
    expect(ours).toHaveLength(RECORDS);
    expect(new Set(ours).size).toBe(RECORDS);
    expect(ours).toEqual(theirs);
  });
});
