// The customer's path for the datadog and azure_logs_ingestion kinds, end to end on the real broker and the
// real service: destinations created through the API (checked at create), traffic sent, and the events read
// back from VictoriaLogs (the real Datadog intake, through LogsQL) and from the Azure contract receiver;
// the mistakes a customer makes refused at create or shown in the status, in words they can act on; and
// a test event through each.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { request } from '../admin/admin-harness.js';
import { TCP, call, sendTcp, waitFor, type Json } from '../object-store/service-flow.js';
import { AzureContractReceiver } from '../../support/azure-contract-receiver.js';
import { createTopics, testBrokers, testClient, uniqueName } from '../../support/kafka.js';
import { serviceEnv, startService, type ServiceProcess } from '../../support/service-process.js';
import { VictoriaLogs } from '../../support/victoria-logs.js';

const TOKEN = `eek_ven${Date.now().toString(36)}operatorToken0000000`;
const prefix = uniqueName('vendorflow');
const RECORDS = 40;
const APP = { tenantId: '72f988bf-86f1-41af-91ab-2d7cd011db47', clientId: '00000000-1111-2222-3333-444444444444', clientSecret: 'Abc8Q~the-secret-value' };
const RULE = 'dcr-0123456789abcdef0123456789abcdef';
const STREAM = 'Custom-EdgeEvents';
const DD_KEY = '0123456789abcdef0123456789abcdef';
let service: ServiceProcess;
let vl: VictoriaLogs;
let azure: AzureContractReceiver;

beforeAll(async () => {
  vl = await VictoriaLogs.start();
  azure = new AzureContractReceiver([APP], [{ ruleId: RULE, streams: [STREAM], publishers: [APP.clientId] }]);
  await azure.start();
  await createTopics(testClient('vendor-flow'), [{ topic: `${prefix}.tcp`, partitions: 2 }]);
  service = await startService(
    serviceEnv(prefix, testBrokers(), {
      API_BOOTSTRAP_TOKEN: TOKEN,
      DATADOG_BASE_URL: vl.datadogBaseUrl,
      AZURE_AUTHORITY_URL: azure.authorityUrl,
      STATUS_REPORT_INTERVAL_MS: '1000',
    }),
  );
}, 180_000);

afterAll(async () => {
  await service?.stop('SIGKILL');
  await vl?.cleanup();
  await azure?.stop();
});

const azureTarget = (over: Record<string, unknown> = {}) => ({
  azure_logs_ingestion: {
    tenant_id: APP.tenantId,
    client_id: APP.clientId,
    client_secret: APP.clientSecret,
    logs_ingestion_uri: azure.ingestionUri,
    data_collection_rule_id: RULE,
    data_collection_stream_name: STREAM,
    ...over,
  },
});

