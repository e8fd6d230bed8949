// What subscription owners control, end to end on the real broker with two worker processes in one group
// (the first also serves the API): pausing and resuming, sampling, timestamp formats, and the live tap.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeRecord } from '../../../src/records/record-encoder.js';
import { seededRecord } from '../../../src/traffic/seeded-records.js';
import { consumeUntil, produce, testBrokers, testClient, toolProducer, toolRecord, uniqueName } from '../../support/kafka.js';
import { serviceEnv, startService, type ServiceProcess } from '../../support/service-process.js';
import { TopicCollector } from '../../support/topic-collector.js';
import { request } from '../admin/admin-harness.js';
import { openTap } from './tap-support.js';

/** API bodies and delivered envelopes, read loosely. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const TCP = 'tcp_connection_closed.v0';
const TOKEN = `eek_ctl${Date.now().toString(36)}operatorToken0000000`;
const prefix = uniqueName('ctl');
const kafka = testClient('controls-test');
const services: ServiceProcess[] = [];
let api: ServiceProcess;
let collector: TopicCollector;
const out = (name: string): string => `${prefix}.out.${name}`;
const OUTPUTS = ['pause', 'control', 'rfc3339', 'unix', 'unixmilli', 'unixnano', 'tap-dest', 'tap-other', 'sample-dest', 'sample-control'];
/** Each output's destination id. */
const dests = new Map<string, string>();
const dest = (name: string): string => dests.get(name) as string;
let seq = 0;

