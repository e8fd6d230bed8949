// The datadog writer against VictoriaLogs as the real Datadog logs intake (read back through its LogsQL
// query API: every event, its attributes and its time), and against the Datadog contract receiver for the
// answers VictoriaLogs does not give (key validation, 403, 413, 429 with its rate-limit headers).
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { OPERATOR } from '../../../src/accounts/account.js';
import type { DeliveryItem } from '../../../src/delivery/contract.js';
import { DestinationRunner } from '../../../src/delivery/destination-runner.js';
import { datadogKind } from '../../../src/delivery/destinations/datadog/datadog-kind.js';
import { DatadogWriter } from '../../../src/delivery/destinations/datadog/datadog-writer.js';
import type { DatadogTargetConfig } from '../../../src/delivery/destinations/datadog/config.js';
import { InFlightBudget } from '../../../src/delivery/in-flight-budget.js';
import type { Settlement } from '../../../src/delivery/runner-options.js';
import type { Envelope } from '../../../src/events/envelope.js';
import { DatadogContractReceiver } from '../../support/datadog-contract-receiver.js';
import { VictoriaLogs } from '../../support/victoria-logs.js';
import { writerDeps } from '../../support/writer-deps.js';
import { RecordingDeadLetters, SpyWriter, describeWriterContract, testItem, testItems } from './writer-contract.js';

const KEY = '0123456789abcdef0123456789abcdef';
let services = 0;

describeWriterContract('datadog (into VictoriaLogs)', async () => {
  const vl = await VictoriaLogs.start();
  const service = `contract-${services++}`;
  return {
    createWriter: async () => new DatadogWriter({ apiKey: KEY, site: 'datadoghq.com', service }, { baseUrl: vl.datadogBaseUrl, timeoutMs: 5_000 }),
    readBack: async (atLeast) => (await vl.rowsAtLeast(`service:${service}`, atLeast)).map((r) => JSON.parse(r._msg as string) as Envelope),
    disrupt: () => vl.stop(),
    restore: () => vl.restart(),
    cleanup: () => vl.cleanup(),
  };
});

function runner(writer: SpyWriter, deadLetter = new RecordingDeadLetters()) {
  const settled = new Map<DeliveryItem, Settlement>();
  const r = new DestinationRunner({
    destinationId: 'ed_datadog_test',
    writer,
    budget: new InFlightBudget(),
    deadLetter,
    onSettled: (item, s) => settled.set(item, s),
    batching: { lingerMs: 5 },
    retry: { baseDelayMs: 50, maxDelayMs: 200 },
  });
  r.start();
  return { runner: r, settled, deadLetter };
}

describe('datadog writer into VictoriaLogs, the real intake', () => {
  let vl: VictoriaLogs;
  beforeAll(async () => {
    vl = await VictoriaLogs.start();
  });
  afterAll(async () => {
    await vl?.cleanup();
  });

  it('should store every event as one log with its envelope as the message, the reserved attributes, the tags and the event time', async () => {
    const config: DatadogTargetConfig = { apiKey: KEY, site: 'datadoghq.com', service: 'edge-attrs', ddtags: 'env:test,team:edge' };
    const writer = new DatadogWriter(config, { baseUrl: vl.datadogBaseUrl });
    const items = testItems(20);
    expect((await writer.write(items)).failed).toEqual([]);
    const rows = await vl.rowsAtLeast('service:edge-attrs', 20);
    expect(rows).toHaveLength(20);
    const byId = new Map(rows.map((r) => [(JSON.parse(r._msg as string) as Envelope).event_id, r]));
    for (const item of items) {
      const row = byId.get(item.eventId);
      expect(JSON.parse(row?._msg as string)).toEqual(item.envelope);
      expect(row).toMatchObject({ ddsource: 'edge-events', service: 'edge-attrs', hostname: 'edge-events', env: 'test', team: 'edge' });
      expect(Date.parse(row?._time as string)).toBe(Date.parse(item.envelope?.event_timestamp as string));
    }
    await writer.close();
  });

  it("should name the connection's host as the log's hostname when the event carries conn.server_name", async () => {
    const writer = new DatadogWriter({ apiKey: KEY, site: 'datadoghq.com', service: 'edge-host' }, { baseUrl: vl.datadogBaseUrl });
    const { item } = testItem();
    const envelope = { ...(item.envelope as Envelope), object: { conn: { server_name: 'api.customer.example' } } };
    await writer.write([{ eventId: envelope.event_id, payload: Buffer.from(JSON.stringify(envelope)) }]);
    const [row] = await vl.rowsAtLeast('service:edge-host', 1);
    expect(row?.hostname).toBe('api.customer.example');
    await writer.close();
  });

  it('should date an event older than Datadog takes (18 hours) when it is sent, keeping its own time in the message', async () => {
    const writer = new DatadogWriter({ apiKey: KEY, site: 'datadoghq.com', service: 'edge-old' }, { baseUrl: vl.datadogBaseUrl });
    const { item } = testItem();
    const old = { ...(item.envelope as Envelope), event_timestamp: new Date(Date.now() - 20 * 3_600_000).toISOString() };
    const sentAt = Date.now();
    await writer.write([{ eventId: old.event_id, payload: Buffer.from(JSON.stringify(old)) }]);
    const [row] = await vl.rowsAtLeast('service:edge-old', 1);
    expect(Math.abs(Date.parse(row?._time as string) - sentAt)).toBeLessThan(5_000);
    expect(JSON.parse(row?._msg as string).event_timestamp).toBe(old.event_timestamp);
    await writer.close();
  });
});

