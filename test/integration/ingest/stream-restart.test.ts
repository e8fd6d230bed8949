// A restart of the consumer's stream without a group join, on the real broker: the ingest worker reads the
// partition again from its committed offset while the first record's delivery is still unsettled, and
// starts the partition's bookkeeping afresh instead of refusing the offsets it saw before (issue 22,
// finding 2: `RangeError: Offset … is not after …`, and the consumer restarted again and again).
import { afterEach, expect, it } from 'vitest';
import { Signal } from '../../../src/delivery/clock.js';
import { DELIVERED } from '../../../src/delivery/contract.js';
import type { DestinationPool } from '../../../src/delivery/destination-pool.js';
import { InFlightBudget } from '../../../src/delivery/in-flight-budget.js';
import { OffsetTracker } from '../../../src/delivery/offset-tracker.js';
import { IngestWorker } from '../../../src/ingest/ingest-worker.js';
import type { RecordRouter } from '../../../src/ingest/record-router.js';
import { withAdmin, type KafkaClient } from '../../../src/kafka/seam.js';
import { encodeRecord } from '../../../src/records/record-encoder.js';
import { SubscriptionSet } from '../../../src/subscriptions/subscription-set.js';
import { seededRecord } from '../../../src/traffic/seeded-records.js';
import { waitFor } from '../../chaos/harness/timing.js';
import { createTopics, produce, testClient, uniqueName } from '../../support/kafka.js';
import { FakeWriter, RecordingDeadLetterSink } from '../../unit/delivery/fakes.js';
import { HTTP, httpRouter, settlingRunner } from './ingest-harness.js';

const RECORDS = 20;

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

// The client reopens its stream after a failed batch without a join.
it('should start the partition afresh when its stream restarts at an unsettled record, and deliver and commit every record', async () => {
  const topic = uniqueName('stream-restart');
  const group = `${topic}-ingest`;
  const kafka = testClient('stream-restart-test');
  await createTopics(kafka, [{ topic, partitions: 1 }]);
  await produce(
    kafka,
    topic,
    Array.from({ length: RECORDS }, (_, i) => {
      const { value, headers } = encodeRecord(HTTP, seededRecord(HTTP, i), 'json');
      return { value, headers: { ...headers } };
    }),
  );

  // The destination holds its first write until the test lets it go: record 0 stays unsettled meanwhile.
  let release = (): void => undefined;
  const released = new Promise<void>((r) => (release = r));
  const writer = new FakeWriter(undefined, [async () => (await released, DELIVERED)]);
  const tracker = new OffsetTracker();
  const settled = new Signal();
  const budget = new InFlightBudget();
  const deadLetter = new RecordingDeadLetterSink();
  const runner = settlingRunner('ed_held', writer, { tracker, settled, budget, deadLetter });
  runner.start();
  const pool = { get: (id: string) => (id === 'ed_held' ? runner : undefined), all: () => [runner].values(), stalled: () => undefined } as unknown as DestinationPool;

  const subscriptions = new SubscriptionSet();
  subscriptions.put({ id: 'esb_all', created_at: '2024-05-01T00:00:00Z', description: '', metadata: '', sources: [{ type: HTTP, fields: ['conn.client_ip'], filter: 'true' }], destination_ids: ['ed_held'] });
  const real = httpRouter(topic, subscriptions);
  // A batch handler that fails once, half-way through its first batch: the client restarts its stream.
  let routed = 0;
  const router = {
    route: (...args: Parameters<RecordRouter['route']>) => {
      if (++routed === RECORDS / 2) throw new Error('a handler error, once');
      return real.route(...args);
    },
    flushMetrics: () => real.flushMetrics(),
  } as unknown as RecordRouter;

  // The consumer's crashes, as the worker's listener hears them.
  const crashes: string[] = [];
  const client = testClient('stream-restart');
  const groupConsumer: KafkaClient['groupConsumer'] = (options, listener) =>
    client.groupConsumer(options, {
      ...listener,
      onCrash: (err, restarting) => {
        crashes.push(err instanceof Error ? err.message : String(err));
        listener?.onCrash?.(err, restarting);
      },
    });
  const listening = new Proxy(client, {
    get: (target, name) => {
      if (name === 'groupConsumer') return groupConsumer;
      const value: unknown = Reflect.get(target, name);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  const worker = new IngestWorker({ kafka: listening, groupId: group, topics: [topic], router, pool, deadLetter, budget, tracker, settled, drainTimeoutMs: 2_000, stalledRecordAfterMs: 300_000, sessionTimeoutMs: 6_000 });
  cleanup = async () => {
    release();
    await worker.stop();
    await runner.close(1_000);
  };
  await worker.start();

  await waitFor('the handler error', () => crashes.length > 0, 60_000, 100);
  // The stream is reopened at once; give the worker time to read the partition again while record 0 is held.
  await new Promise((r) => setTimeout(r, 3_000));
  release();

  const committed = async (): Promise<number> => withAdmin(client, async (admin) => (await admin.committedOffsets(group, topic)).get(0) ?? -1);
  await waitFor('the partition committed to its end', async () => (await committed()) === RECORDS, 30_000, 100).catch(() => undefined);
  expect(crashes).toEqual(['a handler error, once']);
  expect(await committed()).toBe(RECORDS);
  const offsets = new Set(writer.written.map((i) => i.source?.offset));
  expect([...offsets].sort((a, b) => (a as number) - (b as number))).toEqual(Array.from({ length: RECORDS }, (_, i) => i));
  expect(deadLetter.letters).toEqual([]);
});
