// The traffic pipeline end to end: real broker, real service processes, a kafka and a file destination.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigLog } from '../../../src/configlog/config-log.js';
import type { StoredDestination, StoredSubscription } from '../../../src/configlog/resources.js';
import type { KafkaClient } from '../../../src/kafka/seam.js';
import { createTopics, produce, readTopics, testBrokers, testClient, uniqueName } from '../../support/kafka.js';
import { serviceEnv, startService, type ServiceProcess } from '../../support/service-process.js';
import {
  S1_FIELDS,
  S1_FILTER,
  S1_FILTER_CHANGED,
  S2_FIELDS,
  S2_FILTER,
  makeTraffic,
  malformedMessages,
  s1ChangedReference,
  s1Projection,
  s1Reference,
  s2Projection,
  s2Reference,
  toMessage,
  type Traffic,
} from './fixtures.js';
import { fileDestinationLines } from '../../support/file-destination.js';

interface Delivered {
  event_id: string;
  event_type: string;
  event_timestamp: string;
  principal: unknown;
  object: Record<string, Record<string, unknown>>;
}

const prefix = uniqueName('pipe');
const outTopic = `${prefix}.out`;
const fileRoot = mkdtempSync(join(tmpdir(), 'edge-events-files-'));
let kafka: KafkaClient;
let configLog: ConfigLog;
let env: Record<string, string>;
let outReader: Awaited<ReturnType<typeof readTopics>> | undefined;
const kafkaOut: Delivered[] = [];
const dlq: Array<{ headers: Record<string, string>; headerList: Array<[string, string]>; key: string | null }> = [];
const workers: ServiceProcess[] = [];

const now = new Date().toISOString();
const kafkaDest: StoredDestination = { id: 'ed_01JD0000000000000000000001', created_at: now, description: '', metadata: '', format: 'json', target: { kafka: { topic: outTopic } } };
const fileDest: StoredDestination = { id: 'ed_01JD0000000000000000000002', created_at: now, description: '', metadata: '', format: 'json', target: { file: { path: 'out/s2.ndjson' } } };
const s1 = (filter: string): StoredSubscription => ({
  id: 'esb_01JD0000000000000000000001',
  created_at: now,
  description: 'https from 10/8',
  metadata: '',
  sources: [{ type: 'http_request_complete.v0', fields: S1_FIELDS, filter }],
  destination_ids: [kafkaDest.id],
});
const s2: StoredSubscription = {
  id: 'esb_01JD0000000000000000000002',
  created_at: now,
  description: 'tcp from 192.168/16',
  metadata: '',
  sources: [{ type: 'tcp_connection_closed.v0', fields: S2_FIELDS, filter: S2_FILTER }],
  destination_ids: [fileDest.id],
};

function fileOut(): Delivered[] {
  return fileDestinationLines<Delivered>(join(fileRoot, 'out'), 's2.ndjson');
}

const s1Seq = (d: Delivered): number => Number(String(d.object.http?.request && (d.object.http.request as { url: { path: string } }).url.path).slice(5));
const s2Seq = (d: Delivered): number => Number(d.object.conn?.bytes_in);

async function waitFor(what: string, check: () => boolean, timeoutMs = 90_000): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Produces http and tcp records with sequence numbers [from, to), half of each type. */
async function produceTraffic(from: number, to: number): Promise<Traffic[]> {
  const traffic: Traffic[] = [];
  for (let seq = from; seq < to; seq++) traffic.push(makeTraffic(seq % 2 === 0 ? 'http_request_complete.v0' : 'tcp_connection_closed.v0', seq));
  const http = traffic.filter((t) => t.type === 'http_request_complete.v0');
  const tcp = traffic.filter((t) => t.type === 'tcp_connection_closed.v0');
  for (let i = 0; i < http.length; i += 1000) await produce(kafka, `${prefix}.http`, http.slice(i, i + 1000).map(toMessage));
  for (let i = 0; i < tcp.length; i += 1000) await produce(kafka, `${prefix}.tcp`, tcp.slice(i, i + 1000).map(toMessage));
  return traffic;
}

function seqSet(list: Delivered[], seqOf: (d: Delivered) => number, lo: number, hi: number): Set<number> {
  return new Set(list.map(seqOf).filter((s) => s >= lo && s < hi));
}

