// A partition's next batch is routed before the deliveries of the one before have settled, on the real
// broker: while one destination holds a record's write, the records read after it still reach the other
// destination, and the partition's commit stays behind the held record until its write is answered (at
// least once); dead letters not yet written count against the in-flight budget, so a slow dead-letter
// topic stops the routing instead of letting letters pile up in memory.
import { afterEach, expect, it } from 'vitest';
import { Signal } from '../../../src/delivery/clock.js';
import { DELIVERED } from '../../../src/delivery/contract.js';
import type { DeadLetter, DeadLetterSink } from '../../../src/delivery/dead-letter.js';
import type { DestinationPool } from '../../../src/delivery/destination-pool.js';
import type { DestinationRunner } from '../../../src/delivery/destination-runner.js';
import { InFlightBudget } from '../../../src/delivery/in-flight-budget.js';
import { OffsetTracker } from '../../../src/delivery/offset-tracker.js';
import { IngestWorker } from '../../../src/ingest/ingest-worker.js';
import { withAdmin } from '../../../src/kafka/seam.js';
import { encodeRecord } from '../../../src/records/record-encoder.js';
import { SubscriptionSet } from '../../../src/subscriptions/subscription-set.js';
import { seededRecord } from '../../../src/traffic/seeded-records.js';
import { waitFor } from '../../chaos/harness/timing.js';
import { createTopics, produce, testClient, uniqueName } from '../../support/kafka.js';
import { FakeWriter, RecordingDeadLetterSink } from '../../unit/delivery/fakes.js';
import { HTTP, httpRouter, settlingRunner, type Settling } from './ingest-harness.js';

const LATER = 9;

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

const records = (from: number, count: number): Array<{ value: Buffer; headers: Record<string, string> }> =>
  Array.from({ length: count }, (_, i) => {
    const { value, headers } = encodeRecord(HTTP, seededRecord(HTTP, from + i), 'json');
    return { value, headers: { ...headers } };
  });

interface Started {
  readonly topic: string;
  readonly committed: () => Promise<number>;
}

/** A worker on a fresh one-partition topic, its one subscription taking every http record to `runners`. */
async function startWorker(name: string, runners: Map<string, DestinationRunner>, { tracker, settled, budget, deadLetter }: Settling): Promise<Started> {
  const topic = uniqueName(name);
  const group = `${topic}-ingest`;
  await createTopics(testClient(`${name}-test`), [{ topic, partitions: 1 }]);
  for (const r of runners.values()) r.start();
  const pool = { get: (id: string) => runners.get(id), all: () => runners.values(), stalled: () => undefined } as unknown as DestinationPool;
  const subscriptions = new SubscriptionSet();
  subscriptions.put({ id: 'esb_all', created_at: '2024-05-01T00:00:00Z', description: '', metadata: '', sources: [{ type: HTTP, fields: ['conn.client_ip'], filter: 'true' }], destination_ids: [...runners.keys()] });
  const router = httpRouter(topic, subscriptions);
  const client = testClient(name);
  const worker = new IngestWorker({ kafka: client, groupId: group, topics: [topic], router, pool, deadLetter, budget, tracker, settled, drainTimeoutMs: 2_000, stalledRecordAfterMs: 300_000, sessionTimeoutMs: 6_000 });
  const previous = cleanup;
  cleanup = async () => {
    await previous?.();
    await worker.stop();
    for (const r of runners.values()) await r.close(1_000);
  };
  await worker.start();
  return { topic, committed: async () => withAdmin(client, async (admin) => (await admin.committedOffsets(group, topic)).get(0) ?? -1) };
}

it("should route a partition's later records while an earlier record's write is held, and commit nothing past the held record until it is answered", async () => {
  // ed_held holds its first write (record 0) until the test lets it go; ed_free writes at once.
  let release = (): void => undefined;
  const released = new Promise<void>((r) => (release = r));
  cleanup = async () => release();
  const held = new FakeWriter(undefined, [async () => (await released, DELIVERED)]);
  const free = new FakeWriter();
  const deadLetter = new RecordingDeadLetterSink();
  const settling: Settling = { tracker: new OffsetTracker(), settled: new Signal(), budget: new InFlightBudget(), deadLetter };
  const runners = new Map([
    ['ed_held', settlingRunner('ed_held', held, settling)],
    ['ed_free', settlingRunner('ed_free', free, settling)],
  ]);
  const { topic, committed } = await startWorker('partition-pipeline', runners, settling);
  const kafka = testClient('partition-pipeline-producer');

  const offsetsOf = (w: FakeWriter): number[] => [...new Set(w.written.map((i) => i.source?.offset as number))].sort((a, b) => a - b);
  await produce(kafka, topic, records(0, 1));
  await waitFor('record 0 held by ed_held', () => held.batches.length > 0, 60_000, 100);
  // Produced after record 0 was routed: these come in a later batch of the same partition.
  await produce(kafka, topic, records(1, LATER));
  await waitFor('the later records at ed_free', () => offsetsOf(free).length === 1 + LATER, 30_000, 100).catch(() => undefined);
  expect(offsetsOf(free)).toEqual(Array.from({ length: 1 + LATER }, (_, i) => i));

  // Commits are sent within tens of milliseconds; a second is room for one that should not be made.
  await new Promise((r) => setTimeout(r, 1_000));
  expect(await committed()).toBeLessThanOrEqual(0);

  release();
  await waitFor('the partition committed to its end', async () => (await committed()) === 1 + LATER, 30_000, 100).catch(() => undefined);
  expect(await committed()).toBe(1 + LATER);
  expect(offsetsOf(held)).toEqual(Array.from({ length: 1 + LATER }, (_, i) => i));
  expect(deadLetter.letters).toEqual([]);
});

it('should stop routing while dead letters not yet written fill the in-flight budget, and write and commit every one once the topic takes them', async () => {
  const BUDGET = 3;
  const MALFORMED = 20;
  // A dead-letter topic that takes nothing until the test lets it.
  let release = (): void => undefined;
  const released = new Promise<void>((r) => (release = r));
  cleanup = async () => release();
  const letters: DeadLetter[] = [];
  const deadLetter: DeadLetterSink = {
    send: async (l) => {
      letters.push(...l);
      await released;
    },
    close: async () => undefined,
  };
  const settling: Settling = { tracker: new OffsetTracker(), settled: new Signal(), budget: new InFlightBudget({ maxDeliveries: BUDGET, maxBytes: 1 << 20 }), deadLetter };
  const { topic, committed } = await startWorker('dead-letter-budget', new Map(), settling);
  const kafka = testClient('dead-letter-budget-producer');
  const malformed = (count: number): Array<{ value: Buffer; headers: Record<string, string> }> =>
    Array.from({ length: count }, (_, i) => ({ value: Buffer.from(`not json ${i}`), headers: { 'content-type': 'application/json' } }));

  await produce(kafka, topic, malformed(1));
  await waitFor('the first dead letter', () => letters.length > 0, 60_000, 100);
  await produce(kafka, topic, malformed(MALFORMED - 1));
  // Room for the worker to route every record, were nothing holding it.
  await new Promise((r) => setTimeout(r, 2_000));
  expect(letters.length).toBeLessThanOrEqual(BUDGET);

  release();
  await waitFor('the partition committed to its end', async () => (await committed()) === MALFORMED, 30_000, 100).catch(() => undefined);
  expect(await committed()).toBe(MALFORMED);
  expect(letters.map((l) => l.source?.offset)).toEqual(Array.from({ length: MALFORMED }, (_, i) => i));
  expect(letters.every((l) => l.errorCode === letters[0]?.errorCode)).toBe(true);
});
