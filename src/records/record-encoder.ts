// Writing raw records in the three producer forms, for tests, benchmarks and traffic generators.
import type { TrafficEventType } from '../events/catalog.js';
import { createAvroCodec, type AvroCodec } from './avro-record.js';
import { DecodeError } from './errors.js';
import { compileJsonValidator, type JsonRecordValidator } from './json-record.js';
import type { GroupPlan } from './field-plan.js';
import type { DecodedRecord, JsonValue, WireForm } from './record-types.js';
import { DEFAULT_SCHEMA_IDS, latestSchema, schemaIdOf, type SchemaRef } from './schema-registry.js';
import { CONFLUENT_HEADER_BYTES, CONFLUENT_MAGIC } from './wire-form.js';

/** A record in the nested shape; optional fields may be left out, timestamps are RFC 3339 strings. */
export type TrafficRecordInput = Readonly<Record<string, unknown>>;

export interface EncodedRecord {
  readonly value: Buffer;
  /** The Kafka headers to send with the value: content-type for JSON, none for the Avro forms. */
  readonly headers: Readonly<Record<string, string>>;
}

export interface EncodeOptions {
  /** The table to take the Confluent schema id from. Default DEFAULT_SCHEMA_IDS. */
  readonly schemaIds?: ReadonlyMap<number, SchemaRef>;
}

interface Writer {
  readonly codec: AvroCodec;
  readonly validate: JsonRecordValidator;
}

const writers = new Map<TrafficEventType, Writer>();

function writerOf(eventType: TrafficEventType): Writer {
  let w = writers.get(eventType);
  if (w === undefined) {
    const codec = createAvroCodec(latestSchema(eventType));
    w = { codec, validate: compileJsonValidator(codec.plan, { checkSurrogates: true }) };
    writers.set(eventType, w);
  }
  return w;
}

/** The record validated by the decoder's JSON rules and put in its canonical shape; throws on an invalid record. */
export function canonicalRecord(eventType: TrafficEventType, record: TrafficRecordInput): DecodedRecord {
  try {
    return writerOf(eventType).validate(record);
  } catch (err) {
    if (err instanceof DecodeError) throw new Error(`Cannot encode this ${eventType} record (${err.code}): ${err.message}`, { cause: err });
    throw err;
  }
}

/** Encodes a record so that the decoder reads it back as canonicalRecord(record). Throws on an invalid record. */
export function encodeRecord(eventType: TrafficEventType, record: TrafficRecordInput, form: WireForm, opts: EncodeOptions = {}): EncodedRecord {
  const canonical = canonicalRecord(eventType, record);
  if (form === 'json') {
    const compact = withoutNulls(writerOf(eventType).codec.plan.root, canonical) ?? {};
    return { value: Buffer.from(JSON.stringify(compact)), headers: { 'content-type': 'application/json' } };
  }
  const avro = writerOf(eventType).codec.encode(canonical);
  if (form === 'avro') return { value: avro, headers: {} };
  const id = schemaIdOf(eventType, opts.schemaIds ?? DEFAULT_SCHEMA_IDS);
  if (id === undefined) throw new Error(`No schema id names the latest ${eventType} schema.`);
  const frame = Buffer.allocUnsafe(CONFLUENT_HEADER_BYTES + avro.length);
  frame[0] = CONFLUENT_MAGIC;
  frame.writeUInt32BE(id, 1);
  avro.copy(frame, CONFLUENT_HEADER_BYTES);
  return { value: frame, headers: {} };
}

/** The record as a JSON producer would write it: absent fields and groups left out rather than null. */
function withoutNulls(group: GroupPlan, src: DecodedRecord): DecodedRecord | undefined {
  const out: DecodedRecord = {};
  let any = false;
  for (const child of group.children) {
    const v: JsonValue | undefined = child.kind === 'group' ? withoutNulls(child, src[child.name] as DecodedRecord) : src[child.name];
    if (v !== null && v !== undefined) {
      out[child.name] = v;
      any = true;
    }
  }
  return any ? out : undefined;
}
