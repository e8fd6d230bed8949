// Event subscription sources: types of docs/events.md, real fields, filters compiled with their positions.
import { describe, expect, it } from 'vitest';
import { validateSource, validateSources, type SourceInput } from '../../../src/admin/event-subscriptions/source-input.js';
import { subscriptionView } from '../../../src/admin/event-subscriptions/subscription-view.js';
import { MAX_SOURCES_PER_SUBSCRIPTION } from '../../../src/admin/event-subscriptions/limits.js';
import type { AdminContext } from '../../../src/admin/context.js';
import { AUDIT_EVENT_TYPES } from '../../../src/events/catalog.js';

const TCP = 'tcp_connection_closed.v0';
const HTTP = 'http_request_complete.v0';

function error(input: SourceInput): { code: string; details: Record<string, unknown>; message: string; status: number } {
  const r = validateSource(input);
  if (r.ok) throw new Error(`expected an error, got ${JSON.stringify(r.source)}`);
  return { code: r.error.code, details: { ...r.error.details }, message: r.error.message, status: r.error.status };
}

describe('event subscription source', () => {
  it('should store a traffic source with its fields and filter', () => {
    const r = validateSource({ type: HTTP, fields: ['conn.client_ip', 'http.request.method'], filter: 'ev.conn.server_port == 443' });
    expect(r).toEqual({ ok: true, source: { type: HTTP, fields: ['conn.client_ip', 'http.request.method'], filter: 'ev.conn.server_port == 443' } });
  });

  it('should store no filter when the filter is empty or blank', () => {
    expect(validateSource({ type: TCP, fields: ['conn.bytes_in'], filter: '' })).toEqual({ ok: true, source: { type: TCP, fields: ['conn.bytes_in'] } });
    expect(validateSource({ type: TCP, fields: ['conn.bytes_in'], filter: null })).toEqual({ ok: true, source: { type: TCP, fields: ['conn.bytes_in'] } });
    expect(validateSource({ type: TCP, fields: ['conn.bytes_in'], filter: '  ' })).toEqual({ ok: true, source: { type: TCP, fields: ['conn.bytes_in'] } });
  });

  it('should store an audit source as its type only, accepting empty fields and filter', () => {
    expect(validateSource({ type: 'ip_policy_created.v0' })).toEqual({ ok: true, source: { type: 'ip_policy_created.v0' } });
    expect(validateSource({ type: 'agent_session_stop.v0', fields: [], filter: '' })).toEqual({ ok: true, source: { type: 'agent_session_stop.v0' } });
  });

  it('should refuse fields or a filter on an audit type', () => {
    expect(error({ type: 'api_key_deleted.v0', fields: ['id'] })).toMatchObject({ code: 'audit_source_field', status: 400, details: { field: 'fields' } });
    expect(error({ type: 'api_key_deleted.v0', filter: 'true' })).toMatchObject({ code: 'audit_source_field', status: 400, details: { field: 'filter' } });
  });

  it('should refuse a type docs/events.md does not list', () => {
    for (const type of ['http_request_complete', 'http_request_complete.v1', 'api_key_renamed.v0', 'tcp_address.v0', '']) {
      expect(error({ type, fields: ['conn.client_ip'] }), type).toMatchObject({ code: 'unknown_event_type', details: { field: 'type', type } });
    }
  });

  it('should require fields on a traffic type, each a real field of that type, listed once', () => {
    expect(error({ type: TCP })).toMatchObject({ code: 'source_fields_required', details: { field: 'fields' } });
    expect(error({ type: TCP, fields: [] })).toMatchObject({ code: 'source_fields_required' });
    // http.request.method is a field of http_request_complete.v0 but not of tcp_connection_closed.v0.
    expect(error({ type: TCP, fields: ['conn.bytes_in', 'http.request.method'] })).toMatchObject({
      code: 'unknown_event_field',
      details: { field: 'fields[1]', value: 'http.request.method', type: TCP },
    });
    expect(error({ type: HTTP, fields: ['conn'] })).toMatchObject({ code: 'unknown_event_field', details: { field: 'fields[0]' } });
    expect(error({ type: HTTP, fields: ['conn.client_ip', 'conn.client_ip'] })).toMatchObject({ code: 'duplicate_value', details: { field: 'fields[1]' } });
  });

  it('should report a bad filter with the line, column and code of each problem', () => {
    const cases: Array<[string, string, number, number]> = [
      ['ev.conn.server_port ==', 'syntax', 1, 21],
      ['ev.conn.server_port == 443 &&\n  ev.conn.bytes_in > 5', 'not_filterable', 2, 3],
      ['ev.conn.nope == 1', 'unknown_field', 1, 1],
      ['ev.conn.server_port == "443"', 'type', 1, 21],
    ];
    for (const [filter, code, line, column] of cases) {
      const e = error({ type: TCP, fields: ['conn.bytes_in'], filter });
      expect(e, filter).toMatchObject({ code: 'invalid_filter', status: 400, details: { field: 'filter', line, column, filter_code: code } });
      // Each problem of the filter in details.problems, with its path and the API's code beside the filter's own.
      expect((e.details.problems as unknown[])[0], filter).toMatchObject({ path: 'filter', code: 'invalid_filter', message: e.message, line, column, filter_code: code });
      expect(e.message).toContain(`line ${line}, column ${column}`);
    }
  });

  it('should refuse a filter longer than the limit before compiling it', () => {
    const filter = `ev.conn.server_port == 1${' || ev.conn.server_port == 1'.repeat(200)}`;
    expect(error({ type: TCP, fields: ['conn.bytes_in'], filter })).toMatchObject({ code: 'field_too_long', details: { field: 'filter', limit: 4096 } });
  });
});

