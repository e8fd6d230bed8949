// Replays on the real service and broker (ARCHITECTURE.md "Replay"): traffic produced first, the
// subscription made after, and a replay of the range delivers exactly what the independent model
// (test/model/model.ts: filter by the reference evaluator, sampling, event ids) says a subscription of the
// whole range would have received; a replay of live-delivered records gives the very bytes and ids live
// delivery gave; a second replay the same ids; a cancel stops the deliveries within a bound.
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consumeUntil, testBrokers, testClient, toolProducer, toolRecord, type ConsumedMessage } from '../../support/kafka.js';
import { eventId, filterMatches, kept, recordIdentity } from '../../model/model.js';
import { S1_FIELDS, S1_FILTER, makeTraffic, s1Projection, toMessage, type Traffic } from '../pipeline/fixtures.js';
import { startAdmin, type AdminHarness } from '../admin/admin-harness.js';

const HTTP = 'http_request_complete.v0';
const TCP = 'tcp_connection_closed.v0';
const RATE = 0.7;
const fileRoot = mkdtempSync(join(tmpdir(), 'edge-events-replay-'));
/** Records of the first test are stamped 100 ms apart from an hour ago. */
const T0 = Date.now() - 3_600_000;
const iso = (ms: number): string => new Date(ms).toISOString();

let h: AdminHarness;

beforeAll(async () => {
  // 400 records a second: the cancel test's 3,000 take 7.5 s, the others' fractions of one.
  h = await startAdmin({ roles: 'api,worker', env: { FILE_DESTINATION_ROOT: fileRoot, REPLAY_RECORDS_PER_SECOND: '400', SUBSCRIPTION_CLOCK_SKEW_MS: '0' } });
});
afterAll(async () => {
  await h?.stop();
});

interface Placed {
  readonly traffic: Traffic;
  readonly message: ConsumedMessage;
}

/** Produces the records with the given create times and finds where each landed (its seq is its key). */
async function produceAt(topic: string, traffic: readonly Traffic[], times: readonly number[]): Promise<Placed[]> {
  const producer = toolProducer(testBrokers(), 'replay-delivery-test');
  try {
    await producer.send({ messages: traffic.map((t, i) => toolRecord(topic, { ...toMessage(t), key: `${t.type}:${t.seq}`, timestamp: times[i] as number })) });
  } finally {
    await producer.close();
  }
  const keys = new Set(traffic.map((t) => `${t.type}:${t.seq}`));
  const read = await consumeUntil(testClient(), { topics: [topic], until: (all) => all.filter((m) => keys.has(m.key ?? '')).length >= keys.size, timeoutMs: 30_000 });
  const byKey = new Map(read.filter((m) => keys.has(m.key ?? '')).map((m) => [m.key, m]));
  return traffic.map((t) => ({ traffic: t, message: byKey.get(`${t.type}:${t.seq}`) as ConsumedMessage }));
}

async function destination(path: string): Promise<string> {
  const d = await h.call('POST', '/event_destinations', { body: { target: { file: { path } } } });
  expect(d.status, d.text).toBe(201);
  return d.json.id as string;
}

/** Each line of a file destination's file. */
function lines(path: string): string[] {
  const file = join(fileRoot, path);
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter((l) => l !== '') : [];
}

