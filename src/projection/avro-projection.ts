// Byte projections: a subscription's selected fields written as JSON straight from a validated Avro
// record, without decoding it. One function is generated per (schema, field set, timestamp format).
//
// Decoding a whole http record to objects cost about 4 µs, more than the rest of a match; reading the
// selected leaves where the validator saw them start (AvroCodec.leafStarts) and writing their text costs
// a fraction of that (bench/results/PROFILE.md). The text equals JSON.stringify(project(decodeFull(...)))
// of the same record: the keys in the projector's order (fieldTree), each leaf as JSON.stringify writes
// its decoded value; a test compares both over generated traffic and edge cases.
import { writeTrafficTailBefore } from '../events/envelope.js';
import { compileReader } from '../records/avro-codegen.js';
import type { AvroCodec } from '../records/avro-record.js';
import type { LeafPlan } from '../records/field-plan.js';
import type { AvroComplexType, AvroSchema } from '../records/schema-registry.js';
import { writeMicros } from '../records/timestamps.js';
import * as W from './avro-json-writers.js';
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
  /** Most bytes the text can take beyond 8 per record byte (keys, and numbers or timestamps from short varints). */
  readonly overhead: number;
}

/**
 * How a timestamp leaf (Avro timestamp-micros) is written: its JSON text into `out` at `at`, returning
 * the end; at most 48 bytes. Every timestamp of a projection goes through the one function of its format,
 * so a per-destination format is a projection per (field set, format).
 */
export type TimestampWriter = (out: Buffer, at: number, micros: number) => number;

/** The timestamp formats of the envelope's object; RFC 3339 is what decoded records hold (timestamps.ts). */
export const TIMESTAMP_WRITERS: Readonly<Record<string, TimestampWriter>> = {
  rfc3339: (out, at, micros) => {
    out[at] = 0x22;
    at = writeMicros(out, at + 1, micros);
    out[at] = 0x22;
    return at + 1;
  },
};

export type TimestampFormat = keyof typeof TIMESTAMP_WRITERS;

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
 * The texts of large leaves (maps, logs) already written for a record, by leaf slot: where they lie
 * in which output buffer, and for which record bytes. A record that meets several field sets selecting
 * the same headers copies their text instead of writing it again (at 10,000 subscriptions a record
 * meets about 13 field sets). Output buffers are only appended to, so a text stays where it was written.
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

/** Copies a leaf text written before (LeafTexts) to `at`; returns the end. */
function copyText(out: JsonOut, at: number, src: Buffer, start: number, end: number): number {
  at = ensure(out, at, end - start);
  src.copy(out.b, at, start, end);
  return at + end - start;
}

const isStringArrayMap = (t: AvroComplexType): boolean => t.type === 'map' && t.values !== undefined && typeOf(t.values).type === 'array' && typeOf(typeOf(t.values).items ?? 'null').type === 'string';

interface Gen {
  readonly lines: string[];
  readonly texts: LeafText[];
  overhead: number;
}

function emitBytes(g: Gen, text: string): void {
  const bytes = Buffer.from(text);
  g.lines.push(`${[...bytes].map((c, i) => `b[at + ${i}] = ${c};`).join(' ')} at += ${bytes.length};`);
  g.overhead += bytes.length;
}

/** Code writing the value of Avro type `t` starting at `p`, or undefined when it has no byte writer. */
function valueCode(t: AvroSchema, leaf: LeafPlan, slot: number, g: Gen): string | undefined {
  if (Array.isArray(t)) {
    // A union's index is a varint; the schemas' unions have two branches, so it is one byte: 2 x index.
    const branches = (t as readonly AvroSchema[]).map((branch) => valueCode(branch, leaf, slot, g));
    if (branches.some((b) => b === undefined) || branches.length > 63) return undefined;
    return `{ const u = buf[p++]; ${branches.map((b, i) => `${i === 0 ? '' : 'else '}if (u === ${2 * i}) { ${b as string} }`).join(' ')} }`;
  }
  const c = typeOf(t);
  switch (c.type) {
    case 'null':
      return 'at = W.literal(b, at, "null");';
    case 'boolean':
      return 'at = W.boolean(b, at, buf, p);';
    case 'int':
      return 'at = W.integer(b, at, W.varint(buf, p));';
    case 'long':
      return leaf.type === 'timestamp' ? 'at = T(b, at, W.varint(buf, p));' : 'at = W.integer(b, at, W.varint(buf, p));';
    case 'string':
      return 'at = W.string(b, at, buf, p);';
    case 'map':
      if (!isStringArrayMap(c)) return undefined;
      // -1: a map the decoded object would reorder or merge (avro-json-writers.ts); written from the decoded value.
      return `{ const e = W.stringArrayMap(b, at, buf, p); if (e >= 0) at = e; else { at = writeText(O, at, X[${slot}](buf, P[${slot}])); b = O.b; } }`;
    default:
      return undefined;
  }
}