function expectExactly(list: Delivered[], seqOf: (d: Delivered) => number, expected: Traffic[], lo: number, hi: number): void {
  const want = new Set(expected.map((t) => t.seq));
  const got = seqSet(list, seqOf, lo, hi);
  const missing = [...want].filter((s) => !got.has(s));
  const unexpected = [...got].filter((s) => !want.has(s));
  expect({ missing: missing.slice(0, 10), missingCount: missing.length, unexpected: unexpected.slice(0, 10) }).toEqual({ missing: [], missingCount: 0, unexpected: [] });
}

beforeAll(async () => {
  kafka = testClient('pipeline-test');
  await createTopics(kafka, [
    { topic: `${prefix}.http`, partitions: 4 },
    { topic: `${prefix}.tcp`, partitions: 4 },
    { topic: `${prefix}.config`, partitions: 1, compacted: true },
    { topic: `${prefix}.audit`, partitions: 1 },
    { topic: `${prefix}.dlq`, partitions: 1 },
    { topic: outTopic, partitions: 2 },
  ]);
  configLog = new ConfigLog({ kafka: testClient(), topic: `${prefix}.config` });
  await configLog.start();
  await configLog.write([
    { id: kafkaDest.id, kind: 'event_destination', data: kafkaDest },
    { id: fileDest.id, kind: 'event_destination', data: fileDest },
    { id: s2.id, kind: 'event_subscription', data: s2 },
    { id: s1(S1_FILTER).id, kind: 'event_subscription', data: s1(S1_FILTER) },
  ]);

  outReader = await readTopics(kafka, { topics: [outTopic, `${prefix}.dlq`] }, (message) => {
    if (message.topic === outTopic) kafkaOut.push(JSON.parse(String(message.value)) as Delivered);
    else dlq.push({ headers: message.headers, headerList: message.headerList, key: message.key });
  });

  env = serviceEnv(prefix, testBrokers(), { FILE_DESTINATION_ROOT: fileRoot, ROLES: 'worker' });
  workers.push(await startService(env));
});

afterAll(async () => {
  await Promise.allSettled(workers.map((w) => w.stop('SIGKILL')));
  await outReader?.stop();
  await configLog?.stop();
  rmSync(fileRoot, { recursive: true, force: true });
});

