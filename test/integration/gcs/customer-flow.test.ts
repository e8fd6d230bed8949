// The customer's path on the real broker and fake-gcs-server (behind the gate taking only the contract
// token receiver's tokens): a gcs destination created through the API (checked with its own key), refused
// with a reason for a key the token endpoint does not take and for a bucket that does not exist, traffic
// sent, and the objects read back with @google-cloud/storage.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTopics, testBrokers, testClient, uniqueName } from '../../support/kafka.js';
import { serviceEnv, startService, type ServiceProcess } from '../../support/service-process.js';
import { FakeGcs } from '../../support/fake-gcs.js';
import { BearerGate, GoogleTokenReceiver, serviceAccountKey, type TestServiceAccount } from '../../support/google-token-receiver.js';
import { TCP, call, sendTcp, waitFor, type Json } from '../object-store/service-flow.js';

const TOKEN = `eek_gcs${Date.now().toString(36)}operatorToken00000000`;
const prefix = uniqueName('gcsflow');
const RECORDS = 60;
let service: ServiceProcess;
let gcs: FakeGcs;
let tokens: GoogleTokenReceiver;
let gate: BearerGate;
let account: TestServiceAccount;

beforeAll(async () => {
  gcs = await FakeGcs.start();
  tokens = new GoogleTokenReceiver();
  await tokens.start();
  gate = new BearerGate(tokens, gcs.url);
  await gate.start();
  account = tokens.addAccount('flow@edge-events-test.iam.gserviceaccount.com');
  await createTopics(testClient('gcs-flow'), [{ topic: `${prefix}.tcp`, partitions: 2 }]);
  service = await startService(serviceEnv(prefix, testBrokers(), { API_BOOTSTRAP_TOKEN: TOKEN, GCS_API_URL: gate.url, GCS_TOKEN_URL: tokens.url }));
}, 180_000);

afterAll(async () => {
  await service?.stop('SIGKILL');
  await gate?.stop();
  await tokens?.stop();
  await gcs?.stop();
});

async function create(body: unknown): Promise<{ status: number; json: Json }> {
  const r = await fetch(`${service.url}/event_destinations`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: r.status, json: await r.json() };
}

it('a customer should create a gcs destination through the API, send traffic, and read the objects back', async () => {
  await gcs.createBucket('flow');
  const created: Json = await call(service, TOKEN, 'POST', '/event_destinations', { target: { gcs: { bucket: 'flow', service_account_key: account.keyJson, prefix: 'edge/{event_type}/{date}/' } } });
  expect(created.target.gcs).toMatchObject({ bucket: 'flow', service_account_key: null, prefix: 'edge/{event_type}/{date}/', output_type: null });
  expect(JSON.stringify(created)).not.toContain('PRIVATE KEY');
  await call(service, TOKEN, 'POST', '/event_subscriptions', { sources: [{ type: TCP, fields: ['conn.bytes_in', 'conn.server_port'], filter: 'ev.conn.server_port == 443' }], destination_ids: [created.id] });
  const seqs = await sendTcp(`${prefix}.tcp`, 1, RECORDS);
  const got = await gcs.eventsAtLeast('flow', RECORDS, 60_000);
  expect([...new Set(got.map((e) => (e.object as Json).conn.bytes_in as number))].sort((a, b) => a - b)).toEqual(seqs);
  const names = (await gcs.objects('flow')).map((o) => o.name);
  expect(names.filter((n) => n.includes('/_edge-events-check-'))).toHaveLength(1);
  for (const n of names.filter((x) => !x.includes('_edge-events-check-'))) expect(n).toMatch(new RegExp(`^edge/${TCP.replace('.', '\\.')}/\\d{4}-\\d{2}-\\d{2}/\\d{8}T\\d{9}Z-[0-9a-f]{16}\\.ndjson\\.gz$`));
  // Every exchange the service made was a verified JWT of the destination's account.
  expect(tokens.exchanges.filter((e) => !e.granted)).toEqual([]);
  await waitFor('the destination reported ok', async () => (await call(service, TOKEN, 'GET', `/event_destinations/${created.id}`)).status?.state === 'ok', 30_000);
}, 180_000);

it('should refuse a key the token endpoint does not take and a bucket that does not exist at create, each with its reason', async () => {
  await gcs.createBucket('refusals');
  const stranger = serviceAccountKey('stranger@edge-events-test.iam.gserviceaccount.com').account;
  const badKey = await create({ target: { gcs: { bucket: 'refusals', service_account_key: stranger.keyJson } } });
  expect(badKey.status).toBe(422);
  expect(badKey.json).toMatchObject({ error_code: 'destination_check_failed', details: { field: 'target.gcs.service_account_key', error: 'invalid_grant', reason: 'Invalid JWT Signature.' } });
  const missing = await create({ target: { gcs: { bucket: 'no-such-bucket', service_account_key: account.keyJson } } });
  expect(missing.status).toBe(422);
  expect(missing.json).toMatchObject({ error_code: 'destination_check_failed', details: { field: 'target.gcs.bucket' } });
  expect(await gcs.objects('refusals')).toEqual([]);
});