async function call(token: string, method: string, path: string, body?: unknown): Promise<Json> {
  const r = await request(api.url, method, path, { token, body });
  if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${r.text}`);
  return r.json;
}

/** `count` TCP records on `port` (bytes_in carries a sequence number), spread over every partition by key. */
async function send(port: number, count: number, serverName = 'plain.example'): Promise<number[]> {
  const seqs = Array.from({ length: count }, () => ++seq);
  await produce(
    kafka,
    `${prefix}.tcp`,
    seqs.map((s) => {
      const record = seededRecord(TCP, s) as Record<string, Record<string, unknown>>;
      Object.assign(record.conn as object, { server_port: port, server_name: serverName, bytes_in: s });
      const encoded = encodeRecord(TCP, record, 'avro');
      return { key: String(s), value: encoded.value, headers: { ...encoded.headers } as Record<string, string> };
    }),
  );
  return seqs;
}

const at = (name: string): Json[] => collector.messages.filter((m) => m.topic === out(name)).map((m) => JSON.parse(m.value) as Json);
const seqsAt = (name: string): number[] => at(name).map((e) => Number(e.object.conn.bytes_in)).sort((a, b) => a - b);

async function waitFor(what: string, check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function destination(name: string): Promise<void> {
  const format = name.startsWith('unix') || name === 'rfc3339' ? { timestamp_format: name } : {};
  dests.set(name, (await call(TOKEN, 'POST', '/event_destinations', { target: { kafka: { topic: out(name) } }, ...format })).id as string);
}

async function subscription(port: number, destinations: string[], source: Record<string, unknown> = {}): Promise<Json> {
  return call(TOKEN, 'POST', '/event_subscriptions', {
    sources: [{ type: TCP, fields: ['conn.bytes_in', 'conn.start_ts', 'conn.end_ts'], filter: `ev.conn.server_port == ${port}`, ...source }],
    destination_ids: destinations,
  });
}

beforeAll(async () => {
  // The TCP address pool holds the one hostport the tap test's account reserves for its edge.
  const env = serviceEnv(prefix, testBrokers(), {
    API_BOOTSTRAP_TOKEN: TOKEN,
    DRAIN_TIMEOUT_MS: '2000',
    CONSUMER_SESSION_TIMEOUT_MS: '6000',
    TCP_ADDRESS_HOSTS: '1.tcp.tapper.test',
    TCP_ADDRESS_PORTS: '7005',
  });
  api = await startService(env);
  services.push(api, await startService({ ...env, ROLES: 'worker' }));
  collector = new TopicCollector(kafka, OUTPUTS.map(out));
  for (const name of OUTPUTS) await destination(name);
  await collector.start();
}, 180_000);

afterAll(async () => {
  await Promise.allSettled(services.map((s) => s.stop('SIGKILL')));
  await collector?.stop();
});

describe('pause and resume', () => {
  it('a paused subscription should deliver nothing, not even later, and deliver again once resumed, each change within 1 s on both workers', async () => {
    const paused = await subscription(7001, [dest('pause')]);
    await subscription(7001, [dest('control')]);
    expect(paused.enabled).toBe(true);

    const off = await call(TOKEN, 'PATCH', `/event_subscriptions/${paused.id}`, { enabled: false });
    expect(off.enabled).toBe(false);
    await new Promise((r) => setTimeout(r, 1000));
    const whilePaused = await send(7001, 30);
    await waitFor('the control subscription to receive the records sent while paused', () => seqsAt('control').length >= 30);

    await call(TOKEN, 'PATCH', `/event_subscriptions/${paused.id}`, { enabled: true });
    await new Promise((r) => setTimeout(r, 1000));
    const resumed = await send(7001, 30);
    await waitFor('the control subscription to receive the records sent after the resume', () => seqsAt('control').length >= 60);
    await waitFor('the resumed subscription to receive them', () => seqsAt('pause').length >= 30);
    await new Promise((r) => setTimeout(r, 1000));
    expect(seqsAt('control')).toEqual([...whilePaused, ...resumed]);
    expect(seqsAt('pause')).toEqual(resumed);
  }, 60_000);
});

describe('timestamp formats', () => {
  it('each destination should write event_timestamp and the timestamp fields in its own format', async () => {
    const formats = ['rfc3339', 'unix', 'unixmilli', 'unixnano'] as const;
    const got = await call(TOKEN, 'GET', `/event_destinations/${dest('unix')}`);
    expect(got.timestamp_format).toBe('unix');
    await subscription(7002, formats.map(dest));
    const seqs = await send(7002, 5);
    await waitFor('every format to receive every record', () => formats.every((f) => at(f).length >= seqs.length));

    for (const s of seqs) {
      const [text, unix, milli, nano] = formats.map((f) => at(f).find((e) => e.object.conn.bytes_in === s));
      // The reference: microseconds read from the RFC 3339 text by hand (six fraction digits, "Z").
      const micros = (t: string): bigint => BigInt(Date.parse(`${t.slice(0, 19)}Z`)) * 1000n + BigInt((t.split('.')[1] ?? '0Z').replace('Z', '').padEnd(6, '0').slice(0, 6));
      for (const [field, value] of [['event_timestamp', text.event_timestamp], ['start_ts', text.object.conn.start_ts], ['end_ts', text.object.conn.end_ts]] as const) {
        expect(typeof value, field).toBe('string');
        const us = micros(value as string);
        const pick = (e: Json): unknown => (field === 'event_timestamp' ? e.event_timestamp : e.object.conn[field]);
        expect(pick(unix), field).toBe(Number(us) / 1e6);
        expect(pick(milli), field).toBe(Number(us / 1000n));
        expect(pick(nano), field).toBe((us * 1000n).toString());
      }
      expect(text.event_timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    }
  }, 60_000);
});

describe('the live tap', () => {
  it('a tap opened before records are produced should receive them from both workers within 2 s, as the destination does, and end at its limit', async () => {
    const sub = await subscription(7004, [dest('tap-dest')]);
    const tap = await openTap(api.url, TOKEN, 'GET', `/event_subscriptions/${sub.id}/tap?limit=40&seconds=60`);
    expect(tap.status).toBe(200);
    await tap.comment((t) => t === 'listening on 2 of 2 workers');
    const sentAt = Date.now();
    const seqs = await send(7004, 40);
    await tap.ended;
    const events = tap.events().map((d) => JSON.parse(d) as Json);
    expect(events.map((e) => e.object.conn.bytes_in).sort((a: number, b: number) => a - b)).toEqual(seqs);
    const last = tap.items.filter((i) => i.kind === 'data').at(-1)?.at ?? Infinity;
    expect(last - sentAt).toBeLessThan(2000);
    await tap.comment((t) => t.includes('limit of 40 events was reached'), 100);
    // Each tapped event is the one its (first) destination receives, event id and all.
    await waitFor('the destination to receive the records', () => at('tap-dest').length >= seqs.length);
    expect(new Set(events.map((e) => e.event_id as string))).toEqual(new Set(at('tap-dest').map((e) => e.event_id as string)));
  }, 60_000);

  it('POST /tap should refuse an invalid filter with the same 400 as create, naming line and column', async () => {
    const r = await request(api.url, 'POST', '/tap', { token: TOKEN, body: { type: TCP, fields: ['conn.bytes_in'], filter: 'ev.conn.server_port ==' } });
    expect(r.status).toBe(400);
    const body = r.json as Json;
    expect(body.error_code).toBe('invalid_filter');
    expect(body.details.line).toBe(1);
    expect(typeof body.details.column).toBe('number');
  });

  it("a tap should see only what its key may see: another account's subscription is 404 and its own tap gets its own records only", async () => {
    const account = await call(TOKEN, 'POST', '/accounts', { description: 'tapper' });
    const token = (await call(TOKEN, 'POST', '/api_keys', { account_id: account.id })).token as string;
    const sub = await subscription(7005, [dest('tap-other')]);
    const other = await request(api.url, 'GET', `/event_subscriptions/${sub.id}/tap?seconds=1`, { token });
    expect(other.status).toBe(404);
    expect((other.json as Json).error_code).toBe('not_found');

    // A TCP edge lists only addresses its account reserved (the pool's one, above).
    const reserved = await call(token, 'POST', '/reserved_addrs', { description: 'tapper' });
    expect(reserved.addr).toBe('1.tcp.tapper.test:7005');
    await call(token, 'POST', '/edges/tcp', { hostports: [reserved.addr] });
    const tap = await openTap(api.url, token, 'POST', '/tap?seconds=4', { type: TCP, fields: ['conn.bytes_in', 'conn.server_name'], filter: 'ev.conn.server_port == 7005' });
    expect(tap.status).toBe(200);
    await tap.comment((t) => t.startsWith('listening on'));
    const own = await send(7005, 5, '1.tcp.tapper.test');
    await send(7005, 5, 'nobody.example');
    await tap.ended;
    expect(tap.events().map((d) => (JSON.parse(d) as Json).object.conn.bytes_in).sort((a: number, b: number) => a - b)).toEqual(own);
  }, 60_000);
});

describe('records whose time no event can carry', () => {
  it('a record whose Kafka timestamp is outside the years 0000 to 9999 should be dead-lettered while a tap is open, and the records after it delivered once, to the tap too', async () => {
    const port = 7009;
    const sub = await subscription(port, [dest('tap-other')]);
    const tap = await openTap(api.url, TOKEN, 'GET', `/event_subscriptions/${sub.id}/tap?seconds=60&limit=3`);
    await tap.comment((t) => t === 'listening on 2 of 2 workers');
    const record = (s: number): { key: string; value: Buffer; headers: Record<string, string> } => {
      const r = seededRecord(TCP, s) as Record<string, Record<string, unknown>>;
      Object.assign(r.conn as object, { server_port: port, server_name: 'plain.example', bytes_in: s });
      const encoded = encodeRecord(TCP, r, 'avro');
      return { key: 'one-partition', value: encoded.value, headers: { ...encoded.headers } as Record<string, string> };
    };
    // Beyond what Date holds (about 2.7e5 years either side), and the year -1. A time more than an hour
    // ahead the broker refuses itself (log.message.timestamp.after.max.ms); the router's unit test has those.
    const times = [-9_000_000_000_000_000, Date.parse('-000001-06-01T00:00:00.000Z')];
    const bad = times.map(() => ++seq);
    const good = [++seq, ++seq, ++seq];
    const producer = toolProducer(testBrokers(), 'out-of-range-times');
    try {
      // One key, so one partition: the good records come after the bad ones in it. Two sends, since the
      // client library writes a batch's later timestamps as deltas it cannot hold across 9e15 ms.
      await producer.send({ messages: bad.map((s, i) => toolRecord(`${prefix}.tcp`, { ...record(s), timestamp: times[i] as number })) });
      await producer.send({ messages: good.map((s) => toolRecord(`${prefix}.tcp`, record(s))) });
    } finally {
      await producer.close();
    }
    await waitFor('the records after the bad ones', () => good.every((s) => seqsAt('tap-other').includes(s)));
    const letters = await consumeUntil(kafka, { topics: [`${prefix}.dlq`], until: (got) => got.filter((m) => m.headers['x-source-topic'] === `${prefix}.tcp`).length >= times.length, timeoutMs: 30_000 });
    const ours = letters.filter((m) => m.headers['x-source-topic'] === `${prefix}.tcp`);
    expect(ours.map((m) => m.headers['x-error-code'])).toEqual(times.map(() => 'invalid_record_timestamp'));
    expect(ours[0]?.headers['x-error-message']).toMatch(/Kafka timestamp -9000000000000000 .*0000.*9999/);
    // Delivered once each: a crashed consumer would have read them again.
    await new Promise((r) => setTimeout(r, 1000));
    expect(seqsAt('tap-other').filter((s) => good.includes(s) || bad.includes(s))).toEqual(good);
    await tap.ended;
    expect(tap.events().map((d) => (JSON.parse(d) as Json).object.conn.bytes_in).sort((a: number, b: number) => a - b)).toEqual(good);
  });
});

describe('taps of what is gone', () => {
  it('a tap should end within seconds once its API key is deleted, and a subscription\'s tap once the subscription is deleted, saying why', async () => {
    const account = await call(TOKEN, 'POST', '/accounts', { description: 'revoked tapper' });
    const key = await call(TOKEN, 'POST', '/api_keys', { account_id: account.id });
    const byKey = await openTap(api.url, key.token as string, 'POST', '/tap?seconds=60', { type: TCP, fields: ['conn.bytes_in'], filter: 'ev.conn.server_port == 7006' });
    expect(byKey.status).toBe(200);
    await byKey.comment((t) => t.startsWith('tap '));
    const sub = await subscription(7007, [dest('tap-other')]);
    const bySub = await openTap(api.url, TOKEN, 'GET', `/event_subscriptions/${sub.id}/tap?seconds=60`);
    expect(bySub.status).toBe(200);
    await bySub.comment((t) => t.startsWith('tap '));

    const deleted = Date.now();
    await request(api.url, 'DELETE', `/api_keys/${key.id}`, { token: TOKEN });
    await request(api.url, 'DELETE', `/event_subscriptions/${sub.id}`, { token: TOKEN });
    const endOf = async (tap: Awaited<ReturnType<typeof openTap>>): Promise<string> => {
      const item = await tap.comment((t) => t.startsWith('the tap ended'), 10_000);
      return item.kind === 'comment' ? item.text : '';
    };
    expect(await endOf(byKey)).toBe('the tap ended: its API key was deleted');
    expect(await endOf(bySub)).toBe('the tap ended: its subscription was deleted');
    await Promise.all([byKey.ended, bySub.ended]);
    expect(Date.now() - deleted).toBeLessThan(10_000);
  }, 60_000);
});

describe('taps an account may hold', () => {
  it('an account should have at most 20 live taps open on a process, and another account its own beside them', async () => {
    const account = await call(TOKEN, 'POST', '/accounts', { description: 'greedy tapper' });
    const token = (await call(TOKEN, 'POST', '/api_keys', { account_id: account.id })).token as string;
    const source = { type: TCP, fields: ['conn.bytes_in'], filter: 'ev.conn.server_port == 7008' };
    const taps = [];
    for (let i = 0; i < 20; i++) taps.push(await openTap(api.url, token, 'POST', '/tap?seconds=8', source));
    expect(taps.map((t) => t.status)).toEqual(Array.from({ length: 20 }, () => 200));
    const refused = await request(api.url, 'POST', '/tap?seconds=1', { token, body: source });
    expect([refused.status, (refused.json as Json).error_code]).toEqual([503, 'unavailable']);
    expect(String((refused.json as Json).msg)).toContain('this account has 20 live taps open');
    const operators = await openTap(api.url, TOKEN, 'POST', '/tap?seconds=1', source);
    expect(operators.status).toBe(200);
    await Promise.all([operators.ended, ...taps.map((t) => t.ended)]);
  }, 60_000);
});

describe('sampling', () => {
  it('a 0.25 sample rate over 4,000 matches should deliver a share within binomial bounds, and replaying the records should make the same choices', async () => {
    await subscription(7003, [dest('sample-dest')], { sample_rate: 0.25 });
    // The control takes every match of the same records.
    await subscription(7003, [dest('sample-control')]);
    const n = 4000;
    await send(7003, n);
    await waitFor('the control to receive every record', () => at('sample-control').length >= n, 60_000);
    await new Promise((r) => setTimeout(r, 1500));
    const kept = at('sample-dest').length;
    // Binomial(4000, 0.25): mean 1000, standard deviation sqrt(4000 * 0.25 * 0.75) = 27.4; 5 deviations each way.
    expect(kept).toBeGreaterThan(1000 - 137);
    expect(kept).toBeLessThan(1000 + 137);

    // Read again from the start by a worker of another group: the same records are chosen, under the same ids.
    const first = new Set(at('sample-dest').map((e) => e.event_id as string));
    services.push(await startService(serviceEnv(prefix, testBrokers(), { ROLES: 'worker', CONSUMER_GROUP: `${prefix}-replay` })));
    await waitFor('the replay to reach the control again', () => at('sample-control').length >= 2 * n, 90_000);
    await new Promise((r) => setTimeout(r, 1500));
    const replayed = at('sample-dest').slice(kept);
    expect(replayed).toHaveLength(kept);
    expect(new Set(replayed.map((e) => e.event_id as string))).toEqual(first);
  }, 150_000);
});
