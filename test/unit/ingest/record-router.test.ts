// Tests of the record router's hot path: one event per (subscription, destination) over one serialized object per field set, batched match counting, and validate-all dead-lettering.
import { describe, expect, it } from 'vitest';
import type { StoredDestination, StoredSubscription } from '../../../src/configlog/resources.js';
import type { TrafficEventType } from '../../../src/events/catalog.js';
import { copyPayload, payloadSize } from '../../../src/delivery/contract.js';
import { deadLetterHeaders } from '../../../src/delivery/dead-letter.js';
import { makeEnvelope } from '../../../src/events/envelope.js';
import { formatEventTime, formatObjectTimes, TIMESTAMP_FORMATS } from '../../../src/events/timestamp-format.js';
import { projectorFor } from '../../../src/projection/projector.js';
import { eventIdOf } from '../../../src/ids.js';
import { RecordRouter, type ConsumedMessage } from '../../../src/ingest/record-router.js';
import { createAuditDecoder } from '../../../src/records/audit-decoder.js';
import { createRecordDecoder, type RecordDecoderOptions } from '../../../src/records/record-decoder.js';
import type { HeaderValue } from '../../../src/records/record-types.js';
import { encodeRecord } from '../../../src/records/record-encoder.js';
import { seededRecord } from '../../../src/traffic/seeded-records.js';
import { SubscriptionSet } from '../../../src/subscriptions/subscription-set.js';
import { subscriptionMatches } from '../../../src/telemetry/metrics.js';

const HTTP: TrafficEventType = 'http_request_complete.v0';

function sub(id: string, fields: string[], filter: string, destination: string): StoredSubscription {
  return { id, created_at: '2024-05-01T00:00:00Z', description: '', metadata: '', sources: [{ type: HTTP, fields, filter }], destination_ids: [destination] };
}

function router(subs: readonly StoredSubscription[], decoder: RecordDecoderOptions = {}, clockSkewMs = 0): RecordRouter {
  const set = new SubscriptionSet();
  for (const s of subs) set.put(s);
  return new RecordRouter({
    subscriptions: set,
    decoder: createRecordDecoder(decoder),
    auditDecoder: createAuditDecoder(),
    trafficTopics: new Map([['raw.http', HTTP]]),
    auditTopic: 'audit',
    clockSkewMs,
  });
}

function message(value: Buffer, offset = 7, timestamp = Date.UTC(2024, 4, 1)): ConsumedMessage {
  return { key: null, value, offset: String(offset), timestamp: String(timestamp), headers: {} };
}

async function matchesOf(id: string): Promise<number> {
  const metric = await subscriptionMatches.get();
  return metric.values.find((v) => v.labels.subscription === id)?.value ?? 0;
}

