// Malformed raw records for the poison scenario. Each kind is built so the harness knows, without asking
// the service's decoder, whether the damage is in the filterable head (refused by the cheap read of
// every record) or only in the tail (refused by the full decode) — see docs/record-formats.md, "Cheap reads".
import { createHash } from 'node:crypto';
import type { ToolMessage as Message } from '../../support/kafka-tools.js';
import type { TrafficEventType } from '../../../src/events/catalog.js';
import { encodeRecord } from '../../../src/records/record-encoder.js';
import type { WireForm } from '../../../src/records/record-types.js';
import { sourceRecord, type RecordFacts } from './verifiable-source.js';

export const POISON_KINDS = [
  'random_bytes',
  'truncated_avro_head',
  'truncated_avro_tail',
  'wrong_json_type_head',
  'wrong_json_type_tail',
  'invalid_utf8_head',
  'invalid_utf8_tail',
  'unknown_schema_id',
] as const;
export type PoisonKind = (typeof POISON_KINDS)[number] | 'ten_megabytes';

/** Where the damage is: in the head, every record is checked; in the tail, only records a subscription matched. */
export type Damage = 'head' | 'tail';

export interface PoisonRecord {
  readonly kind: PoisonKind;
  readonly damage: Damage;
  readonly type: TrafficEventType;
  /** The filterable fields the cheap read sees, for tail damage (head damage has none that parse). */
  readonly facts: RecordFacts | undefined;
  /** The codes of docs/record-formats.md this kind may be refused with. */
  readonly codes: readonly string[];
  readonly message: Message & { key: string; value: Buffer };
  readonly sha256: string;
}

/** Sequence numbers of poison records start here, far from the valid ones, so none can pass for a valid event. */
export const POISON_SEQ_BASE = 50_000_000;
export const TEN_MEGABYTES = 10_000_000;
const MARK = Buffer.from('MARK');
// 0xC3 0x28 is a two-byte lead followed by a non-continuation byte; 0xFF and 0xFE never occur in UTF-8.
const INVALID_UTF8 = Buffer.from([0xc3, 0x28, 0xff, 0xfe]);

function withMarkReplaced(value: Buffer): Buffer {
  const at = value.indexOf(MARK);
  if (at < 0) throw new Error('poison: the marker is not in the encoded record');
  const out = Buffer.from(value);
  INVALID_UTF8.copy(out, at);
  return out;
}

type Nested = Record<string, Record<string, unknown>>;

function encoded(type: TrafficEventType, record: Nested, form: WireForm): { value: Buffer; headers: Record<string, string> } {
  const e = encodeRecord(type, record, form);
  return { value: e.value, headers: { ...e.headers } };
}

/** The i-th malformed record (kinds in turn); `random` supplies the bytes and cut points. */
export function poisonRecord(i: number, random: () => number): PoisonRecord {
  const kind = POISON_KINDS[i % POISON_KINDS.length] as (typeof POISON_KINDS)[number];
  // Each kind comes round every POISON_KINDS.length records; its rounds alternate the event type (the
  // parity of seq), the Avro form, and for invalid UTF-8 in the tail, JSON or Avro.
  const round = Math.floor(i / POISON_KINDS.length);
  const seq = POISON_SEQ_BASE + 2 * i + (round % 2);
  const { facts, record } = sourceRecord(seq);
  const type = facts.type;
  const avroForm: WireForm = Math.floor(round / 2) % 2 === 0 ? 'avro' : 'confluent';
  const headerBytes = avroForm === 'confluent' ? 5 : 0;
  let value: Buffer;
  let headers: Record<string, string> = {};
  let damage: Damage = 'head';
  let codes: string[];
  switch (kind) {
    case 'random_bytes': {
      value = Buffer.alloc(8 + Math.floor(random() * 249));
      for (let j = 0; j < value.length; j++) value[j] = Math.floor(random() * 256);
      // Random bytes are read as plain Avro, or as a Confluent frame when the first byte is 0.
      codes = ['malformed_avro', 'invalid_utf8', 'unknown_schema_id', 'schema_mismatch', 'schema_violation'];
      break;
    }
    case 'truncated_avro_head':
      // Three bytes in: the length of conn.client_ip and two of its characters.
      value = encoded(type, record, avroForm).value.subarray(0, headerBytes + 3);
      codes = ['malformed_avro'];
      break;
    case 'truncated_avro_tail': {
      const whole = encoded(type, record, avroForm).value;
      value = whole.subarray(0, whole.length - 1 - Math.floor(random() * 20));
      damage = 'tail';
      codes = ['malformed_avro'];
      break;
    }
    case 'wrong_json_type_head':
      (record.conn as Record<string, unknown>).server_port = String(record.conn?.server_port);
      ({ value, headers } = { value: Buffer.from(JSON.stringify(record)), headers: { 'content-type': 'application/json' } });
      codes = ['schema_violation'];
      break;
    case 'wrong_json_type_tail': {
      const e = encoded(type, record, 'json');
      const json = JSON.parse(e.value.toString('utf8')) as Nested;
      if (type === 'http_request_complete.v0') (json.http as { response: Record<string, unknown> }).response.status_code = '200';
      else (json.conn as Record<string, unknown>).bytes_out = 'many';
      value = Buffer.from(JSON.stringify(json));
      headers = e.headers;
      damage = 'tail';
      codes = ['schema_violation'];
      break;
    }
    case 'invalid_utf8_head': {
      (record.conn as Record<string, unknown>).server_name = 'MARK.example.com';
      const e = encoded(type, record, 'json');
      value = withMarkReplaced(e.value);
      headers = e.headers;
      codes = ['invalid_utf8'];
      break;
    }
    case 'invalid_utf8_tail': {
      // A tail string: the user agent of an http record, the IP policy decision of a tcp record.
      if (type === 'http_request_complete.v0') (record.http as { request: Record<string, unknown> }).request.user_agent = 'MARK-agent';
      else (record as Record<string, unknown>).ip_policy = { decision: 'MARK' };
      const e = encoded(type, record, Math.floor(round / 4) % 2 === 0 ? 'json' : avroForm);
      value = withMarkReplaced(e.value);
      headers = e.headers;
      damage = 'tail';
      codes = ['invalid_utf8'];
      break;
    }
    case 'unknown_schema_id': {
      const avro = encoded(type, record, 'avro').value;
      value = Buffer.concat([Buffer.from([0, 0, 0, 0x27, 0x0f]), avro]); // schema id 9999
      codes = ['unknown_schema_id'];
      break;
    }
  }
  return finish(kind, damage, type, damage === 'tail' ? facts : undefined, codes, `bad-${i}`, value, headers);
}

/** A record of ten megabytes: refused for its size before anything reads it. */
export function tenMegabyteRecord(i: number): PoisonRecord {
  const value = Buffer.alloc(TEN_MEGABYTES, 0x61);
  return finish('ten_megabytes', 'head', 'http_request_complete.v0', undefined, ['record_too_large'], `bad-huge-${i}`, value, {});
}

function finish(kind: PoisonKind, damage: Damage, type: TrafficEventType, facts: RecordFacts | undefined, codes: string[], key: string, value: Buffer, headers: Record<string, string>): PoisonRecord {
  return {
    kind,
    damage,
    type,
    facts,
    codes,
    // The kind travels as a header of the record itself: a dead letter must keep the record's own headers.
    message: { key, value, headers: { ...headers, 'x-chaos-kind': kind } },
    sha256: createHash('sha256').update(value).digest('hex'),
  };
}
