// The byte projections against the decoded path they replace: the same JSON text as projecting the
// decoded record and JSON.stringify, over generated traffic, arbitrary records and edge cases.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TRAFFIC_EVENT_TYPES, TRAFFIC_FIELDS, type TrafficEventType } from '../../../src/events/catalog.js';
import { payloadTail, tailBeforeObject } from '../../../src/events/envelope.js';
import { formatEventTime, formatObjectTimes, TIMESTAMP_FORMATS, type TimestampFormat } from '../../../src/events/timestamp-format.js';
import { avroProjections, projectedTail } from '../../../src/projection/avro-projection.js';
import { projectionKey, projectorFor } from '../../../src/projection/projector.js';
import { createAvroCodec, type AvroCodec } from '../../../src/records/avro-record.js';
import { encodeRecord } from '../../../src/records/record-encoder.js';
import { latestSchema } from '../../../src/records/schema-registry.js';
import { TrafficGenerator } from '../../../src/traffic/generator.js';
import { recordArbitrary } from '../records/arbitraries.js';
import { MINIMAL_HTTP_RECORD } from './records.js';

const codecs = new Map<TrafficEventType, AvroCodec>(TRAFFIC_EVENT_TYPES.map((t) => [t, createAvroCodec(latestSchema(t))]));
const codecOf = (t: TrafficEventType): AvroCodec => codecs.get(t) as AvroCodec;
const names = (t: TrafficEventType): string[] => TRAFFIC_FIELDS[t].map((f) => f.name);

/** A Kafka timestamp of the records (ms). */
const KAFKA_TS = Date.UTC(2024, 4, 1, 12, 30, 45, 678);

/** The payload tail as the byte projection writes it, and the object's JSON in it. */
function projectedTailText(eventType: TrafficEventType, fields: readonly string[], buf: Buffer, ts = KAFKA_TS, format: TimestampFormat = 'rfc3339'): string {
  const codec = codecOf(eventType);
  const projection = avroProjections(codec, format).get(projectionKey(fields));
  if (projection === undefined) throw new Error(`no byte projection for ${fields.join(',')}`);
  return projectedTail(eventType, ts, projection, buf, 0, codec.leafStarts(buf, 0)).toString('utf8');
}

const objectOf = (tail: string): string => tail.slice(tail.indexOf('"object":') + '"object":'.length, -1);

function projected(eventType: TrafficEventType, fields: readonly string[], buf: Buffer): string {
  return objectOf(projectedTailText(eventType, fields, buf));
}

/** The payload tail as the router wrote it before: decode the whole record, project, stringify. */
function decodedThenProjectedTail(eventType: TrafficEventType, fields: readonly string[], buf: Buffer, ts = KAFKA_TS): string {
  const object = JSON.stringify(projectorFor(fields)(codecOf(eventType).decodeFull(buf, 0)));
  return payloadTail(tailBeforeObject(eventType, new Date(ts).toISOString(), 'null'), object).toString('utf8');
}

function decodedThenProjected(eventType: TrafficEventType, fields: readonly string[], buf: Buffer): string {
  return objectOf(decodedThenProjectedTail(eventType, fields, buf));
}

function avroOf(eventType: TrafficEventType, record: Record<string, unknown>): Buffer {
  return encodeRecord(eventType, record, 'avro').value;
}

describe.each(TRAFFIC_EVENT_TYPES.map((t) => [t]))('the byte projection of %s', (eventType: TrafficEventType) => {
  it('should write the text of the decoded projection for any record and any field set', () => {
    fc.assert(
      fc.property(recordArbitrary(eventType), fc.subarray(names(eventType), { minLength: 0 }), fc.integer({ min: 0, max: 2 ** 45 }), (record, fields, ts) => {
        const buf = avroOf(eventType, record);
        // The whole tail: the envelope's fields before the object too.
        expect(projectedTailText(eventType, fields, buf, ts)).toBe(decodedThenProjectedTail(eventType, fields, buf, ts));
      }),
      { numRuns: 500 },
    );
  });

  it('should write the text of the decoded projection for generated traffic with every field selected, and each field alone', () => {
    const g = new TrafficGenerator({ seed: 7, httpShare: eventType === 'http_request_complete.v0' ? 1 : 0 });
    for (let i = 0; i < 300; i++) {
      const buf = g.nextMessage('avro').value;
      expect(projected(eventType, names(eventType), buf)).toBe(decodedThenProjected(eventType, names(eventType), buf));
      const one = names(eventType)[i % names(eventType).length] as string;
      expect(projected(eventType, [one], buf)).toBe(decodedThenProjected(eventType, [one], buf));
    }
  });
});

