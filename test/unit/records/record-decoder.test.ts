import { describe, expect, it } from 'vitest';
import { TRAFFIC_EVENT_TYPES, type TrafficEventType } from '../../../src/events/catalog.js';
import { createRecordDecoder } from '../../../src/records/record-decoder.js';
import { encodeRecord, type TrafficRecordInput } from '../../../src/records/record-encoder.js';
import type { FilterableResult, FullDecodeResult, WireForm } from '../../../src/records/record-types.js';
import { seededRecord } from '../../../src/traffic/seeded-records.js';
import { expectedRecord } from './arbitraries.js';

const FORMS: readonly WireForm[] = ['avro', 'confluent', 'json'];
const decoder = createRecordDecoder();

function decoded(result: FilterableResult): FullDecodeResult & { ok: true } {
  if (!result.ok) throw new Error(`expected a decoded record, got ${result.code}: ${result.message}`);
  const full = result.full();
  if (!full.ok) throw new Error(`expected a full record, got ${full.code}: ${full.message}`);
  return full;
}

const MINIMAL: Record<TrafficEventType, TrafficRecordInput> = {
  'http_request_complete.v0': {
    conn: { client_ip: '203.0.113.9', server_ip: '198.51.100.1', server_name: 'api.example.com', server_port: 443, start_ts: '2024-05-01T12:00:00Z' },
    http: {
      request: { method: 'get', url: { raw: 'https://api.example.com/', scheme: 'https', host: 'api.example.com', path: '/' } },
      response: { status_code: 204 },
    },
  },
  'tcp_connection_closed.v0': {
    conn: {
      client_ip: '2001:db8::1',
      server_ip: '2001:db8::2',
      server_name: '1.tcp.example.net',
      server_port: 20_001,
      start_ts: '2024-05-01T12:00:00+02:00',
      end_ts: '2024-05-01T10:00:01.5Z',
      bytes_in: 0,
      bytes_out: 9_007_199_254_740_990,
    },
  },
};

describe.each(TRAFFIC_EVENT_TYPES)('decoding %s', (eventType) => {
  it.each(FORMS)('should read back a realistic record written as %s', (form) => {
    const input = seededRecord(eventType, 7);
    const result = decoder.decodeFilterable(eventType, encodeRecord(eventType, input, form));
    expect(result.ok && result.form).toBe(form);
    expect(decoded(result).record).toEqual(expectedRecord(eventType, input));
  });

  it.each(FORMS)('should fill every absent optional field with null when a minimal record is written as %s', (form) => {
    const result = decoded(decoder.decodeFilterable(eventType, encodeRecord(eventType, MINIMAL[eventType], form)));
    const expected = expectedRecord(eventType, MINIMAL[eventType]) as { conn: Record<string, unknown> };
    // Timestamps come out in UTC with six fraction digits whatever offset they went in with.
    if (eventType === 'tcp_connection_closed.v0') {
      expected.conn.start_ts = '2024-05-01T10:00:00.000000Z';
      expected.conn.end_ts = '2024-05-01T10:00:01.500000Z';
    } else {
      expected.conn.start_ts = '2024-05-01T12:00:00.000000Z';
    }
    expect(result.record).toEqual(expected);
  });

  it.each(FORMS)('should give the four filterable fields, and nothing else, before the full decode (%s)', (form) => {
    const input = seededRecord(eventType, 11) as { conn: Record<string, unknown> };
    const result = decoder.decodeFilterable(eventType, encodeRecord(eventType, input, form));
    if (!result.ok) throw new Error(result.message);
    const { client_ip, server_ip, server_name, server_port } = input.conn;
    expect(result.filterable).toEqual({ conn: { client_ip, server_ip, server_name, server_port } });
  });
});

describe('the wire form rule', () => {
  const http = 'http_request_complete.v0';
  const input = seededRecord(http, 3);

  it('should take a plain Avro record whose first byte is not 0 as plain Avro without any header', () => {
    const { value } = encodeRecord(http, input, 'avro');
    expect(value[0]).not.toBe(0);
    const result = decoder.decodeFilterable(http, { value });
    expect(result.ok && result.form).toBe('avro');
  });

  it('should take a first byte 0 without a content-type header as the Confluent wire format', () => {
    const { value } = encodeRecord(http, input, 'confluent');
    expect(value[0]).toBe(0);
    const result = decoder.decodeFilterable(http, { value });
    expect(result.ok && result.form).toBe('confluent');
  });

  it('should let a content-type header decide, matching its name case-insensitively and ignoring parameters', () => {
    const avroValue = encodeRecord(http, input, 'avro').value;
    const frame = encodeRecord(http, input, 'confluent').value;
    const json = encodeRecord(http, input, 'json').value;
    const cases: [Buffer, Record<string, Buffer | string | string[]>, WireForm][] = [
      [avroValue, { 'content-type': 'application/avro' }, 'avro'],
      [avroValue, { 'Content-Type': Buffer.from('avro/binary') }, 'avro'],
      [frame, { 'content-type': 'application/vnd.confluent.avro' }, 'confluent'],
      [json, { 'CONTENT-TYPE': 'Application/JSON; charset=utf-8' }, 'json'],
      [json, { 'content-type': ['application/json'] }, 'json'],
    ];
    for (const [value, headers, form] of cases) {
      const result = decoder.decodeFilterable(http, { value, headers });
      expect(result.ok && result.form, JSON.stringify(headers)).toBe(form);
    }
  });

  it('should take the schema id of a Confluent frame from a table given to the decoder', () => {
    const ids = new Map([[4711, { eventType: http, version: 1 } as const]]);
    const custom = createRecordDecoder({ schemaIds: ids });
    const frame = encodeRecord(http, input, 'confluent', { schemaIds: ids }).value;
    expect(frame.readUInt32BE(1)).toBe(4711);
    expect(decoded(custom.decodeFilterable(http, { value: frame })).record).toEqual(expectedRecord(http, input));
    const standard = decoder.decodeFilterable(http, { value: frame });
    expect(standard.ok ? 'ok' : standard.code).toBe('unknown_schema_id');
  });

  it('should refuse at start-up a schema id table that names a version the service does not know', () => {
    expect(() => createRecordDecoder({ schemaIds: new Map([[9, { eventType: http, version: 2 }]]) })).toThrow(/version 2/);
  });
});

describe('the full decode', () => {
  it('should be computed once and then remembered', () => {
    const result = decoder.decodeFilterable('tcp_connection_closed.v0', encodeRecord('tcp_connection_closed.v0', seededRecord('tcp_connection_closed.v0', 1), 'avro'));
    if (!result.ok) throw new Error(result.message);
    expect(result.full()).toBe(result.full());
  });

  it('should give plain JSON objects that serialize back to the same record', () => {
    const input = seededRecord('http_request_complete.v0', 5);
    const full = decoded(decoder.decodeFilterable('http_request_complete.v0', encodeRecord('http_request_complete.v0', input, 'avro')));
    expect(JSON.parse(JSON.stringify(full.record))).toEqual(full.record);
    expect(Object.getPrototypeOf(full.record.conn)).toBe(Object.prototype);
  });
});
