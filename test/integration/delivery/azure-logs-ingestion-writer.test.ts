// The azure_logs_ingestion writer against the Azure contract receiver (written from Microsoft's REST
// references: Entra ID's v2.0 token endpoint and the Logs Ingestion API's upload): the writer contract,
// the rows, the token's cache and refetch, the create-time check's answers, the size limits and the answers.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OPERATOR } from '../../../src/accounts/account.js';
import type { DeliveryItem } from '../../../src/delivery/contract.js';
import { DestinationRunner } from '../../../src/delivery/destination-runner.js';
import { azureLogsIngestionKind } from '../../../src/delivery/destinations/azure-logs-ingestion/azure-logs-ingestion-kind.js';
import { AzureLogsIngestionWriter } from '../../../src/delivery/destinations/azure-logs-ingestion/azure-logs-ingestion-writer.js';
import type { AzureLogsIngestionConfig } from '../../../src/delivery/destinations/azure-logs-ingestion/config.js';
import { InFlightBudget } from '../../../src/delivery/in-flight-budget.js';
import type { Settlement } from '../../../src/delivery/runner-options.js';
import type { Envelope } from '../../../src/events/envelope.js';
import { AzureContractReceiver, type AppRegistration } from '../../support/azure-contract-receiver.js';
import { TEST_EGRESS, writerDeps } from '../../support/writer-deps.js';
import { RecordingDeadLetters, SpyWriter, describeWriterContract, testItems } from './writer-contract.js';

const APP: AppRegistration = { tenantId: '72f988bf-86f1-41af-91ab-2d7cd011db47', clientId: '00000000-1111-2222-3333-444444444444', clientSecret: 'Abc8Q~the-secret-value' };
const OTHER_APP: AppRegistration = { tenantId: APP.tenantId, clientId: '99999999-1111-2222-3333-444444444444', clientSecret: 'Xyz8Q~another-value' };
const RULE = 'dcr-0123456789abcdef0123456789abcdef';
const STREAM = 'Custom-EdgeEvents';

function receiver(): AzureContractReceiver {
  return new AzureContractReceiver([APP, OTHER_APP], [{ ruleId: RULE, streams: [STREAM], publishers: [APP.clientId] }]);
}

function configFor(r: AzureContractReceiver, over: Partial<AzureLogsIngestionConfig> = {}): AzureLogsIngestionConfig {
  return { ...APP, endpoint: r.ingestionUri, ruleId: RULE, stream: STREAM, ...over };
}

function writerFor(r: AzureContractReceiver, over: Partial<AzureLogsIngestionConfig> = {}): AzureLogsIngestionWriter {
  return new AzureLogsIngestionWriter(configFor(r, over), { egress: TEST_EGRESS, authorityUrl: r.authorityUrl, timeoutMs: 5_000 });
}

/** A row without its TimeGenerated: the envelope. */
function envelopeOf(row: Record<string, unknown>): Envelope {
  const { TimeGenerated: _, ...envelope } = row;
  return envelope as unknown as Envelope;
}

describeWriterContract('azure_logs_ingestion (into the Azure contract receiver)', async () => {
  const r = receiver();
  await r.start();
  return {
    createWriter: async () => writerFor(r),
    readBack: async () => r.rowsOf(RULE, STREAM).map(envelopeOf),
    disrupt: () => r.stop(),
    restore: () => r.start(),
    cleanup: () => r.stop(),
  };
});

