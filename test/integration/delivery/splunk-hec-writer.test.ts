// The splunk_hec writer and its create-time check against a contract receiver of Splunk's HTTP Event
// Collector (test/support/splunk-hec-receiver.ts, written from Splunk's HEC reference: no Splunk installs here).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DeliveryItem } from '../../../src/delivery/contract.js';
import { DestinationRunner } from '../../../src/delivery/destination-runner.js';
import { parseSplunkHecTarget, type SplunkHecConfig } from '../../../src/delivery/destinations/splunk-hec/config.js';
import { splunkHecKind } from '../../../src/delivery/destinations/splunk-hec/splunk-hec-kind.js';
import { SplunkHecWriter } from '../../../src/delivery/destinations/splunk-hec/splunk-hec-writer.js';
import { InFlightBudget } from '../../../src/delivery/in-flight-budget.js';
import type { Settlement } from '../../../src/delivery/runner-options.js';
import { OPERATOR } from '../../../src/accounts/account.js';
import { makeEnvelope } from '../../../src/events/envelope.js';
import { TEST_EGRESS, writerDeps } from '../../support/writer-deps.js';
import { SplunkHecReceiver } from '../../support/splunk-hec-receiver.js';
import { RecordingDeadLetters, describeWriterContract, testItems } from './writer-contract.js';

const TOKEN = '11111111-2222-3333-4444-555555555555';
const ACK_TOKEN = '66666666-7777-8888-9999-000000000000';
const CHANNEL = '0aeeac95-ac74-4aa9-b30d-6c4c0ac581ba';

function config(target: Record<string, unknown>): SplunkHecConfig {
  const r = parseSplunkHecTarget(target, 'target.splunk_hec', OPERATOR, TEST_EGRESS);
  if (!r.ok) throw new Error(JSON.stringify(r.problems));
  return r.config;
}

for (const ack of [false, true]) {
  describeWriterContract(ack ? 'splunk_hec (contract receiver, indexer acknowledgement)' : 'splunk_hec (contract receiver)', async () => {
    const receiver = new SplunkHecReceiver([{ token: ack ? ACK_TOKEN : TOKEN, ack }]);
    await receiver.start();
    return {
      createWriter: async () => new SplunkHecWriter(config({ url: receiver.url, token: ack ? ACK_TOKEN : TOKEN, ack }), writerDeps()),
      readBack: async () => receiver.events.map((e) => e.event as never),
      disrupt: () => receiver.stop(),
      restore: () => receiver.start(),
      cleanup: () => receiver.stop(),
    };
  });
}

function run(writer: SplunkHecWriter) {
  const settled = new Map<DeliveryItem, Settlement>();
  const deadLetter = new RecordingDeadLetters();
  const runner = new DestinationRunner({
    destinationId: 'ed_hec_test',
    writer,
    budget: new InFlightBudget(),
    deadLetter,
    onSettled: (item, s) => settled.set(item, s),
    batching: { lingerMs: 5 },
    retry: { baseDelayMs: 50, maxDelayMs: 200 },
  });
  runner.start();
  return { runner, settled, deadLetter };
}

describe('splunk_hec writer against the HEC contract receiver', () => {
  let receiver: SplunkHecReceiver;
  beforeEach(async () => {
    receiver = new SplunkHecReceiver([
      { token: TOKEN, indexes: ['main', 'edge'] },
      { token: ACK_TOKEN, ack: true },
      { token: 'disabled-token', disabled: true },
    ]);
    await receiver.start();
  });
  afterEach(() => receiver.stop());

  it('should send each event with its event time in seconds and the target\'s metadata', async () => {
    const writer = new SplunkHecWriter(config({ url: receiver.url, token: TOKEN, index: 'edge', source: 'edge-events', sourcetype: '_json', host: 'edge-1' }), writerDeps());
    const envelope = makeEnvelope('http_request_complete.v0', { http: { status: 200 } }, { timestamp: new Date('2026-03-04T05:06:07.089Z') });
    await writer.write([{ eventId: envelope.event_id, payload: Buffer.from(JSON.stringify(envelope)), envelope }]);
    expect(receiver.events).toEqual([{ time: Date.parse('2026-03-04T05:06:07.089Z') / 1000, host: 'edge-1', source: 'edge-events', sourcetype: '_json', index: 'edge', event: envelope }]);
    await writer.close();
  });

  it('should count a batch delivered only once its acknowledgement is true', async () => {
    receiver.holdAcks = true;
    const writer = new SplunkHecWriter(config({ url: receiver.url, token: ACK_TOKEN, ack: true, channel: CHANNEL }), writerDeps());
    let done = false;
    const write = writer.write(testItems(3)).then(() => (done = true));
    await new Promise((r) => setTimeout(r, 800));
    expect(done).toBe(false);
    receiver.releaseAcks();
    await write;
    expect(receiver.events).toHaveLength(3);
    await writer.close();
  });

  it('should map HEC\'s codes: an invalid or disabled token fails auth, an index the token may not write parks, a busy server is retried', async () => {
    const failure = async (target: Record<string, unknown>) => new SplunkHecWriter(config({ url: receiver.url, ...target }), writerDeps()).write(testItems(1)).catch((e: unknown) => e);
    expect(await failure({ token: 'unknown-token' })).toMatchObject({ code: 'DESTINATION_AUTH_FAILED', status: 403, message: expect.stringContaining('HEC code 4 (Invalid token)') });
    expect(await failure({ token: 'disabled-token' })).toMatchObject({ code: 'DESTINATION_AUTH_FAILED', message: expect.stringContaining('HEC code 1') });
    expect(await failure({ token: TOKEN, index: 'other' })).toMatchObject({ code: 'DESTINATION_NOT_FOUND', retryable: true, message: expect.stringContaining('HEC code 7 (Incorrect index)') });
    receiver.busy = true;
    expect(await failure({ token: TOKEN })).toMatchObject({ code: 'DESTINATION_THROTTLED', status: 503, message: expect.stringContaining('HEC code 9') });
    const { runner, settled } = run(new SplunkHecWriter(config({ url: receiver.url, token: TOKEN }), writerDeps()));
    const items = testItems(5);
    for (const i of items) runner.enqueue(i);
    await new Promise((r) => setTimeout(r, 300));
    receiver.busy = false;
    await runner.flush();
    expect(items.every((i) => settled.get(i) === 'acked')).toBe(true);
    expect(receiver.events).toHaveLength(5);
    await runner.close();
  });

  it('should dead-letter the event HEC names as invalid data and send the others again', async () => {
    const good = testItems(4);
    const bad: DeliveryItem = { eventId: 'ev_bad', payload: Buffer.from('{"event_id":"ev_bad", not json') };
    const { runner, settled, deadLetter } = run(new SplunkHecWriter(config({ url: receiver.url, token: TOKEN }), writerDeps()));
    for (const i of [good[0]!, good[1]!, bad, good[2]!, good[3]!]) runner.enqueue(i);
    await runner.flush();
    expect(deadLetter.letters.map((l) => [l.key, l.errorCode])).toEqual([['ev_bad', 'DESTINATION_REJECTED']]);
    expect(settled.get(bad)).toBe('dead_lettered');
    expect(new Set(receiver.events.map((e) => (e.event as { event_id: string }).event_id))).toEqual(new Set(good.map((i) => i.eventId)));
    await runner.close();
  });
});

