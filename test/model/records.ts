// The model's traffic: records drawn from a seed as flat maps of the catalogue's fields, their three
// wire forms (docs/record-formats.md), and malformed records with the error codes the documents give them.
import type { ToolMessage as Message } from '../support/kafka-tools.js';
import { encodeRecord } from '../../src/records/record-encoder.js';
import type { TrafficRecordInput } from '../../src/records/record-encoder.js';
import type { Random } from '../../src/traffic/random.js';
import { FIELDS, HTTP, TCP, type Field, type TrafficType } from './catalogue.js';

/** A field's value as the model holds it: timestamps as microseconds since the epoch; absent is null. */
export type Value = string | number | boolean | null | Record<string, string[]> | Array<Record<string, unknown>>;

export interface ModelRecord {
  readonly type: TrafficType;
  /** Every catalogue field of the type by its dotted name. */
  readonly values: ReadonlyMap<string, Value>;
}

export type WireForm = 'json' | 'avro' | 'confluent';

const pickOf = <T>(r: Random, items: readonly T[]): T => items[Math.floor(r() * items.length)] as T;
const chance = (r: Random, p: number): boolean => r() < p;

/** The names, ports and addresses records are drawn from; the plan adds the names it reserved. */
export interface TrafficPools {
  readonly serverNames: readonly string[];
  readonly tcpHostports: ReadonlyArray<{ readonly name: string; readonly port: number }>;
}

export const PORTS = [80, 443, 8080, 20001, 20002, 0, 65535] as const;
export const CLIENT_IPS = ['10.1.2.3', '10.200.0.9', '192.168.7.1', '203.0.113.7', '198.51.100.23', '2001:db8::5', '10.1.2.30'] as const;
export const SERVER_IPS = ['198.51.100.1', '198.51.100.2', '203.0.113.80', '2001:db8:1::1'] as const;

// Strings with quotes, backslashes, control characters and non-ASCII text: what a projection must escape.
const TEXTS = ['allow', 'block', 'invalid', 'a "quoted" \\ value', 'tab\there', 'café', '日本語', 'line\nbreak', '', '🎉 emoji'];

const MAX_SAFE = 2 ** 53 - 2;
// Negative longs below -2^52 are refused by the repository's Avro encoder (docs/record-formats.md "Types").
const INT64S = [0, 1, -1, 123_456_789, MAX_SAFE, -(2 ** 52) + 1, 4_294_967_296];
const INT32S = [0, 200, 404, 503, -1, 2_147_483_647, -2_147_483_648];

/** A timestamp in microseconds: mostly recent, sometimes before 1970 or far ahead (docs: years 1685-2254). */
function timestampMicros(r: Random): number {
  const roll = r();
  if (roll < 0.1) return -Math.floor(r() * 5_000_000_000_000) - 1; // 1811-1969, with sub-millisecond digits
  if (roll < 0.15) return 7_258_118_400_000_000 + Math.floor(r() * 1e12); // 2200
  return 1_767_225_600_000_000 + Math.floor(r() * 3e13); // 2026
}

function valueOf(r: Random, field: Field, pools: TrafficPools, tcp: { name: string; port: number } | undefined): Value {
  if (!field.required && chance(r, 0.35)) return null;
  switch (field.name) {
    case 'conn.client_ip':
      return pickOf(r, CLIENT_IPS);
    case 'conn.server_ip':
      return pickOf(r, SERVER_IPS);
    case 'conn.server_name':
      return tcp?.name ?? pickOf(r, pools.serverNames);
    case 'conn.server_port':
      return tcp?.port ?? pickOf(r, PORTS);
  }
  switch (field.type) {
    case 'string':
      return pickOf(r, TEXTS);
    case 'bool':
      return chance(r, 0.5);
    case 'int32':
      return pickOf(r, INT32S);
    case 'int64':
      return chance(r, 0.5) ? pickOf(r, INT64S) : Math.floor(r() * 1e9);
    case 'timestamp':
      return timestampMicros(r);
    case 'headers':
      return chance(r, 0.5) ? { 'Content-Type': ['text/html'] } : { 'X-Multi': ['a', 'b "c"'], Accept: ['*/*'] };
    case 'logs':
      return [{ action: pickOf(r, TEXTS), n: Math.floor(r() * 100), nested: { list: [1, 'two', null, true] } }, {}];
  }
}