it('a customer should create datadog and azure_logs_ingestion destinations through the API, send traffic, and find every event in VictoriaLogs and at the Azure receiver', async () => {
  const dd: Json = await call(service, TOKEN, 'POST', '/event_destinations', { target: { datadog: { api_key: DD_KEY, service: 'edge-flow', ddtags: 'env:flow' } } });
  expect(dd.target.datadog).toEqual({ api_key: null, ddsite: null, service: 'edge-flow', ddtags: 'env:flow' });
  const az: Json = await call(service, TOKEN, 'POST', '/event_destinations', { target: azureTarget() });
  expect(az.target.azure_logs_ingestion).toMatchObject({ client_secret: null, data_collection_stream_name: STREAM });
  expect(JSON.stringify([dd, az])).not.toContain(APP.clientSecret);
  await call(service, TOKEN, 'POST', '/event_subscriptions', {
    sources: [{ type: TCP, fields: ['conn.bytes_in', 'conn.server_port'], filter: 'ev.conn.server_port == 443' }],
    destination_ids: [dd.id, az.id],
  });
  const seqs = await sendTcp(`${prefix}.tcp`, 1, RECORDS);

  const rows = await vl.rowsAtLeast('service:edge-flow', RECORDS, 60_000);
  const events = rows.map((r) => JSON.parse(r._msg as string) as Json);
  expect([...new Set(events.map((e) => e.object.conn.bytes_in as number))].sort((a, b) => a - b)).toEqual(seqs);
  for (const [n, r] of rows.entries()) {
    expect(r).toMatchObject({ ddsource: 'edge-events', service: 'edge-flow', env: 'flow' });
    expect(Date.parse(r._time as string)).toBe(Date.parse(events[n].event_timestamp));
  }

  await waitFor('every row at the Azure receiver', async () => azure.rowsOf(RULE, STREAM).length >= RECORDS);
  const azureRows = azure.rowsOf(RULE, STREAM);
  expect([...new Set(azureRows.map((r) => (r.object as Json).conn.bytes_in as number))].sort((a, b) => a - b)).toEqual(seqs);
  for (const r of azureRows) expect(r.TimeGenerated).toBe(r.event_timestamp);

  for (const id of [dd.id, az.id]) await waitFor(`${id} reported ok`, async () => (await call(service, TOKEN, 'GET', `/event_destinations/${id}`)).status?.state === 'ok', 30_000);
  const test: Json = await call(service, TOKEN, 'POST', `/event_destinations/${az.id}/test_event`, {});
  expect(test).toMatchObject({ delivered: true, status_code: 204 });
  const ddTest: Json = await call(service, TOKEN, 'POST', `/event_destinations/${dd.id}/test_event`, {});
  expect(ddTest).toMatchObject({ delivered: true, status_code: 202 });
}, 120_000);

it("a customer who names the table instead of the stream, or sends the secret's ID, should be refused at create with the field and what to fix", async () => {
  const table = await request(service.url, 'POST', '/event_destinations', { token: TOKEN, body: { target: azureTarget({ data_collection_stream_name: 'Custom-EdgeEvents_CL' }) } });
  expect(table.status).toBe(422);
  expect(table.json).toMatchObject({ error_code: 'destination_check_failed', details: { field: 'target.azure_logs_ingestion.data_collection_stream_name', error: 'InvalidStream' } });
  expect(table.json.msg).toContain('not the table it writes to');
  const secret = await request(service.url, 'POST', '/event_destinations', { token: TOKEN, body: { target: azureTarget({ client_secret: 'b7a0c9d2-secret-id' }) } });
  expect(secret.status).toBe(422);
  expect(secret.json).toMatchObject({ details: { field: 'target.azure_logs_ingestion.client_secret', error: 'invalid_client (AADSTS7000215)' } });
  expect(secret.text).not.toContain('b7a0c9d2-secret-id');
  const outside = await request(service.url, 'POST', '/event_destinations', { token: TOKEN, body: { target: azureTarget({ logs_ingestion_uri: 'https://logs.example.net' }) } });
  expect(outside.status).toBe(400);
  expect(outside.json).toMatchObject({ error_code: 'host_not_allowed', details: { field: 'target.azure_logs_ingestion.logs_ingestion_uri' } });
});

it('a destination stored unchecked with a table for its stream should show failing in its status with the reason', async () => {
  const created: Json = await call(service, TOKEN, 'POST', '/event_destinations', { target: azureTarget({ data_collection_stream_name: 'Custom-EdgeEvents_CL' }), verify: false });
  await call(service, TOKEN, 'POST', '/event_subscriptions', { sources: [{ type: TCP, fields: ['conn.bytes_in'] }], destination_ids: [created.id] });
  await sendTcp(`${prefix}.tcp`, 1000, 3);
  let status: Json;
  await waitFor('the destination reported failing', async () => {
    status = (await call(service, TOKEN, 'GET', `/event_destinations/${created.id}`)).status;
    return status?.state === 'failing' || status?.state === 'parked';
  }, 60_000);
  expect(status.last_error).toMatchObject({ code: 'DESTINATION_NOT_FOUND', message: expect.stringContaining('declares no stream Custom-EdgeEvents_CL') });
  expect(status.last_error.message).toContain('looks like a table name');
}, 90_000);