describe('event subscription source list', () => {
  it('should name the index of the bad source', () => {
    const r = validateSources([
      { type: HTTP, fields: ['conn.client_ip'] },
      { type: TCP, fields: ['conn.bytes_in'], filter: 'ev.conn.bytes_in > 1' },
    ]);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.details).toMatchObject({ field: 'sources[1].filter', source_index: 1, filter_code: 'not_filterable' });
    const f = validateSources([{ type: TCP, fields: ['conn.nope'] }]);
    if (!f.ok) expect(f.error.details).toMatchObject({ field: 'sources[0].fields[0]', source_index: 0, value: 'conn.nope' });
    expect(f.ok).toBe(false);
  });

  it('should refuse the same type twice', () => {
    const r = validateSources([{ type: 'api_key_created.v0' }, { type: HTTP, fields: ['conn.client_ip'] }, { type: 'api_key_created.v0' }]);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatchObject({ code: 'duplicate_source_type', details: { field: 'sources[2].type', source_index: 2, first_index: 0 } });
  });

  it('should cap the number of sources', () => {
    const many = AUDIT_EVENT_TYPES.slice(0, MAX_SOURCES_PER_SUBSCRIPTION + 1).map((type) => ({ type }));
    const r = validateSources(many);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatchObject({ code: 'too_many_items', details: { field: 'sources', limit: MAX_SOURCES_PER_SUBSCRIPTION } });
    expect(validateSources(many.slice(0, MAX_SOURCES_PER_SUBSCRIPTION)).ok).toBe(true);
  });

  it('should be returned with uris for the subscription, each source and each destination', () => {
    const ctx = { uri: (p: string) => `https://api.example${p}` } as unknown as AdminContext;
    const view = subscriptionView(ctx, {
      id: 'esb_1',
      account_id: 'acct_1',
      created_at: '2026-01-01T00:00:00.000Z',
      description: 'd',
      metadata: 'm',
      sources: [{ type: HTTP, fields: ['conn.client_ip'] }, { type: 'ip_policy_updated.v0' }],
      destination_ids: ['ed_1'],
    });
    expect(view).toEqual({
      id: 'esb_1',
      uri: 'https://api.example/event_subscriptions/esb_1',
      account_id: 'acct_1',
      created_at: '2026-01-01T00:00:00.000Z',
      metadata: 'm',
      description: 'd',
      sources: [
        { type: HTTP, fields: ['conn.client_ip'], filter: '', sample_rate: 1, uri: `https://api.example/event_subscriptions/esb_1/sources/${HTTP}` },
        { type: 'ip_policy_updated.v0', fields: [], filter: '', sample_rate: 1, uri: 'https://api.example/event_subscriptions/esb_1/sources/ip_policy_updated.v0' },
      ],
      destinations: [{ id: 'ed_1', uri: 'https://api.example/event_destinations/ed_1' }],
      // Stored before pausing existed: enabled.
      enabled: true,
    });
  });
});