describe('record router', () => {
  const record = seededRecord(HTTP, 3);
  const host = (record.conn as { server_name: string }).server_name;
  const all = `ev.conn.server_name == ${JSON.stringify(host)}`;

  it('should serialize the object once per distinct field set and give every (subscription, destination) an event with its own id', () => {
    const r = router([
      sub('esb_A', ['conn.client_ip', 'http.response.status_code'], all, 'ed_1'),
      sub('esb_B', ['http.response.status_code', 'conn.client_ip'], all, 'ed_2'),
      sub('esb_C', ['conn.server_name'], all, 'ed_3'),
    ]);
    const result = r.route('raw.http', 0, message(encodeRecord(HTTP, record, 'avro').value), 0);
    if (result.type !== 'deliver') throw new Error(`dead-lettered: ${result.letter.errorMessage}`);
    const byDest = new Map(result.deliveries.map((d) => [d.destinationId, d.item]));
    expect([...byDest.keys()].sort()).toEqual(['ed_1', 'ed_2', 'ed_3']);
    const parsed = new Map([...byDest].map(([d, item]) => [d, JSON.parse(String(item.payload)) as Record<string, unknown>]));
    const conn = record.conn as { client_ip: string };
    const status = (record.http as { response: { status_code: number } }).response.status_code;
    expect(parsed.get('ed_1')).toMatchObject({ event_type: HTTP, principal: null, object: { conn: { client_ip: conn.client_ip }, http: { response: { status_code: status } } } });
    // The same event in all but its id for the two subscriptions of one field set.
    expect({ ...parsed.get('ed_1'), event_id: '' }).toEqual({ ...parsed.get('ed_2'), event_id: '' });
    expect(new Set([...parsed.values()].map((p) => p.event_id)).size).toBe(3);
    for (const [d, item] of byDest) {
      // The id in the payload bytes is the item's, and the envelope object, built on demand, is the payload parsed.
      expect(item.eventId).toBe(parsed.get(d)?.event_id);
      expect(item.envelope).toEqual(parsed.get(d));
    }
  });

  it('should dead-letter a record whose Kafka timestamp no event_timestamp can carry, and take the first and last millisecond of the years 0000 to 9999', () => {
    const r = router([sub('esb_T', ['conn.client_ip'], all, 'ed_t')]);
    const value = encodeRecord(HTTP, record, 'avro').value;
    for (const ts of [-9e15, 9e15, Date.parse('+010000-01-01T00:00:00.000Z'), Date.parse('-000001-12-31T23:59:59.999Z')]) {
      const result = r.route('raw.http', 0, message(value, 1, ts), 0);
      if (result.type !== 'dead_letter') throw new Error(`delivered a record of ${ts} ms`);
      expect([result.letter.errorCode, result.letter.errorMessage]).toEqual(['invalid_record_timestamp', `The record's Kafka timestamp ${ts} ms is outside the years 0000 to 9999, which an event's event_timestamp (RFC 3339) can carry.`]);
    }
    // The year 0000 comes before the subscription was made, so it is routed to nothing, and not refused.
    expect(r.route('raw.http', 0, message(value, 1, Date.parse('0000-01-01T00:00:00.000Z')), 0)).toMatchObject({ type: 'deliver', deliveries: [] });
    const last = r.route('raw.http', 0, message(value, 1, Date.parse('9999-12-31T23:59:59.999Z')), 0);
    if (last.type !== 'deliver') throw new Error(`dead-lettered: ${last.letter.errorMessage}`);
    expect((JSON.parse(String(last.deliveries[0]?.item.payload)) as { event_timestamp: string }).event_timestamp).toBe('9999-12-31T23:59:59.999Z');
  });

  it('should dead-letter a record the router fails on, with the failure, instead of throwing', () => {
    const set = new SubscriptionSet();
    const decoder = createRecordDecoder();
    const failing = { ...decoder, decodeFilterable: (): never => { throw new Error('a bug met on this record'); } };
    const r = new RecordRouter({ subscriptions: set, decoder: failing, auditDecoder: createAuditDecoder(), trafficTopics: new Map([['raw.http', HTTP]]), auditTopic: 'audit', clockSkewMs: 0 });
    const result = r.route('raw.http', 0, message(encodeRecord(HTTP, record, 'avro').value), 0);
    if (result.type !== 'dead_letter') throw new Error('not dead-lettered');
    expect([result.letter.errorCode, result.letter.errorMessage]).toEqual(['routing_failed', 'The service failed while routing this record: a bug met on this record']);
  });

  it('should give a dead letter every header of its record: each value of one given several times, in order, and one named __proto__', () => {
    const r = router([]);
    const headers = Object.create(null) as Record<string, HeaderValue>;
    headers['x-hop'] = [Buffer.from('edge-1'), Buffer.from('edge-2')];
    headers['__proto__'] = Buffer.from('a name like any other');
    headers['x-empty'] = undefined;
    const result = r.route('raw.http', 0, { ...message(Buffer.from([0xff, 0x13])), headers }, 0);
    if (result.type !== 'dead_letter') throw new Error('not dead-lettered');
    const kept = deadLetterHeaders(result.letter);
    expect(Object.keys(kept).slice(0, 2)).toEqual(['x-hop', '__proto__']);
    expect(kept['x-hop']).toEqual([Buffer.from('edge-1'), Buffer.from('edge-2')]);
    expect(Object.getOwnPropertyDescriptor(kept, '__proto__')?.value).toEqual(Buffer.from('a name like any other'));
    expect(Object.hasOwn(kept, 'x-empty')).toBe(false);
  });

  it('should write the event id of the record, subscription and destination into the payload', () => {
    const r = router([sub('esb_ID', ['conn.client_ip'], all, 'ed_x')]);
    const result = r.route('raw.http', 2, message(encodeRecord(HTTP, record, 'avro').value, 41), 0);
    if (result.type !== 'deliver') throw new Error(`dead-lettered: ${result.letter.errorMessage}`);
    expect(result.deliveries.map((d) => d.item.eventId)).toEqual([eventIdOf(Date.UTC(2024, 4, 1), 'raw.http', 2, 41, 'esb_ID', 'ed_x')]);
  });

  it('should write a delivery into a request body as the same bytes as its own payload, of the size it announces', () => {
    const r = router([sub('esb_W1', ['conn.client_ip'], all, 'ed_1'), sub('esb_W2', ['conn.server_name', 'conn.client_ip'], all, 'ed_2')]);
    const result = r.route('raw.http', 0, message(encodeRecord(HTTP, record, 'avro').value), 0);
    if (result.type !== 'deliver') throw new Error(`dead-lettered: ${result.letter.errorMessage}`);
    for (const { item } of result.deliveries) {
      const size = payloadSize(item);
      const body = Buffer.alloc(size + 4, 0x20);
      // Written into the body first, before the item built a payload of its own, then compared with it.
      expect(copyPayload(item, body, 2)).toBe(size);
      expect(body.subarray(2, 2 + size).toString()).toBe(item.payload.toString());
      expect(item.payload.length).toBe(size);
      expect(copyPayload(item, body, 2)).toBe(size);
    }
  });

  it('should send a destination one event per subscription that leads there, each with its own id, and count every subscription', async () => {
    const r = router([
      sub('esb_SAME1', ['conn.client_ip'], all, 'ed_shared'),
      sub('esb_SAME2', ['conn.client_ip'], all, 'ed_shared'),
      sub('esb_OTHER', ['conn.server_name'], all, 'ed_shared'),
    ]);
    const before = await Promise.all(['esb_SAME1', 'esb_SAME2', 'esb_OTHER'].map(matchesOf));
    const result = r.route('raw.http', 0, message(encodeRecord(HTTP, record, 'avro').value), 0);
    if (result.type !== 'deliver') throw new Error(`dead-lettered: ${result.letter.errorMessage}`);
    expect(result.deliveries.map((d) => d.destinationId)).toEqual(['ed_shared', 'ed_shared', 'ed_shared']);
    expect(new Set(result.deliveries.map((d) => d.item.eventId)).size).toBe(3);
    expect(result.deliveries.map((d) => d.item.subscriptionId).sort()).toEqual(['esb_OTHER', 'esb_SAME1', 'esb_SAME2']);
    r.flushMetrics();
    const after = await Promise.all(['esb_SAME1', 'esb_SAME2', 'esb_OTHER'].map(matchesOf));
    expect(after.map((n, i) => n - (before[i] as number))).toEqual([1, 1, 1]);
  });

  it('should give an audit event one delivery per (subscription, destination), each the envelope as written under its own id', () => {
    const audit = (id: string, destinations: string[]): StoredSubscription => ({
      id,
      created_at: '2024-05-01T00:00:00Z',
      description: '',
      metadata: '',
      sources: [{ type: 'api_key_created.v0' }],
      destination_ids: destinations,
    });
    const r = router([audit('esb_AUD1', ['ed_a']), audit('esb_AUD2', ['ed_a', 'ed_b'])]);
    const envelope = makeEnvelope('api_key_created.v0', {
      id: 'ak_1',
      uri: 'https://api.example.com/api_keys/ak_1',
      description: 'ci',
      metadata: '',
      created_at: '2024-05-01T12:00:00Z',
      token: null,
    }, { principal: { type: 'api_key', id: 'ak_0', uri: 'https://api.example.com/api_keys/ak_0' } });
    const result = r.route('audit', 0, message(Buffer.from(JSON.stringify(envelope))), 0);
    if (result.type !== 'deliver') throw new Error(`dead-lettered: ${result.letter.errorMessage}`);
    expect(result.deliveries.map((d) => d.destinationId)).toEqual(['ed_a', 'ed_a', 'ed_b']);
    expect(result.deliveries.map((d) => d.item.subscriptionId)).toEqual(['esb_AUD1', 'esb_AUD2', 'esb_AUD2']);
    const delivered = result.deliveries.map((d) => JSON.parse(String(d.item.payload)) as Record<string, unknown>);
    expect(new Set(delivered.map((e) => e.event_id)).size).toBe(3);
    for (const [i, e] of delivered.entries()) {
      expect({ ...e, event_id: envelope.event_id }).toEqual(envelope);
      expect(result.deliveries[i]?.item.envelope).toEqual(e);
    }
  });

  it('should route a record to a subscription only when stamped at or after its created_at less the clock skew allowance', async () => {
    const created = Date.parse('2024-05-01T00:00:00Z');
    const r = router([sub('esb_START', ['conn.client_ip'], all, 'ed_1')], {}, 1_000);
    const value = encodeRecord(HTTP, record, 'avro').value;
    const deliveries = (ts: number): number => {
      const result = r.route('raw.http', 0, message(value, 7, ts), 0);
      return result.type === 'deliver' ? result.deliveries.length : -1;
    };
    const before = await matchesOf('esb_START');
    expect([deliveries(created - 1_001), deliveries(created - 1_000), deliveries(created), deliveries(created + 60_000)]).toEqual([0, 1, 1, 1]);
    r.flushMetrics();
    expect((await matchesOf('esb_START')) - before).toBe(3);
  });

  it('should route an audit event to a subscription only when stamped at or after its created_at less the allowance', () => {
    const created = Date.parse('2024-05-01T00:00:00Z');
    const audit: StoredSubscription = { id: 'esb_AUDSTART', created_at: '2024-05-01T00:00:00Z', description: '', metadata: '', sources: [{ type: 'api_key_created.v0' }], destination_ids: ['ed_a'] };
    const r = router([audit], {}, 1_000);
    const value = Buffer.from(JSON.stringify(makeEnvelope('api_key_created.v0', { id: 'ak_1', uri: 'https://api.example.com/api_keys/ak_1', description: '', metadata: '', created_at: '2024-05-01T12:00:00Z', token: null })));
    const deliveries = (ts: number): number => {
      const result = r.route('audit', 0, message(value, 7, ts), 0);
      return result.type === 'deliver' ? result.deliveries.length : -1;
    };
    expect([deliveries(created - 1_001), deliveries(created - 1_000)]).toEqual([0, 1]);
  });

  it('should add the matches it counted to the per-subscription counter when flushed', async () => {
    const r = router([sub('esb_COUNT', ['conn.client_ip'], all, 'ed_1')]);
    const before = await matchesOf('esb_COUNT');
    for (let i = 0; i < 5; i++) r.route('raw.http', 0, message(encodeRecord(HTTP, record, 'avro').value, i), 0);
    r.flushMetrics();
    expect((await matchesOf('esb_COUNT')) - before).toBe(5);
    r.flushMetrics();
    expect((await matchesOf('esb_COUNT')) - before).toBe(5);
  });

  it('should dead-letter a matched record whose tail is malformed with the code and message of the full decode, in either mode', () => {
    const good = encodeRecord(HTTP, { ...record, http: { ...(record.http as object), request: { ...((record.http as { request: object }).request), user_agent: 'agent-zz' } } }, 'avro').value;
    const trailing = Buffer.concat([good, Buffer.from([0])]);
    // A byte that is not UTF-8 in a string after the filterable fields.
    const badUtf8 = Buffer.from(good);
    badUtf8[good.indexOf('agent-zz') + 6] = 0xff;
    const matched = [sub('esb_ALL', ['conn.client_ip', 'http.request.user_agent'], all, 'ed_1')];
    for (const bad of [trailing, badUtf8]) {
      const decoded = createRecordDecoder().decodeFilterable(HTTP, message(bad));
      const full = decoded.ok ? decoded.full() : decoded;
      expect(full.ok).toBe(false);
      for (const validateAll of [false, true]) {
        const result = router(matched, { validateAll }).route('raw.http', 0, message(bad), 0);
        expect(result.type).toBe('dead_letter');
        if (result.type === 'dead_letter' && !full.ok) expect([result.letter.errorCode, result.letter.errorMessage]).toEqual([full.code, full.message]);
      }
    }
    const delivered = router(matched).route('raw.http', 0, message(good), 0);
    expect(delivered.type === 'deliver' && delivered.deliveries.length).toBe(1);
  });

  it('should dead-letter a record with a malformed tail that matches nothing only when validating every record', () => {
    const good = encodeRecord(HTTP, record, 'avro').value;
    // One byte more than the record: the filterable fields read fine, the whole record does not.
    const bad = Buffer.concat([good, Buffer.from([0])]);
    const none = [sub('esb_NONE', ['conn.client_ip'], 'ev.conn.server_port == 1', 'ed_1')];
    expect(router(none).route('raw.http', 0, message(bad), 0).type).toBe('deliver');
    const strict = router(none, { validateAll: true }).route('raw.http', 0, message(bad), 0);
    expect(strict.type).toBe('dead_letter');
    if (strict.type === 'dead_letter') expect(strict.letter.errorCode).toBe('malformed_avro');
    expect(router(none, { validateAll: true }).route('raw.http', 0, message(good), 0)).toEqual({ type: 'deliver', deliveries: [] });
  });
});

