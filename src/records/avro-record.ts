// Plain Avro binary for one schema version: the cheap prefix read of the filterable fields, the full read, and the write.
import avro from 'avsc';
import { compileReader, compileValidatorCode, type GeneratedReader, type LeafConverters } from './avro-codegen.js';
import { DecodeError } from './errors.js';
import { FILTERABLE_PATHS, REPEATING_PATHS, checkFilterable } from './filterable.js';
import { logValueProblem } from './json-record.js';
import { buildRecordPlan, isRecord, type GroupPlan, type LeafPlan, type RecordPlan } from './field-plan.js';
import type { DecodedRecord, FilterableFields, JsonValue } from './record-types.js';
import type { AvroComplexType, AvroSchema, SchemaVersion } from './schema-registry.js';
import { formatMicros, parseRfc3339 } from './timestamps.js';

export interface AvroCodec {
  readonly schemaVersion: SchemaVersion;
  readonly plan: RecordPlan;
  /** Reads only the leading conn fields; the bytes after them are not looked at. Throws DecodeError. */
  decodePrefix(buf: Buffer, pos: number): FilterableFields;
  /** Reads and validates the whole record, which must end exactly at the end of `buf`. Throws DecodeError. */
  decodeFull(buf: Buffer, pos: number): DecodedRecord;
  /**
   * Checks the whole record without building it: it throws exactly when decodeFull would (the scan,
   * the end of the bytes, and log values that must be JSON texts). Throws DecodeError.
   */
  validate(buf: Buffer, pos: number): void;
  /**
   * Where each leaf of `plan.leaves` starts in the record at `pos`, by its index there, validating the
   * record first unless it was the last one validated. The array is the codec's own and is overwritten
   * by the next record's validation: read it before validating another. Throws DecodeError.
   */
  leafStarts(buf: Buffer, pos: number): Int32Array;
  /**
   * Takes the leaf starts of a record written by our own code from content already checked as the
   * validation would check it (the JSON fast path, json-transcode.ts), so that leafStarts returns them
   * without validating it again.
   */
  written(buf: Buffer, pos: number, starts: Int32Array): void;
  /** The converters of decodeFull, for readers of single leaves. */
  readonly converters: LeafConverters;
  /** Writes a record already validated by the JSON rules (json-record.ts). Throws on an invalid value. */
  encode(record: DecodedRecord): Buffer;
}

/**
 * The reader schema of the filterable fields (FILTERABLE_PATHS): the record cut after the last field that
 * holds one, and that field, when it is a record, cut the same way. Avro binary has no field tags, so a
 * reader of this schema decodes exactly the bytes up to the last filterable field; the schemas put the
 * filterable fields first (schemas/), so that is all it reads.
 */
export function prefixSchema(schema: AvroSchema): AvroSchema {
  const top = schema as AvroComplexType;
  const holds = (path: string): boolean => [...FILTERABLE_PATHS].some((p) => p === path || p.startsWith(`${path}.`));
  const cut = (record: AvroComplexType, at: string): AvroComplexType => {
    const pathOf = (name: string): string => (at === '' ? name : `${at}.${name}`);
    const fields = record.fields ?? [];
    const last = fields.findLastIndex((f) => holds(pathOf(f.name)));
    const kept = fields.slice(0, last + 1).map((f, i) => (i === last && isRecord(f.type) ? { ...f, type: cut(f.type, pathOf(f.name)) } : f));
    return { type: 'record', name: record.name, ...(record.namespace !== undefined && { namespace: record.namespace }), fields: kept };
  };
  const prefix = cut(top, '');
  const read = new Set(leafPaths(prefix, ''));
  const missing = [...FILTERABLE_PATHS].filter((p) => !read.has(p));
  if (missing.length > 0) throw new Error(`${top.name}: the filterable fields ${missing.join(', ')} are not in its Avro schema`);
  return prefix;
}

function leafPaths(record: AvroComplexType, at: string): string[] {
  return (record.fields ?? []).flatMap((f) => {
    const path = at === '' ? f.name : `${at}.${f.name}`;
    return isRecord(f.type) ? leafPaths(f.type, path) : [path];
  });
}

// Unregistered logical types (timestamp-micros) fall back to their underlying long, which we convert ourselves.
// A fresh object each time: avsc keeps its registry of named types in the options it is given.
const avscOptions = (): Partial<avro.ForSchemaOptions> => ({ omitRecordMethods: true, wrapUnions: 'never' });

function parseLogValue(text: string, path: string): JsonValue {
  let value: JsonValue;
  try {
    value = JSON.parse(text) as JsonValue;
  } catch {
    throw new DecodeError('schema_violation', `${path} holds a value that is not a JSON text.`);
  }
  const problem = logValueProblem(value, text, path);
  if (problem !== undefined) throw problem;
  return value;
}

type Convert = (v: unknown) => JsonValue;

