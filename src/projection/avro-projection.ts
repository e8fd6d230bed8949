// Byte projections: a subscription's selected fields written as JSON straight from a validated Avro
// record, without decoding it, or from the text of a JSON record the fast path accepted (json-scan.ts),
// without writing its Avro record. One program per (schema, field set, timestamp format), run by one
// function for each form.
//
// Decoding a whole http record to objects cost about 4 µs, more than the rest of a match; reading the
// selected leaves where the validator saw them start (AvroCodec.leafStarts) and writing their text costs
// a fraction of that (bench/results/PROFILE.md). The text equals JSON.stringify(project(decodeFull(...)))
// of the same record: the keys in the projector's order (fieldTree), each leaf as JSON.stringify writes
// its decoded value; a test compares both over generated traffic and edge cases.
import { writeTrafficTailBefore } from '../events/envelope.js';
import { DEFAULT_TIMESTAMP_FORMAT, type TimestampFormat } from '../events/timestamp-format.js';
import { compileReader } from '../records/avro-codegen.js';
import type { AvroCodec } from '../records/avro-record.js';
import type { LeafPlan } from '../records/field-plan.js';
import { ABSENT, type ScanState } from '../records/json-scan.js';
import type { ScannedJson } from '../records/record-types.js';
import type { AvroComplexType, AvroSchema } from '../records/schema-registry.js';
import { writeMicros } from '../records/timestamps.js';
import { boolean, integer, literal, repeatsKey, string, stringArrayMap, varint } from './avro-json-writers.js';
import { fieldTree, type FieldNode } from './projector.js';

/** The output buffer of the projections; a projection may move its text to a larger one (ensure). */
export interface JsonOut {
  b: Buffer;
  /** Where the text being written starts in `b`. */
  start: number;
  /** Bytes the projection may still need past the current position, besides what it checks itself. */
  reserve: number;
}

/** Writes a projected object's JSON into `out.b` at `at` from the record whose leaf starts are `starts`; returns the end. */
export interface AvroProjection {
  (out: JsonOut, at: number, buf: Buffer, starts: Int32Array): number;
  /**
   * The same text from a JSON record's text and the scan's positions in it (ScanState); the end, or ~end
   * when it gives up (a field it writes only from the decoded value; a header map the decoded object would
   * reorder or merge, one with whitespace or an escaped slash, or one of more strings than the scan's notes
   * hold), having written up to that end.
   */
  readonly fromJson: (out: JsonOut, at: number, json: Buffer, state: ScanState) => number;
  /** Most bytes the text can take beyond 8 per record byte (keys, and numbers or timestamps from short varints). */
  readonly overhead: number;
  /** How its timestamps are written; projectedTail writes event_timestamp in it too. */
  readonly format: TimestampFormat;
}

/**
 * How a timestamp leaf (Avro timestamp-micros) is written: its JSON text into `out` at `at`, returning
 * the end; at most 48 bytes. Every timestamp of a projection goes through the one function of its format,
 * so a per-destination format is a projection per (field set, format).
 */
export type TimestampWriter = (out: Buffer, at: number, micros: number) => number;

/** Writes ASCII text (digits, '.', '-') byte by byte. */
function ascii(out: Buffer, at: number, text: string): number {
  for (let i = 0; i < text.length; i++) out[at++] = text.charCodeAt(i);
  return at;
}

/**
 * The timestamp formats of a destination (docs/subscription-controls.md): the text of
 * formatTimestampValue (src/events/timestamp-format.ts) applied to the decoded record's RFC 3339 text,
 * from the micros themselves. RFC 3339 is what decoded records hold (timestamps.ts).
 */
