// POST /event_subscriptions/{id}/replays and its reads on the real service and broker: the range's offsets
// found by timestamp in the raw topics, the replay's shape and audit event, each refusal with its code, and
// cancel. No worker runs here, so a replay stays queued (test/integration/replay/replay-delivery.test.ts runs them).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuditDecoder } from '../../../src/records/audit-decoder.js';
import { consumeUntil, testBrokers, testClient, toolProducer, toolRecord, withLibraryAdmin } from '../../support/kafka.js';
import { makeTraffic, toMessage } from '../pipeline/fixtures.js';
import { PUBLIC_BASE_URL, startAdmin, type AdminHarness } from '../admin/admin-harness.js';

const HTTP = 'http_request_complete.v0';
const TCP = 'tcp_connection_closed.v0';
/** Records are stamped a second apart from here: two hours before the test. */
const T0 = Date.now() - 2 * 3_600_000;
const at = (s: number): string => new Date(T0 + s * 1000).toISOString();

let h: AdminHarness;
let destination: string;
let other: string;

beforeAll(async () => {
  h = await startAdmin({ env: { ACCOUNT_MAX_REPLAYS: '2' } });
  const producer = toolProducer(testBrokers(), 'replay-api-test');
  try {
    // 60 http records over the topic's partitions, stamped T0 + 0..59 s.
    await producer.send({ messages: Array.from({ length: 60 }, (_, i) => toolRecord(h.env.TOPIC_HTTP_REQUEST_COMPLETE as string, { ...toMessage(makeTraffic(HTTP, i)), timestamp: T0 + i * 1000 })) });
    // 10 tcp records in partition 0, stamped T0 + 0..9 s; retention is then made to have dropped the first 4.
    await producer.send({ messages: Array.from({ length: 10 }, (_, i) => toolRecord(h.env.TOPIC_TCP_CONNECTION_CLOSED as string, { ...toMessage(makeTraffic(TCP, i)), partition: 0, timestamp: T0 + i * 1000 })) });
  } finally {
    await producer.close();
  }
  await withLibraryAdmin(testBrokers(), (admin) => admin.deleteRecords({ topics: [{ name: h.env.TOPIC_TCP_CONNECTION_CLOSED as string, partitions: [{ partition: 0, offset: 4n }] }] }));
  destination = (await h.call('POST', '/event_destinations', { body: { target: { file: { path: 'replay-api/a.ndjson' } } } })).json.id;
  other = (await h.call('POST', '/event_destinations', { body: { target: { file: { path: 'replay-api/b.ndjson' } } } })).json.id;
});
afterAll(async () => {
  await h?.stop();
});

async function subscription(extra: Record<string, unknown> = {}): Promise<string> {
  const s = await h.call('POST', '/event_subscriptions', {
    body: { destination_ids: [destination], sources: [{ type: HTTP, fields: ['http.request.url.path'] }, { type: TCP, fields: ['conn.bytes_in'] }, { type: 'api_key_created.v0' }], ...extra },
  });
  expect(s.status, s.text).toBe(201);
  return s.json.id as string;
}

