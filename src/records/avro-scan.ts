// A structural pass over Avro binary before avsc decodes it: bounds, strict UTF-8, int32 ranges, exact int64s.
//
// avsc trusts its input: it replaces invalid UTF-8 with U+FFFD, reads an int wider than 32 bits, and
// loops over an array block count as large as the bytes claim (a ten-byte record can ask for 2^31 items
// and take the worker down). This pass reads every length, count and varint once, refuses what the
// Avro specification or our schemas forbid, and returns where the record ends, so avsc only ever sees
// bytes it decodes safely.
import { isUtf8 } from 'node:buffer';
import { DecodeError } from './errors.js';
import { logValueProblem } from './json-record.js';
import { MAX_INT64_MAGNITUDE } from './timestamps.js';
import type { AvroComplexType, AvroSchema } from './schema-registry.js';

interface Cursor {
  buf: Buffer;
  pos: number;
  /** The first log value that is not a JSON text: refused after the structural checks, as the full decode does. */
  deferred?: DecodeError;
}

type Step = (c: Cursor) => void;

interface Compiled {
  readonly step: Step;
  /** The fewest bytes a value of this type takes, to bound block counts. */
  readonly min: number;
}

/** A compiled scanner: the offset just past the record that starts at `pos`, or a thrown DecodeError. */
export type AvroScanner = (buf: Buffer, pos: number) => number;

export interface ScannerOptions {
  /**
   * Paths of string values that must also be JSON texts nesting at most MAX_LOG_VALUE_DEPTH levels,
   * e.g. "traffic_policy.logs[]{}" (the values of the maps in the logs array). With them the scan
   * refuses every record the full decode refuses, without building the record.
   */
  readonly jsonTextPaths?: ReadonlySet<string>;
}

const INT32_MIN = -2_147_483_648;
const INT32_MAX = 2_147_483_647;

export function truncated(path: string): never {
  throw new DecodeError('malformed_avro', `The record ends inside ${path}.`);
}

/**
 * Avro spec, "Binary Encoding": int and long values are written using variable-length zig-zag coding.
 * A long takes at most ten bytes. The first four bytes (28 bits) are kept as an integer and the rest as
 * a float factor, so every value up to 2^53 comes out exact and anything larger is still seen as large.
 * Reads the long at `pos` and leaves the offset after it in `end.pos`; the scanner passes its cursor as
 * `end`, and the generated readers (avro-codegen.ts) call it for varints of two bytes or more.
 */
export function readLong(buf: Buffer, pos: number, path: string, end: { pos: number }): number {
  let lo = 0;
  let hi = 0;
  // The weight of the next byte in `hi`: 2^(7 * (i - 4)), kept as a product rather than a power per byte.
  let weight = 1;
  let b: number | undefined;
  let i = 0;
  do {
    b = buf[pos++];
    if (b === undefined) truncated(path);
    if (i < 4) lo |= (b & 0x7f) << (7 * i);
    else {
      hi += (b & 0x7f) * weight;
      weight *= 128;
    }
    i++;
    if (i > 10) throw new DecodeError('malformed_avro', `${path}: a varint is longer than ten bytes.`);
  } while (b >= 0x80);
  end.pos = pos;
  const half = (lo >>> 1) + hi * 2 ** 27;
  return lo & 1 ? -half - 1 : half;
}

/** The zig-zag long at `pos` and the offset after it; throws DecodeError. Exported for tests of the varint reader. */
export function readLongAt(buf: Buffer, pos: number): { value: number; end: number } {
  const end = { pos };
  const value = readLong(buf, pos, 'long', end);
  return { value, end: end.pos };
}

function readLength(c: Cursor, path: string): number {
  const n = readLong(c.buf, c.pos, path, c);
  if (n < 0) throw new DecodeError('malformed_avro', `${path}: negative length ${n}.`);
  if (n > c.buf.length - c.pos) truncated(path);
  return n;
}

function checkUtf8(buf: Buffer, start: number, end: number, path: string): void {
  // Most strings are ASCII: a plain loop is cheaper than a native call for them.
  for (let i = start; i < end; i++) {
    if ((buf[i] as number) >= 0x80) {
      if (!isUtf8(buf.subarray(start, end))) throw new DecodeError('invalid_utf8', `${path} is not valid UTF-8.`);
      return;
    }
  }
}

function stringStep(path: string): Step {
  return (c) => {
    const n = readLength(c, path);
    checkUtf8(c.buf, c.pos, c.pos + n, path);
    c.pos += n;
  };
}

function jsonTextStep(path: string): Step {
  const shown = path.replace(/(\[\]|\{\})+$/, '');
  return (c) => {
    const n = readLength(c, path);
    checkUtf8(c.buf, c.pos, c.pos + n, path);
    if (c.deferred === undefined) {
      const text = c.buf.toString('utf8', c.pos, c.pos + n);
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        c.deferred = new DecodeError('schema_violation', `${shown} holds a value that is not a JSON text.`);
      }
      if (c.deferred === undefined) c.deferred = logValueProblem(value, text, shown);
    }
    c.pos += n;
  };
}

