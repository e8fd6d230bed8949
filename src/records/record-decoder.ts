// Decoding a raw traffic record in any producer form: the filterable fields first, the whole record on demand.
import { isUtf8 } from 'node:buffer';
import { TRAFFIC_EVENT_TYPES, type TrafficEventType } from '../events/catalog.js';
import { createAvroCodec, type AvroCodec } from './avro-record.js';
import { DecodeError, decodeFailure, type DecodeFailure } from './errors.js';
import { FILTERABLE_GROUP, filterableOf, sameFilterable } from './filterable.js';
import { leadingMemberSpan } from './json-lead.js';
import { compileJsonValidator, jsonFilterable, type JsonRecordValidator } from './json-record.js';
import type { ScanState } from './json-scan.js';
import { createJsonTranscoder, type JsonTranscoder } from './json-transcode.js';
import type { AvroBytes, DecodedRecord, WireForm, FilterableDecoded, FilterableFields, FilterableResult, FullDecodeResult, RawMessage, ScannedJson } from './record-types.js';
import { DEFAULT_SCHEMA_IDS, SCHEMA_VERSIONS, latestSchema, schemaVersion, type SchemaRef, type SchemaVersion } from './schema-registry.js';
import { CONFLUENT_HEADER_BYTES, detectWireForm } from './wire-form.js';

export interface RecordDecoderOptions {
  /** Larger values are refused with record_too_large. Default 1 MiB, Kafka's default max.message.bytes. */
  readonly maxRecordBytes?: number;
  /** Confluent schema id -> schema version. Default DEFAULT_SCHEMA_IDS. */
  readonly schemaIds?: ReadonlyMap<number, SchemaRef>;
  /**
   * Validate every record whole in decodeFilterable, so a malformed record fails there whether or not
   * a subscription matches it (docs/record-formats.md, "Cheap reads"). The record is still built only
   * by full(). Avro: one structural scan of all the bytes; JSON: the whole text parsed and validated.
   */
  readonly validateAll?: boolean;
  /**
   * Read JSON records through the fast path (json-scan.ts), giving up to the exact decoder on anything
   * unusual. Default true; false decodes every JSON record the exact way (the reference in tests and benches).
   */
  readonly fastJson?: boolean;
}

export interface RecordDecoder {
  /** Never throws: a bad record is a DecodeFailure whose code goes into the dead-letter headers. */
  decodeFilterable(eventType: TrafficEventType, msg: RawMessage): FilterableResult;
}

export const DEFAULT_MAX_RECORD_BYTES = 1024 * 1024;

interface JsonValidators {
  readonly plain: JsonRecordValidator;
  readonly surrogates: JsonRecordValidator;
  /** The fast path: the record scanned from its bytes, and written as the Avro record of the same content on demand (json-transcode.ts). */
  readonly transcoder: JsonTranscoder;
}

/** Turns what the walkers throw into a result; anything that is not a DecodeError is avsc refusing the bytes. */
function failureOf(err: unknown): DecodeFailure {
  if (err instanceof DecodeError) return decodeFailure(err.code, err.message);
  return decodeFailure('malformed_avro', `The Avro bytes cannot be read: ${err instanceof Error ? err.message : String(err)}.`);
}

interface ParsedJson {
  readonly value: unknown;
  /** The text has backslash-u escapes, so its strings may hold lone surrogates (json-record.ts). */
  readonly surrogates: boolean;
}

function parseJson(buf: Buffer, start: number, end: number): ParsedJson {
  // RFC 8259 8.1: "JSON text exchanged between systems that are not part of a closed ecosystem MUST be encoded using UTF-8".
  if (!isUtf8(buf.subarray(start, end))) throw new DecodeError('invalid_utf8', 'The JSON body is not valid UTF-8.');
  const text = buf.toString('utf8', start, end);
  try {
    return { value: JSON.parse(text) as unknown, surrogates: text.includes('\\u') };
  } catch (err) {
    throw new DecodeError('invalid_json', `The body is not JSON: ${err instanceof Error ? err.message : String(err)}.`);
  }
}