/** A valid record of `type`; tcp records take a hostport from the pools half the time, so edges own some. */
export function drawRecord(r: Random, type: TrafficType, pools: TrafficPools): ModelRecord {
  const tcp = type === TCP && pools.tcpHostports.length > 0 && chance(r, 0.5) ? pickOf(r, pools.tcpHostports) : undefined;
  const values = new Map<string, Value>();
  for (const field of FIELDS[type]) values.set(field.name, valueOf(r, field, pools, tcp));
  if (type === HTTP) {
    // The URL's parts agree with each other and with the connection, as an edge writes them.
    const host = String(values.get('conn.server_name'));
    const path = `/p/${Math.floor(r() * 1e6)}`;
    values.set('http.request.url.host', host);
    values.set('http.request.url.scheme', 'https');
    values.set('http.request.url.path', path);
    values.set('http.request.url.raw', `https://${host}${path}`);
    values.set('http.request.method', pickOf(r, ['get', 'post', 'delete']));
  }
  return { type, values };
}

/** RFC 3339 in UTC with six fraction digits: how decoded records and events write a timestamp. */
export function rfc3339(micros: number): string {
  const ms = Math.floor(micros / 1000);
  const sub = micros - ms * 1000;
  return `${new Date(ms).toISOString().slice(0, -1)}${String(sub).padStart(3, '0')}Z`;
}

/** A producer's other spellings of the same instant: an offset, or nine fraction digits (the last three dropped). */
function jsonTimestamp(r: Random, micros: number): string {
  const roll = r();
  if (roll < 0.6) return rfc3339(micros);
  if (roll < 0.8) return `${rfc3339(micros).slice(0, -1)}789Z`;
  const local = rfc3339(micros + 2 * 3_600_000_000).slice(0, -1);
  return `${local}+02:00`;
}

function isTimestamp(type: TrafficType, name: string): boolean {
  return FIELDS[type].find((x) => x.name === name)?.type === 'timestamp';
}

/** The record nested by dotted path, with `leaf` choosing each present value's written form; null fields left out when `dropNulls`. */
export function nested(rec: ModelRecord, leaf: (name: string, v: Exclude<Value, null>) => unknown, dropNulls: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, v] of rec.values) {
    if (v === null && dropNulls) continue;
    const parts = name.split('.');
    let node = out;
    for (const p of parts.slice(0, -1)) node = (node[p] ??= {}) as Record<string, unknown>;
    node[parts[parts.length - 1] as string] = v === null ? null : leaf(name, v);
  }
  return out;
}

/** The record in one wire form. JSON is written here, conn first; Avro by the repository's test encoder. */
export function encode(r: Random, rec: ModelRecord, form: WireForm): { value: Buffer; headers: Record<string, string> } {
  if (form === 'json') {
    const body = nested(rec, (name, v) => (isTimestamp(rec.type, name) ? jsonTimestamp(r, v as number) : v), true);
    // conn first as docs/record-formats.md asks, sometimes last (parsed whole, same result), sometimes spaced out.
    const { conn, ...rest } = body;
    const ordered = chance(r, 0.8) ? { conn, ...rest } : { ...rest, conn };
    const text = chance(r, 0.8) ? JSON.stringify(ordered) : JSON.stringify(ordered, null, 2);
    return { value: Buffer.from(text), headers: { [pickOf(r, CONTENT_TYPE_NAMES)]: pickOf(r, ['application/json', 'application/json; charset=utf-8']) } };
  }
  const decoded = nested(rec, (name, v) => (isTimestamp(rec.type, name) ? rfc3339(v as number) : v), false);
  const encoded = encodeRecord(rec.type, decoded as TrafficRecordInput, form);
  // Avro forms with or without their content-type header (docs/record-formats.md "Which form a record is in").
  const types = form === 'avro' ? ['application/avro', 'avro/binary'] : ['application/vnd.confluent.avro'];
  const headers = chance(r, 0.5) ? {} : { [pickOf(r, CONTENT_TYPE_NAMES)]: pickOf(r, types) };
  return { value: encoded.value, headers };
}

