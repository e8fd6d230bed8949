// /event_subscriptions through the real server socket and the real broker: sources checked against the
// event catalogue and the filter engine, destination references, limits, and every error with its code.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATOR_ACCOUNT_ID } from '../../../src/accounts/account.js';
import { MAX_DESTINATIONS_PER_SUBSCRIPTION, MAX_SOURCES_PER_SUBSCRIPTION } from '../../../src/admin/event-subscriptions/limits.js';
import { AUDIT_EVENT_TYPES } from '../../../src/events/catalog.js';
import { PUBLIC_BASE_URL, startAdmin, type AdminHarness } from './admin-harness.js';

/** Response bodies and delivered objects are read as loosely typed JSON. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const HTTP = 'http_request_complete.v0';
const TCP = 'tcp_connection_closed.v0';

let h: AdminHarness;
let dest: { id: string; uri: string };
let dest2: { id: string; uri: string };

beforeAll(async () => {
  h = await startAdmin();
  const d = await h.call('POST', '/event_destinations', { body: { target: { file: { path: 'subs.ndjson' } } } });
  const d2 = await h.call('POST', '/event_destinations', { body: { target: { kafka: { topic: 'subs' } } } });
  expect(d.status).toBe(201);
  dest = { id: d.json.id, uri: d.json.uri };
  dest2 = { id: d2.json.id, uri: d2.json.uri };
});
afterAll(async () => {
  await h?.stop();
});

const create = (body: unknown) => h.call('POST', '/event_subscriptions', { body });

async function created(body: unknown): Promise<Record<string, Json>> {
  const r = await create(body);
  expect(r.status, r.text).toBe(201);
  return r.json;
}

async function expectError(p: Promise<{ status: number; json: Json; text: string }>, status: number, code: string, field?: string): Promise<Json> {
  const r = await p;
  expect(r.status, r.text).toBe(status);
  expect(r.json, r.text).toMatchObject({ error_code: code, status_code: status });
  if (field !== undefined) expect(r.json.details.field, r.text).toBe(field);
  expect(r.text).not.toMatch(/\n\s+at /);
  return r.json;
}

const traffic = (filter?: string) => ({ type: TCP, fields: ['conn.client_ip', 'conn.bytes_in'], ...(filter !== undefined && { filter }) });

describe('event subscriptions', () => {
  it('should create a subscription with traffic and audit sources and answer the shape of its audit payload (docs/events.md)', async () => {
    const s = await created({
      description: 'tls traffic and key changes',
      metadata: '{"owner":"sec"}',
      sources: [
        { type: HTTP, fields: ['conn.client_ip', 'http.response.status_code'], filter: 'ev.conn.server_port == 443' },
        { type: 'api_key_created.v0' },
        { type: 'api_key_deleted.v0', fields: [], filter: '' },
      ],
      destination_ids: [dest.id, dest2.id],
    });
    const uri = `${PUBLIC_BASE_URL}/event_subscriptions/${s.id}`;
    expect(s).toEqual({
      id: expect.stringMatching(/^esb_[0-9A-Z]{26}$/),
      uri,
      account_id: OPERATOR_ACCOUNT_ID,
      created_at: expect.any(String),
      metadata: '{"owner":"sec"}',
      description: 'tls traffic and key changes',
      sources: [
        { type: HTTP, fields: ['conn.client_ip', 'http.response.status_code'], filter: 'ev.conn.server_port == 443', sample_rate: 1, uri: `${uri}/sources/${HTTP}` },
        { type: 'api_key_created.v0', fields: [], filter: '', sample_rate: 1, uri: `${uri}/sources/api_key_created.v0` },
        { type: 'api_key_deleted.v0', fields: [], filter: '', sample_rate: 1, uri: `${uri}/sources/api_key_deleted.v0` },
      ],
      destinations: [dest, dest2],
      enabled: true,
    });
    expect((await h.call('GET', `/event_subscriptions/${s.id}`)).json).toEqual(s);
    // The stored shape is the one the pipeline reads.
    expect(h.app.configLog.get(s.id)?.data).toEqual({
      id: s.id,
      account_id: OPERATOR_ACCOUNT_ID,
      created_at: s.created_at,
      description: s.description,
      metadata: s.metadata,
      sources: [
        { type: HTTP, fields: ['conn.client_ip', 'http.response.status_code'], filter: 'ev.conn.server_port == 443' },
        { type: 'api_key_created.v0' },
        { type: 'api_key_deleted.v0' },
      ],
      destination_ids: [dest.id, dest2.id],
      enabled: true,
    });
    const empty = await created({});
    expect(empty).toMatchObject({ description: '', metadata: '', sources: [], destinations: [] });
  });

  it('should refuse every invalid source with 400, naming the source index and the field', async () => {
    const e1 = await expectError(create({ sources: [{ type: 'api_key_created.v0' }, { type: 'http_request.v0', fields: ['conn.client_ip'] }] }), 400, 'unknown_event_type', 'sources[1].type');
    expect(e1.details).toMatchObject({ source_index: 1, type: 'http_request.v0' });
    await expectError(create({ sources: [{ type: TCP }] }), 400, 'source_fields_required', 'sources[0].fields');
    await expectError(create({ sources: [{ type: TCP, fields: [] }] }), 400, 'source_fields_required', 'sources[0].fields');
    const bad = await expectError(create({ sources: [{ type: 'api_key_created.v0' }, { type: TCP, fields: ['conn.bytes_in', 'http.request.method'] }] }), 400, 'unknown_event_field', 'sources[1].fields[1]');
    expect(bad.details).toMatchObject({ source_index: 1, value: 'http.request.method', type: TCP });
    expect(bad.msg).toContain('http.request.method');
    await expectError(create({ sources: [{ type: TCP, fields: ['conn.bytes_in', 'conn.bytes_in'] }] }), 400, 'duplicate_value', 'sources[0].fields[1]');
    await expectError(create({ sources: [{ type: 'ip_policy_created.v0', fields: ['id'] }] }), 400, 'audit_source_field', 'sources[0].fields');
    await expectError(create({ sources: [{ type: 'ip_policy_created.v0', filter: 'true' }] }), 400, 'audit_source_field', 'sources[0].filter');
    const dup = await expectError(create({ sources: [traffic(), { type: 'api_key_created.v0' }, traffic()] }), 400, 'duplicate_source_type', 'sources[2].type');
    expect(dup.details).toMatchObject({ source_index: 2, first_index: 0 });
    await expectError(create({ sources: [{ type: TCP, fields: ['conn.bytes_in'], colour: 'red' }] }), 400, 'unknown_field', 'sources[0].colour');
    await expectError(create({ sources: [{ fields: ['conn.bytes_in'] }] }), 400, 'invalid_body', 'sources[0].type');
    await expectError(create({ sources: [{ type: TCP, fields: 'conn.bytes_in' }] }), 400, 'invalid_body', 'sources[0].fields');
    const many = AUDIT_EVENT_TYPES.slice(0, MAX_SOURCES_PER_SUBSCRIPTION + 1).map((type) => ({ type }));
    const tooMany = await expectError(create({ sources: many }), 400, 'too_many_items', 'sources');
    expect(tooMany.details).toMatchObject({ limit: MAX_SOURCES_PER_SUBSCRIPTION, actual: MAX_SOURCES_PER_SUBSCRIPTION + 1 });
    expect((await created({ sources: many.slice(0, MAX_SOURCES_PER_SUBSCRIPTION) })).sources).toHaveLength(MAX_SOURCES_PER_SUBSCRIPTION);
  });

  it('should refuse a bad filter with 400 naming the line and column of the problem', async () => {
    const cases: Array<[string, string, number, number]> = [
      ['ev.conn.server_port == 443 &&', 'syntax', 1, 28],
      ['ev.conn.server_port == 443 &&\n  ev.conn.bytes_in > 1000', 'not_filterable', 2, 3],
      ['ev.conn.client_port == 443', 'unknown_field', 1, 1],
      ['ev.conn.server_port == "443"', 'type', 1, 21],
    ];
    for (const [filter, code, line, column] of cases) {
      const e = await expectError(create({ sources: [{ type: 'api_key_created.v0' }, traffic(filter)] }), 400, 'invalid_filter', 'sources[1].filter');
      expect(e.details, filter).toMatchObject({ source_index: 1, type: TCP, line, column, filter_code: code });
      expect(e.details.problems[0], filter).toMatchObject({ path: 'sources[1].filter', code: 'invalid_filter', line, column, filter_code: code, message: e.msg });
      expect(e.msg, filter).toContain(`line ${line}, column ${column}`);
    }
    const long = `ev.conn.server_port == 1${' || ev.conn.server_port == 2'.repeat(150)}`;
    const tooLong = await expectError(create({ sources: [traffic(long)] }), 400, 'field_too_long', 'sources[0].filter');
    expect(tooLong.details).toMatchObject({ limit: 4096, unit: 'characters' });
  });

  it('should check destination_ids: well formed, unique, existing, and at most the limit', async () => {
    const missing = 'ed_01JD0000000000000000000009';
    const e = await expectError(create({ destination_ids: [dest.id, missing] }), 400, 'unknown_reference', 'destination_ids[1]');
    expect(e.details).toMatchObject({ id: missing });
    expect(e.msg).toContain(missing);
    await expectError(create({ destination_ids: ['esb_01JD0000000000000000000009'] }), 400, 'invalid_id', 'destination_ids[0]');
    await expectError(create({ destination_ids: ['nonsense'] }), 400, 'invalid_id', 'destination_ids[0]');
    await expectError(create({ destination_ids: [dest.id, dest.id] }), 400, 'duplicate_value', 'destination_ids[1]');
    const ids = Array.from({ length: MAX_DESTINATIONS_PER_SUBSCRIPTION + 1 }, () => dest.id);
    await expectError(create({ destination_ids: ids }), 400, 'too_many_items', 'destination_ids');
  });

  it('should count description and metadata in characters, not bytes', async () => {
    // 255 four-byte characters: 1020 bytes, within the 255-character limit of event subscriptions.
    const s = await created({ description: '🙂'.repeat(255), metadata: 'é'.repeat(4096) });
    expect([...s.description]).toHaveLength(255);
    const d = await expectError(create({ description: 'a'.repeat(256) }), 400, 'field_too_long', 'description');
    expect(d.details).toMatchObject({ limit: 255, unit: 'characters' });
    await expectError(create({ description: '🙂'.repeat(256) }), 400, 'field_too_long', 'description');
    await expectError(create({ metadata: 'm'.repeat(4097) }), 400, 'field_too_long', 'metadata');
    await expectError(create({ colour: 'red' }), 400, 'unknown_field', 'colour');
  });

  it('should update a subscription, replacing the lists it is sent and validating them the same way', async () => {
    const s = await created({ sources: [traffic()], destination_ids: [dest.id] });
    const r = await h.call('PATCH', `/event_subscriptions/${s.id}`, { body: { description: 'renamed', sources: [{ type: 'ip_policy_updated.v0' }], destination_ids: [dest2.id] } });
    expect(r.status, r.text).toBe(200);
    expect(r.json).toEqual({
      ...s,
      description: 'renamed',
      sources: [{ type: 'ip_policy_updated.v0', fields: [], filter: '', sample_rate: 1, uri: `${s.uri}/sources/ip_policy_updated.v0` }],
      destinations: [dest2],
    });
    const meta = await h.call('PATCH', `/event_subscriptions/${s.id}`, { body: { metadata: 'm' } });
    expect(meta.json).toEqual({ ...r.json, metadata: 'm' });
    await expectError(h.call('PATCH', `/event_subscriptions/${s.id}`, { body: { sources: [traffic('ev.conn.nope')] } }), 400, 'invalid_filter', 'sources[0].filter');
    await expectError(h.call('PATCH', `/event_subscriptions/${s.id}`, { body: { destination_ids: ['ed_01JD0000000000000000000009'] } }), 400, 'unknown_reference', 'destination_ids[0]');
    await expectError(h.call('PATCH', `/event_subscriptions/${s.id}`, { body: { description: 'x'.repeat(256) } }), 400, 'field_too_long', 'description');
    expect((await h.call('GET', `/event_subscriptions/${s.id}`)).json).toEqual(meta.json);
    await expectError(h.call('PATCH', '/event_subscriptions/esb_01JD0000000000000000000009', { body: {} }), 404, 'not_found');
  });

  it('should take enabled and sample_rate, keep them across updates, and refuse a rate outside [2^-32, 1] or on an audit source', async () => {
    const s = await created({ sources: [{ ...traffic(), sample_rate: 0.25 }], destination_ids: [dest.id], enabled: false });
    expect([s.enabled, s.sources[0].sample_rate]).toEqual([false, 0.25]);
    expect(h.app.configLog.get(s.id)?.data).toMatchObject({ enabled: false, sources: [{ type: TCP, sample_rate: 0.25 }] });
    const resumed = await h.call('PATCH', `/event_subscriptions/${s.id}`, { body: { enabled: true } });
    expect([resumed.json.enabled, resumed.json.sources[0].sample_rate]).toEqual([true, 0.25]);
    const patched = await h.call('PATCH', `/event_subscriptions/${s.id}/sources/${TCP}`, { body: { sample_rate: 1 } });
    expect(patched.json.sample_rate).toBe(1);
    expect((h.app.configLog.get(s.id)?.data as { sources: Json[] }).sources[0]).not.toHaveProperty('sample_rate');
    // Below 2^-32 no match could ever be kept (src/subscriptions/sampling.ts): refused, not stored to deliver nothing.
    for (const rate of [0, -0.5, 1.5, 1e-10, 5e-324]) await expectError(create({ sources: [{ ...traffic(), sample_rate: rate }] }), 400, 'invalid_body', 'sources[0].sample_rate');
    expect((await created({ sources: [{ ...traffic(), sample_rate: 2 ** -32 }] })).sources[0].sample_rate).toBe(2 ** -32);
    await expectError(create({ sources: [{ type: 'ip_policy_updated.v0', sample_rate: 0.5 }] }), 400, 'audit_source_field', 'sources[0].sample_rate');
    // What a GET answers for an audit source can be sent back.
    expect((await created({ sources: [{ type: 'ip_policy_updated.v0', fields: [], filter: '', sample_rate: 1 }] })).enabled).toBe(true);
  });

  it('should list subscriptions newest first and delete them', async () => {
    const a = await created({ description: 'a' });
    const b = await created({ description: 'b' });
    const page = await h.call('GET', '/event_subscriptions?limit=2');
    expect(page.status).toBe(200);
    expect(page.json.event_subscriptions.map((x: { id: string }) => x.id)).toEqual([b.id, a.id]);
    expect(page.json.next_page_uri).toBe(`${PUBLIC_BASE_URL}/event_subscriptions?limit=2&before_id=${a.id}`);
    const del = await h.call('DELETE', `/event_subscriptions/${b.id}`);
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    await expectError(h.call('GET', `/event_subscriptions/${b.id}`), 404, 'not_found');
    await expectError(h.call('DELETE', `/event_subscriptions/${b.id}`), 404, 'not_found');
  });
});

describe('event subscription sources', () => {
  it('should list, add, get, update and remove sources by type', async () => {
    const s = await created({ sources: [{ type: 'api_key_created.v0' }], destination_ids: [dest.id] });
    const list = await h.call('GET', `/event_subscriptions/${s.id}/sources`);
    expect(list.status).toBe(200);
    expect(list.json).toEqual({ sources: s.sources, uri: `${s.uri}/sources`, next_page_uri: null });

    const added = await h.call('POST', `/event_subscriptions/${s.id}/sources`, { body: traffic('ev.conn.server_port == 22') });
    expect(added.status, added.text).toBe(201);
    expect(added.json).toEqual({ type: TCP, fields: ['conn.client_ip', 'conn.bytes_in'], filter: 'ev.conn.server_port == 22', sample_rate: 1, uri: `${s.uri}/sources/${TCP}` });
    expect((await h.call('GET', `/event_subscriptions/${s.id}/sources/${TCP}`)).json).toEqual(added.json);
    expect((await h.call('GET', `/event_subscriptions/${s.id}`)).json.sources.map((x: { type: string }) => x.type)).toEqual(['api_key_created.v0', TCP]);

    const onlyFilter = await h.call('PATCH', `/event_subscriptions/${s.id}/sources/${TCP}`, { body: { filter: 'ev.conn.server_port == 23' } });
    expect(onlyFilter.status, onlyFilter.text).toBe(200);
    expect(onlyFilter.json).toEqual({ ...added.json, filter: 'ev.conn.server_port == 23' });
    const onlyFields = await h.call('PATCH', `/event_subscriptions/${s.id}/sources/${TCP}`, { body: { fields: ['conn.end_ts'] } });
    expect(onlyFields.json).toEqual({ ...onlyFilter.json, fields: ['conn.end_ts'] });
    const noFilter = await h.call('PATCH', `/event_subscriptions/${s.id}/sources/${TCP}`, { body: { filter: '' } });
    expect(noFilter.json.filter).toBe('');

    const del = await h.call('DELETE', `/event_subscriptions/${s.id}/sources/${TCP}`);
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    await expectError(h.call('GET', `/event_subscriptions/${s.id}/sources/${TCP}`), 404, 'source_not_found');
    expect((await h.call('GET', `/event_subscriptions/${s.id}/sources`)).json.sources).toHaveLength(1);
  });

  it('should refuse invalid source changes with their status and error code', async () => {
    const s = await created({ sources: [{ type: 'api_key_created.v0' }, traffic()] });
    const path = `/event_subscriptions/${s.id}/sources`;
    const exists = await expectError(h.call('POST', path, { body: { type: 'api_key_created.v0' } }), 409, 'source_exists');
    expect(exists.details).toEqual({ subscription_id: s.id, type: 'api_key_created.v0' });
    await expectError(h.call('POST', path, { body: { type: 'nope.v0' } }), 400, 'unknown_event_type', 'type');
    await expectError(h.call('POST', path, { body: { type: HTTP } }), 400, 'source_fields_required', 'fields');
    await expectError(h.call('POST', path, { body: { type: HTTP, fields: ['conn.end_ts'] } }), 400, 'unknown_event_field', 'fields[0]');
    await expectError(h.call('POST', path, { body: { type: 'api_key_updated.v0', fields: ['id'] } }), 400, 'audit_source_field', 'fields');
    await expectError(h.call('POST', path, { body: { type: 'api_key_updated.v0', filter: 'true' } }), 400, 'audit_source_field', 'filter');
    const f = await expectError(h.call('POST', path, { body: { type: HTTP, fields: ['conn.client_ip'], filter: 'ev.http.request.method == "get"' } }), 400, 'invalid_filter', 'filter');
    expect(f.details).toMatchObject({ line: 1, column: 1, filter_code: 'not_filterable' });
    await expectError(h.call('POST', '/event_subscriptions/esb_01JD0000000000000000000009/sources', { body: { type: 'api_key_updated.v0' } }), 404, 'not_found');

    await expectError(h.call('PATCH', `${path}/${TCP}`, { body: { filter: 'ev.conn.server_port > "a"' } }), 400, 'invalid_filter', 'filter');
    await expectError(h.call('PATCH', `${path}/${TCP}`, { body: { fields: [] } }), 400, 'source_fields_required', 'fields');
    await expectError(h.call('PATCH', `${path}/${TCP}`, { body: { type: HTTP } }), 400, 'immutable_field', 'type');
    // The path names the type: a body that repeats it is refused too, as its schema has no type.
    await expectError(h.call('PATCH', `${path}/${TCP}`, { body: { type: TCP, fields: ['conn.end_ts'] } }), 400, 'immutable_field', 'type');
    await expectError(h.call('PATCH', `${path}/api_key_created.v0`, { body: { filter: 'true' } }), 400, 'audit_source_field', 'filter');
    await expectError(h.call('PATCH', `${path}/${HTTP}`, { body: { filter: '' } }), 404, 'source_not_found');
    await expectError(h.call('DELETE', `${path}/${HTTP}`), 404, 'source_not_found');
    // Nothing above changed the subscription.
    expect((await h.call('GET', `/event_subscriptions/${s.id}`)).json).toEqual(s);

    const full = await created({ sources: AUDIT_EVENT_TYPES.slice(0, MAX_SOURCES_PER_SUBSCRIPTION).map((type) => ({ type })) });
    await expectError(h.call('POST', `/event_subscriptions/${full.id}/sources`, { body: traffic() }), 400, 'too_many_items', 'sources');
  });
});
