// The object_store writer against the AWS emulator's S3, read back with a standard S3 client: keys and
// their placeholders, gzip NDJSON and plain CSV byte for byte, one object per batch within the upload
// limits, role auth with the account's ExternalId, and the create-time check.
import { afterEach, describe, expect, it } from 'vitest';
import type { DeliveryItem } from '../../../src/delivery/contract.js';
import { DestinationRunner } from '../../../src/delivery/destination-runner.js';
import { objectStoreKind } from '../../../src/delivery/destinations/object-store/object-store-kind.js';
import { InFlightBudget } from '../../../src/delivery/in-flight-budget.js';
import { createWriter } from '../../../src/delivery/writer-registry.js';
import { makeEnvelope } from '../../../src/events/envelope.js';
import { OPERATOR, accountContext, type AccountContext } from '../../../src/accounts/account.js';
import { AwsFaultProxy } from '../../support/aws-fault-proxy.js';
import { MOTO_ACCOUNT } from '../../support/moto.js';
import { writerDeps } from '../../support/writer-deps.js';
import { describeWriterContract, RecordingDeadLetters, testItems } from '../delivery/writer-contract.js';
import { motoEndpoint } from '../cloud/cloud-fixtures.js';
import { TestBucket } from './bucket.js';

const deps = writerDeps({ cloud: { timeoutMs: 5_000 } });

function writerFor(bucket: TestBucket, extra: Record<string, unknown> = {}, account: AccountContext = OPERATOR) {
  return createWriter({ object_store: bucket.target(extra) }, deps, account);
}

function item(eventType: string, object: Record<string, unknown>, time: string, eventId: string): DeliveryItem {
  const envelope = makeEnvelope(eventType, object, { timestamp: new Date(time), eventId });
  return { eventId, payload: Buffer.from(JSON.stringify(envelope)), envelope };
}

const TCP = 'tcp_connection_closed.v0';
const HTTP = 'http_request_complete.v0';
const first = item(TCP, { conn: { client_ip: '192.0.2.7', server_port: 443 }, ip_policy: { decision: 'say "hi", then\nleave' } }, '2026-11-26T10:00:00.000Z', 'ev_1');
const second = item(TCP, { conn: { client_ip: '2001:db8::1', server_port: 80 }, traffic_policy: { logs: [{ a: 'b' }] } }, '2026-11-26T10:00:01.000Z', 'ev_2');
const third = item(HTTP, { http: { request: { method: 'GET' } } }, '2026-11-26T10:00:02.000Z', 'ev_3');

const NAME = /\d{8}T\d{9}Z-[0-9a-f]{16}/;
const utc = (d: Date) => ({ date: d.toISOString().slice(0, 10), hour: d.toISOString().slice(11, 13) });

let proxy: AwsFaultProxy | undefined;
afterEach(async () => {
  await proxy?.stop();
  proxy = undefined;
});