describe('replays through the API', () => {
  it('should answer 201 with the replay, its records counted from the offsets at from and to, and emit replay_created', async () => {
    const sub = await subscription();
    const made = await h.call('POST', `/event_subscriptions/${sub}/replays`, { body: { from: at(10), to: at(30), sources: [HTTP], description: 'refill' } });
    expect(made.status, made.text).toBe(201);
    expect(made.json.id).toMatch(/^rpl_[0-9A-Z]{26}$/);
    expect(made.json).toMatchObject({
      uri: `${PUBLIC_BASE_URL}/event_subscriptions/${sub}/replays/${made.json.id}`,
      subscription: { id: sub, uri: `${PUBLIC_BASE_URL}/event_subscriptions/${sub}` },
      state: 'queued',
      from: at(10),
      to: at(30),
      description: 'refill',
      destinations: [{ id: destination, uri: `${PUBLIC_BASE_URL}/event_destinations/${destination}` }],
      sources: [HTTP],
      // Records stamped T0+10 s to T0+29 s: twenty.
      progress: { records_scanned: 0, records_total: 20, events_delivered: 0, fraction: 0, estimated_done_at: null },
      finished_at: null,
      error: null,
    });
    const got = await h.call('GET', `/event_subscriptions/${sub}/replays/${made.json.id}`);
    expect([got.status, got.json]).toEqual([200, made.json]);
    const listed = await h.call('GET', `/event_subscriptions/${sub}/replays`);
    expect(listed.json).toEqual({ replays: [made.json], uri: `${PUBLIC_BASE_URL}/event_subscriptions/${sub}/replays`, next_page_uri: null });
    // Without to: up to now, so every http record from T0+50 s on (ten); every traffic source by default.
    const rest = await h.call('POST', `/event_subscriptions/${sub}/replays`, { body: { from: at(50) } });
    expect([rest.status, rest.json.sources, rest.json.progress.records_total], rest.text).toEqual([201, [HTTP, TCP], 10]);

    const decoder = createAuditDecoder();
    const mine = (m: { key: string | null }): boolean => m.key === made.json.id;
    const msgs = await consumeUntil(testClient(), { topics: [h.env.TOPIC_AUDIT as string], until: (all) => all.some(mine), timeoutMs: 20_000 });
    const event = decoder.decode({ value: Buffer.from(msgs.find(mine)?.value ?? ''), headers: msgs.find(mine)?.headers });
    expect(event.ok && [event.event.event_type, event.event.object]).toEqual(['replay_created.v0', made.json]);
    // Both count against ACCOUNT_MAX_REPLAYS (2 here) while queued.
    const third = await h.call('POST', `/event_subscriptions/${sub}/replays`, { body: { from: at(0) } });
    expect([third.status, third.json.error_code, third.json.details.limit]).toEqual([409, 'replay_limit', 2]);
    // Cancelled: it ends, stays listed, emits replay_updated, and frees its place.
    expect((await h.call('DELETE', `/event_subscriptions/${sub}/replays/${made.json.id}`)).status).toBe(204);
    const cancelled = await h.call('GET', `/event_subscriptions/${sub}/replays/${made.json.id}`);
    expect(cancelled.json.state).toBe('cancelled');
    expect(Date.parse(cancelled.json.finished_at)).toBeGreaterThan(Date.parse(made.json.created_at) - 1);
    expect((await h.call('DELETE', `/event_subscriptions/${sub}/replays/${made.json.id}`)).status).toBe(204);
    expect((await h.call('POST', `/event_subscriptions/${sub}/replays`, { body: { from: at(0), to: at(5), sources: [HTTP] } })).status).toBe(201);
    // Deleting the subscription deletes its replays.
    expect((await h.call('DELETE', `/event_subscriptions/${sub}`)).status).toBe(204);
    expect((await h.call('GET', `/event_subscriptions/${sub}/replays/${made.json.id}`)).status).toBe(404);
  });

  it('should refuse each bad request with its code', async () => {
    const sub = await subscription();
    const post = (body: unknown) => h.call('POST', `/event_subscriptions/${sub}/replays`, { body });
    const code = async (body: unknown): Promise<[number, string, unknown]> => {
      const r = await post(body);
      return [r.status, r.json.error_code, r.json.details.field];
    };
    const future = new Date(Date.now() + 3_600_000).toISOString();
    expect(await code({ from: at(30), to: at(30) })).toEqual([400, 'replay_range_invalid', undefined]);
    expect(await code({ from: at(30), to: at(20) })).toEqual([400, 'replay_range_invalid', undefined]);
    expect(await code({ from: future })).toEqual([400, 'replay_range_in_future', 'from']);
    expect(await code({ from: at(0), to: future })).toEqual([400, 'replay_range_in_future', 'to']);
    expect(await code({ from: at(0), destination_ids: [other] })).toEqual([400, 'replay_destination_not_subscribed', 'destination_ids[0]']);
    expect(await code({ from: at(0), sources: ['api_key_created.v0'] })).toEqual([400, 'invalid_body', 'sources[0]']);
    expect(await code({ from: 'yesterday' })).toEqual([400, 'invalid_body', 'from']);
    expect(await code({ from: '2016-12-31T23:59:60Z' })).toEqual([400, 'invalid_body', 'from']);
    expect(await code({ to: at(1) })).toEqual([400, 'invalid_body', 'from']);
    const httpOnly = (await h.call('POST', '/event_subscriptions', { body: { destination_ids: [destination], sources: [{ type: HTTP, fields: ['conn.client_ip'] }] } })).json.id;
    const narrowed = await h.call('POST', `/event_subscriptions/${httpOnly}/replays`, { body: { from: at(0), sources: [TCP] } });
    expect([narrowed.status, narrowed.json.error_code, narrowed.json.details.field]).toEqual([400, 'replay_source_not_subscribed', 'sources[0]']);
    const auditOnly = (await h.call('POST', '/event_subscriptions', { body: { destination_ids: [destination], sources: [{ type: 'api_key_created.v0' }] } })).json.id;
    expect((await h.call('POST', `/event_subscriptions/${auditOnly}/replays`, { body: { from: at(0) } })).json.error_code).toBe('replay_no_traffic_sources');
    // Retention dropped the tcp records stamped T0 to T0+3 s: a range from before T0+4 s is refused with that time.
    const early = await post({ from: at(2), sources: [TCP] });
    expect([early.status, early.json.error_code, early.json.details.earliest_available]).toEqual([422, 'replay_before_retention', at(4)]);
    // The http topic lost nothing: a range from before its first record is fine.
    expect((await post({ from: at(-600), to: at(1), sources: [HTTP] })).status).toBe(201);
    expect((await h.call('POST', `/event_subscriptions/esb_00000000000000000000000000/replays`, { body: { from: at(0) } })).status).toBe(404);
  });

  it('should replay a paused subscription, since a replay is an explicit request', async () => {
    const sub = await subscription({ enabled: false });
    const r = await h.call('POST', `/event_subscriptions/${sub}/replays`, { body: { from: at(4), to: at(6), sources: [TCP] } });
    expect([r.status, r.json.state, r.json.progress.records_total], r.text).toEqual([201, 'queued', 2]);
    expect((await h.call('GET', `/event_subscriptions/${sub}/replays/rpl_00000000000000000000000000`)).status).toBe(404);
  });
});