function mapKeyStep(path: string): Step {
  return (c) => {
    const n = readLength(c, path);
    checkUtf8(c.buf, c.pos, c.pos + n, path);
    // A key "__proto__" would set the prototype of the plain object avsc builds instead of adding a key.
    if (n === 9 && c.buf.toString('latin1', c.pos, c.pos + n) === '__proto__') {
      throw new DecodeError('schema_violation', `${path}: the key __proto__ is not allowed.`);
    }
    c.pos += n;
  };
}

/**
 * Avro spec: arrays and maps are "encoded as a series of blocks. Each block consists of a long count
 * value, followed by that many array items. A block with count zero indicates the end of the array.
 * If a block's count is negative, its absolute value is used, and the count is followed immediately by
 * a long block size".
 */
function blocksStep(path: string, item: Step, itemMin: number): Step {
  const min = Math.max(itemMin, 1);
  return (c) => {
    for (;;) {
      let count = readLong(c.buf, c.pos, path, c);
      if (count === 0) return;
      if (count < 0) {
        count = -count;
        readLength(c, path);
      }
      if (count * min > c.buf.length - c.pos) {
        throw new DecodeError('malformed_avro', `${path}: a block of ${count} items is longer than the record.`);
      }
      for (let k = 0; k < count; k++) item(c);
    }
  };
}

function compile(t: AvroSchema, path: string, opts: ScannerOptions): Compiled {
  if (Array.isArray(t)) {
    const branches = t.map((b) => compile(b, path, opts));
    return {
      min: 1,
      step: (c) => {
        const index = readLong(c.buf, c.pos, path, c);
        const branch = branches[index];
        if (branch === undefined) throw new DecodeError('malformed_avro', `${path}: union index ${index} is out of range.`);
        branch.step(c);
      },
    };
  }
  const complex: AvroComplexType = typeof t === 'string' ? { type: t } : (t as AvroComplexType);
  const type = complex.type;
  switch (type) {
    case 'null':
      return { min: 0, step: () => undefined };
    case 'boolean':
      return {
        min: 1,
        step: (c) => {
          const b = c.buf[c.pos++];
          if (b === undefined) truncated(path);
          // Avro spec: "a boolean is written as a single byte whose value is either 0 (false) or 1 (true)".
          if (b > 1) throw new DecodeError('malformed_avro', `${path}: boolean byte ${b} is neither 0 nor 1.`);
        },
      };
    case 'int':
      return {
        min: 1,
        step: (c) => {
          const v = readLong(c.buf, c.pos, path, c);
          if (v < INT32_MIN || v > INT32_MAX) throw new DecodeError('schema_violation', `${path}: ${v} is outside the int32 range.`);
        },
      };
    case 'long':
      return {
        min: 1,
        step: (c) => {
          const v = readLong(c.buf, c.pos, path, c);
          if (Math.abs(v) > MAX_INT64_MAGNITUDE) {
            throw new DecodeError('schema_violation', `${path}: ${v} is larger than a JSON number holds exactly.`);
          }
        },
      };
    case 'string':
      return { min: 1, step: opts.jsonTextPaths?.has(path) ? jsonTextStep(path) : stringStep(path) };
    case 'record': {
      const fields = (complex.fields ?? []).map((f) =>
        compile(f.type, path === '' ? f.name : `${path}.${f.name}`, opts),
      );
      const steps = fields.map((f) => f.step);
      return {
        min: fields.reduce((s, f) => s + f.min, 0),
        step: (c) => {
          for (const s of steps) s(c);
        },
      };
    }
    case 'array': {
      const items = compile(complex.items ?? 'null', `${path}[]`, opts);
      return { min: 1, step: blocksStep(path, items.step, items.min) };
    }
    case 'map': {
      const key = mapKeyStep(`${path} key`);
      const values = compile(complex.values ?? 'null', `${path}{}`, opts);
      const entry: Step = (c) => {
        key(c);
        values.step(c);
      };
      return { min: 1, step: blocksStep(path, entry, 1 + values.min) };
    }
    default:
      throw new Error(`${path}: the Avro type ${JSON.stringify(type)} is not used by our schemas and has no scanner`);
  }
}

export function compileScanner(schema: AvroSchema, opts: ScannerOptions = {}): AvroScanner {
  const { step } = compile(schema, '', opts);
  return (buf, pos) => {
    const c: Cursor = { buf, pos };
    step(c);
    if (c.deferred !== undefined) throw c.deferred;
    return c.pos;
  };
}

/**
 * Checks a whole record without building it, refusing what the full decode refuses in the same
 * order: the structure of every byte, then bytes after the end of the record, then log values that
 * are not JSON texts (with `jsonTextPaths`).
 */
export function compileValidator(schema: AvroSchema, opts: ScannerOptions = {}): (buf: Buffer, pos: number) => void {
  const { step } = compile(schema, '', opts);
  return (buf, pos) => {
    const c: Cursor = { buf, pos };
    step(c);
    if (c.pos !== buf.length) throw new DecodeError('malformed_avro', `The record ends ${buf.length - c.pos} bytes before the value does.`);
    if (c.deferred !== undefined) throw c.deferred;
  };
}