describe('datadog writer against the Datadog contract receiver', () => {
  let receiver: DatadogContractReceiver;
  const config: DatadogTargetConfig = { apiKey: KEY, site: 'datadoghq.eu', service: 'edge-events' };
  beforeEach(async () => {
    receiver = new DatadogContractReceiver(new Set([KEY]));
    await receiver.start();
  });
  afterEach(async () => {
    await receiver.stop();
  });

  it('should pass the check at create with a valid key and refuse an invalid one with 422 invalid_api_key in the customer\'s words', async () => {
    const deps = writerDeps({ datadog: { baseUrl: receiver.baseUrl } });
    expect(await datadogKind.verify?.(config, deps, OPERATOR)).toEqual([]);
    const [p] = (await datadogKind.verify?.({ ...config, apiKey: 'ffffffffffffffffffffffffffffffff' }, deps, OPERATOR)) ?? [];
    expect(p).toMatchObject({ code: 'destination_check_failed', field: 'target.datadog.api_key', details: { error: 'invalid_api_key' }, deliveryCode: 'DESTINATION_AUTH_FAILED' });
    expect(p?.message).toContain('datadoghq.eu (EU) refused the API key');
    expect(p?.message).not.toContain('ffffffff');
  });

  it('should fail a 403 as DESTINATION_AUTH_FAILED, retried and never dead-lettered, naming the site and what to fix', async () => {
    const writer = new DatadogWriter({ ...config, apiKey: 'ffffffffffffffffffffffffffffffff' }, { baseUrl: receiver.baseUrl });
    const { failed } = await writer.write(testItems(3));
    expect(failed.map((f) => [f.error.code, f.error.retryable, f.error.status])).toEqual(Array(3).fill(['DESTINATION_AUTH_FAILED', true, 403]));
    expect(failed[0]?.error.message).toMatch(/^Datadog refused the API key \(403\): it is not a valid API key of the site datadoghq\.eu \(EU\).*Set target\.datadog\.api_key/);
    await writer.close();
  });

  it('should retry a 429 no sooner than its X-RateLimit-Reset, then deliver', async () => {
    receiver.script = ({ n }) => (n === 0 ? { status: 429, headers: { 'x-ratelimit-limit': '100', 'x-ratelimit-period': '60', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1' } } : undefined);
    const spy = new SpyWriter(new DatadogWriter(config, { baseUrl: receiver.baseUrl }));
    const { runner: r, settled } = runner(spy);
    const items = testItems(5);
    items.forEach((i) => r.enqueue(i));
    await r.flush();
    expect(spy.failures).toEqual(Array(5).fill('DESTINATION_THROTTLED'));
    const [first, second] = receiver.requests;
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(950);
    expect(items.every((i) => settled.get(i) === 'acked')).toBe(true);
    expect(receiver.envelopes().map((e) => e.event_id)).toEqual(items.map((i) => i.eventId));
    await r.close();
  });

  it('should split a batch the intake answers 413 until every part is taken, and dead-letter a log alone over 1,000,000 bytes', async () => {
    // The runner hands up to 4,000,000 bytes of envelopes; quotes escaped in the message make the logs larger.
    const quoted = (n: number) => testItems(n, 0).map((i) => {
      const envelope = { ...(i.envelope as Envelope), object: { q: '"'.repeat(210_000) } };
      return { ...i, envelope, payload: Buffer.from(JSON.stringify(envelope)) };
    });
    receiver.script = ({ entries }) => (entries > 4 ? { status: 413 } : undefined);
    const writer = new DatadogWriter(config, { baseUrl: receiver.baseUrl });
    const items = quoted(9);
    const tooLarge = quoted(1).map((i) => ({ ...i, payload: Buffer.from(JSON.stringify({ ...i.envelope, object: { q: '"'.repeat(260_000) } })) }));
    const { failed } = await writer.write([...items, ...tooLarge]);
    expect(failed.map((f) => [f.item.eventId, f.error.code])).toEqual([[tooLarge[0]?.eventId, 'RECORD_TOO_LARGE']]);
    expect(receiver.requests.map((q) => [q.entries, q.status])).toContainEqual([5, 413]);
    expect(receiver.envelopes().map((e) => e.event_id).sort()).toEqual(items.map((i) => i.eventId).sort());
    expect(receiver.truncated).toBe(0);
    await writer.close();
  });

  it('should retry 5xx and 408, and dead-letter a 400', async () => {
    receiver.script = ({ n }) => (n === 0 ? { status: 503 } : n === 1 ? { status: 408 } : n === 2 ? { status: 400 } : undefined);
    const spy = new SpyWriter(new DatadogWriter(config, { baseUrl: receiver.baseUrl }));
    const { runner: r, settled, deadLetter } = runner(spy);
    const items = testItems(2);
    items.forEach((i) => r.enqueue(i));
    await r.flush();
    expect(spy.failures).toEqual(['DESTINATION_SERVER_ERROR', 'DESTINATION_SERVER_ERROR', 'DESTINATION_SERVER_ERROR', 'DESTINATION_SERVER_ERROR', 'DESTINATION_REJECTED', 'DESTINATION_REJECTED']);
    expect(items.map((i) => settled.get(i))).toEqual(['dead_lettered', 'dead_lettered']);
    expect(deadLetter.letters.map((l) => l.errorCode)).toEqual(['DESTINATION_REJECTED', 'DESTINATION_REJECTED']);
    await r.close();
  });
});