describe('object_store objects', () => {
  it('should write gzip NDJSON by default, one object per event type under the expanded prefix, the exact envelope lines inside', async () => {
    const bucket = await TestBucket.create('ndjson');
    const writer = writerFor(bucket, { prefix: 'edge/{account_id}/{event_type}/dt={date}/h={hour}/' });
    const before = new Date();
    expect(await writer.write([first, third, second])).toEqual({ failed: [] });
    const after = new Date();
    await writer.close();
    const objects = await bucket.objects();
    expect(objects).toHaveLength(2);
    const when = [utc(before), utc(after)];
    const keyOf = (type: string) => objects.find((o) => o.key.includes(`/${type}/`))!;
    for (const [type, lines] of [
      [TCP, [first, second]],
      [HTTP, [third]],
    ] as const) {
      const o = keyOf(type);
      const key = new RegExp(`^edge/${OPERATOR.accountId}/${type.replace('.', '\\.')}/dt=(\\d{4}-\\d{2}-\\d{2})/h=(\\d{2})/${NAME.source}\\.ndjson\\.gz$`);
      const m = key.exec(o.key);
      expect(m, o.key).not.toBeNull();
      expect(when).toContainEqual({ date: m![1], hour: m![2] });
      expect(o.contentType).toBe('application/gzip');
      // gzip magic bytes, then the envelopes one per line.
      expect([...o.raw.subarray(0, 2)]).toEqual([0x1f, 0x8b]);
      expect(o.text).toBe(lines.map((i) => `${i.payload.toString('utf8')}\n`).join(''));
    }
  });

  it('should write one object per subscription under a prefix naming {subscription_id}, a test event (no subscription) under test', async () => {
    const bucket = await TestBucket.create('bysub');
    const writer = writerFor(bucket, { prefix: 'subs/{subscription_id}/', compression: 'none' });
    const ofA = { ...first, subscriptionId: 'esb_A' };
    const ofB = { ...second, subscriptionId: 'esb_B' };
    const alsoA = { ...third, subscriptionId: 'esb_A' };
    const testEvent = item('test_event.v0', { message: 'a test event' }, '2026-11-26T10:00:03.000Z', 'ev_test');
    expect(await writer.write([ofA, ofB, testEvent, alsoA])).toEqual({ failed: [] });
    await writer.close();
    const objects = await bucket.objects();
    const under = (dir: string) => objects.filter((o) => new RegExp(`^subs/${dir}/${NAME.source}\\.ndjson$`).test(o.key)).map((o) => o.text);
    expect(objects).toHaveLength(3);
    expect(under('esb_A')).toEqual([`${first.payload.toString('utf8')}\n${third.payload.toString('utf8')}\n`]);
    expect(under('esb_B')).toEqual([`${second.payload.toString('utf8')}\n`]);
    expect(under('test')).toEqual([`${testEvent.payload.toString('utf8')}\n`]);
  });

  it('should write plain CSV with a header line, dotted column names and RFC 4180 quoting', async () => {
    const bucket = await TestBucket.create('csv');
    const writer = writerFor(bucket, { prefix: 'csv/', output_type: 'csv', compression: 'none' });
    await writer.write([first, second]);
    await writer.close();
    const [o, ...rest] = await bucket.objects();
    expect(rest).toEqual([]);
    expect(o!.key).toMatch(new RegExp(`^csv/${NAME.source}\\.csv$`));
    expect(o!.contentType).toBe('text/csv; charset=utf-8');
    expect(o!.text).toBe(
      'event_id,event_type,event_timestamp,principal,object.conn.client_ip,object.conn.server_port,object.ip_policy.decision,object.traffic_policy.logs\r\n' +
        'ev_1,tcp_connection_closed.v0,2026-11-26T10:00:00.000Z,,192.0.2.7,443,"say ""hi"", then\nleave",\r\n' +
        'ev_2,tcp_connection_closed.v0,2026-11-26T10:00:01.000Z,,2001:db8::1,80,,"[{""a"":""b""}]"\r\n',
    );
  });

  it('should keep a CSV object to the catalogue\'s columns and within max_upload_bytes, whatever header names the visitors sent', async () => {
    const bucket = await TestBucket.create('csv-bounds');
    const writer = writerFor(bucket, { prefix: 'b/', output_type: 'csv', compression: 'none', max_upload_bytes: 16 * 1024 });
    const deadLetters = new RecordingDeadLetters();
    const runner = new DestinationRunner({ destinationId: 'ed_csv_bounds', writer, budget: new InFlightBudget(), deadLetter: deadLetters, onSettled: () => undefined });
    runner.start();
    // 200 events, each with 40 header names of its own: 8,000 distinct names, about 180 KB as NDJSON.
    const items = Array.from({ length: 200 }, (_, n) => {
      const headers = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`X-Visitor-${n}-${i}`, [`=cmd|' /C calc'!A${i}`]]));
      return item(HTTP, { http: { request: { headers, method: 'get' } } }, '2026-11-26T10:00:02.000Z', `ev_${String(n).padStart(3, '0')}`);
    });
    for (const i of items) runner.enqueue(i);
    await runner.flush();
    await runner.close();
    expect(deadLetters.letters).toEqual([]);
    const objects = await bucket.objects();
    const header = 'event_id,event_type,event_timestamp,principal,object.http.request.headers,object.http.request.method';
    const ids: string[] = [];
    for (const o of objects) {
      expect(Buffer.byteLength(o.text)).toBeLessThanOrEqual(16 * 1024);
      const lines = o.text.split('\r\n').slice(0, -1);
      expect(lines[0]).toBe(header);
      for (const line of lines.slice(1)) ids.push(line.slice(0, 6));
    }
    expect(ids.sort()).toEqual(items.map((i) => i.eventId));
  });

  it('should give every write its own key, sorted by time, so a batch written again never replaces the first', async () => {
    const bucket = await TestBucket.create('keys');
    const writer = writerFor(bucket, { prefix: 'k/' });
    for (let i = 0; i < 5; i++) await writer.write([first]);
    await writer.close();
    const keys = (await bucket.objects()).map((o) => o.key);
    expect(keys).toHaveLength(5);
    expect(new Set(keys).size).toBe(5);
  });

  it('should cut one object per batch within max_upload_records and max_upload_bytes', async () => {
    const bucket = await TestBucket.create('limits');
    const writer = writerFor(bucket, { prefix: 'l/', max_upload_records: 5, max_upload_bytes: 2048 });
    const runner = new DestinationRunner({ destinationId: 'ed_limits', writer, budget: new InFlightBudget(), deadLetter: new RecordingDeadLetters(), onSettled: () => undefined });
    runner.start();
    const small = testItems(12);
    for (const i of small) runner.enqueue(i);
    await runner.flush();
    const counts = (await bucket.objects()).map((o) => o.text.split('\n').filter(Boolean).length);
    expect(counts.sort()).toEqual([2, 5, 5]);
    // About 900 bytes each: two fit 2,048 bytes, a third does not.
    const big = testItems(5, 700);
    for (const i of big) runner.enqueue(i);
    await runner.flush();
    await runner.close();
    const objects = await bucket.objects();
    const bigObjects = objects.filter((o) => big.some((i) => o.text.includes(i.eventId)));
    for (const o of bigObjects) expect(Buffer.byteLength(o.text)).toBeLessThanOrEqual(2048);
    expect(bigObjects.map((o) => o.text.split('\n').filter(Boolean).length).sort()).toEqual([1, 2, 2]);
    expect(new Set(objects.flatMap((o) => o.text.split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { event_id: string }).event_id)))).toEqual(
      new Set([...small, ...big].map((i) => i.eventId)),
    );
  });

  it('should write an event larger than max_upload_bytes as an object of its own, never dead-letter it for that', async () => {
    const bucket = await TestBucket.create('oversized');
    const writer = writerFor(bucket, { prefix: 'o/', max_upload_bytes: 1024 });
    const deadLetters = new RecordingDeadLetters();
    const runner = new DestinationRunner({ destinationId: 'ed_oversized', writer, budget: new InFlightBudget(), deadLetter: deadLetters, onSettled: () => undefined });
    runner.start();
    // About 1,800 bytes each: above the 1,024 an object is cut at, far below what S3 takes in one object.
    const items = [...testItems(1), ...testItems(2, 1600), ...testItems(1)];
    for (const i of items) runner.enqueue(i);
    await runner.flush();
    await runner.close();
    expect(deadLetters.letters.map((l) => l.errorCode)).toEqual([]);
    const objects = await bucket.objects();
    expect(new Set((await bucket.events()).map((e) => e.event_id))).toEqual(new Set(items.map((i) => i.eventId)));
    for (const o of objects.filter((o) => Buffer.byteLength(o.text) > 1024)) expect(o.text.split('\n').filter(Boolean)).toHaveLength(1);
  });

  it('should write what it holds once max_upload_interval_seconds has passed, without a flush', async () => {
    const bucket = await TestBucket.create('interval');
    const writer = writerFor(bucket, { prefix: 'i/', max_upload_interval_seconds: 1 });
    const runner = new DestinationRunner({ destinationId: 'ed_interval', writer, budget: new InFlightBudget(), deadLetter: new RecordingDeadLetters(), onSettled: () => undefined });
    runner.start();
    const items = testItems(3);
    for (const i of items) runner.enqueue(i);
    const got = await bucket.eventsAtLeast(3, 10_000);
    expect(new Set(got.map((e) => e.event_id))).toEqual(new Set(items.map((i) => i.eventId)));
    expect(await bucket.objects()).toHaveLength(1);
    await runner.close();
  });

  it("should assume the role through STS, passing the destination's account id as ExternalId, and write with the role's credentials", async () => {
    const bucket = await TestBucket.create('role');
    proxy = new AwsFaultProxy(motoEndpoint());
    await proxy.start();
    const account = accountContext('acct_01kw0objstore00000000000001');
    const roleArn = `arn:aws:iam::${MOTO_ACCOUNT}:role/edge-events-objects`;
    const writer = createWriter(
      { object_store: { auth: { role: { role_arn: roleArn } }, bucket: bucket.name, endpoint: proxy.endpoint } },
      writerDeps({ egress: deps.egress, cloud: { timeoutMs: 5_000, stsEndpoint: proxy.endpoint, baseCredentials: () => Promise.resolve({ accessKeyId: 'AKIAEDGEEVENTSBASE01', secretAccessKey: 'b' }) } }),
      account,
    );
    await writer.write([first]);
    await writer.close();
    expect(proxy.queryCalls.filter((c) => c.Action === 'AssumeRole').map((c) => [c.RoleArn, c.ExternalId])).toEqual([[roleArn, account.accountId]]);
    const puts = proxy.accessKeys.filter((k) => k.operation === '' && k.accessKeyId.startsWith('ASIA'));
    expect(puts.length).toBeGreaterThanOrEqual(1);
    expect((await bucket.events()).map((e) => e.event_id)).toEqual(['ev_1']);
  });
});

