// Parking and re-driving against the real broker and the AWS emulator: a destination past its retry
// budget is parked in its retry topic, the main path settles, and the re-driver delivers every parked
// event once the destination is healthy again, committing the retry topic only behind them.
import { afterEach, describe, expect, it } from 'vitest';
import type { StoredTarget } from '../../../src/configlog/resources.js';
import { DeliveryError } from '../../../src/delivery/errors.js';
import { PARKING_HEADERS } from '../../../src/delivery/parking/parked-record.js';
import { parkedDeliveries, redrivenDeliveries } from '../../../src/telemetry/metrics.js';
import { AwsFaultProxy } from '../../support/aws-fault-proxy.js';
import { consumeUntil, createTopics, groupIds, testClient, withAdmin } from '../../support/kafka.js';
import { DeleteStreamCommand, KinesisClient } from '@aws-sdk/client-kinesis';
import { createDataStream, motoEndpoint, readAtLeast } from '../cloud/cloud-fixtures.js';
import { motoClientConfig } from '../../support/moto.js';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { HttpReceiver } from '../delivery/http-receiver.js';
import { testItems } from '../delivery/writer-contract.js';
import { parkingHarness, until, type ParkingHarness } from './parking-harness.js';

let harness: ParkingHarness | undefined;
const proxies: AwsFaultProxy[] = [];
const receivers: HttpReceiver[] = [];
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  await Promise.all(proxies.splice(0).map((p) => p.stop()));
  await Promise.all(receivers.splice(0).map((r) => r.stop()));
});

async function receiver(): Promise<HttpReceiver> {
  const r = new HttpReceiver();
  await r.start();
  receivers.push(r);
  return r;
}

async function proxy(): Promise<AwsFaultProxy> {
  const p = new AwsFaultProxy(motoEndpoint());
  await p.start();
  proxies.push(p);
  return p;
}

async function counter(metric: typeof parkedDeliveries | typeof redrivenDeliveries, labels: Record<string, string>): Promise<number> {
  const got = await metric.get();
  return got.values.filter((v) => Object.entries(labels).every(([k, l]) => (v.labels as Record<string, unknown>)[k] === l)).reduce((n, v) => n + v.value, 0);
}

async function committedOffset(groupId: string, topic: string): Promise<number> {
  return withAdmin(testClient(), async (admin) => {
    return (await admin.committedOffsets(groupId, topic)).get(0) ?? -1;
  });
}

/** A harness whose data stream destination sits behind a stopped proxy, with `count` events of it parked. */
async function parkedBehindDownProxy(streamPrefix: string, count: number, what = 'the events to be parked') {
  const h = (harness = await parkingHarness());
  const stream = await createDataStream(streamPrefix);
  const p = await proxy();
  const id = h.addDestination(stream.arn, p);
  await p.stop();
  const items = testItems(count);
  h.enqueue(id, items);
  await until(() => items.every((i) => h.settled.get(i.eventId) === 'parked'), 20_000, what);
  return { h, stream, p, id, items };
}