export const TIMESTAMP_WRITERS: Readonly<Record<TimestampFormat, TimestampWriter>> = {
  rfc3339: (out, at, micros) => {
    out[at] = 0x22;
    at = writeMicros(out, at + 1, micros);
    out[at] = 0x22;
    return at + 1;
  },
  // JSON.stringify of a number is its String().
  unix: (out, at, micros) => ascii(out, at, String(micros / 1e6)),
  unixmilli: (out, at, micros) => ascii(out, at, String(Math.floor(micros / 1000))),
  unixnano: (out, at, micros) => {
    out[at] = 0x22;
    // Safe integers print exactly as BigInt does; append the three zeros of the nanoseconds.
    const text = !Number.isSafeInteger(micros) ? (BigInt(micros) * 1000n).toString() : micros === 0 ? '0' : `${micros}000`;
    at = ascii(out, at + 1, text);
    out[at] = 0x22;
    return at + 1;
  },
};

/** Per leaf allowance in `overhead`: a timestamp or a long written from a short varint, and its key. */
const LEAF_OVERHEAD = 48;

const typeOf = (t: AvroSchema): AvroComplexType => (typeof t === 'string' ? { type: t } : (t as AvroComplexType));

/** The Avro type of the field at a dotted path, or undefined. */
function avroTypeAt(schema: AvroSchema, path: string): AvroSchema | undefined {
  let t: AvroSchema | undefined = schema;
  for (const name of path.split('.')) {
    if (t === undefined || Array.isArray(t)) return undefined;
    t = typeOf(t).fields?.find((f) => f.name === name)?.type;
  }
  return t;
}

/** A reader of one leaf's decoded value (for the leaves written through JSON.stringify). */
type LeafText = (buf: Buffer, pos: number) => string;

/** The readers of each codec's leaves by slot, compiled on first use: few leaves ever need one. */
const leafTextReaders = new WeakMap<AvroCodec, LeafText[]>();

/** The JSON text of the decoded leaf in `slot` of the record at its start `pos`. */
function decodedLeafText(codec: AvroCodec, slot: number, buf: Buffer, pos: number): string {
  let readers = leafTextReaders.get(codec);
  if (readers === undefined) leafTextReaders.set(codec, (readers = []));
  let reader = readers[slot];
  if (reader === undefined) {
    const leaf = codec.plan.leaves[slot] as LeafPlan;
    readers[slot] = reader = leafText(codec, leaf, avroTypeAt(codec.schemaVersion.schema, leaf.path) as AvroSchema);
  }
  return reader(buf, pos);
}

function leafText(codec: AvroCodec, leaf: LeafPlan, t: AvroSchema): LeafText {
  const read = compileReader(t, undefined, codec.converters, false) as unknown as (buf: Buffer, pos: number) => unknown;
  const { timestamp, logs } = codec.converters;
  if (leaf.type === 'timestamp') return (buf, pos) => JSON.stringify(timestamp(read(buf, pos) as number | null));
  if (leaf.type === 'logs') return (buf, pos) => JSON.stringify(logs(read(buf, pos) as Record<string, string>[] | null, leaf.path));
  return (buf, pos) => JSON.stringify(read(buf, pos));
}

/**
 * Makes room for `n` more bytes at `at` besides the reserve and returns where to write them: when the
 * buffer is short, the tail written so far moves to the start of a larger one.
 */
function ensure(out: JsonOut, at: number, n: number): number {
  if (at + n + out.reserve <= out.b.length) return at;
  const written = at - out.start;
  const grown = Buffer.allocUnsafe(Math.max(SLAB_BYTES, 2 * (written + n + out.reserve)));
  out.b.copy(grown, 0, out.start, at);
  out.b = grown;
  out.start = 0;
  return written;
}

/** Writes a leaf's text made by JSON.stringify, growing the output when it needs to. */
function writeText(out: JsonOut, at: number, text: string): number {
  at = ensure(out, at, 3 * text.length);
  return at + out.b.write(text, at);
}

/**
 * The texts of leaves (strings, timestamps, maps, logs) already written for a record, by leaf slot:
 * where they lie in which output buffer, and for which record bytes. A record that meets several field
 * sets selecting the same leaf copies its text instead of writing it again (at 10,000 subscriptions a
 * record meets about 13 field sets). Output buffers are only appended to, so a text stays where it was written.
 */