describe('traffic pipeline', () => {
  let first: Traffic[] = [];

  it('should deliver exactly the matching events with only the selected fields, and dead-letter malformed records', async () => {
    first = await produceTraffic(0, 10_000);
    const bad = malformedMessages(40);
    await produce(kafka, `${prefix}.http`, bad.slice(0, 20));
    await produce(kafka, `${prefix}.tcp`, bad.slice(20));
    await produceTraffic(10_000, 10_100); // after the poison, everything still flows

    const all = first;
    const want1 = all.filter((t) => t.type === 'http_request_complete.v0' && s1Reference(t));
    const want2 = all.filter((t) => t.type === 'tcp_connection_closed.v0' && s2Reference(t));
    expect(want1.length).toBeGreaterThan(1000);
    expect(want2.length).toBeGreaterThan(1000);

    await waitFor('the kafka destination', () => seqSet(kafkaOut, s1Seq, 0, 10_000).size >= want1.length);
    await waitFor('the file destination', () => seqSet(fileOut(), s2Seq, 0, 10_000).size >= want2.length);
    expectExactly(kafkaOut, s1Seq, want1, 0, 10_000);
    expectExactly(fileOut(), s2Seq, want2, 0, 10_000);

    // Content: only the selected fields, nested by path, in the envelope.
    const bySeq = new Map(first.map((t) => [t.seq, t]));
    for (const d of kafkaOut.filter((x) => s1Seq(x) < 10_000)) {
      expect(d.event_type).toBe('http_request_complete.v0');
      expect(d.event_id).toMatch(/^ev_[0-9A-Z]{26}$/);
      expect(d.principal).toBeNull();
      expect(d.object).toEqual(s1Projection(bySeq.get(s1Seq(d)) as Traffic));
    }
    for (const d of fileOut().filter((x) => s2Seq(x) < 10_000)) {
      expect(d.event_type).toBe('tcp_connection_closed.v0');
      expect(d.object).toEqual(s2Projection(bySeq.get(s2Seq(d)) as Traffic));
    }

    await waitFor('the dead letters', () => dlq.length >= 40);
    expect(dlq).toHaveLength(40);
    for (const letter of dlq) {
      expect(letter.headers['x-source-topic']).toMatch(new RegExp(`^${prefix}\\.(http|tcp)$`));
      expect(Number(letter.headers['x-source-offset'])).toBeGreaterThanOrEqual(0);
      expect(letter.headers['x-error-code']).toMatch(/^[a-z_]+$/);
      expect(letter.headers['x-error-message']?.length).toBeGreaterThan(0);
    }
    expect(new Set(dlq.map((l) => l.key))).toEqual(new Set(bad.map((m) => m.key)));
    // A header given twice is two headers of the dead letter, in their order.
    const hops = dlq.filter((l) => Number(l.key?.slice(4)) % 4 === 0).map((l) => l.headerList.filter(([name]) => name === 'x-hop'));
    expect(hops).toEqual(Array.from({ length: 10 }, () => [['x-hop', 'edge-1'], ['x-hop', 'edge-2']]));
    const later = [10_000, 10_100];
    await waitFor('the records after the poison', () => seqSet(fileOut(), s2Seq, later[0] as number, later[1] as number).size > 0);
  });

  it('should apply a filter changed mid-stream within a second', async () => {
    await configLog.write([{ id: s1(S1_FILTER_CHANGED).id, kind: 'event_subscription', data: s1(S1_FILTER_CHANGED) }]);
    await new Promise((r) => setTimeout(r, 1_000));
    const batch = await produceTraffic(20_000, 22_000);
    const want = batch.filter((t) => t.type === 'http_request_complete.v0' && s1ChangedReference(t));
    expect(want.length).toBeGreaterThan(50);
    await waitFor('the changed filter', () => seqSet(kafkaOut, s1Seq, 20_000, 22_000).size >= want.length);
    await waitFor('the tcp side', () => seqSet(fileOut(), s2Seq, 20_000, 22_000).size >= batch.filter((t) => t.type === 'tcp_connection_closed.v0' && s2Reference(t)).length);
    expectExactly(kafkaOut, s1Seq, want, 20_000, 22_000);
  });

  it('should lose nothing when the worker is stopped with SIGTERM mid-stream and restarted', async () => {
    const batch = await produceTraffic(30_000, 40_000);
    const want1 = batch.filter((t) => t.type === 'http_request_complete.v0' && s1ChangedReference(t));
    const want2 = batch.filter((t) => t.type === 'tcp_connection_closed.v0' && s2Reference(t));
    expect(want2.length).toBeGreaterThan(1000);
    await waitFor('the first deliveries of the batch', () => seqSet(fileOut(), s2Seq, 30_000, 40_000).size > 0);
    const worker = workers.shift() as ServiceProcess;
    expect(await worker.stop('SIGTERM')).toBe(0);
    expect(worker.logs.some((l) => l.includes('The service stopped.'))).toBe(true);
    workers.push(await startService(env));
    await waitFor('every s1 event after the restart', () => seqSet(kafkaOut, s1Seq, 30_000, 40_000).size >= want1.length);
    await waitFor('every s2 event after the restart', () => seqSet(fileOut(), s2Seq, 30_000, 40_000).size >= want2.length);
    expectExactly(kafkaOut, s1Seq, want1, 30_000, 40_000);
    expectExactly(fileOut(), s2Seq, want2, 30_000, 40_000);
  });

  it('should share the partitions between two workers in one group that together deliver everything', async () => {
    workers.push(await startService(env));
    const [a, b] = workers as [ServiceProcess, ServiceProcess];
    await waitFor('both workers to join the group', () => [a, b].every((w) => w.logs.some((l) => l.includes('The worker joined its consumer group.'))), 60_000);
    const batch = await produceTraffic(50_000, 60_000);
    const want1 = batch.filter((t) => t.type === 'http_request_complete.v0' && s1ChangedReference(t));
    const want2 = batch.filter((t) => t.type === 'tcp_connection_closed.v0' && s2Reference(t));
    expect(want2.length).toBeGreaterThan(1000);
    await waitFor('every s1 event', () => seqSet(kafkaOut, s1Seq, 50_000, 60_000).size >= want1.length);
    await waitFor('every s2 event', () => seqSet(fileOut(), s2Seq, 50_000, 60_000).size >= want2.length);
    expectExactly(kafkaOut, s1Seq, want1, 50_000, 60_000);
    expectExactly(fileOut(), s2Seq, want2, 50_000, 60_000);
    const consumed = await Promise.all(
      [a, b].map(async (w) => {
        const text = await (await fetch(`${w.url}/metrics`)).text();
        return text
          .split('\n')
          .filter((l) => l.startsWith('edge_records_consumed_total'))
          .reduce((n, l) => n + Number(l.split(' ').pop()), 0);
      }),
    );
    expect(consumed[0]).toBeGreaterThan(0);
    expect(consumed[1]).toBeGreaterThan(0);
  });
});