describe('object_store create-time check', () => {
  const parse = (target: Record<string, unknown>) => {
    const r = objectStoreKind.parse(target, 'target.object_store', OPERATOR, deps.egress);
    if (!r.ok) throw new Error(r.problems.map((p) => p.message).join(' '));
    return r.config;
  };

  it('should pass for a bucket the credentials can write to, leaving one check object under the prefix, named for query engines to skip', async () => {
    const bucket = await TestBucket.create('check');
    expect(await objectStoreKind.verify!(parse(bucket.target({ prefix: 'p/{event_type}/' })), deps, OPERATOR)).toEqual([]);
    const objects = await bucket.objects();
    expect(objects.map((o) => o.key)).toEqual([expect.stringMatching(new RegExp(`^p/_edge_events_check/_edge-events-check-${NAME.source}$`))]);
  });

  it('should pass credentials that may write objects but not read the bucket (HeadBucket 403, unnamed as S3 answers a HEAD) on its test write, and keep them healthy', async () => {
    const bucket = await TestBucket.create('putonly');
    proxy = new AwsFaultProxy(motoEndpoint());
    await proxy.start();
    proxy.script = (call) => (call.method === 'HEAD' ? { status: 403, error: '' } : undefined);
    const config = parse(bucket.target({}, proxy.endpoint));
    expect(await objectStoreKind.verify!(config, deps, OPERATOR)).toEqual([]);
    expect((await bucket.objects()).map((o) => o.key)).toEqual([expect.stringMatching(/(^|\/)_edge-events-check-[^/]+$/)]);
    // The re-driver asks the same question before it sends parked events again.
    const writer = createWriter({ object_store: bucket.target({}, proxy.endpoint) }, deps, OPERATOR);
    try {
      await writer.healthcheck?.();
    } finally {
      await writer.close();
    }
    expect(proxy.faults.map((f) => f.fault)).toEqual(['403 ', '403 ']);
  });

  it("should answer a missing bucket with the store's error on the bucket field", async () => {
    const bucket = await TestBucket.create('gone');
    const problems = await objectStoreKind.verify!(parse(bucket.target({ bucket: `${bucket.name}-missing` })), deps, OPERATOR);
    expect(problems.map((p) => [p.code, p.field, p.deliveryCode])).toEqual([['destination_check_failed', 'target.object_store.bucket', 'DESTINATION_NOT_FOUND']]);
    expect(String(problems[0]?.details.error)).toBe('NoSuchBucket');
    // HeadBucket's 404 has no body: the reason says what it means, not the SDK's "UnknownError".
    expect(String(problems[0]?.details.reason)).toBe(`The bucket ${bucket.name}-missing does not exist.`);
  });

  it('should answer an unreachable endpoint with the network error', async () => {
    const bucket = await TestBucket.create('down');
    proxy = new AwsFaultProxy(motoEndpoint());
    await proxy.start();
    const endpoint = proxy.endpoint;
    await proxy.stop();
    const problems = await objectStoreKind.verify!(parse(bucket.target({}, endpoint)), deps, OPERATOR);
    expect(problems.map((p) => [p.code, p.field, p.deliveryCode])).toEqual([['destination_check_failed', 'target.object_store.bucket', 'DESTINATION_UNREACHABLE']]);
  });
});

describeWriterContract('object_store', async () => {
  const bucket = await TestBucket.create('contract');
  const p = new AwsFaultProxy(motoEndpoint());
  await p.start();
  // The destination's own linger replaces the runner's: the shortest interval, so batches go without a flush.
  const limits = { max_upload_records: 500, max_upload_bytes: 1024 * 1024, max_upload_interval_seconds: 1 };
  return {
    createWriter: async () => createWriter({ object_store: bucket.target({ endpoint: p.endpoint, ...limits }) }, deps, OPERATOR),
    readBack: (atLeast) => bucket.eventsAtLeast(atLeast),
    disrupt: () => p.stop(),
    restore: () => p.start(),
    cleanup: () => p.stop(),
  };
});
