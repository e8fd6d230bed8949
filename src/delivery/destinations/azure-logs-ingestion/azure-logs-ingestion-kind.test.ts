import { OPERATOR } from '../../../accounts/account.js';
import { describe, expect, it } from 'vitest';
import { loadServiceConfig } from '../../../config/service-config.js';
import { describeKindContract } from '../../../../test/support/destination-kind-contract.js';
import { DEFAULT_EGRESS } from '../../../../test/support/writer-deps.js';
import { egressRules } from '../../egress-rules.js';
import { azureLogsIngestionKind } from './azure-logs-ingestion-kind.js';
import { MAX_CALL_BYTES, packCalls } from './azure-logs-ingestion-writer.js';

const TARGET = {
  tenant_id: '72f988bf-86f1-41af-91ab-2d7cd011db47',
  client_id: '00000000-1111-2222-3333-444444444444',
  client_secret: 'Abc8Q~secret.value_0123456789',
  logs_ingestion_uri: 'https://edge-dce-a1b2.eastus-1.ingest.monitor.azure.com',
  data_collection_rule_id: 'dcr-0123456789abcdef0123456789abcdef',
  data_collection_stream_name: 'Custom-EdgeEvents',
};
const prefix = 'target.azure_logs_ingestion';
const problemOf = (raw: unknown, egress = DEFAULT_EGRESS) => {
  const r = azureLogsIngestionKind.parse(raw, prefix, OPERATOR, egress);
  return r.ok ? undefined : [r.problems[0]?.code, r.problems[0]?.field];
};

describe('azure_logs_ingestion kind', () => {
  describeKindContract(azureLogsIngestionKind, {
    valid: [TARGET, { ...TARGET, tenant_id: 'contoso.onmicrosoft.com', logs_ingestion_uri: 'https://edge-dcr-x.westeurope-1.ingest.monitor.azure.com/', data_collection_stream_name: 'Microsoft-Syslog' }],
    invalid: [
      { object: { ...TARGET, tenant_id: 'not a tenant' }, code: 'invalid_body', field: 'tenant_id' },
      { object: { ...TARGET, client_id: 'edge-app' }, code: 'invalid_body', field: 'client_id' },
      { object: { ...TARGET, client_secret: undefined }, code: 'secret_required', field: 'client_secret' },
      { object: { ...TARGET, logs_ingestion_uri: 'https://edge.ingest.monitor.azure.com/dataCollectionRules/x' }, code: 'invalid_body', field: 'logs_ingestion_uri' },
      { object: { ...TARGET, data_collection_rule_id: 'edge-rule' }, code: 'invalid_body', field: 'data_collection_rule_id' },
      { object: { ...TARGET, data_collection_stream_name: 'EdgeEvents_CL' }, code: 'invalid_body', field: 'data_collection_stream_name' },
    ],
  });

  it('should refuse http, a host outside the Azure Monitor ingestion domain, and an internal address, as written', () => {
    expect(problemOf({ ...TARGET, logs_ingestion_uri: 'http://edge.eastus-1.ingest.monitor.azure.com' })).toEqual(['insecure_url', `${prefix}.logs_ingestion_uri`]);
    expect(problemOf({ ...TARGET, logs_ingestion_uri: 'https://ingest.monitor.azure.com.example.net' })).toEqual(['host_not_allowed', `${prefix}.logs_ingestion_uri`]);
    expect(problemOf({ ...TARGET, logs_ingestion_uri: 'https://evilingest.monitor.azure.com' })).toEqual(['host_not_allowed', `${prefix}.logs_ingestion_uri`]);
    const anyHost = egressRules(loadServiceConfig({}).topics, loadServiceConfig({ AZURE_LOGS_INGESTION_DOMAINS: '*' }).egress);
    expect(problemOf({ ...TARGET, logs_ingestion_uri: 'https://10.0.0.5' }, anyHost)).toEqual(['internal_address', `${prefix}.logs_ingestion_uri`]);
    expect(problemOf({ ...TARGET, logs_ingestion_uri: 'https://logs.example.net' }, anyHost)).toBeUndefined();
  });

  it('should answer the secret as null and every other field as stored', () => {
    expect(azureLogsIngestionKind.view({ ...TARGET, client_secret: undefined, client_secret_enc: 'v1.x' }, { fileRoot: '.', account: OPERATOR })).toEqual({ ...TARGET, client_secret: null });
  });

  it('should cut calls at the documented 1,048,576 bytes, brackets and commas counted', () => {
    const rows = Array.from({ length: 40 }, () => ({ json: Buffer.alloc(60_000) }));
    const calls = packCalls(rows);
    for (const c of calls) expect(2 + c.reduce((n, r) => n + r.json.length, 0) + c.length - 1).toBeLessThanOrEqual(MAX_CALL_BYTES);
    expect(calls.map((c) => c.length)).toEqual([17, 17, 6]);
  });
});