interface LeafTexts {
  readonly from: (Buffer | undefined)[];
  readonly at: Int32Array;
  readonly src: Buffer[];
  readonly start: Int32Array;
  readonly end: Int32Array;
}

function leafTexts(leaves: number): LeafTexts {
  return { from: new Array<Buffer | undefined>(leaves).fill(undefined), at: new Int32Array(leaves), src: new Array<Buffer>(leaves), start: new Int32Array(leaves), end: new Int32Array(leaves) };
}

/** Texts at least this long are copied by Buffer.copy, shorter ones byte by byte (cheaper than the native call). */
const NATIVE_COPY_FROM = 64;

/** Copies a leaf text written before (LeafTexts) to `at`; returns the end. */
function copyText(out: JsonOut, at: number, src: Buffer, start: number, end: number): number {
  at = ensure(out, at, end - start);
  const b = out.b;
  if (end - start >= NATIVE_COPY_FROM) return at + src.copy(b, at, start, end);
  for (let i = start; i < end; i++) b[at++] = src[i] as number;
  return at;
}

const isStringArrayMap = (t: AvroComplexType): boolean => t.type === 'map' && t.values !== undefined && typeOf(t.values).type === 'array' && typeOf(typeOf(t.values).items ?? 'null').type === 'string';

/** How a step of a program writes its leaf (the low byte), and whether the leaf is a union with null first. */
const KIND = { none: 0, null: 1, string: 2, integer: 3, boolean: 4, timestamp: 5, stringArrayMap: 6, text: 7 } as const;
const OPTIONAL = 0x100;
/** Kinds whose text is kept for the record's other field sets (LeafTexts), one bit a kind; numbers and booleans are written as fast as a copy. */
const KEPT = (1 << KIND.string) | (1 << KIND.timestamp) | (1 << KIND.stringArrayMap) | (1 << KIND.text);

/**
 * A field set's projection as data: constant bytes (keys, braces) and the leaves between them. One
 * function runs every program (run). Code generated per field set was slower once hundreds of field
 * sets were live: each big function was compiled by V8 on its own and ran unoptimized for a while,
 * and the call site that ran them was megamorphic (bench/results/PROFILE.md).
 */
interface Program {
  /** The constant bytes of the text. */
  readonly bytes: Buffer;
  /** Four numbers a step: the constant bytes [start, end) written first, then the leaf's slot (-1: none) and kind. */
  readonly steps: Int32Array;
  readonly overhead: number;
}

/** The kind of a leaf of Avro type `t`; KIND.text when it has no byte writer. */
function kindOf(t: AvroSchema, leaf: LeafPlan): number {
  if (Array.isArray(t)) {
    const branches = t as readonly AvroSchema[];
    if (branches.length !== 2 || typeOf(branches[0] as AvroSchema).type !== 'null') return KIND.text;
    const inner = kindOf(branches[1] as AvroSchema, leaf);
    return inner === KIND.text ? KIND.text : inner | OPTIONAL;
  }
  const c = typeOf(t);
  switch (c.type) {
    case 'boolean':
      return KIND.boolean;
    case 'int':
      return KIND.integer;
    case 'long':
      return leaf.type === 'timestamp' ? KIND.timestamp : KIND.integer;
    case 'string':
      return KIND.string;
    case 'map':
      return isStringArrayMap(c) ? KIND.stringArrayMap : KIND.text;
    default:
      return KIND.text;
  }
}

