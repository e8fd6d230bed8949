// fast-check arbitraries of valid raw records, built from the event catalogue and the documented required fields.
import fc from 'fast-check';
import { TRAFFIC_FIELDS, type FieldSpec, type TrafficEventType } from '../../../src/events/catalog.js';
import { MIN_WRITABLE_LONG } from '../../../src/records/avro-record.js';
import type { JsonValue } from '../../../src/records/record-types.js';
import { MAX_INT64_MAGNITUDE, formatMicros } from '../../../src/records/timestamps.js';

/** The required fields as docs/record-formats.md states them; everything else may be absent. */
export const REQUIRED_FIELDS: Readonly<Record<TrafficEventType, readonly string[]>> = {
  'http_request_complete.v0': [
    'conn.client_ip',
    'conn.server_ip',
    'conn.server_name',
    'conn.server_port',
    'conn.start_ts',
    'http.request.method',
    'http.request.url.raw',
    'http.request.url.scheme',
    'http.request.url.host',
    'http.request.url.path',
    'http.response.status_code',
  ],
  'tcp_connection_closed.v0': [
    'conn.client_ip',
    'conn.server_ip',
    'conn.server_name',
    'conn.server_port',
    'conn.start_ts',
    'conn.end_ts',
    'conn.bytes_in',
    'conn.bytes_out',
  ],
};

const text = fc.string({ unit: 'binary', maxLength: 12 });
const key = fc.string({ unit: 'binary', minLength: 1, maxLength: 8 }).filter((k) => k !== '__proto__');
// A JSON round trip turns -0 into 0 as every JSON producer would.
const json = fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.parse(JSON.stringify(v)) as JsonValue);

function valueOf(spec: FieldSpec): fc.Arbitrary<JsonValue> {
  switch (spec.type) {
    case 'string':
      return spec.name === 'conn.client_ip' ? fc.string({ unit: 'binary', minLength: 1, maxLength: 12 }) : text;
    case 'bool':
      return fc.boolean();
    case 'int32':
      return spec.name === 'conn.server_port' ? fc.integer({ min: 0, max: 65_535 }) : fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 });
    case 'int64':
      return fc.integer({ min: MIN_WRITABLE_LONG, max: MAX_INT64_MAGNITUDE });
    case 'timestamp':
      return fc.integer({ min: MIN_WRITABLE_LONG, max: MAX_INT64_MAGNITUDE }).map(formatMicros);
    case 'headers':
      return fc.dictionary(key, fc.array(text, { maxLength: 3 }), { maxKeys: 4, noNullPrototype: true });
    case 'logs':
      return fc.array(fc.dictionary(key, json, { maxKeys: 3, noNullPrototype: true }), { maxLength: 3 });
  }
}

function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let node = target;
  for (const p of parts.slice(0, -1)) {
    node[p] ??= {};
    node = node[p] as Record<string, unknown>;
  }
  node[parts[parts.length - 1] as string] = value;
}

/**
 * A valid record in the nested shape. Optional fields are present, null, or left out; timestamps are in
 * the canonical form, so a decoded record equals expectedRecord() of the input.
 */
export function recordArbitrary(eventType: TrafficEventType): fc.Arbitrary<Record<string, unknown>> {
  const required = new Set(REQUIRED_FIELDS[eventType]);
  const fields = TRAFFIC_FIELDS[eventType];
  const parts = fields.map((spec) =>
    required.has(spec.name) ? valueOf(spec) : fc.oneof(valueOf(spec), fc.constant(null), fc.constant(undefined)),
  );
  return fc.tuple(...parts).map((values) => {
    const record: Record<string, unknown> = {};
    fields.forEach((spec, i) => {
      if (values[i] !== undefined) setPath(record, spec.name, values[i]);
    });
    return record;
  });
}

/** What decoding should give for an input record: every catalogue field at its path, null when absent. */
export function expectedRecord(eventType: TrafficEventType, input: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const spec of TRAFFIC_FIELDS[eventType]) {
    let v: unknown = input;
    for (const p of spec.name.split('.')) v = v === null || v === undefined ? undefined : (v as Record<string, unknown>)[p];
    setPath(out, spec.name, v ?? null);
  }
  return out;
}
