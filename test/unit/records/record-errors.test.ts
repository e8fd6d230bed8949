import avro from 'avsc';
import { describe, expect, it } from 'vitest';
import type { TrafficEventType } from '../../../src/events/catalog.js';
import { DECODE_ERROR_CODES, type DecodeErrorCode } from '../../../src/records/errors.js';
import { prefixSchema } from '../../../src/records/avro-record.js';
import { MAX_LOG_VALUE_DEPTH } from '../../../src/records/json-record.js';
import { createRecordDecoder } from '../../../src/records/record-decoder.js';
import { encodeRecord } from '../../../src/records/record-encoder.js';
import type { FilterableResult, RawMessage } from '../../../src/records/record-types.js';
import { readSchemaFile, type AvroSchema } from '../../../src/records/schema-registry.js';
import { seededRecord } from '../../../src/traffic/seeded-records.js';

const HTTP: TrafficEventType = 'http_request_complete.v0';
const TCP: TrafficEventType = 'tcp_connection_closed.v0';
const decoder = createRecordDecoder();
const JSON_HEADERS = { 'content-type': 'application/json' };

/** The error code of a record, whether the cheap read or the full decode refuses it; 'ok' when neither does. */
function outcome(result: FilterableResult): DecodeErrorCode | 'ok' {
  if (!result.ok) return result.code;
  const full = result.full();
  return full.ok ? 'ok' : full.code;
}

function decode(eventType: TrafficEventType, msg: RawMessage): DecodeErrorCode | 'ok' {
  return outcome(decoder.decodeFilterable(eventType, msg));
}

type Json = Record<string, unknown>;

/** The number of bytes of the varint at `at`. */
function varintLength(buf: Buffer, at: number): number {
  let n = 1;
  while (((buf[at + n - 1] as number) & 0x80) !== 0) n++;
  return n;
}

/** The record's schema with the field at `path` given another Avro type, to write bytes our schema forbids. */
function variant(eventType: TrafficEventType, path: string, type: unknown): avro.Type {
  const schema = structuredClone(readSchemaFile(`${eventType}.avsc`)) as Json;
  let node = schema;
  const parts = path.split('.');
  parts.forEach((name, i) => {
    const field = (node.fields as Json[]).find((f) => f.name === name) as Json;
    if (i === parts.length - 1) field.type = type;
    else node = field.type as Json;
  });
  return avro.Type.forSchema(schema as avro.Schema);
}

/** The Avro value (timestamps in micros, log values as JSON texts) of a generated record, to edit and re-encode. */
function avroValue(eventType: TrafficEventType, seed = 1): Json {
  const type = avro.Type.forSchema(readSchemaFile(`${eventType}.avsc`) as avro.Schema);
  return type.fromBuffer(encodeRecord(eventType, seededRecord(eventType, seed), 'avro').value) as Json;
}

function jsonBody(eventType: TrafficEventType, edit: (r: Json) => void): RawMessage {
  const r = JSON.parse(encodeRecord(eventType, seededRecord(eventType, 2), 'json').value.toString()) as Json;
  edit(r);
  return { value: Buffer.from(JSON.stringify(r)), headers: JSON_HEADERS };
}