describe('azure_logs_ingestion writer against the Azure contract receiver', () => {
  let r: AzureContractReceiver;
  beforeEach(async () => {
    r = receiver();
    await r.start();
  });
  afterEach(async () => {
    await r.stop();
  });

  function run(writer: SpyWriter) {
    const settled = new Map<DeliveryItem, Settlement>();
    const deadLetter = new RecordingDeadLetters();
    const runner = new DestinationRunner({ destinationId: 'ed_azure_test', writer, budget: new InFlightBudget(), deadLetter, onSettled: (item, s) => settled.set(item, s), batching: { lingerMs: 5 }, retry: { baseDelayMs: 50, maxDelayMs: 200 } });
    runner.start();
    return { runner, settled, deadLetter };
  }

  it('should post gzipped rows, each the envelope with TimeGenerated the event time, with one token for many calls', async () => {
    const writer = writerFor(r);
    const items = testItems(30);
    expect((await writer.write(items.slice(0, 10))).failed).toEqual([]);
    expect((await writer.write(items.slice(10))).failed).toEqual([]);
    const rows = r.rowsOf(RULE, STREAM);
    expect(rows.map(envelopeOf)).toEqual(items.map((i) => i.envelope));
    for (const [n, row] of rows.entries()) expect(row.TimeGenerated).toBe(items[n]?.envelope?.event_timestamp);
    expect(r.uploads.map((u) => [u.status, u.gzip])).toEqual([[204, true], [204, true]]);
    expect(r.tokenRequests).toEqual([{ clientId: APP.clientId, status: 200 }]);
    await writer.close();
  });

  it('should fetch a new token when the API answers 401, and deliver with it', async () => {
    const writer = writerFor(r);
    await writer.write(testItems(2));
    r.revokeTokens();
    const items = testItems(3);
    expect((await writer.write(items)).failed).toEqual([]);
    expect(r.uploads.map((u) => u.status)).toEqual([204, 401, 204]);
    expect(r.tokenRequests.map((t) => t.status)).toEqual([200, 200]);
    expect(r.rowsOf(RULE, STREAM).slice(2).map(envelopeOf)).toEqual(items.map((i) => i.envelope));
    await writer.close();
  });

  it('should fetch a new token before the cached one expires', async () => {
    r.tokenLifeSeconds = 2;
    const writer = writerFor(r);
    await writer.write(testItems(1));
    await writer.write(testItems(1));
    expect(r.tokenRequests).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    await writer.write(testItems(1));
    expect(r.tokenRequests).toHaveLength(2);
    expect(r.uploads.every((u) => u.status === 204)).toBe(true);
    await writer.close();
  });

  it('should pass the check at create, and refuse each mistake on the field at fault with the error code', async () => {
    const deps = writerDeps({ azure: { authorityUrl: r.authorityUrl } });
    const check = async (over: Partial<AzureLogsIngestionConfig>) => {
      const [p] = (await azureLogsIngestionKind.verify?.(configFor(r, over), deps, OPERATOR)) ?? [];
      return p === undefined ? undefined : { field: p.field.replace('target.azure_logs_ingestion.', ''), error: p.details.error, deliveryCode: p.deliveryCode, message: p.message };
    };
    expect(await check({})).toBeUndefined();
    expect(r.rowsOf(RULE, STREAM)).toEqual([]);
    expect(await check({ clientSecret: 'the-secret-id-instead' })).toMatchObject({ field: 'client_secret', error: 'invalid_client (AADSTS7000215)', deliveryCode: 'DESTINATION_AUTH_FAILED' });
    expect((await check({ clientSecret: 'the-secret-id-instead' }))?.message).toContain("the secret's Value");
    expect(await check({ tenantId: '11111111-2222-3333-4444-555555555555' })).toMatchObject({ field: 'tenant_id', error: 'invalid_request (AADSTS90002)' });
    expect(await check({ clientId: '12345678-1111-2222-3333-444444444444' })).toMatchObject({ field: 'client_id', error: 'unauthorized_client (AADSTS700016)' });
    expect(await check({ ...OTHER_APP })).toMatchObject({ field: 'client_id', error: 'OperationFailed', deliveryCode: 'DESTINATION_AUTH_FAILED' });
    expect((await check({ ...OTHER_APP }))?.message).toContain('Monitoring Metrics Publisher role');
    expect(await check({ ruleId: 'dcr-ffffffffffffffffffffffffffffffff' })).toMatchObject({ field: 'data_collection_rule_id', error: 'NotFound', deliveryCode: 'DESTINATION_NOT_FOUND' });
    const table = await check({ stream: 'Custom-EdgeEvents_CL' });
    expect(table).toMatchObject({ field: 'data_collection_stream_name', error: 'InvalidStream', deliveryCode: 'DESTINATION_NOT_FOUND' });
    expect(table?.message).toContain('not the table it writes to. Custom-EdgeEvents_CL looks like a table name');
    expect(JSON.stringify(r.uploads)).not.toContain(APP.clientSecret);
  });

  it('should park, not dead-letter, events for a stream the rule does not declare, saying why', async () => {
    const spy = new SpyWriter(writerFor(r, { stream: 'Custom-EdgeEvents_CL' }));
    const { failed } = await spy.write(testItems(2));
    expect(failed.map((f) => [f.error.code, f.error.retryable])).toEqual([['DESTINATION_NOT_FOUND', true], ['DESTINATION_NOT_FOUND', true]]);
    expect(failed[0]?.error.message).toMatch(/declares no stream Custom-EdgeEvents_CL \(400 InvalidStream\)\. Set target\.azure_logs_ingestion\.data_collection_stream_name to an input stream/);
    await spy.close();
  });

  it('should split a call the API answers 413 and dead-letter an event over the 64 KB field limit alone', async () => {
    r.script = ({ rows }) => (rows > 3 ? { status: 413, code: 'ContentLengthLimitExceeded' } : undefined);
    const writer = writerFor(r);
    const items = testItems(7);
    const big = testItems(1, 70_000);
    const { failed } = await writer.write([...items, ...big]);
    expect(failed.map((f) => [f.item.eventId, f.error.code])).toEqual([[big[0]?.eventId, 'RECORD_TOO_LARGE']]);
    expect(r.uploads.map((u) => [u.rows, u.status])).toEqual([[7, 413], [4, 413], [2, 204], [2, 204], [3, 204]]);
    expect(r.rowsOf(RULE, STREAM).map((row) => row.event_id).sort()).toEqual(items.map((i) => i.eventId).sort());
    expect(r.truncated).toBe(0);
    await writer.close();
  });

  it('should retry a 429 no sooner than its Retry-After and a 503, and dead-letter a 400 InvalidPayload', async () => {
    r.script = ({ n }) => (n === 0 ? { status: 429, code: 'TooManyRequests', headers: { 'retry-after': '1' } } : n === 1 ? { status: 503, code: 'ServiceUnavailable' } : n === 2 ? { status: 400, code: 'InvalidPayload' } : undefined);
    const spy = new SpyWriter(writerFor(r));
    const { runner, settled, deadLetter } = run(spy);
    const items = testItems(2);
    items.forEach((i) => runner.enqueue(i));
    await runner.flush();
    expect(spy.failures).toEqual(['DESTINATION_THROTTLED', 'DESTINATION_THROTTLED', 'DESTINATION_SERVER_ERROR', 'DESTINATION_SERVER_ERROR', 'DESTINATION_REJECTED', 'DESTINATION_REJECTED']);
    const [first, second] = r.uploads.filter((u) => u.rows > 0);
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(950);
    expect(items.map((i) => settled.get(i))).toEqual(['dead_lettered', 'dead_lettered']);
    expect(deadLetter.letters[0]?.errorMessage).toContain('400 InvalidPayload');
    await runner.close();
  });
});