/** A field set's program; undefined when a timestamp leaf would be written as RFC 3339 text (KIND.text) in another format. */
function compileProgram(codec: AvroCodec, tree: readonly FieldNode[], format: TimestampFormat): Program | undefined {
  const bytes: number[] = [];
  const steps: number[] = [];
  let from = 0;
  let overhead = 0;
  let textTimestamp = false;
  const constant = (text: string): void => {
    bytes.push(...Buffer.from(text));
  };
  const step = (slot: number, kind: number): void => {
    steps.push(from, bytes.length, slot, kind);
    from = bytes.length;
  };
  const object = (nodes: readonly FieldNode[], prefix: string): void => {
    nodes.forEach((node, i) => {
      constant(`${i === 0 ? '{' : ','}${JSON.stringify(node.name)}:`);
      const path = prefix === '' ? node.name : `${prefix}.${node.name}`;
      if (node.children !== undefined) return object(node.children, path);
      const slot = codec.plan.leaves.findIndex((l) => l.path === path);
      const leaf = codec.plan.leaves[slot];
      const t = avroTypeAt(codec.schemaVersion.schema, path);
      // A field the catalogue has and this schema version lacks is null, as in the projected object.
      if (leaf === undefined || t === undefined) return step(-1, KIND.null);
      overhead += LEAF_OVERHEAD;
      const kind = kindOf(t, leaf);
      if (kind === KIND.text && leaf.type === 'timestamp') textTimestamp = true;
      step(slot, kind);
    });
    constant(nodes.length === 0 ? '{}' : '}');
  };
  object(tree, '');
  step(-1, KIND.none);
  if (textTimestamp && format !== DEFAULT_TIMESTAMP_FORMAT) return undefined;
  return { bytes: Buffer.from(bytes), steps: Int32Array.from(steps), overhead: overhead + bytes.length };
}

/** Everything a program runs with besides the record. */
interface Context {
  readonly codec: AvroCodec;
  readonly kept: LeafTexts;
  readonly timestamps: TimestampWriter;
}

/** Writes the constant bytes of step `i` of a program at `at`; returns the end. */
function constants(b: Buffer, at: number, bytes: Buffer, steps: Int32Array, i: number): number {
  for (let k = steps[i] as number, e = steps[i + 1] as number; k < e; k++) b[at++] = bytes[k] as number;
  return at;
}

/** True when the text of the leaf in `slot` of the record `from`, whose value is at `p`, was written before (LeafTexts). */
function wasWritten(kept: LeafTexts, slot: number, from: Buffer, p: number): boolean {
  return kept.from[slot] === from && kept.at[slot] === p;
}

/** Notes where the text of the leaf in `slot` of the record `from` (its value at `p`) was written: [start, end) of `b`. */
function written(kept: LeafTexts, slot: number, from: Buffer, p: number, b: Buffer, start: number, end: number): void {
  kept.from[slot] = from;
  kept.at[slot] = p;
  kept.src[slot] = b;
  kept.start[slot] = start;
  kept.end[slot] = end;
}

/** Writes a program's text for the record whose leaf starts are `P`; returns the end. */
function run(pr: Program, x: Context, out: JsonOut, at: number, buf: Buffer, P: Int32Array): number {
  const { bytes, steps } = pr;
  const kept = x.kept;
  let b = out.b;
  for (let i = 0; i < steps.length; i += 4) {
    at = constants(b, at, bytes, steps, i);
    const slot = steps[i + 2] as number;
    const kind = steps[i + 3] as number;
    if (slot < 0) {
      if (kind === KIND.null) at = literal(b, at, 'null');
      continue;
    }
    let p = P[slot] as number;
    const keep = ((KEPT >> (kind & 0xff)) & 1) !== 0;
    if (keep && wasWritten(kept, slot, buf, p)) {
      at = copyText(out, at, kept.src[slot] as Buffer, kept.start[slot] as number, kept.end[slot] as number);
      b = out.b;
      continue;
    }
    // The offset from the tail's start: a move to a larger buffer (ensure) keeps it.
    const from = at - out.start;
    if ((kind & OPTIONAL) !== 0 && buf[p++] === 0) at = literal(b, at, 'null');
    else {
      switch (kind & 0xff) {
        case KIND.string:
          at = string(b, at, buf, p);
          break;
        case KIND.integer:
          at = integer(b, at, varint(buf, p));
          break;
        case KIND.boolean:
          at = boolean(b, at, buf, p);
          break;
        case KIND.timestamp:
          at = x.timestamps(b, at, varint(buf, p));
          break;
        case KIND.stringArrayMap: {
          // -1: a map the decoded object would reorder or merge (avro-json-writers.ts); written from the decoded value.
          const e = stringArrayMap(b, at, buf, p);
          if (e >= 0) at = e;
          else {
            at = writeText(out, at, decodedLeafText(x.codec, slot, buf, P[slot] as number));
            b = out.b;
          }
          break;
        }
        default:
          at = writeText(out, at, decodedLeafText(x.codec, slot, buf, P[slot] as number));
          b = out.b;
      }
    }
    if (keep) written(kept, slot, buf, P[slot] as number, b, out.start + from, at);
  }
  return at;
}

