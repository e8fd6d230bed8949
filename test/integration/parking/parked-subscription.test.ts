// A parked delivery keeps the subscription it was matched for: on the real broker and the AWS emulator, an
// object_store destination whose prefix is {subscription_id}/ goes down, its deliveries are parked, and once
// it is back the re-driven events are written under their own subscription's prefix, at once, whatever the
// destination's upload interval.
import { afterEach, expect, it } from 'vitest';
import { PARKING_HEADERS } from '../../../src/delivery/parking/parked-record.js';
import { AwsFaultProxy } from '../../support/aws-fault-proxy.js';
import { consumeUntil, testClient } from '../../support/kafka.js';
import { motoEndpoint } from '../cloud/cloud-fixtures.js';
import { testItems } from '../delivery/writer-contract.js';
import { TestBucket } from '../object-store/bucket.js';
import { parkingHarness, until, type ParkingHarness } from './parking-harness.js';

let harness: ParkingHarness | undefined;
let proxy: AwsFaultProxy | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  await proxy?.stop();
  proxy = undefined;
});

/** A harness with an object_store destination on the emulator behind a fault proxy that is already down. */
async function downObjectStore(bucketName: string, options: Record<string, unknown>) {
  const h = (harness = await parkingHarness());
  const bucket = await TestBucket.create(bucketName);
  const p = (proxy = new AwsFaultProxy(motoEndpoint()));
  await p.start();
  const id = h.putDestination({
    object_store: {
      auth: { creds: { cloud_access_key_id: 'AKIAEDGEEVENTSWRITER', cloud_secret_access_key_enc: h.secrets.seal('writer-secret') } },
      bucket: bucket.name,
      endpoint: p.endpoint,
      compression: 'none',
      ...options,
    },
  });
  await p.stop();
  return { h, bucket, p, id };
}

it('should re-drive a parked delivery with its subscription id, into an object under that subscription', async () => {
  const { h, bucket, p, id } = await downObjectStore('park-bysub', { prefix: '{subscription_id}/', max_upload_interval_seconds: 1 });

  const subscriptions = ['esb_PARKA', 'esb_PARKB'];
  const items = testItems(20).map((item, n) => ({ ...item, subscriptionId: subscriptions[n % 2] as string }));
  h.enqueue(id, items);
  await until(() => items.every((i) => h.settled.get(i.eventId) === 'parked'), 20_000, 'the events to be parked');
  const parked = await consumeUntil(testClient(), { topics: [h.store.topicFor(id)], until: (m) => m.length >= items.length });
  expect(new Map(parked.map((m) => [m.key, m.headers[PARKING_HEADERS.subscriptionId]]))).toEqual(new Map(items.map((i) => [i.eventId, i.subscriptionId])));

  await p.start();
  const wanted = (sub: string) => items.filter((i) => i.subscriptionId === sub).map((i) => i.eventId).sort();
  const under = async (sub: string) =>
    (await bucket.objects())
      .filter((o) => o.key.startsWith(`${sub}/`) && o.key.endsWith('.ndjson'))
      .flatMap((o) => o.text.split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { event_id: string }).event_id))
      .sort();
  await until(async () => (await under('esb_PARKA')).length >= 10 && (await under('esb_PARKB')).length >= 10, 30_000, 'the re-driven objects');
  for (const sub of subscriptions) expect([...new Set(await under(sub))]).toEqual(wanted(sub));
  // Nothing anywhere else (the create-time check does not run here: the pool builds the writer directly).
  expect((await bucket.objects()).filter((o) => !subscriptions.some((s) => o.key.startsWith(`${s}/`))).map((o) => o.key)).toEqual([]);
});

it('should re-drive parked deliveries at once, not after the destination\'s upload interval (objects cut by the interval on the main path)', async () => {
  // The longest interval: a re-drive that waited for it would take five minutes.
  const { h, bucket, p, id } = await downObjectStore('park-interval', { max_upload_interval_seconds: 300 });
  const items = testItems(20);
  h.enqueue(id, items);
  h.flush(id);
  await until(() => items.every((i) => h.settled.get(i.eventId) === 'parked'), 20_000, 'the events to be parked');

  await p.start();
  const started = Date.now();
  await until(async () => new Set((await bucket.events()).map((e) => e.event_id)).size >= items.length, 60_000, 'the re-driven events');
  expect(new Set((await bucket.events()).map((e) => e.event_id))).toEqual(new Set(items.map((i) => i.eventId)));
  process.stderr.write(`re-driven within ${Date.now() - started} ms of the store's return\n`);
});