function timestampOf(v: number | null): string | null {
  return v === null ? null : formatMicros(v);
}

function logsOf(v: Record<string, string>[] | null, path: string): JsonValue {
  if (v === null) return null;
  return v.map((m, i) => {
    const out: { [key: string]: JsonValue } = {};
    for (const k of Object.keys(m)) out[k] = parseLogValue(m[k] as string, `${path}[${i}].${k}`);
    return out;
  });
}

/**
 * avsc writes a negative long below -2^52 wrongly: its zig-zag step (-2n - 1) leaves the doubles' exact
 * range, so -2^52 - 1 is read back as 2^52. Readers (ours included) are exact to 2^53 - 2, so only our
 * writer refuses those values.
 */
export const MIN_WRITABLE_LONG = -(2 ** 52);

function writableLong(v: number, path: string): number {
  if (v < MIN_WRITABLE_LONG) throw new Error(`${path}: avsc cannot write a long below -2^52 exactly (${v})`);
  return v;
}

function toAvroLeaf(leaf: LeafPlan): Convert | undefined {
  switch (leaf.type) {
    case 'int64':
      return (v) => (v === null ? null : writableLong(v as number, leaf.path));
    case 'timestamp':
      return (v) => (v === null ? null : writableLong(parseRfc3339(v as string) ?? Number.NaN, leaf.path));
    case 'logs':
      return (v) =>
        v === null
          ? null
          : (v as Record<string, JsonValue>[]).map((m) => {
              const out: Record<string, string> = {};
              for (const k of Object.keys(m)) out[k] = JSON.stringify(m[k]);
              return out;
            });
    default:
      return undefined;
  }
}

/** A function building a fresh plain object for a group, converting the leaves that need it. */
function compileGroup(group: GroupPlan, leafConvert: (leaf: LeafPlan) => Convert | undefined): (src: Record<string, unknown>) => DecodedRecord {
  const steps = group.children.map((child): ((src: Record<string, unknown>, out: DecodedRecord) => void) => {
    const { name } = child;
    if (child.kind === 'group') {
      const inner = compileGroup(child, leafConvert);
      return (src, out) => {
        out[name] = inner(src[name] as Record<string, unknown>);
      };
    }
    const convert = leafConvert(child);
    if (convert === undefined) {
      return (src, out) => {
        out[name] = src[name] as JsonValue;
      };
    }
    return (src, out) => {
      out[name] = convert(src[name]);
    };
  });
  return (src) => {
    const out: DecodedRecord = {};
    for (const step of steps) step(src, out);
    return out;
  };
}

export function createAvroCodec(schemaVersion: SchemaVersion): AvroCodec {
  const { schema, eventType } = schemaVersion;
  const plan = buildRecordPlan(eventType, schema);
  // avsc writes records (tests, benchmarks, the traffic generator); reading is the generated code's.
  const fullType = avro.Type.forSchema(schema as avro.Schema, avscOptions());
  const converters = { timestamp: timestampOf, logs: logsOf } as const;
  const readPrefix: GeneratedReader = compileReader(prefixSchema(schema), undefined, converters, false, REPEATING_PATHS);
  const readFull: GeneratedReader = compileReader(schema, plan, converters, true);
  // The full decode refuses a log value that is not a JSON text (logsOf); the validating scan must too.
  const jsonTextPaths = new Set(plan.leaves.filter((l) => l.type === 'logs').map((l) => `${l.path}[]{}`));
  const validateAt = compileValidatorCode(schema, jsonTextPaths, new Map(plan.leaves.map((l, i) => [l.path, i])));
  const toAvro = compileGroup(plan.root, toAvroLeaf);
  const starts = new Int32Array(plan.leaves.length);
  // The record whose leaf starts are in `starts`.
  let lastBuf: Buffer | undefined;
  let lastPos = -1;
  const validate = (buf: Buffer, pos: number): void => {
    lastBuf = undefined;
    validateAt(buf, pos, starts);
    lastBuf = buf;
    lastPos = pos;
  };

  return {
    schemaVersion,
    plan,
    decodePrefix(buf, pos) {
      const filterable = readPrefix(buf, pos) as unknown as FilterableFields;
      checkFilterable(filterable);
      return filterable;
    },
    decodeFull(buf, pos) {
      // One pass checks every byte as avro-scan.ts does and builds the record (avro-codegen.ts).
      const record = readFull(buf, pos) as DecodedRecord;
      checkFilterable(record as unknown as FilterableFields);
      return record;
    },
    validate,
    leafStarts(buf, pos) {
      if (buf !== lastBuf || pos !== lastPos) validate(buf, pos);
      return starts;
    },
    written(buf, pos, written) {
      starts.set(written);
      lastBuf = buf;
      lastPos = pos;
    },
    converters,
    encode(record) {
      return fullType.toBuffer(toAvro(record as Record<string, unknown>));
    },
  };
}