/**
 * Writes a program's text for the JSON record `json` whose leaves the scan found at `S`; returns the end, or
 * ~end to give up. run's loop with the leaf writers of JSON text: one loop per record form, as a writer
 * chosen per leaf would cost a call on every leaf of every match.
 */
function runJson(pr: Program, x: Context, out: JsonOut, at: number, json: Buffer, S: ScanState): number {
  const { bytes, steps } = pr;
  const kept = x.kept;
  const { starts, ends, escaped, numbers } = S;
  let b = out.b;
  for (let i = 0; i < steps.length; i += 4) {
    at = constants(b, at, bytes, steps, i);
    const slot = steps[i + 2] as number;
    const kind = steps[i + 3] as number;
    if (slot < 0) {
      if (kind === KIND.null) at = literal(b, at, 'null');
      continue;
    }
    const s = starts[slot] as number;
    const keep = ((KEPT >> (kind & 0xff)) & 1) !== 0;
    if (keep && wasWritten(kept, slot, json, s)) {
      at = copyText(out, at, kept.src[slot] as Buffer, kept.start[slot] as number, kept.end[slot] as number);
      b = out.b;
      continue;
    }
    const from = at - out.start;
    // Only an optional leaf is ABSENT (missing or null); the scan gives up on a required one.
    if (s === ABSENT) at = literal(b, at, 'null');
    else {
      switch (kind & 0xff) {
        case KIND.string:
          at = escaped[slot] === 1 ? escapedJsonString(b, at, json, s, ends[slot] as number) : plainJsonString(out, at, json, s, ends[slot] as number);
          b = out.b;
          break;
        case KIND.integer:
          at = integer(b, at, numbers[slot] as number);
          break;
        case KIND.boolean:
          at = literal(b, at, numbers[slot] === 1 ? 'true' : 'false');
          break;
        case KIND.timestamp:
          at = x.timestamps(b, at, numbers[slot] as number);
          break;
        case KIND.stringArrayMap: {
          const e = jsonStringArrayMap(out, at, json, S, slot);
          if (e < 0) return ~at;
          at = e;
          b = out.b;
          break;
        }
        default:
          return ~at;
      }
    }
    if (keep) written(kept, slot, json, s, b, out.start + from, at);
  }
  return at;
}

/**
 * A JSON string's text without escapes, as JSON.stringify writes its value: the scan refused raw control
 * characters and invalid UTF-8, so its bytes are the same.
 */
function plainJsonString(out: JsonOut, at: number, json: Buffer, s: number, e: number): number {
  const b = out.b;
  b[at++] = 0x22;
  if (e - s >= NATIVE_COPY_FROM) at += json.copy(b, at, s, e);
  else for (let i = s; i < e; i++) b[at++] = json[i] as number;
  b[at++] = 0x22;
  return at;
}

/**
 * A JSON string's text with simple escapes (the scan gives up on \u), as JSON.stringify writes its value:
 * the same escapes, but "\/", which JSON.stringify writes as "/".
 */
function escapedJsonString(b: Buffer, at: number, json: Buffer, s: number, e: number): number {
  b[at++] = 0x22;
  for (let i = s; i < e; i++) {
    const c = json[i] as number;
    if (c === 0x5c) {
      const d = json[++i] as number;
      if (d !== 0x2f) b[at++] = c;
      b[at++] = d;
    } else b[at++] = c;
  }
  b[at++] = 0x22;
  return at;
}