describe('the byte projection of edge cases', () => {
  const http = 'http_request_complete.v0' as const;
  const base = MINIMAL_HTTP_RECORD;
  const all = names(http);
  const check = (record: Record<string, unknown>, fields: readonly string[] = all): string => {
    const buf = avroOf(http, record);
    const text = projected(http, fields, buf);
    expect(text).toBe(decodedThenProjected(http, fields, buf));
    return text;
  };
  const withRequest = (extra: Record<string, unknown>): Record<string, unknown> => ({ ...base, http: { ...base.http, request: { ...base.http.request, ...extra } } });

  it('should escape quotes, backslashes and control characters as JSON.stringify does, and copy other characters', () => {
    const nasty = 'a"b\\c\u0000\u0001\b\t\n\f\r\u001f\u007f\u2028\u2029é€😀 end';
    const text = check(withRequest({ user_agent: nasty, url: { ...base.http.request.url, path: `/${nasty.repeat(3)}` } }));
    expect(JSON.parse(text).http.request.user_agent).toBe(nasty);
  });

  it('should write null for absent optional fields, and empty maps and arrays as {} and []', () => {
    expect(check(withRequest({ headers: {} }), ['http.request.headers', 'oauth.user.id', 'backend.connection_reused'])).toBe(
      '{"backend":{"connection_reused":null},"http":{"request":{"headers":{}}},"oauth":{"user":{"id":null}}}',
    );
    check(withRequest({ headers: { Accept: [], Empty: [''] } }));
    check({ ...base, traffic_policy: { logs: [] } });
    check({ ...base, traffic_policy: { logs: [{}, { a: { b: [1, 'x', null] }, c: 1e21, d: '\u2028' }] } });
  });

  it('should write negative and large longs, booleans and timestamps before 1970 as the decoded record holds them', () => {
    check({ ...base, compression: { bytes_saved: -(2 ** 52), algorithm: 'gzip' }, backend: { connection_reused: false } });
    check({ ...base, compression: { bytes_saved: 2 ** 53 - 2 }, backend: { connection_reused: true } });
    check({ ...base, conn: { ...base.conn, start_ts: '1969-12-31T23:59:59.999999Z', server_port: 0 } });
    check({ ...base, conn: { ...base.conn, start_ts: '1900-01-01T00:00:00Z' } });
  });

  it('should keep the decoded object order and entries of header maps with numeric or repeated keys', () => {
    check(withRequest({ headers: { Zed: ['1'], '10': ['ten'], '2': ['two'], Accept: ['*/*'] } }));
    // Avro maps may repeat a key; the decoded object keeps its first place and last value.
    const buf = avroOf(http, withRequest({ headers: { 'Dup-one': ['first'], Other: ['x'], 'Dup-two': ['last'] } }));
    const at = buf.indexOf('Dup-two');
    buf.write('Dup-one', at);
    const fields = ['http.request.headers'];
    expect(projected(http, fields, buf)).toBe(decodedThenProjected(http, fields, buf));
    expect(projected(http, fields, buf)).toBe('{"http":{"request":{"headers":{"Dup-one":["last"],"Other":["x"]}}}}');
  });

  it('should write a header map of as many names as a record holds in time linear in the names', () => {
    // Internet clients choose header names (issue 38). 20,000 of one length sharing a long prefix, about
    // 320 KB, well within a record's 1 MiB: comparing each name with every earlier one took seconds.
    const headers = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`X-Visitor-${String(i).padStart(8, '0')}`, []]));
    const buf = avroOf(http, withRequest({ headers }));
    const fields = ['http.request.headers'];
    const started = performance.now();
    const text = projected(http, fields, buf);
    const ms = performance.now() - started;
    expect(text).toBe(decodedThenProjected(http, fields, buf));
    expect(ms).toBeLessThan(500);
  });

  it('should give every field set of a record the same headers, however many output buffers its payloads span', () => {
    const buf = avroOf(http, withRequest({ headers: { Accept: ['*/*'], 'User-Agent': ['x'.repeat(3000)] } }));
    const sets = [['http.request.headers'], ['http.request.headers', 'conn.client_ip'], all];
    // About 9 KB a round: the payloads fill several output buffers, and later ones copy texts from earlier ones.
    for (let i = 0; i < 120; i++) {
      for (const fields of sets) expect(projected(http, fields, buf)).toBe(decodedThenProjected(http, fields, buf));
    }
  });

  it('should write a log whose decoded text is many times longer than its bytes, and the headers after it', () => {
    // Log values are JSON texts, written as JSON.stringify writes their value: 1E20 takes 21 characters.
    const buf = avroOf(http, { ...withRequest({ headers: { Accept: ['*/*'] } }), traffic_policy: { logs: [{ big: Array(4000).fill('ab') }] } });
    for (let at = buf.indexOf('"ab"'); at >= 0; at = buf.indexOf('"ab"', at)) buf.write('1E20', at);
    for (const fields of [all, ['traffic_policy.logs', 'http.request.headers'], ['http.request.headers']]) {
      expect(projected(http, fields, buf)).toBe(decodedThenProjected(http, fields, buf));
    }
    expect(projected(http, ['traffic_policy.logs'], buf)).toContain(`[{"big":[${Array(4000).fill('100000000000000000000').join(',')}]}]`);
  });

  it('should write an empty object for an empty field set', () => {
    expect(check(base, [])).toBe('{}');
  });

  it('should leave field sets that read below a leaf to the decoded projection', () => {
    expect(avroProjections(codecOf(http)).get(projectionKey(['http.request.headers.Accept']))).toBeUndefined();
  });
});