function leafCode(codec: AvroCodec, path: string, g: Gen): string {
  const slot = codec.plan.leaves.findIndex((l) => l.path === path);
  const leaf = codec.plan.leaves[slot];
  const t = avroTypeAt(codec.schemaVersion.schema, path);
  // A field the catalogue has and this schema version lacks is null, as in the projected object.
  if (leaf === undefined || t === undefined) return 'at = W.literal(b, at, "null");';
  g.texts[slot] = leafText(codec, leaf, t);
  g.overhead += LEAF_OVERHEAD;
  const fast = valueCode(t, leaf, slot, g);
  const write = fast ?? `at = writeText(O, at, X[${slot}](buf, p)); b = O.b;`;
  if (leaf.type !== 'headers' && leaf.type !== 'logs') return `p = P[${slot}]; ${write}`;
  const k = slot;
  return (
    `p = P[${k}]; if (L.from[${k}] === buf && L.at[${k}] === p) { at = copyText(O, at, L.src[${k}], L.start[${k}], L.end[${k}]); b = O.b; }` +
    // The offset from the tail's start: a move to a larger buffer (ensure) keeps it.
    ` else { const s0 = at - O.start; ${write} L.from[${k}] = buf; L.at[${k}] = p; L.src[${k}] = b; L.start[${k}] = O.start + s0; L.end[${k}] = at; }`
  );
}

function objectCode(codec: AvroCodec, nodes: readonly FieldNode[], prefix: string, g: Gen): void {
  nodes.forEach((node, i) => {
    emitBytes(g, `${i === 0 ? '{' : ','}${JSON.stringify(node.name)}:`);
    const path = prefix === '' ? node.name : `${prefix}.${node.name}`;
    if (node.children === undefined) g.lines.push(leafCode(codec, path, g));
    else objectCode(codec, node.children, path, g);
  });
  emitBytes(g, nodes.length === 0 ? '{}' : '}');
}

/**
 * The byte projection of a field set (its projectionKey) for records of the codec's schema. Field
 * paths that are not leaves of the schema (a group, or a path below a leaf) have none: undefined, and
 * the caller projects the decoded record instead.
 */
export function compileAvroProjection(codec: AvroCodec, key: string, timestamps: TimestampWriter, texts: LeafTexts = leafTexts(codec.plan.leaves.length)): AvroProjection | undefined {
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
  const g: Gen = { lines: [], texts: [], overhead: 0 };
  objectCode(codec, tree, '', g);
  const source = `return function project(O, at, buf, P) {\n  let b = O.b;\n  let p = 0;\n  ${g.lines.join('\n  ')}\n  return at;\n};`;
  // The writers are passed one by one: through the module namespace object each call is a property load.
  const writers = { varint: W.varint, string: W.string, integer: W.integer, literal: W.literal, boolean: W.boolean, stringArrayMap: W.stringArrayMap };
  const project = (new Function('W', 'T', 'X', 'L', 'writeText', 'copyText', source) as (...args: unknown[]) => (out: JsonOut, at: number, buf: Buffer, starts: Int32Array) => number)(
    writers,
    timestamps,
    g.texts,
    texts,
    writeText,
    copyText,
  );
  return Object.assign(project, { overhead: g.overhead });
}

/** The byte projections of one codec's records in one timestamp format, by projection key, compiled on first use. */
export class AvroProjections {
  private readonly byKey = new Map<string, AvroProjection | null>();
  /** Shared by the projections of one timestamp format: their leaf texts are alike. */
  private readonly texts: LeafTexts;

  constructor(
    private readonly codec: AvroCodec,
    private readonly timestamps: TimestampWriter,
  ) {
    this.texts = leafTexts(codec.plan.leaves.length);
  }

  get(key: string): AvroProjection | undefined {
    let p = this.byKey.get(key);
    if (p === undefined) this.byKey.set(key, (p = compileAvroProjection(this.codec, key, this.timestamps, this.texts) ?? null));
    return p ?? undefined;
  }
}

const compiled = new WeakMap<AvroCodec, Map<TimestampFormat, AvroProjections>>();

/** The byte projections of a codec's records in a timestamp format. */
export function avroProjections(codec: AvroCodec, format: TimestampFormat = 'rfc3339'): AvroProjections {
  let byFormat = compiled.get(codec);
  if (byFormat === undefined) compiled.set(codec, (byFormat = new Map()));
  let set = byFormat.get(format);
  if (set === undefined) byFormat.set(format, (set = new AvroProjections(codec, TIMESTAMP_WRITERS[format] as TimestampWriter)));
  return set;
}

/** Tails are written into slabs and handed out as views of them, as Buffer.allocUnsafe does from its pool, without a copy. */
const SLAB_BYTES = 256 * 1024;
const out: JsonOut = { b: Buffer.allocUnsafe(SLAB_BYTES), start: 0, reserve: 0 };
let used = 0;

/**
 * A traffic payload tail (envelope.ts payloadTail): the envelope's text before the object for this
 * event type and Kafka timestamp (writeTrafficTailBefore), the projected object's JSON and the closing
 * brace, as a buffer of its own. `starts` must be the record's (AvroCodec.leafStarts).
 */
export function projectedTail(eventType: string, timestampMs: number, project: AvroProjection, buf: Buffer, pos: number, starts: Int32Array): Buffer {
  const need = 3 * eventType.length + 160 + project.overhead + 8 * (buf.length - pos) + 1;
  // Twice the bound: a leaf written through JSON.stringify checks for room itself (ensure) against the whole bound.
  if (out.b.length - used < 2 * need) {
    out.b = Buffer.allocUnsafe(Math.max(SLAB_BYTES, 2 * need));
    used = 0;
  }
  out.reserve = need;
  out.start = used;
  let at = writeTrafficTailBefore(out.b, used, eventType, timestampMs);
  at = project(out, at, buf, starts);
  out.b[at++] = 0x7d;
  used = at;
  return out.b.subarray(out.start, at);
}