async function until<T>(what: string, get: () => Promise<T> | T, ok: (v: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await get();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs} ms: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const replay = async (sub: string, body: unknown): Promise<string> => {
  const r = await h.call('POST', `/event_subscriptions/${sub}/replays`, { body });
  expect(r.status, r.text).toBe(201);
  return r.json.id as string;
};
const replayOf = async (sub: string, id: string) => (await h.call('GET', `/event_subscriptions/${sub}/replays/${id}`)).json;

describe('replay delivery', () => {
  it('should deliver a subscription made after the traffic exactly the events of the range the model expects, and the same ids again on a second replay', async () => {
    const topic = h.env.TOPIC_HTTP_REQUEST_COMPLETE as string;
    const traffic = Array.from({ length: 120 }, (_, i) => makeTraffic(HTTP, i));
    const placed = await produceAt(topic, traffic, traffic.map((_, i) => T0 + i * 100));
    const dest = await destination('replay/model.ndjson');
    const s = await h.call('POST', '/event_subscriptions', { body: { destination_ids: [dest], sources: [{ type: HTTP, fields: S1_FIELDS, filter: S1_FILTER, sample_rate: RATE }] } });
    const sub = s.json.id as string;
    // The model: the reference evaluator's filter, the documented sampling and event ids, over records stamped in [from, to).
    const expected = (fromMs: number, toMs: number): Map<string, unknown> =>
      new Map(
        placed
          .filter(({ message: m }) => m.timestampMs >= fromMs && m.timestampMs < toMs)
          .filter(({ traffic: t }) => filterMatches(S1_FILTER, { type: HTTP, values: new Map(Object.entries(t.record.conn ?? {}).map(([k, v]) => [`conn.${k}`, v])) } as never))
          .filter(({ message: m }) => kept(recordIdentity(topic, m.partition, m.offset), sub, RATE))
          .map(({ traffic: t, message: m }) => [eventId(m.timestampMs, recordIdentity(topic, m.partition, m.offset), sub, dest), s1Projection(t)]),
      );
    const all = expected(T0, T0 + 12_000);
    expect(all.size).toBeGreaterThan(5);

    const first = await replay(sub, { from: iso(T0), to: iso(T0 + 12_000) });
    const done = await until('the replay', () => replayOf(sub, first), (r) => r.state === 'done');
    expect(done.progress).toMatchObject({ records_scanned: 120, records_total: 120, fraction: 1, estimated_done_at: null });
    const arrived = await until('the events', () => lines('replay/model.ndjson'), (l) => l.length >= all.size);
    const envelopes = arrived.map((l) => JSON.parse(l) as { event_id: string; event_type: string; object: unknown });
    expect(new Map(envelopes.map((e) => [e.event_id, e.object]))).toEqual(all);
    expect(envelopes).toHaveLength(all.size);
    expect(done.progress.events_delivered).toBe(all.size);

    // A second replay of part of the range: the same ids (and bytes) again, nothing else.
    const part = expected(T0 + 3_000, T0 + 9_000);
    const second = await replay(sub, { from: iso(T0 + 3_000), to: iso(T0 + 9_000) });
    await until('the second replay', () => replayOf(sub, second), (r) => r.state === 'done');
    const again = (await until('its events', () => lines('replay/model.ndjson'), (l) => l.length >= all.size + part.size)).slice(arrived.length);
    expect(again).toHaveLength(part.size);
    expect(new Set(again.map((l) => (JSON.parse(l) as { event_id: string }).event_id))).toEqual(new Set(part.keys()));
    for (const line of again) expect(arrived).toContain(line);
  });

  it('should give the very events live delivery gave: the same ids and the same bytes', async () => {
    const topic = h.env.TOPIC_HTTP_REQUEST_COMPLETE as string;
    const dest = await destination('replay/live.ndjson');
    const s = await h.call('POST', '/event_subscriptions', { body: { destination_ids: [dest], sources: [{ type: HTTP, fields: ['http.request.url.path', 'conn.client_ip', 'http.response.status_code'], sample_rate: 0.5 }] } });
    const sub = s.json.id as string;
    const start = Date.now();
    const traffic = Array.from({ length: 80 }, (_, i) => makeTraffic(HTTP, 1_000 + i));
    const placed = await produceAt(topic, traffic, traffic.map(() => Date.now()));
    const end = Date.now() + 1;
    const live = placed.filter(({ message: m }) => kept(recordIdentity(topic, m.partition, m.offset), sub, 0.5)).length;
    const delivered = await until('live delivery', () => lines('replay/live.ndjson'), (l) => l.length >= live);
    expect(delivered).toHaveLength(live);
    const id = await replay(sub, { from: iso(start - 1), to: iso(end) });
    await until('the replay', () => replayOf(sub, id), (r) => r.state === 'done');
    const both = await until('the replayed events', () => lines('replay/live.ndjson'), (l) => l.length >= 2 * live);
    expect(both).toHaveLength(2 * live);
    expect([...both.slice(live)].sort()).toEqual([...delivered].sort());
  });

  it('should stop delivering within 2 s of a cancel, and show it cancelled', async () => {
    const topic = h.env.TOPIC_TCP_CONNECTION_CLOSED as string;
    const traffic = Array.from({ length: 3_000 }, (_, i) => makeTraffic(TCP, i));
    const at = Date.now() - 600_000;
    await produceAt(topic, traffic, traffic.map((_, i) => at + i));
    const dest = await destination('replay/cancel.ndjson');
    const sub = (await h.call('POST', '/event_subscriptions', { body: { destination_ids: [dest], sources: [{ type: TCP, fields: ['conn.bytes_in'] }] } })).json.id as string;
    const id = await replay(sub, { from: iso(at), to: iso(at + 3_000) });
    await until('the first events', () => lines('replay/cancel.ndjson'), (l) => l.length >= 300);
    expect((await h.call('DELETE', `/event_subscriptions/${sub}/replays/${id}`)).status).toBe(204);
    const cancelledAt = Date.now();
    await new Promise((r) => setTimeout(r, 2_000));
    const settled = lines('replay/cancel.ndjson').length;
    await new Promise((r) => setTimeout(r, 3_000));
    expect(lines('replay/cancel.ndjson').length).toBe(settled);
    expect(settled).toBeLessThan(3_000);
    const r = await replayOf(sub, id);
    expect(r.state).toBe('cancelled');
    expect(Date.parse(r.finished_at)).toBeGreaterThanOrEqual(cancelledAt - 1_000);
  });

  it('should leave live ownership following the config log once the replays ended', async () => {
    // Every replay above has ended: the engine stopped their readers.
    await until('the replay readers to stop', () => h.call('GET', '/metrics', { token: null }), (m) => /^edge_replays_running 0$/m.test(m.text));
    const account = await h.call('POST', '/accounts', { body: { description: 'late' } });
    const key = (await h.call('POST', '/api_keys', { body: { account_id: account.json.id } })).json.token as string;
    const reserved = await h.call('POST', '/reserved_domains', { token: key, body: { domain: 'late.replay.test' } });
    expect((await h.call('POST', `/reserved_domains/${reserved.json.id}/verify`, { body: { manual: true } })).status).toBe(200);
    const dest = await h.call('POST', '/event_destinations', { token: key, body: { target: { file: { path: `${account.json.id as string}/late.ndjson` } } } });
    expect(dest.status, dest.text).toBe(201);
    const sub = await h.call('POST', '/event_subscriptions', { token: key, body: { destination_ids: [dest.json.id], sources: [{ type: HTTP, fields: ['conn.server_name'] }] } });
    expect(sub.status, sub.text).toBe(201);
    await new Promise((r) => setTimeout(r, 1_500));
    const t = makeTraffic(HTTP, 5_000);
    (t.record.conn as Record<string, unknown>).server_name = 'late.replay.test';
    await produceAt(h.env.TOPIC_HTTP_REQUEST_COMPLETE as string, [t], [Date.now()]);
    const file = String(dest.json.target.file.resolved_path);
    await until('the late account\'s event', () => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter((l) => l !== '') : []), (l) => l.length === 1, 15_000);
  });
});