/** True when the string body [s, e) holds the escape "\/", which JSON.stringify writes as "/"; its other simple escapes it writes alike. */
function escapedSlash(json: Buffer, s: number, e: number): boolean {
  for (let i = s; i < e; i++) {
    if (json[i] === 0x5c && json[++i] === 0x2f) return true;
  }
  return false;
}

/**
 * A JSON header map's text copied as it is when it is what JSON.stringify writes of its decoded object:
 * no whitespace, no "\/" escape, no key repeated and none starting with a digit (the decoded object would
 * merge or reorder those, as stringArrayMap says). Read from the scan's notes of the map's strings; -1
 * otherwise, or when the notes did not hold them all.
 */
function jsonStringArrayMap(out: JsonOut, at: number, json: Buffer, S: ScanState, slot: number): number {
  const notes = S.notes;
  const first = S.noteFrom[slot] as number;
  const last = S.noteTo[slot] as number;
  if (last > notes.length) return -1;
  // The map's length without whitespace: its braces, each key with its quotes, colon and brackets, each
  // value with its quotes, and the commas between keys and between the values of a key.
  let compact = 2;
  let keys = 0;
  let values = 0;
  let keysWithValues = 0;
  let afterKey = false;
  for (let n = first; n < last; n += 2) {
    let a = notes[n] as number;
    let e = notes[n + 1] as number;
    if (e < 0) {
      e = ~e;
      if (escapedSlash(json, a < 0 ? -a : a, e)) return -1;
    }
    if (a < 0) {
      a = -a;
      const c = json[a] as number;
      if (e > a && c >= 0x30 && c <= 0x39) return -1;
      if (repeatsKey(json, keys, a, e - a)) return -1;
      keys++;
      compact += e - a + 5;
      afterKey = true;
    } else {
      values++;
      if (afterKey) keysWithValues++;
      afterKey = false;
      compact += e - a + 2;
    }
  }
  if (keys > 0) compact += keys - 1;
  compact += values - keysWithValues;
  const s = S.starts[slot] as number;
  const e = S.ends[slot] as number;
  if (e - s !== compact) return -1;
  at = ensure(out, at, compact);
  return at + json.copy(out.b, at, s, e);
}

/**
 * The byte projection of a field set (its projectionKey) for records of the codec's schema. Field
 * paths that are not leaves of the schema (a group, or a path below a leaf) have none: undefined, and
 * the caller projects the decoded record instead.
 */
export function compileAvroProjection(codec: AvroCodec, key: string, format: TimestampFormat, kept: LeafTexts = leafTexts(codec.plan.leaves.length)): AvroProjection | undefined {
  const tree = fieldTree(key);
  const leafPaths = new Set(codec.plan.leaves.map((l) => l.path));
  const groups = (nodes: readonly FieldNode[], prefix: string): boolean =>
    nodes.some((n) => {
      const path = prefix === '' ? n.name : `${prefix}.${n.name}`;
      if (n.children === undefined) return !leafPaths.has(path) && avroTypeAt(codec.schemaVersion.schema, path) !== undefined;
      // A path below a leaf reads into its decoded value (a header by name, say).
      return leafPaths.has(path) || groups(n.children, path);
    });
  if (groups(tree, '')) return undefined;
  const program = compileProgram(codec, tree, format);
  if (program === undefined) return undefined;
  const context: Context = { codec, kept, timestamps: TIMESTAMP_WRITERS[format] };
  const project = (out: JsonOut, at: number, buf: Buffer, starts: Int32Array): number => run(program, context, out, at, buf, starts);
  const fromJson = (out: JsonOut, at: number, json: Buffer, state: ScanState): number => runJson(program, context, out, at, json, state);
  return Object.assign(project, { fromJson, overhead: program.overhead, format });
}