describe('record router with JSON records', () => {
  const record = seededRecord(HTTP, 4);
  const host = (record.conn as { server_name: string }).server_name;
  const all = `ev.conn.server_name == ${JSON.stringify(host)}`;
  const sets = [['http.request.headers', 'conn.client_ip'], ['conn.client_ip'], ['traffic_policy.logs', 'http.request.url.raw'], ['http.request.url.raw', 'http.response.headers']];

  // Compact text is projected from the text; spaced header maps and the logs from the Avro record of the same content.
  it.each([
    ['compact', (text: string): string => text],
    ['spaced', (text: string): string => text.replace(/":\[/g, '": [')],
  ])('should deliver the exact decoder\'s projection of %s JSON text for every field set, sharing leaves between them', (_name, reshape) => {
    const r = router(
      sets.map((fields, i) => sub(`esb_J${i}`, fields, all, `ed_${i}`)),
      { validateAll: true },
    );
    const text = Buffer.from(reshape(encodeRecord(HTTP, record, 'json').value.toString()));
    const msg = { ...message(text), headers: { 'content-type': 'application/json' } };
    const result = r.route('raw.http', 0, msg, 0);
    if (result.type !== 'deliver') throw new Error(`dead-lettered: ${result.letter.errorMessage}`);
    const exact = createRecordDecoder({ fastJson: false }).decodeFilterable(HTTP, msg);
    if (!exact.ok) throw new Error(exact.message);
    const decoded = exact.full();
    if (!decoded.ok) throw new Error(decoded.message);
    expect(result.deliveries).toHaveLength(sets.length);
    for (const d of result.deliveries) {
      const fields = sets[Number(d.destinationId.slice(3))] as string[];
      const payload = String(d.item.payload);
      expect(payload.slice(payload.indexOf('"object":') + 9, -1)).toBe(JSON.stringify(projectorFor(fields)(decoded.record)));
    }
  });
});

describe('record router with destinations in every timestamp format', () => {
  const record = seededRecord(HTTP, 5);
  const host = (record.conn as { server_name: string }).server_name;
  const filter = `ev.conn.server_name == ${JSON.stringify(host)}`;
  const ts = Date.UTC(2024, 4, 1, 10, 20, 30, 456);

  function formatRouter(fields: string[]): RecordRouter {
    const set = new SubscriptionSet();
    for (const f of TIMESTAMP_FORMATS) set.setFormat({ id: `ed_${f}`, timestamp_format: f } as StoredDestination);
    // Two subscriptions of one field set: events in one format share their payload tail, not their ids.
    for (const id of ['esb_F1', 'esb_F2']) {
      set.put({ id, created_at: '2024-05-01T00:00:00Z', description: '', metadata: '', sources: [{ type: HTTP, fields, filter }], destination_ids: TIMESTAMP_FORMATS.map((f) => `ed_${f}`) });
    }
    return new RecordRouter({ subscriptions: set, decoder: createRecordDecoder(), auditDecoder: createAuditDecoder(), trafficTopics: new Map([['raw.http', HTTP]]), auditTopic: 'audit', clockSkewMs: 0 });
  }

  // A byte projection (Avro, leaves), the decoded fallback (JSON), and a field set reading below a leaf (no byte projection).
  it.each([
    ['avro', ['conn.start_ts', 'conn.client_ip', 'http.response.status_code']],
    ['json', ['conn.start_ts', 'conn.client_ip', 'http.response.status_code']],
    ['avro', ['conn.start_ts', 'http.request.headers.Accept']],
  ] as const)('should write event_timestamp and conn.start_ts of a %s record selecting %j in each destination\'s format', (form, fields) => {
    const encoded = encodeRecord(HTTP, record, form);
    const msg = { ...message(encoded.value, 9, ts), headers: encoded.headers };
    const result = formatRouter([...fields]).route('raw.http', 0, msg, 0);
    if (result.type !== 'deliver') throw new Error(`dead-lettered: ${result.letter.errorMessage}`);
    expect(result.deliveries).toHaveLength(2 * TIMESTAMP_FORMATS.length);
    const full = createRecordDecoder().decodeFilterable(HTTP, msg);
    if (!full.ok) throw new Error(full.message);
    const decoded = full.full();
    if (!decoded.ok) throw new Error(decoded.message);
    for (const d of result.deliveries) {
      const format = TIMESTAMP_FORMATS.find((f) => d.destinationId === `ed_${f}`);
      if (format === undefined) throw new Error(`unexpected destination ${d.destinationId}`);
      const parsed = JSON.parse(String(d.item.payload)) as Record<string, unknown>;
      // What the live tap sends for this format: decode, project, convert the times.
      expect(parsed.event_timestamp).toEqual(formatEventTime(ts, format));
      expect(parsed.object).toEqual(formatObjectTimes(HTTP, projectorFor([...fields])(decoded.record), format));
      expect(d.item.envelope).toEqual(parsed);
    }
    const nano = result.deliveries.find((d) => d.destinationId === 'ed_unixnano');
    expect((JSON.parse(String(nano?.item.payload)) as { event_timestamp: unknown }).event_timestamp).toBe(`${ts}000000`);
  });
});