describe('a refused record', () => {
  it('should be empty_record when it has no value or no bytes', () => {
    expect(decode(HTTP, { value: null })).toBe('empty_record');
    expect(decode(HTTP, { value: Buffer.alloc(0) })).toBe('empty_record');
  });

  it('should be record_too_large beyond maxRecordBytes, in every form', () => {
    const small = createRecordDecoder({ maxRecordBytes: 200 });
    for (const form of ['avro', 'confluent', 'json'] as const) {
      const result = small.decodeFilterable(HTTP, encodeRecord(HTTP, seededRecord(HTTP, 1), form));
      expect(result.ok ? 'ok' : result.code).toBe('record_too_large');
    }
  });

  it('should be unsupported_content_type for a media type the topic does not take', () => {
    const { value } = encodeRecord(HTTP, seededRecord(HTTP, 1), 'json');
    expect(decode(HTTP, { value, headers: { 'content-type': 'text/plain' } })).toBe('unsupported_content_type');
  });

  it('should be unsupported_content_type for content-type headers that name different media types, and take repeats of one', () => {
    const json = encodeRecord(HTTP, seededRecord(HTTP, 1), 'json').value;
    const differ = [
      { 'content-type': [Buffer.from('application/json'), Buffer.from('text/plain')] },
      { 'content-type': 'application/json', 'Content-Type': 'application/avro' },
    ];
    for (const headers of differ) {
      const result = decoder.decodeFilterable(HTTP, { value: json, headers });
      expect(result.ok ? 'ok' : [result.code, result.message]).toEqual(['unsupported_content_type', expect.stringMatching(/^The record has 2 content-type headers naming different media types \("application\/json", "(text\/plain|application\/avro)"\); send one\.$/)]);
    }
    const same = { 'content-type': [Buffer.from('application/json'), Buffer.from('application/json; charset=utf-8')] };
    expect(decode(HTTP, { value: json, headers: same })).toBe('ok');
  });

  it('should be unsupported_content_type for media types named like properties of every object', () => {
    const { value } = encodeRecord(HTTP, seededRecord(HTTP, 1), 'avro');
    for (const media of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      expect(decode(HTTP, { value, headers: { 'content-type': media } }), media).toBe('unsupported_content_type');
      expect(decode(HTTP, { value, headers: { 'Content-Type': Buffer.from(media) } }), media).toBe('unsupported_content_type');
    }
  });

  it('should read a record by its first byte when its content-type header has no value, or is not its own', () => {
    const { value } = encodeRecord(HTTP, seededRecord(HTTP, 1), 'avro');
    expect(decode(HTTP, { value, headers: { 'content-type': null as unknown as undefined } })).toBe('ok');
    expect(decode(HTTP, { value, headers: { 'content-type': [] } })).toBe('ok');
    const inherited = Object.create({ 'content-type': 'text/plain' }) as Record<string, string>;
    expect(decode(HTTP, { value, headers: inherited })).toBe('ok');
  });

  it('should read the content type case-insensitively, without parameters, from a string or bytes', () => {
    const { value } = encodeRecord(HTTP, seededRecord(HTTP, 1), 'json');
    for (const media of ['application/json', 'Application/JSON', ' application/json ; charset=utf-8', 'application/json;x=1']) {
      expect(decode(HTTP, { value, headers: { 'content-type': media } }), media).toBe('ok');
      expect(decode(HTTP, { value, headers: { 'CONTENT-TYPE': [Buffer.from(media)] } }), media).toBe('ok');
    }
  });

  it('should be unknown_schema_id for a Confluent frame whose id is not in the table', () => {
    const frame = Buffer.from(encodeRecord(HTTP, seededRecord(HTTP, 1), 'confluent').value);
    frame.writeUInt32BE(999, 1);
    expect(decode(HTTP, { value: frame })).toBe('unknown_schema_id');
  });

  it('should be schema_mismatch for a Confluent frame of the other event type', () => {
    expect(decode(HTTP, encodeRecord(TCP, seededRecord(TCP, 1), 'confluent'))).toBe('schema_mismatch');
  });

  it('should be malformed_avro when the record is cut short anywhere, before or after the filterable fields', () => {
    for (const form of ['avro', 'confluent'] as const) {
      const { value } = encodeRecord(TCP, seededRecord(TCP, 4), form);
      for (let end = 1; end < value.length; end++) {
        const headers = { 'content-type': form === 'avro' ? 'application/avro' : 'application/vnd.confluent.avro' };
        expect(decode(TCP, { value: value.subarray(0, end), headers }), `${form} cut at ${end}`).toBe('malformed_avro');
      }
    }
  });

  it('should be malformed_avro when bytes follow the end of the record', () => {
    const { value } = encodeRecord(HTTP, seededRecord(HTTP, 1), 'avro');
    const result = decoder.decodeFilterable(HTTP, { value: Buffer.concat([value, Buffer.from([0])]) });
    expect(result.ok).toBe(true);
    expect(outcome(result)).toBe('malformed_avro');
  });

  it('should be malformed_avro for a union index outside the union', () => {
    const value = Buffer.from(encodeRecord(TCP, { ...seededRecord(TCP, 1), traffic_policy: { logs: null } }, 'avro').value);
    value[value.length - 1] = 4; // zig-zag 2: a third branch of ["null", array]
    expect(decode(TCP, { value })).toBe('malformed_avro');
  });

  it('should be malformed_avro, at once, for an array block count larger than the bytes left', () => {
    const value = Buffer.from(encodeRecord(TCP, { ...seededRecord(TCP, 1), traffic_policy: { logs: null } }, 'avro').value);
    value[value.length - 1] = 2; // the array branch
    // zig-zag varint of 2^31 - 1 items: avsc alone would go on reading past the end until memory runs out.
    const huge = Buffer.from([0xfe, 0xff, 0xff, 0xff, 0x0f]);
    const started = Date.now();
    expect(decode(TCP, { value: Buffer.concat([value, huge]) })).toBe('malformed_avro');
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('should be malformed_avro for a boolean byte other than 0 or 1', () => {
    const type = variant(HTTP, 'backend.connection_reused', ['null', 'int']);
    const v = avroValue(HTTP);
    (v.backend as Json).connection_reused = 1; // zig-zag 2 where a boolean byte belongs
    expect(decode(HTTP, { value: type.toBuffer(v) })).toBe('malformed_avro');
  });

  it('should be malformed_avro for a Confluent frame shorter than its header', () => {
    expect(decode(HTTP, { value: Buffer.from([0, 0, 1]) })).toBe('malformed_avro');
  });

  it('should be invalid_json for a JSON body that does not parse', () => {
    expect(decode(HTTP, { value: Buffer.from('{"conn": '), headers: JSON_HEADERS })).toBe('invalid_json');
  });

  it('should be invalid_utf8 for a filterable string that is not UTF-8, at the cheap read', () => {
    const type = variant(HTTP, 'conn.server_name', 'bytes');
    const v = avroValue(HTTP);
    (v.conn as Json).server_name = Buffer.from([0x61, 0xff, 0x62]);
    const result = decoder.decodeFilterable(HTTP, { value: type.toBuffer(v) });
    expect(result.ok ? 'ok' : result.code).toBe('invalid_utf8');
  });

  it('should be invalid_utf8 for a header name that is not UTF-8, at the full decode', () => {
    const entry = { type: 'record', name: 'entry', fields: [{ name: 'key', type: 'bytes' }, { name: 'value', type: { type: 'array', items: 'string' } }] };
    // A map is written exactly like an array of key/value records.
    const type = variant(HTTP, 'http.request.headers', ['null', { type: 'array', items: entry }]);
    const v = avroValue(HTTP);
    ((v.http as Json).request as Json).headers = [{ key: Buffer.from([0xc3, 0x28]), value: ['x'] }];
    const result = decoder.decodeFilterable(HTTP, { value: type.toBuffer(v) });
    expect(result.ok).toBe(true);
    expect(outcome(result)).toBe('invalid_utf8');
  });

  it('should be invalid_utf8 for a JSON body with invalid bytes or a lone surrogate escape', () => {
    const bytes = Buffer.from(encodeRecord(HTTP, seededRecord(HTTP, 1), 'json').value);
    const at = bytes.indexOf('"gzip"');
    expect(at).toBeGreaterThan(0);
    bytes[at + 1] = 0xff;
    expect(decode(HTTP, { value: bytes, headers: JSON_HEADERS })).toBe('invalid_utf8');
    const text = encodeRecord(HTTP, seededRecord(HTTP, 1), 'json').value.toString().replace('"gzip"', '"gz\\ud800ip"');
    expect(decode(HTTP, { value: Buffer.from(text), headers: JSON_HEADERS })).toBe('invalid_utf8');
  });

  it("should read a member given twice as JSON.parse does, the last copy counting for the worker's filter and its record", () => {
    const worker = createRecordDecoder({ validateAll: true });
    const text = encodeRecord(TCP, seededRecord(TCP, 1), 'json').value.toString();
    const conn = (name: string): string => text.slice(text.indexOf('"conn":'), text.indexOf('}', text.indexOf('"conn":')) + 1).replace(/"server_name":"[^"]*"/, `"server_name":"${name}"`);
    const twice = `{${conn('first.example')},${conn('last.example')},${text.slice(1).replace(/"conn":\{[^}]*\},?/, '')}`;
    const result = worker.decodeFilterable(TCP, { value: Buffer.from(twice), headers: JSON_HEADERS });
    if (!result.ok) throw new Error(result.message);
    expect(result.filterable.conn?.server_name).toBe('last.example');
    const full = result.full();
    expect(full.ok && (full.record.conn as Json).server_name).toBe('last.example');
  });

  it('should accept an escaped surrogate pair in JSON', () => {
    const text = encodeRecord(HTTP, seededRecord(HTTP, 1), 'json').value.toString().replace('"gzip"', '"gz\\ud83d\\ude00ip"');
    expect(decode(HTTP, { value: Buffer.from(text), headers: JSON_HEADERS })).toBe('ok');
  });

  describe('schema_violation', () => {
    it('should refuse an int32 field written wider than 32 bits in Avro', () => {
      const type = variant(HTTP, 'conn.server_port', 'long');
      const v = avroValue(HTTP);
      (v.conn as Json).server_port = 2 ** 31;
      expect(decode(HTTP, { value: type.toBuffer(v) })).toBe('schema_violation');
      const status = variant(HTTP, 'http.response.status_code', 'long');
      const w = avroValue(HTTP);
      ((w.http as Json).response as Json).status_code = -(2 ** 31) - 1;
      expect(decode(HTTP, { value: status.toBuffer(w) })).toBe('schema_violation');
    });

    it('should refuse an int64 beyond 2^53 - 2 in Avro', () => {
      // bytes_out follows the four filterable fields in tcp_connection_closed.v0; written as 0 it is one zero byte.
      const v = avroValue(TCP);
      v.conn = { ...(v.conn as Json), bytes_out: 0 };
      const plain = avro.Type.forSchema(readSchemaFile(`${TCP}.avsc`) as avro.Schema);
      const lead = avro.Type.forSchema(prefixSchema(readSchemaFile(`${TCP}.avsc`) as AvroSchema) as avro.Schema);
      const bytes = plain.toBuffer(v);
      const bytesIn = lead.toBuffer(v).length;
      const offset = bytesIn + varintLength(bytes, bytesIn);
      expect(bytes[offset]).toBe(0);
      const big = Buffer.from([0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01]); // zig-zag varint of 2^62
      expect(decode(TCP, { value: Buffer.concat([bytes.subarray(0, offset), big, bytes.subarray(offset + 1)]) })).toBe('schema_violation');
    });

    it('should refuse a log value that is not a JSON text in Avro', () => {
      const v = avroValue(HTTP);
      (v.traffic_policy as Json).logs = [{ action: 'not json' }];
      const type = avro.Type.forSchema(readSchemaFile(`${HTTP}.avsc`) as avro.Schema);
      expect(decode(HTTP, { value: type.toBuffer(v) })).toBe('schema_violation');
    });

    it('should refuse a log value with a lone surrogate escape, or a number no double holds, in Avro as in JSON, with the same message', () => {
      const type = avro.Type.forSchema(readSchemaFile(`${HTTP}.avsc`) as avro.Schema);
      const cases = [
        { text: '"\\ud800"', code: 'invalid_utf8', message: 'traffic_policy.logs[0].a holds a lone surrogate, which UTF-8 cannot encode.' },
        { text: '{"x": ["\\udfff"]}', code: 'invalid_utf8', message: 'traffic_policy.logs[0].a.x[0] holds a lone surrogate, which UTF-8 cannot encode.' },
        { text: '1e400', code: 'schema_violation', message: 'traffic_policy.logs[0].a is a number beyond the range of a double (about ±1.8e308), which JSON readers cannot hold.' },
      ];
      for (const c of cases) {
        const v = avroValue(HTTP);
        v.traffic_policy = { logs: [{ a: c.text }] };
        const result = decoder.decodeFilterable(HTTP, { value: type.toBuffer(v) });
        const full = result.ok ? result.full() : result;
        expect(full.ok ? 'ok' : [full.code, full.message], `Avro ${c.text}`).toEqual([c.code, c.message]);
        // The validating scan the router projects from refuses it too (the router then dead-letters it with the full decode's words).
        if (!result.ok || result.avro === undefined) throw new Error('the cheap read refused the record');
        const avroBytes = result.avro;
        expect(() => avroBytes.codec.leafStarts(avroBytes.buf, avroBytes.pos), `Avro scan ${c.text}`).toThrow(c.message.slice(c.message.indexOf(' ')));
        // The same log value in the JSON form, written as its text.
        const parsed = JSON.parse(encodeRecord(HTTP, seededRecord(HTTP, 2), 'json').value.toString()) as Json;
        const json = JSON.stringify({ ...parsed, traffic_policy: { logs: [{ a: '@' }] } }).replace('"@"', c.text);
        const jsonResult = decoder.decodeFilterable(HTTP, { value: Buffer.from(json), headers: JSON_HEADERS });
        const jsonFull = jsonResult.ok ? jsonResult.full() : jsonResult;
        expect(jsonFull.ok ? 'ok' : [jsonFull.code, jsonFull.message], `JSON ${c.text}`).toEqual([c.code, c.message]);
      }
    });

    it('should hold log values to the same nesting limit in Avro and in JSON', () => {
      const nested = (levels: number): unknown => JSON.parse(`${'['.repeat(levels)}${']'.repeat(levels)}`);
      const type = avro.Type.forSchema(readSchemaFile(`${HTTP}.avsc`) as avro.Schema);
      for (const [levels, code] of [[MAX_LOG_VALUE_DEPTH, 'ok'], [MAX_LOG_VALUE_DEPTH + 1, 'schema_violation']] as const) {
        const v = avroValue(HTTP);
        v.traffic_policy = { logs: [{ deep: JSON.stringify(nested(levels)) }] };
        expect(decode(HTTP, { value: type.toBuffer(v) }), `Avro, ${levels} levels`).toBe(code);
        const msg = jsonBody(HTTP, (r) => (r.traffic_policy = { logs: [{ deep: nested(levels) }] as Json[] }));
        expect(decode(HTTP, msg), `JSON, ${levels} levels`).toBe(code);
      }
    });

    it('should refuse a map key __proto__ in Avro and in JSON', () => {
      const v = avroValue(HTTP);
      const headers = JSON.parse('{"__proto__": ["x"]}') as Json;
      ((v.http as Json).request as Json).headers = headers;
      const type = avro.Type.forSchema(readSchemaFile(`${HTTP}.avsc`) as avro.Schema);
      expect(decode(HTTP, { value: type.toBuffer(v) })).toBe('schema_violation');
      const body = encodeRecord(HTTP, seededRecord(HTTP, 1), 'json').value.toString().replace('"Accept":', '"__proto__":');
      expect(decode(HTTP, { value: Buffer.from(body), headers: JSON_HEADERS })).toBe('schema_violation');
    });

    it('should refuse an empty client_ip and a port outside 0-65535', () => {
      expect(decode(HTTP, jsonBody(HTTP, (r) => ((r.conn as Json).client_ip = '')))).toBe('schema_violation');
      expect(decode(HTTP, jsonBody(HTTP, (r) => ((r.conn as Json).server_port = 70_000)))).toBe('schema_violation');
      const { value } = encodeRecord(TCP, seededRecord(TCP, 1), 'avro');
      const type = avro.Type.forSchema(readSchemaFile(`${TCP}.avsc`) as avro.Schema);
      const v = type.fromBuffer(value) as Json;
      (v.conn as Json).client_ip = '';
      expect(decode(TCP, { value: type.toBuffer(v), headers: { 'content-type': 'application/avro' } })).toBe('schema_violation');
    });

    it.each([
      ['a missing required field', (r: Json) => delete ((r.http as Json).request as Json).method],
      ['a missing required group', (r: Json) => delete r.conn],
      ['a string where a number belongs', (r: Json) => (((r.http as Json).response as Json).status_code = '200')],
      ['a fraction where an int32 belongs', (r: Json) => (((r.http as Json).response as Json).status_code = 200.5)],
      ['an int32 out of range', (r: Json) => (((r.http as Json).response as Json).status_code = 2 ** 31)],
      ['an int64 beyond 2^53', (r: Json) => (((r.http as Json).request as Json).body_length = 2 ** 53)],
      ['a timestamp that is not RFC 3339', (r: Json) => ((r.conn as Json).start_ts = '2024-05-01 12:00:00')],
      ['a timestamp as a number', (r: Json) => ((r.conn as Json).start_ts = 1_714_564_800)],
      ['an unknown top-level field', (r: Json) => (r.color = 'blue')],
      ['an unknown nested field', (r: Json) => ((r.conn as Json).server_prot = 443)],
      ['a header value that is not a list', (r: Json) => ((((r.http as Json).request as Json).headers as Json).Accept = 'text/html')],
      ['a log entry that is not an object', (r: Json) => (r.traffic_policy = { logs: ['x'] })],
      ['a group that is a list', (r: Json) => (r.tls = [])],
    ])('should refuse %s in JSON', (_name, edit) => {
      expect(decode(HTTP, jsonBody(HTTP, edit))).toBe('schema_violation');
    });

    it('should refuse a JSON body that is not an object', () => {
      expect(decode(HTTP, { value: Buffer.from('[1, 2]'), headers: JSON_HEADERS })).toBe('schema_violation');
    });
  });

  it('should be provoked here for every traffic decode error code (unknown_event_type belongs to audit events, the last two to the router)', () => {
    const provoked: DecodeErrorCode[] = [
      'empty_record',
      'record_too_large',
      'unsupported_content_type',
      'unknown_schema_id',
      'schema_mismatch',
      'malformed_avro',
      'invalid_json',
      'invalid_utf8',
      'schema_violation',
    ];
    expect([...provoked, 'unknown_event_type', 'invalid_record_timestamp', 'routing_failed'].sort()).toEqual([...DECODE_ERROR_CODES].sort());
  });
});