/** The header name is matched without regard to case. */
const CONTENT_TYPE_NAMES = ['content-type', 'Content-Type', 'CONTENT-TYPE'];

/** A malformed record and the codes docs/record-formats.md "Validation and error codes" allows for it. */
export interface Malformed {
  readonly kind: string;
  readonly message: Omit<Message, 'key'>;
  readonly codes: readonly string[];
}

const json = (text: string): Omit<Message, 'key'> => ({ value: Buffer.from(text), headers: { 'content-type': 'application/json' } });

/** A malformed traffic record of a random kind, damaged anywhere (head or tail) from a valid one. */
export function drawMalformed(r: Random, valid: ModelRecord): Malformed {
  const good = JSON.parse(encode(r, valid, 'json').value.toString('utf8')) as Record<string, Record<string, unknown>>;
  const avro = encode(r, valid, 'avro').value;
  const kinds: Array<() => Malformed> = [
    () => ({ kind: 'not json', message: json('{"conn": {"client_ip": '), codes: ['invalid_json'] }),
    () => ({ kind: 'unknown field', message: json(JSON.stringify({ ...good, conn: { ...good.conn, server_prot: 1 } })), codes: ['schema_violation'] }),
    () => {
      const conn = { ...good.conn };
      delete conn.server_port;
      return { kind: 'missing required field', message: json(JSON.stringify({ ...good, conn })), codes: ['schema_violation'] };
    },
    () => ({ kind: 'port out of range', message: json(JSON.stringify({ ...good, conn: { ...good.conn, server_port: 70_000 } })), codes: ['schema_violation'] }),
    () => ({ kind: 'empty client ip', message: json(JSON.stringify({ ...good, conn: { ...good.conn, client_ip: '' } })), codes: ['schema_violation'] }),
    () => {
      const bad = valid.type === HTTP ? { ...good, compression: { ...good.compression, bytes_saved: 2 ** 60 } } : { ...good, conn: { ...good.conn, bytes_out: 2 ** 60 } };
      return { kind: 'int64 beyond 2^53 - 2', message: json(JSON.stringify(bad)), codes: ['schema_violation'] };
    },
    () => ({ kind: 'avro cut short', message: { value: avro.subarray(0, Math.max(1, Math.floor(avro.length / 2))) }, codes: ['malformed_avro', 'invalid_utf8', 'schema_violation'] }),
    () => ({ kind: 'avro with bytes after its end', message: { value: Buffer.concat([avro, Buffer.from([0x02, 0x02])]) }, codes: ['malformed_avro'] }),
    () => ({ kind: 'unsupported content type', message: { value: Buffer.from('hello'), headers: { 'content-type': 'text/plain' } }, codes: ['unsupported_content_type'] }),
    () => ({ kind: 'empty value', message: { value: Buffer.alloc(0) }, codes: ['empty_record'] }),
    () => ({ kind: 'tombstone', message: { value: null }, codes: ['empty_record'] }),
    () => ({ kind: 'avro under a json content type', message: { value: avro, headers: { 'content-type': 'application/json' } }, codes: ['invalid_json', 'invalid_utf8'] }),
    () => ({ kind: 'json without its content type', message: { value: Buffer.from(JSON.stringify(good)) }, codes: ['malformed_avro', 'invalid_utf8', 'schema_violation'] }),
  ];
  return (pickOf(r, kinds) as () => Malformed)();
}

/** Malformed audit records (docs/record-formats.md "Audit events"). */
export function drawMalformedAudit(r: Random): Malformed {
  return pickOf(r, [
    { kind: 'audit not json', message: json('{"event_id": '), codes: ['invalid_json'] },
    {
      kind: 'audit unknown event type',
      message: json(JSON.stringify({ event_id: 'ev_01JD000000000000000000000', event_type: 'nothing_created.v0', event_timestamp: '2026-01-01T00:00:00Z', principal: null, object: { id: 'x', uri: 'https://example.com/x' } })),
      codes: ['unknown_event_type'],
    },
  ]);
}