/** The group holding the filterable fields, which a JSON record may lead with (json-lead.ts). */
const LEAD = FILTERABLE_GROUP === undefined ? undefined : { name: FILTERABLE_GROUP, key: Buffer.from(JSON.stringify(FILTERABLE_GROUP)) };

function attempt(decode: () => DecodedRecord): FullDecodeResult {
  try {
    return { ok: true, record: decode() };
  } catch (err) {
    return failureOf(err);
  }
}

/**
 * A decoded Avro record: its filterable fields, and its bytes for the whole record on demand. One object
 * per record, where closures for full() cost several allocations on every record routed.
 */
class AvroDecoded implements FilterableDecoded, AvroBytes {
  readonly ok = true;
  readonly avro: AvroBytes = this;
  private result: FullDecodeResult | undefined;

  constructor(
    readonly eventType: TrafficEventType,
    readonly form: WireForm,
    readonly filterable: FilterableFields,
    readonly codec: AvroCodec,
    readonly buf: Buffer,
    readonly pos: number,
  ) {}

  full(): FullDecodeResult {
    this.result ??= attempt(() => this.codec.decodeFull(this.buf, this.pos));
    return this.result;
  }
}

/**
 * A JSON record the fast path accepted: its filterable fields, its text and the scan's positions in it for
 * projecting it, and the Avro record of the same content written only when asked for (a field set the text
 * projection gives up on, another timestamp format, the whole record), then read as an Avro record is.
 */
class JsonScanned implements FilterableDecoded, ScannedJson {
  readonly ok = true;
  readonly form = 'json';
  readonly json: ScannedJson = this;
  readonly codec: AvroCodec;
  private bytes: AvroBytes | undefined;
  private result: FullDecodeResult | undefined;

  constructor(
    readonly eventType: TrafficEventType,
    readonly filterable: FilterableFields,
    private readonly transcoder: JsonTranscoder,
    readonly text: Buffer,
  ) {
    this.codec = transcoder.codec;
  }

  positions(): ScanState {
    return this.transcoder.positions(this.text);
  }

  get avro(): AvroBytes {
    this.bytes ??= this.transcoder.avro(this.text);
    return this.bytes;
  }

  full(): FullDecodeResult {
    this.result ??= attempt(() => {
      const { codec, buf, pos } = this.avro;
      return codec.decodeFull(buf, pos);
    });
    return this.result;
  }
}

function memo(compute: () => FullDecodeResult): () => FullDecodeResult {
  let result: FullDecodeResult | undefined;
  return () => (result ??= compute());
}

