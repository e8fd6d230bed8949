// An outage of each vendor kind on the real broker: a datadog destination whose intake (VictoriaLogs, the
// real one) is down and an azure_logs_ingestion destination whose endpoint (the Azure contract receiver) is
// down are parked past their budget, the main path settles, and every parked event is re-driven once the
// health check (the key validation; a token and an empty upload) passes again.
import { afterEach, expect, it } from 'vitest';
import { AzureContractReceiver } from '../../support/azure-contract-receiver.js';
import { VictoriaLogs } from '../../support/victoria-logs.js';
import { testItems } from '../delivery/writer-contract.js';
import { parkingHarness, until, type ParkingHarness } from './parking-harness.js';

let harness: ParkingHarness | undefined;
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  for (const c of cleanups.splice(0)) await c();
});

it('should park the events of a datadog destination while its intake is down, and re-drive every one into it when it is back', async () => {
  const vl = await VictoriaLogs.start();
  cleanups.push(() => vl.cleanup());
  const h = (harness = await parkingHarness({ deps: { datadog: { baseUrl: vl.datadogBaseUrl } } }));
  const id = h.putDestination({ datadog: { api_key_enc: h.secrets.seal('0123456789abcdef0123456789abcdef'), service: 'park-dd' } });
  await vl.stop();
  const items = testItems(40);
  h.enqueue(id, items);
  await until(() => items.every((i) => h.settled.get(i.eventId) === 'parked'), 30_000, 'the datadog events to be parked');
  await vl.restart();
  const rows = await vl.rowsAtLeast('service:park-dd', items.length, 30_000);
  const got = new Set(rows.map((r) => (JSON.parse(r._msg as string) as { event_id: string }).event_id));
  expect(items.filter((i) => !got.has(i.eventId)).map((i) => i.eventId)).toEqual([]);
});

it('should park the events of an azure_logs_ingestion destination while its endpoint is down, and re-drive every one to it when it is back', async () => {
  const app = { tenantId: '72f988bf-86f1-41af-91ab-2d7cd011db47', clientId: '00000000-1111-2222-3333-444444444444', clientSecret: 'Abc8Q~park-secret' };
  const rule = 'dcr-0123456789abcdef0123456789abcdef';
  const azure = new AzureContractReceiver([app], [{ ruleId: rule, streams: ['Custom-Park'], publishers: [app.clientId] }]);
  await azure.start();
  cleanups.push(() => azure.stop());
  const h = (harness = await parkingHarness({ deps: { azure: { authorityUrl: azure.authorityUrl } } }));
  const id = h.putDestination({
    azure_logs_ingestion: {
      tenant_id: app.tenantId,
      client_id: app.clientId,
      client_secret_enc: h.secrets.seal(app.clientSecret),
      logs_ingestion_uri: azure.ingestionUri,
      data_collection_rule_id: rule,
      data_collection_stream_name: 'Custom-Park',
    },
  });
  await azure.stop();
  const items = testItems(40);
  h.enqueue(id, items);
  await until(() => items.every((i) => h.settled.get(i.eventId) === 'parked'), 30_000, 'the azure events to be parked');
  expect(azure.rowsOf(rule, 'Custom-Park')).toEqual([]);
  await azure.start();
  await until(() => azure.rowsOf(rule, 'Custom-Park').length >= items.length, 30_000, 'every parked event re-driven');
  const got = new Set(azure.rowsOf(rule, 'Custom-Park').map((r) => r.event_id));
  expect(items.filter((i) => !got.has(i.eventId)).map((i) => i.eventId)).toEqual([]);
});