/** The payload tail as the router writes it without a byte projection: decode, project, convert the times (timestamp-format.ts), stringify. */
function decodedThenFormattedTail(eventType: TrafficEventType, fields: readonly string[], buf: Buffer, ts: number, format: TimestampFormat): string {
  const object = JSON.stringify(formatObjectTimes(eventType, projectorFor(fields)(codecOf(eventType).decodeFull(buf, 0)), format));
  return payloadTail(tailBeforeObject(eventType, formatEventTime(ts, format), 'null'), object).toString('utf8');
}

describe.each(TIMESTAMP_FORMATS.map((f) => [f]))('the byte projection in the timestamp format %s', (format: TimestampFormat) => {
  it.each(TRAFFIC_EVENT_TYPES.map((t) => [t]))('should write the text of the decoded, projected and converted %s record for any record, field set and Kafka timestamp', (eventType: TrafficEventType) => {
    fc.assert(
      fc.property(recordArbitrary(eventType), fc.subarray(names(eventType), { minLength: 0 }), fc.integer({ min: 0, max: 2 ** 45 }), (record, fields, ts) => {
        const buf = avroOf(eventType, record);
        expect(projectedTailText(eventType, fields, buf, ts, format)).toBe(decodedThenFormattedTail(eventType, fields, buf, ts, format));
      }),
      { numRuns: 300 },
    );
  });

  it('should write the converted text for timestamps at the epoch, before it, far from it and with short fractions', () => {
    const tcp = 'tcp_connection_closed.v0' as const;
    const conn = { client_ip: '203.0.113.7', server_ip: '198.51.100.1', server_name: 'db.example.com', server_port: 5432, bytes_in: 10, bytes_out: 20 };
    const times = ['1970-01-01T00:00:00Z', '1969-12-31T23:59:59.999999Z', '1900-01-01T00:00:00.5Z', '1828-01-01T00:00:00.000001Z', '2254-01-01T00:00:00.123456Z', '2026-11-24T03:24:53.744123Z', '2026-11-24T03:24:53.7Z'];
    for (const start of times) {
      for (const end of [start, '2026-11-24T03:24:53.7Z']) {
        const buf = avroOf(tcp, { conn: { ...conn, start_ts: start, end_ts: end } });
        for (const ts of [0, 1, KAFKA_TS, 1795490693744]) {
          expect(projectedTailText(tcp, ['conn.start_ts', 'conn.end_ts', 'conn.server_port'], buf, ts, format)).toBe(decodedThenFormattedTail(tcp, ['conn.start_ts', 'conn.end_ts', 'conn.server_port'], buf, ts, format));
        }
      }
    }
  });
});

describe('the byte projection in a timestamp format, by the documented example', () => {
  // docs/subscription-controls.md: 2026-11-24T03:24:53.744123Z in each format.
  const written: Readonly<Record<TimestampFormat, string>> = {
    rfc3339: '"2026-11-24T03:24:53.744123Z"',
    unix: '1795490693.744123',
    unixmilli: '1795490693744',
    unixnano: '"1795490693744123000"',
  };
  const tcp = 'tcp_connection_closed.v0' as const;
  const buf = avroOf(tcp, { conn: { client_ip: '203.0.113.7', server_ip: '198.51.100.1', server_name: 'db.example.com', server_port: 5432, bytes_in: 10, bytes_out: 20, start_ts: '2026-11-24T03:24:53.744123Z', end_ts: '2026-11-24T03:24:54Z' } });

  it.each(TIMESTAMP_FORMATS.map((f) => [f]))('should write conn.start_ts in %s as the document shows', (format: TimestampFormat) => {
    expect(objectOf(projectedTailText(tcp, ['conn.start_ts'], buf, KAFKA_TS, format))).toBe(`{"conn":{"start_ts":${written[format]}}}`);
  });
});
