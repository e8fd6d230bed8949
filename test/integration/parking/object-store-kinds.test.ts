// An outage of an azure_blob and of a gcs destination, on the real broker and their emulators (Azurite,
// fake-gcs-server behind the token gate): every delivery is parked in the destination's retry topic, and
// once the store is back the re-driver writes them all, none lost.
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { AwsFaultProxy } from '../../support/aws-fault-proxy.js';
import { AZURITE_ACCOUNT, AZURITE_KEY, Azurite } from '../../support/azurite.js';
import { FakeGcs } from '../../support/fake-gcs.js';
import { BearerGate, GoogleTokenReceiver } from '../../support/google-token-receiver.js';
import { testItems } from '../delivery/writer-contract.js';
import { parkingHarness, until, type ParkingHarness } from './parking-harness.js';

let harness: ParkingHarness | undefined;
let azurite: Azurite;
let gcs: FakeGcs;
let tokens: GoogleTokenReceiver;

beforeAll(async () => {
  [azurite, gcs] = await Promise.all([Azurite.start(), FakeGcs.start()]);
  tokens = new GoogleTokenReceiver();
  await tokens.start();
});
afterAll(async () => {
  await tokens?.stop();
  await Promise.all([azurite?.stop(), gcs?.stop()]);
});
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

it('should park azure_blob deliveries while the storage account is unreachable, and re-drive every one once it is back', async () => {
  const h = (harness = await parkingHarness());
  await azurite.createContainer('parking');
  const proxy = new AwsFaultProxy(`http://127.0.0.1:${azurite.port}`);
  await proxy.start();
  const id = h.putDestination({
    azure_blob: { auth: { shared_key: { account_key_enc: h.secrets.seal(AZURITE_KEY) } }, account_url: `${proxy.endpoint}/${AZURITE_ACCOUNT}`, container: 'parking', max_upload_interval_seconds: 1 },
  });
  await proxy.stop();
  const items = testItems(30);
  h.enqueue(id, items);
  h.flush(id);
  await until(() => items.every((i) => h.settled.get(i.eventId) === 'parked'), 20_000, 'the events to be parked');
  expect(await azurite.events('parking')).toEqual([]);

  await proxy.start();
  await until(async () => new Set((await azurite.events('parking')).map((e) => e.event_id)).size >= items.length, 60_000, 'the re-driven blobs');
  expect(new Set((await azurite.events('parking')).map((e) => e.event_id))).toEqual(new Set(items.map((i) => i.eventId)));
  expect(h.deadLetter.letters).toEqual([]);
  await proxy.stop();
});

it('should park gcs deliveries while Cloud Storage is unreachable, and re-drive every one once it is back', async () => {
  const gate = new BearerGate(tokens, gcs.url);
  await gate.start();
  const h = (harness = await parkingHarness({ cloud: { gcsApiUrl: gate.url, gcsTokenUrl: tokens.url } }));
  await gcs.createBucket('parking');
  const account = tokens.addAccount('parking@edge-events-test.iam.gserviceaccount.com');
  const id = h.putDestination({ gcs: { bucket: 'parking', service_account_key_enc: h.secrets.seal(account.keyJson), max_upload_interval_seconds: 1 } });
  await gate.stop();
  const items = testItems(30);
  h.enqueue(id, items);
  h.flush(id);
  await until(() => items.every((i) => h.settled.get(i.eventId) === 'parked'), 20_000, 'the events to be parked');
  expect(await gcs.events('parking')).toEqual([]);

  await gate.start();
  await until(async () => new Set((await gcs.events('parking')).map((e) => e.event_id)).size >= items.length, 60_000, 'the re-driven objects');
  expect(new Set((await gcs.events('parking')).map((e) => e.event_id))).toEqual(new Set(items.map((i) => i.eventId)));
  expect(h.deadLetter.letters).toEqual([]);
  await gate.stop();
});
