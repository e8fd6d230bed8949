// The customer's path on the real broker and Azurite: azure_blob destinations created through the API
// (checked with their own key), refused with a reason for a missing container or a wrong key, traffic
// sent, a test event, and the blobs read back with the Azure SDK's client.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTopics, testBrokers, testClient, uniqueName } from '../../support/kafka.js';
import { serviceEnv, startService, type ServiceProcess } from '../../support/service-process.js';
import { AZURITE_KEY, Azurite } from '../../support/azurite.js';
import { TCP, call, sendTcp, waitFor, type Json } from '../object-store/service-flow.js';

const TOKEN = `eek_azb${Date.now().toString(36)}operatorToken0000000`;
const prefix = uniqueName('azflow');
const RECORDS = 60;
let service: ServiceProcess;
let azurite: Azurite;

beforeAll(async () => {
  azurite = await Azurite.start();
  await createTopics(testClient('azure-blob-flow'), [{ topic: `${prefix}.tcp`, partitions: 2 }]);
  service = await startService(serviceEnv(prefix, testBrokers(), { API_BOOTSTRAP_TOKEN: TOKEN }));
}, 180_000);

afterAll(async () => {
  await service?.stop('SIGKILL');
  await azurite?.stop();
});

const target = (container: string, extra: Record<string, unknown> = {}) => ({ azure_blob: { auth: { shared_key: { account_key: AZURITE_KEY } }, account_url: azurite.accountUrl, container, ...extra } });

async function create(body: unknown): Promise<{ status: number; json: Json }> {
  const r = await fetch(`${service.url}/event_destinations`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: r.status, json: await r.json() };
}

it('a customer should create an azure_blob destination through the API, send traffic and a test event, and read the blobs back', async () => {
  await azurite.createContainer('flow');
  const created: Json = await call(service, TOKEN, 'POST', '/event_destinations', { target: target('flow', { prefix: 'edge/{event_type}/{date}/' }) });
  expect(created.target.azure_blob).toMatchObject({ container: 'flow', account_url: azurite.accountUrl, auth: { shared_key: { account_key: null } }, output_type: null, compression: null });
  expect(JSON.stringify(created)).not.toContain(AZURITE_KEY);
  await call(service, TOKEN, 'POST', '/event_subscriptions', { sources: [{ type: TCP, fields: ['conn.bytes_in', 'conn.server_port'], filter: 'ev.conn.server_port == 443' }], destination_ids: [created.id] });
  const seqs = await sendTcp(`${prefix}.tcp`, 1, RECORDS);
  const got = await azurite.eventsAtLeast('flow', RECORDS, 60_000);
  expect([...new Set(got.map((e) => (e.object as Json).conn.bytes_in as number))].sort((a, b) => a - b)).toEqual(seqs);
  const names = (await azurite.blobs('flow')).map((b) => b.name);
  // The create-time check's blob, named for query engines to skip, and the events' blobs under the prefix.
  expect(names.filter((n) => n.includes('/_edge-events-check-'))).toHaveLength(1);
  for (const n of names.filter((x) => !x.includes('_edge-events-check-'))) expect(n).toMatch(new RegExp(`^edge/${TCP.replace('.', '\\.')}/\\d{4}-\\d{2}-\\d{2}/\\d{8}T\\d{9}Z-[0-9a-f]{16}\\.ndjson\\.gz$`));

  const test: Json = await call(service, TOKEN, 'POST', `/event_destinations/${created.id}/test_event`, {});
  expect(test).toMatchObject({ delivered: true });
  await waitFor('the test event', async () => (await azurite.blobs('flow')).some((b) => b.name.startsWith('edge/test_event.v0/')));
  await waitFor('the destination reported ok', async () => (await call(service, TOKEN, 'GET', `/event_destinations/${created.id}`)).status?.state === 'ok', 30_000);
}, 180_000);

it("should refuse a container that does not exist and a wrong key at create, each with the service's reason", async () => {
  const missing = await create({ target: target('no-such-container') });
  expect(missing.status).toBe(422);
  expect(missing.json).toMatchObject({ error_code: 'destination_check_failed', details: { field: 'target.azure_blob.container', error: 'ContainerNotFound' } });
  expect(missing.json.details.reason).toMatch(/container does not exist/);
  await azurite.createContainer('wrongkey');
  const wrong = await create({ target: target('wrongkey', { auth: { shared_key: { account_key: Buffer.alloc(64, 9).toString('base64') } } }) });
  expect(wrong.status).toBe(422);
  expect(wrong.json).toMatchObject({ error_code: 'destination_check_failed', details: { field: 'target.azure_blob.auth.shared_key.account_key', error: 'AuthorizationFailure' } });
  expect(await azurite.blobs('wrongkey')).toEqual([]);
});
