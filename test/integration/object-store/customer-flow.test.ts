// The customer's path, end to end on the real broker and the AWS emulator: object_store destinations
// created through the API (checked with their own credentials), traffic sent, and the gzip NDJSON and CSV
// objects read back with a standard S3 client.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTopics, testBrokers, testClient, uniqueName } from '../../support/kafka.js';
import { serviceEnv, startService, type ServiceProcess } from '../../support/service-process.js';
import { TestBucket } from './bucket.js';
import { TCP, call, sendTcp, waitFor, type Json } from './service-flow.js';

const TOKEN = `eek_obj${Date.now().toString(36)}operatorToken0000000`;
const prefix = uniqueName('objflow');
const RECORDS = 60;
let service: ServiceProcess;

beforeAll(async () => {
  await createTopics(testClient('object-store-flow'), [{ topic: `${prefix}.tcp`, partitions: 2 }]);
  service = await startService(serviceEnv(prefix, testBrokers(), { API_BOOTSTRAP_TOKEN: TOKEN }));
}, 180_000);

afterAll(async () => {
  await service?.stop('SIGKILL');
});

it('a customer should create object_store destinations through the API, send traffic, and read gzip NDJSON and CSV objects back', async () => {
  const ndjsonBucket = await TestBucket.create('flow-ndjson');
  const csvBucket = await TestBucket.create('flow-csv');
  const created: Json = await call(service, TOKEN, 'POST', '/event_destinations', { target: { object_store: ndjsonBucket.target({ prefix: 'edge/{event_type}/{date}/' }) } });
  expect(created.target.object_store).toMatchObject({
    bucket: ndjsonBucket.name,
    prefix: 'edge/{event_type}/{date}/',
    // Unset options are null: their defaults apply (ndjson, gzip, 8 MiB, 10,000 records, 30 s).
    output_type: null,
    compression: null,
    max_upload_bytes: null,
    max_upload_records: null,
    max_upload_interval_seconds: null,
    auth: { creds: { cloud_access_key_id: 'AKIAEDGEEVENTSWRITER', cloud_secret_access_key: null } },
  });
  expect(JSON.stringify(created)).not.toContain('writer-secret');
  const csvDest: Json = await call(service, TOKEN, 'POST', '/event_destinations', { target: { object_store: csvBucket.target({ prefix: 'csv/', output_type: 'csv' }) } });
  await call(service, TOKEN, 'POST', '/event_subscriptions', {
    sources: [{ type: TCP, fields: ['conn.bytes_in', 'conn.server_port'], filter: 'ev.conn.server_port == 443' }],
    destination_ids: [created.id, csvDest.id],
  });
  const seqs = await sendTcp(`${prefix}.tcp`, 1, RECORDS);

  const got = await ndjsonBucket.eventsAtLeast(RECORDS, 60_000);
  expect([...new Set(got.map((e) => (e.object as Json).conn.bytes_in as number))].sort((a, b) => a - b)).toEqual(seqs);
  for (const e of got) expect(e).toMatchObject({ event_type: TCP, object: { conn: { server_port: 443 } } });
  const keys = (await ndjsonBucket.objects()).map((o) => o.key);
  for (const k of keys.filter((key) => !key.includes('_edge-events-check-'))) expect(k).toMatch(new RegExp(`^edge/${TCP.replace('.', '\\.')}/\\d{4}-\\d{2}-\\d{2}/\\d{8}T\\d{9}Z-[0-9a-f]{16}\\.ndjson\\.gz$`));

  // CSV: a header line per object, then one line per event.
  const rows = async () => {
    const objects = (await csvBucket.objects()).filter((o) => o.key.endsWith('.csv.gz'));
    return objects.map((o) => o.text.split('\r\n').filter(Boolean));
  };
  await waitFor('every CSV row', async () => (await rows()).reduce((n, lines) => n + lines.length - 1, 0) >= RECORDS);
  const tables = await rows();
  for (const lines of tables) expect(lines[0]).toBe('event_id,event_type,event_timestamp,principal,object.conn.bytes_in,object.conn.server_port');
  const bytesIn = tables.flatMap((lines) => lines.slice(1).map((l) => Number(l.split(',')[4])));
  expect([...new Set(bytesIn)].sort((a, b) => a - b)).toEqual(seqs);

  // Its status, as the other kinds have it.
  await waitFor('the destination reported ok', async () => (await call(service, TOKEN, 'GET', `/event_destinations/${created.id}`)).status?.state === 'ok', 30_000);
}, 180_000);

it("two subscriptions to one destination whose prefix is {subscription_id}/ should each find their events under their own id", async () => {
  const bucket = await TestBucket.create('flow-bysub');
  const dest: Json = await call(service, TOKEN, 'POST', '/event_destinations', { target: { object_store: bucket.target({ prefix: '{subscription_id}/' }) } });
  const subscribe = async (fields: string[]): Promise<string> =>
    (await call(service, TOKEN, 'POST', '/event_subscriptions', { sources: [{ type: TCP, fields }], destination_ids: [dest.id] })).id;
  const subA = await subscribe(['conn.bytes_in']);
  const subB = await subscribe(['conn.bytes_in', 'conn.server_port']);
  const seqs = await sendTcp(`${prefix}.tcp`, 1001, 40);

  const read = async () => {
    const objects = (await bucket.objects()).filter((o) => o.key.endsWith('.ndjson.gz'));
    const under = (sub: string) => objects.filter((o) => o.key.startsWith(`${sub}/`)).flatMap((o) => o.text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Json));
    return { objects, ofA: under(subA), ofB: under(subB) };
  };
  // Records numbered from 1001: the test above's traffic, which may be stamped within the clock skew
  // allowance of these subscriptions' start, is left out of the count (it would be under the same prefixes).
  const numbers = (events: Json[]) => [...new Set(events.map((e) => e.object.conn.bytes_in as number).filter((n) => n > 1000))].sort((a, b) => a - b);
  await waitFor('both subscriptions\' events', async () => {
    const { ofA, ofB } = await read();
    return numbers(ofA).length >= seqs.length && numbers(ofB).length >= seqs.length;
  });
  const { objects, ofA, ofB } = await read();
  expect(objects.filter((o) => !o.key.startsWith(`${subA}/`) && !o.key.startsWith(`${subB}/`)).map((o) => o.key)).toEqual([]);
  expect(numbers(ofA)).toEqual(seqs);
  expect(numbers(ofB)).toEqual(seqs);
  // Each subscription's own field list tells its events apart.
  for (const e of ofA) expect(Object.keys(e.object.conn)).toEqual(['bytes_in']);
  for (const e of ofB) expect(Object.keys(e.object.conn).sort()).toEqual(['bytes_in', 'server_port']);
}, 180_000);

it('should refuse a destination whose bucket does not exist, with the store\'s error, within the request', async () => {
  const bucket = await TestBucket.create('flow-missing');
  const r = await fetch(`${service.url}/event_destinations`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ target: { object_store: bucket.target({ bucket: `${bucket.name}-nope` }) } }),
  });
  const body = (await r.json()) as Json;
  expect(r.status).toBe(422);
  expect(body).toMatchObject({ error_code: 'destination_check_failed', details: { field: 'target.object_store.bucket' } });
});