describe('splunk_hec create-time check', () => {
  let receiver: SplunkHecReceiver;
  beforeEach(async () => {
    receiver = new SplunkHecReceiver([{ token: TOKEN, indexes: ['main', 'edge'] }, { token: ACK_TOKEN, ack: true }]);
    await receiver.start();
  });
  afterEach(() => receiver.stop());

  const check = (target: Record<string, unknown>) => splunkHecKind.verify!(config({ url: receiver.url, ...target }), writerDeps(), OPERATOR);
  const summary = (problems: readonly { code: string; field: string; details: Record<string, unknown> }[]) => problems.map((p) => [p.code, p.field, p.details.error]);

  it('should pass with the health endpoint and one check event, acknowledged when ack is on', async () => {
    expect(await check({ token: TOKEN, index: 'edge' })).toEqual([]);
    expect(await check({ token: ACK_TOKEN, ack: true })).toEqual([]);
    expect(receiver.events.map((e) => (e.event as { event_type: string }).event_type)).toEqual(['edge_events_check', 'edge_events_check']);
  });

  it('should refuse a wrong token, an index the token may not write, ack on a token without it, a busy collector and a URL with none', async () => {
    expect(summary(await check({ token: 'wrong-token' }))).toEqual([['destination_check_failed', 'target.splunk_hec.token', 'DESTINATION_AUTH_FAILED']]);
    expect(summary(await check({ token: TOKEN, index: 'secret' }))).toEqual([['destination_check_failed', 'target.splunk_hec.index', 'DESTINATION_NOT_FOUND']]);
    expect(summary(await check({ token: TOKEN, ack: true }))).toEqual([['destination_check_failed', 'target.splunk_hec.url', 'WRITE_FAILED']]);
    receiver.busy = true;
    expect(summary(await check({ token: TOKEN }))).toEqual([['destination_check_failed', 'target.splunk_hec.url', 'DESTINATION_THROTTLED']]);
    await receiver.stop();
    expect(summary(await check({ token: TOKEN }))).toEqual([['destination_check_failed', 'target.splunk_hec.url', 'DESTINATION_UNREACHABLE']]);
  });

  it('should trust the target\'s own CA for an on-premises collector, and refuse the same collector without it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'edge-hec-ca-'));
    try {
      const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
      ssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '1', '-subj', '/CN=edge-events test CA');
      ssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1');
      writeFileSync(join(dir, 'san.ext'), 'subjectAltName=IP:127.0.0.1\n');
      ssl('x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.pem', '-days', '1', '-extfile', 'san.ext');
      const tls = { key: readFileSync(join(dir, 'server.key')), cert: readFileSync(join(dir, 'server.pem')) };
      const onPrem = new SplunkHecReceiver([{ token: TOKEN }], tls);
      await onPrem.start();
      try {
        const url = onPrem.url;
        expect(url.startsWith('https://')).toBe(true);
        const caPem = readFileSync(join(dir, 'ca.pem'), 'utf8');
        expect(await splunkHecKind.verify!(config({ url, token: TOKEN, ca_pem: caPem }), writerDeps(), OPERATOR)).toEqual([]);
        expect(onPrem.events).toHaveLength(1);
        const without = await splunkHecKind.verify!(config({ url, token: TOKEN }), writerDeps(), OPERATOR);
        expect(summary(without)).toEqual([['destination_check_failed', 'target.splunk_hec.url', 'DESTINATION_UNREACHABLE']]);
        expect(without[0]?.message).toContain('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
      } finally {
        await onPrem.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