/** The byte projections of one codec's records in one timestamp format, by projection key, compiled on first use. */
export class AvroProjections {
  private readonly byKey = new Map<string, AvroProjection | null>();
  /** Shared by the projections of one timestamp format: their leaf texts are alike. */
  private readonly texts: LeafTexts;

  constructor(
    private readonly codec: AvroCodec,
    private readonly format: TimestampFormat,
  ) {
    this.texts = leafTexts(codec.plan.leaves.length);
  }

  get(key: string): AvroProjection | undefined {
    let p = this.byKey.get(key);
    if (p === undefined) this.byKey.set(key, (p = compileAvroProjection(this.codec, key, this.format, this.texts) ?? null));
    return p ?? undefined;
  }
}

const compiled = new WeakMap<AvroCodec, Map<TimestampFormat, AvroProjections>>();

/** The byte projections of a codec's records in a timestamp format. */
export function avroProjections(codec: AvroCodec, format: TimestampFormat = DEFAULT_TIMESTAMP_FORMAT): AvroProjections {
  let byFormat = compiled.get(codec);
  if (byFormat === undefined) compiled.set(codec, (byFormat = new Map()));
  let set = byFormat.get(format);
  if (set === undefined) byFormat.set(format, (set = new AvroProjections(codec, format)));
  return set;
}

/** Tails are written into slabs and handed out as views of them, as Buffer.allocUnsafe does from its pool, without a copy. */
const SLAB_BYTES = 64 * 1024;
const out: JsonOut = { b: Buffer.allocUnsafe(SLAB_BYTES), start: 0, reserve: 0 };
let used = 0;

/**
 * Starts a payload tail (envelope.ts payloadTail) in the slab with room for `need` bytes: the envelope's
 * text before the object for this event type and Kafka timestamp (writeTrafficTailBefore). Returns where
 * the object goes.
 */
function beginTail(eventType: string, timestampMs: number, format: TimestampFormat, need: number): number {
  // Twice the bound: a leaf written through JSON.stringify checks for room itself (ensure) against the whole bound.
  if (out.b.length - used < 2 * need) {
    out.b = Buffer.allocUnsafe(Math.max(SLAB_BYTES, 2 * need));
    used = 0;
  }
  out.reserve = need;
  out.start = used;
  return writeTrafficTailBefore(out.b, used, eventType, timestampMs, format);
}

/** Ends the tail begun by beginTail, whose object ends at `at`, with the envelope's closing brace; a view of the slab. */
function endTail(at: number): Buffer {
  out.b[at++] = 0x7d;
  used = at;
  return out.b.subarray(out.start, at);
}

/**
 * A traffic payload tail (envelope.ts payloadTail): the envelope's text before the object for this
 * event type and Kafka timestamp (writeTrafficTailBefore), the projected object's JSON and the closing
 * brace, as a buffer of its own. `starts` must be the record's (AvroCodec.leafStarts).
 */
export function projectedTail(eventType: string, timestampMs: number, project: AvroProjection, buf: Buffer, pos: number, starts: Int32Array): Buffer {
  const need = 3 * eventType.length + 160 + project.overhead + 8 * (buf.length - pos) + 1;
  return endTail(project(out, beginTail(eventType, timestampMs, project.format, need), buf, starts));
}

/**
 * projectedTail from a JSON record's text (ScannedJson), without its Avro record; undefined when the
 * projection gives up on the record (AvroProjection.fromJson), and the caller projects its Avro record.
 */
export function jsonProjectedTail(eventType: string, timestampMs: number, project: AvroProjection, json: ScannedJson): Buffer | undefined {
  const text = json.text;
  // Each leaf's text is at most its JSON text, a number or timestamp written from it at most LEAF_OVERHEAD.
  const need = 3 * eventType.length + 160 + project.overhead + text.length + 1;
  const at = project.fromJson(out, beginTail(eventType, timestampMs, project.format, need), text, json.positions());
  if (at < 0) {
    // The texts it kept for other field sets (LeafTexts) stay where they were written.
    used = ~at;
    return undefined;
  }
  return endTail(at);
}