/** Compile once at start-up (it throws on a schema id table naming an unknown version), then decode many. */
export function createRecordDecoder(opts: RecordDecoderOptions = {}): RecordDecoder {
  const maxBytes = opts.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES;
  const codecs = new Map<SchemaVersion, AvroCodec>(SCHEMA_VERSIONS.map((v) => [v, createAvroCodec(v)]));
  const codecOf = (v: SchemaVersion): AvroCodec => codecs.get(v) as AvroCodec;
  const latest = new Map<TrafficEventType, AvroCodec>(TRAFFIC_EVENT_TYPES.map((t) => [t, codecOf(latestSchema(t))]));
  const byId = new Map<number, AvroCodec>();
  for (const [id, ref] of opts.schemaIds ?? DEFAULT_SCHEMA_IDS) {
    const version = schemaVersion(ref);
    if (version === undefined) throw new Error(`schema id ${id} names ${ref.eventType} version ${ref.version}, which this service does not know`);
    // Reading an older writer version into the latest reader would need an avsc resolver; there is one version so far.
    if (version !== latestSchema(ref.eventType)) throw new Error(`schema id ${id}: only the latest version of ${ref.eventType} can be read`);
    byId.set(id, codecOf(version));
  }
  const json = new Map<TrafficEventType, JsonValidators>(
    TRAFFIC_EVENT_TYPES.map((t) => {
      const plan = codecOf(latestSchema(t)).plan;
      return [
        t,
        { plain: compileJsonValidator(plan, { checkSurrogates: false }), surrogates: compileJsonValidator(plan, { checkSurrogates: true }), transcoder: createJsonTranscoder(codecOf(latestSchema(t))) },
      ];
    }),
  );

  const validateAll = opts.validateAll ?? false;
  const fastJson = opts.fastJson ?? true;

  const decodeAvro = (eventType: TrafficEventType, codec: AvroCodec, buf: Buffer, pos: number, form: 'avro' | 'confluent'): FilterableResult => {
    const filterable = codec.decodePrefix(buf, pos);
    if (validateAll) codec.validate(buf, pos);
    return new AvroDecoded(eventType, form, filterable, codec, buf, pos);
  };

  const decodeConfluent = (eventType: TrafficEventType, buf: Buffer): FilterableResult => {
    if (buf.length < CONFLUENT_HEADER_BYTES) throw new DecodeError('malformed_avro', `A Confluent frame needs ${CONFLUENT_HEADER_BYTES} header bytes; this one has ${buf.length}.`);
    if (buf[0] !== 0) throw new DecodeError('malformed_avro', `The Confluent magic byte is ${buf[0]}, not 0.`);
    const id = buf.readUInt32BE(1);
    const codec = byId.get(id);
    if (codec === undefined) throw new DecodeError('unknown_schema_id', `Schema id ${id} is not in the schema id table.`);
    const writer = codec.schemaVersion.eventType;
    if (writer !== eventType) throw new DecodeError('schema_mismatch', `Schema id ${id} is a ${writer} schema, but this topic carries ${eventType}.`);
    return decodeAvro(eventType, codec, buf, CONFLUENT_HEADER_BYTES, 'confluent');
  };

  const decodeJson = (eventType: TrafficEventType, buf: Buffer): FilterableResult => {
    const validators = json.get(eventType) as JsonValidators;
    if (fastJson) {
      const filterable = validators.transcoder.scan(buf);
      // Anything the scan gives up on is decoded the exact way below, for today's code and message.
      if (filterable !== undefined) return new JsonScanned(eventType, filterable, validators.transcoder, buf);
    }
    const validated = (body: ParsedJson): DecodedRecord => (body.surrogates ? validators.surrogates : validators.plain)(body.value);
    const lead = validateAll ? undefined : LEAD;
    const span = lead === undefined ? undefined : leadingMemberSpan(buf, lead.key);
    if (span === undefined || lead === undefined) {
      const body = parseJson(buf, 0, buf.length);
      const filterable = jsonFilterable(body.value, body.surrogates);
      if (validateAll) {
        // Validating a JSON record is building it: do it now, and hand the result to full().
        const record = validated(body);
        const done: FullDecodeResult = { ok: true, record };
        return { ok: true, eventType, form: 'json', filterable, full: () => done };
      }
      return { ok: true, eventType, form: 'json', filterable, full: memo(() => attempt(() => validated(body))) };
    }
    // The filterable group leads the record: parse only it now, and the whole text if a subscription matches.
    const head = parseJson(buf, span.start, span.end);
    const filterable = jsonFilterable({ [lead.name]: head.value }, head.surrogates);
    const full = memo(() =>
      attempt(() => {
        const record = validated(parseJson(buf, 0, buf.length));
        // JSON.parse keeps the last of duplicate keys; the filter must have seen what the record holds.
        if (!sameFilterable(filterableOf(record), filterable)) throw new DecodeError('schema_violation', `${lead.name} appears more than once in the record.`);
        return record;
      }),
    );
    return { ok: true, eventType, form: 'json', filterable, full };
  };

  return {
    decodeFilterable(eventType, msg) {
      try {
        const buf = msg.value;
        if (buf === null || buf.length === 0) return decodeFailure('empty_record', 'The record has no value.');
        if (buf.length > maxBytes) return decodeFailure('record_too_large', `The record has ${buf.length} bytes; the limit is ${maxBytes}.`);
        const form = detectWireForm(msg, buf);
        if (form === 'json') return decodeJson(eventType, buf);
        if (form === 'confluent') return decodeConfluent(eventType, buf);
        return decodeAvro(eventType, latest.get(eventType) as AvroCodec, buf, 0, 'avro');
      } catch (err) {
        return failureOf(err);
      }
    },
  };
}
