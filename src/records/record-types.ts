// The public shapes of raw-record decoding: the Kafka message in, the filterable fields and the decoded record out.
import type { TrafficEventType } from '../events/catalog.js';
import type { AvroCodec } from './avro-record.js';
import type { DecodeFailure } from './errors.js';
import type { ScanState } from './json-scan.js';

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/**
 * A decoded raw record in its nested shape: every field of the catalogue sits at its dotted path, an
 * absent optional field is null, timestamps are RFC 3339 strings (UTC, six fraction digits), int64
 * values are numbers (at most 2^53 - 2 in magnitude), headers are {Name: [values]}, and
 * traffic_policy.logs is a list of JSON objects. It serializes to JSON as is.
 */
export interface DecodedRecord {
  [group: string]: JsonValue;
}

/**
 * The fields a CEL filter may read (the event catalogue's FILTERABLE), in the record's nested shape:
 * {group: {field: value}}, strings and integers.
 */
export interface FilterableFields {
  readonly [group: string]: { readonly [field: string]: string | number };
}

/** The three forms a producer may write (docs/record-formats.md). */
export type WireForm = 'avro' | 'confluent' | 'json';

/** A Kafka header value as a consumer hands it over (seam.ts). */
export type HeaderValue = Buffer | string | readonly (Buffer | string)[] | undefined;

/** The parts of a consumed Kafka message that decoding reads. */
export interface RawMessage {
  readonly value: Buffer | null;
  readonly headers?: Readonly<Record<string, HeaderValue>>;
}

export type FullDecodeResult = { readonly ok: true; readonly record: DecodedRecord } | DecodeFailure;

export interface FilterableDecoded {
  readonly ok: true;
  readonly eventType: TrafficEventType;
  readonly form: WireForm;
  readonly filterable: FilterableFields;
  /**
   * The whole record, decoded and validated only when called (when some subscription matched). It can
   * still fail: the caller sends the record to the dead-letter topic then. The result is memoized.
   */
  full(): FullDecodeResult;
  /**
   * An Avro record's bytes, for projecting it without decoding it (src/projection/avro-projection.ts). For
   * a JSON record the fast path accepted, the Avro record of the same content, written when first asked for.
   */
  readonly avro?: AvroBytes;
  /** A JSON record the fast path accepted, for projecting it from its text (src/projection/avro-projection.ts). */
  readonly json?: ScannedJson;
}

/** A JSON record the fast path accepted (json-scan.ts): its text, and where its leaves lie in it. */
export interface ScannedJson {
  /** The codec of the Avro schema the record was checked against; its leaf slots index the positions. */
  readonly codec: AvroCodec;
  readonly text: Buffer;
  /** The scan's positions of this record's leaves (the record is scanned again if another was since). */
  positions(): ScanState;
}

/** Where an Avro record sits and how to read it. */
export interface AvroBytes {
  readonly codec: AvroCodec;
  readonly buf: Buffer;
  /** Where the Avro value starts (after a Confluent frame's header). */
  readonly pos: number;
}

export type FilterableResult = FilterableDecoded | DecodeFailure;