describe('parking', () => {
  it('should park a down destination past its budget, settle the main path, and re-drive every event once it recovers', async () => {
    const { h, stream, p, id, items: first } = await parkedBehindDownProxy('park', 50, 'the first events to be parked');
    expect(await counter(parkedDeliveries, { destination: id })).toBe(50);

    // Parked records carry the envelope, the destination, the error and where the event came from.
    const topic = h.store.topicFor(id);
    const parked = await consumeUntil(testClient(), { topics: [topic], until: (m) => m.length >= 50 });
    const one = parked.find((m) => m.key === first[0]!.eventId)!;
    expect(one.value).toBe(first[0]!.payload.toString());
    expect(one.headers).toMatchObject({
      [PARKING_HEADERS.destinationId]: id,
      [PARKING_HEADERS.errorCode]: 'DESTINATION_UNREACHABLE',
      [PARKING_HEADERS.parkCount]: '1',
      [PARKING_HEADERS.sourceTopic]: first[0]!.source!.topic,
      [PARKING_HEADERS.sourceOffset]: String(first[0]!.source!.offset),
    });

    // While parked, new deliveries go to parking at once: no write waits for the dead endpoint.
    const second = testItems(50);
    const started = Date.now();
    h.enqueue(id, second);
    await until(() => second.every((i) => h.settled.get(i.eventId) === 'parked'), 20_000, 'the second events to be parked');
    const parkMs = Date.now() - started;
    expect(parkMs).toBeLessThan(2_000);
    await new Promise((r) => setTimeout(r, 1_100));
    expect(h.parking.oldestParkedAgeSeconds(id)).toBeGreaterThanOrEqual(1);

    await p.start();
    const all = [...first, ...second];
    const got = await readAtLeast(stream, all.length, 30_000);
    const ids = new Set(got.map((g) => g.envelope.event_id));
    expect(all.filter((i) => !ids.has(i.eventId)).map((i) => i.eventId)).toEqual([]);
    await until(async () => (await committedOffset(`${h.groupPrefix}.redrive.${id}`, topic)) === 100, 20_000, 'the retry topic commit');
    expect(await counter(redrivenDeliveries, { destination: id, outcome: 'acked' })).toBe(100);
    await until(() => h.parking.oldestParkedAgeSeconds(id) === 0, 10_000, 'the oldest-parked age to return to 0');
  });

  it("should show the re-driver's failed health check as the last error while parked, when the reason changes", async () => {
    const { h, stream, p, id } = await parkedBehindDownProxy('park-reason', 5);
    expect(h.pool.get(id)?.health.status.lastError?.code).toBe('DESTINATION_UNREACHABLE');
    // The endpoint is back, but the stream is gone: the re-driver's health check now fails for that.
    await new KinesisClient({ ...motoClientConfig(motoEndpoint()), requestHandler: new NodeHttpHandler() }).send(new DeleteStreamCommand({ StreamName: stream.name, EnforceConsumerDeletion: true }));
    await p.start();
    await until(() => h.pool.get(id)?.health.status.lastError?.code !== 'DESTINATION_UNREACHABLE', 20_000, 'the last error to change');
    expect(h.pool.get(id)?.health.status).toMatchObject({ state: 'parked', lastError: { code: 'DESTINATION_NOT_FOUND' } });
  });

  it('should park again what fails on re-drive, keep its first parked-at time, and deliver it once writes work', async () => {
    const h = (harness = await parkingHarness());
    const stream = await createDataStream('repark');
    const p = await proxy();
    let failing = true;
    // Describe answers (the health check passes) while every put is refused.
    p.script = (call) => (failing && call.operation === 'PutRecords' ? { status: 500, error: 'InternalFailure' } : undefined);
    const id = h.addDestination(stream.arn, p);
    const items = testItems(20);
    h.enqueue(id, items);
    await until(() => items.every((i) => h.settled.get(i.eventId) === 'parked'), 20_000, 'the events to be parked');
    const topic = h.store.topicFor(id);
    const twice = await consumeUntil(testClient(), { topics: [topic], until: (m) => m.length >= 40, timeoutMs: 30_000 });
    const reparked = twice.filter((m) => m.headers[PARKING_HEADERS.parkCount] === '2');
    expect(new Set(reparked.map((m) => m.key))).toEqual(new Set(items.map((i) => i.eventId)));
    for (const m of reparked) {
      const firstPark = twice.find((f) => f.key === m.key && f.headers[PARKING_HEADERS.parkCount] === '1');
      expect(m.headers[PARKING_HEADERS.parkedAt]).toBe(firstPark?.headers[PARKING_HEADERS.parkedAt]);
      expect(m.headers[PARKING_HEADERS.sourceOffset]).toBe(firstPark?.headers[PARKING_HEADERS.sourceOffset]);
    }
    failing = false;
    const got = await readAtLeast(stream, items.length, 30_000);
    expect(new Set(got.map((g) => g.envelope.event_id))).toEqual(new Set(items.map((i) => i.eventId)));
  });

  it('should dead-letter the parked events of a deleted destination as DESTINATION_REMOVED, then delete its retry topic and re-drive group', async () => {
    const { h, stream, id, items } = await parkedBehindDownProxy('removed', 10);
    h.log.delete(id);
    await until(() => h.deadLetter.letters.length >= 10, 20_000, 'the dead letters');
    expect(h.deadLetter.letters.map((l) => [l.key, l.errorCode, l.destinationId, l.source?.offset])).toEqual(
      items.map((i) => [i.eventId, 'DESTINATION_REMOVED', id, i.source?.offset]),
    );
    expect((await stream.read()).length).toBe(0);

    // Retired: once the dead letters are committed, the retry topic and the re-drive group are deleted.
    const topic = h.store.topicFor(id);
    const group = `${h.groupPrefix}.redrive.${id}`;
    await until(async () => !(await withAdmin(testClient(), (a) => a.listTopics())).includes(topic), 20_000, 'the retry topic to be deleted');
    await until(
      async () => !(await groupIds(testClient())).includes(group),
      20_000,
      'the re-drive group to be deleted',
    );
    expect(h.deadLetter.letters).toHaveLength(10);
  });

  it('should re-drive deliveries another process parked, found by its scan of retry topics', async () => {
    const stream = await createDataStream('scan');
    const h = (harness = await parkingHarness());
    const id = h.addDestination(stream.arn);
    // Another worker parked these before this one knew of any parking.
    const items = testItems(30);
    const { KafkaParkingStore } = await import('../../../src/delivery/parking/parking-store.js');
    const { DeliveryError } = await import('../../../src/delivery/errors.js');
    const other = new KafkaParkingStore({ kafka: testClient('other-worker'), prefix: h.prefix });
    await other.park(id, items, new DeliveryError('DESTINATION_THROTTLED', 'throttled elsewhere'));
    await other.close();
    const got = await readAtLeast(stream, items.length, 30_000);
    expect(new Set(got.map((g) => g.envelope.event_id))).toEqual(new Set(items.map((i) => i.eventId)));
  });

  it('should leave re-driven deliveries uncommitted when it stops before they are delivered, and re-drive them after a restart', async () => {
    const r = await receiver();
    let holding = true;
    let seen = 0;
    // While holding, a request is answered 503 only after 15 s: the re-driven deliveries are in flight at the stop.
    r.script = () => {
      seen++;
      return holding ? { status: 503, delayMs: 15_000 } : undefined;
    };
    // A retry budget longer than the hold: the re-driven write is still unanswered at the stop (a shorter
    // budget would park it again first, which a test above covers).
    const first = (harness = await parkingHarness({ retry: { maxAttempts: 3, maxElapsedMs: 60_000 } }));
    const id = first.putDestination({ http: { url: r.url, timeout_ms: 60_000 } } as StoredTarget);
    const items = testItems(30);
    await first.store.park(id, items, new DeliveryError('DESTINATION_UNREACHABLE', 'the receiver was down'));
    await until(() => seen > 0, 20_000, 'the re-driven deliveries to reach the receiver');
    // The worker stops (its re-drivers first, then its destinations, as the service does).
    await first.close();
    const topic = first.store.topicFor(id);
    const group = `${first.groupPrefix}.redrive.${id}`;
    // Nothing was delivered, so nothing of the retry topic may be committed.
    expect(await committedOffset(group, topic)).toBe(-1);

    holding = false;
    const second = (harness = await parkingHarness({ sameTopicsAs: first }));
    second.putDestination({ http: { url: r.url, timeout_ms: 60_000 } } as StoredTarget, id);
    await until(() => items.every((i) => r.delivered().some((e) => e.event_id === i.eventId)), 30_000, 'every parked event at the receiver after the restart');
    await until(async () => (await committedOffset(group, topic)) === items.length, 20_000, 'the retry topic commit after the restart');
  });

  it("should split a parking batch to the retry topic's max.message.bytes and dead-letter an event over it", async () => {
    const h = (harness = await parkingHarness());
    const stream = await createDataStream('split');
    const p = await proxy();
    const id = h.addDestination(stream.arn, p);
    await p.stop();
    // A retry topic created beforehand with a small limit, as an operator might: 64 KiB per record batch.
    const topic = h.store.topicFor(id);
    await createTopics(testClient(), [{ topic, partitions: 1, config: { 'max.message.bytes': String(64 * 1024) } }]);
    const small = testItems(60, 2_000);
    const [big] = testItems(1, 100_000);
    const all = [...small, big!];
    h.enqueue(id, all);
    await until(() => all.every((i) => h.settled.has(i.eventId)), 30_000, 'every event to be parked or dead-lettered');
    expect(small.filter((i) => h.settled.get(i.eventId) !== 'parked').map((i) => i.eventId)).toEqual([]);
    expect(h.settled.get(big!.eventId)).toBe('dead_lettered');
    expect(h.deadLetter.letters.map((l) => [l.key, l.errorCode, l.destinationId])).toEqual([[big!.eventId, 'RECORD_TOO_LARGE', id]]);
    expect(h.deadLetter.letters[0]?.errorMessage).toMatch(/max\.message\.bytes/);
    const parked = await consumeUntil(testClient(), { topics: [topic], until: (m) => m.length >= small.length });
    expect(new Set(parked.map((m) => m.key))).toEqual(new Set(small.map((i) => i.eventId)));
  });
});
