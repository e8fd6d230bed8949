// One-pass Avro reading generated per schema: the checks of avro-scan.ts and the building of the decoded record in the same walk.
//
// The first decoder scanned every byte (avro-scan.ts), had avsc decode the same bytes into its own
// objects, then copied those into the decoded record: three passes and two object trees. This module
// writes one function per schema, as avsc itself does, that reads each field once, checks it exactly
// as the scanner does (same codes, same messages), and returns the decoded record. The scanner stays
// the reference: a property test checks that both refuse the same bytes with the same code.
import { isUtf8 } from 'node:buffer';
import { readLong, truncated } from './avro-scan.js';
import { DecodeError } from './errors.js';
import type { LeafPlan, RecordPlan } from './field-plan.js';
import { logValueProblem } from './json-record.js';
import { plainJsonText } from './json-scan.js';
import type { AvroComplexType, AvroSchema } from './schema-registry.js';
import { MAX_INT64_MAGNITUDE } from './timestamps.js';
import { cachedString, newStringCache, type StringCache } from './string-cache.js';
import { latin1Text } from './latin1-text.js';
import { highByteCount } from './utf8-range.js';

/** Reads the record at `pos`; with `exactEnd` the record must end at the end of `buf`. Throws DecodeError. */
export type GeneratedReader = (buf: Buffer, pos: number) => Record<string, unknown>;

/** Converters of the leaves whose decoded form differs from the Avro value (timestamps, logs). */
export interface LeafConverters {
  readonly timestamp: (v: number | null) => unknown;
  readonly logs: (v: Record<string, string>[] | null, path: string) => unknown;
}

/** Shared state of the generated code: where a slow varint read ended. */
interface State {
  pos: number;
}

type Latin1 = { latin1Slice(start: number, end: number): string; utf8Slice(start: number, end: number): string };

/**
 * The string of bytes [a, b), refusing invalid UTF-8 as the scanner does. Most strings are ASCII,
 * and an ASCII byte range is the same text in Latin-1, which V8 copies without decoding.
 */
function readString(buf: Buffer, a: number, b: number, path: string): string {
  for (let i = a; i < b; i++) {
    if ((buf[i] as number) >= 0x80) {
      if (!isUtf8(buf.subarray(a, b))) throw new DecodeError('invalid_utf8', `${path} is not valid UTF-8.`);
      return (buf as unknown as Latin1).utf8Slice(a, b);
    }
  }
  return latin1Text(buf, a, b);
}

/**
 * The validating form of readString: the same refusal, no string made. The bytes are OR-ed without a
 * branch per byte; the check is more than half of validating a record (bench/results/PROFILE.md).
 */
function checkString(buf: Buffer, a: number, b: number, path: string): void {
  let any = 0;
  for (let i = a; i < b; i++) any |= buf[i] as number;
  if (any >= 0x80 && !isUtf8(buf.subarray(a, b))) throw new DecodeError('invalid_utf8', `${path} is not valid UTF-8.`);
}

/** The refusal of a log value that is not a JSON text of bounded depth, or undefined (json-record.ts rules). */
function jsonTextProblem(buf: Buffer, a: number, b: number, shown: string): DecodeError | undefined {
  // Most log values are short plain texts, checked without making a string and parsing it.
  if (plainJsonText(buf, a, b)) return undefined;
  const text = (buf as unknown as Latin1).utf8Slice(a, b);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return new DecodeError('schema_violation', `${shown} holds a value that is not a JSON text.`);
  }
  return logValueProblem(value, text, shown);
}

const helpers = {
  // The scanner's varint reader, for varints of two bytes or more (the one-byte case is inlined).
  readLongSlow: readLong,
  readString,
  cachedString,
  checkString,
  highByteCount,
  jsonTextProblem,
  truncated,
  malformed: (message: string): never => {
    throw new DecodeError('malformed_avro', message);
  },
  violation: (message: string): never => {
    throw new DecodeError('schema_violation', message);
  },
  MAX: MAX_INT64_MAGNITUDE,
};

interface Gen {
  readonly lines: string[];
  next: number;
  /** Paths of leaves that need a converter, by their Avro path. */
  readonly leaves: ReadonlyMap<string, LeafPlan>;
  /** 'validate' makes no values: strings are checked, not made, and containers not built. */
  readonly mode: 'read' | 'validate';
  /** In 'validate' mode, string paths whose values must be JSON texts (the log values). */
  readonly jsonTextPaths: ReadonlySet<string>;
  /** In 'validate' mode, the leaves whose start the scan records in P, by path, with their slot in P. */
  readonly located: ReadonlyMap<string, number>;
  /**
   * In 'validate' mode, strings are not checked where the scan meets them: V counts the bytes of the
   * varints read that have their high bit set, for the check of all strings at once (compileValidatorCode).
   */
  readonly countVarints: boolean;
  /** In 'read' mode, the paths of the string values made through a cache of recent strings of their own (string-cache.ts). */
  readonly cachedPaths: ReadonlySet<string>;
  /** The caches of the generated code, K[i]. */
  readonly caches: StringCache[];
}

const q = (s: string): string => JSON.stringify(s);

/** Emits code leaving a long in `v` (a fresh variable), read at p. */
function long(g: Gen, path: string): string {
  const v = `v${g.next++}`;
  const b = `b${g.next++}`;
  g.lines.push(
    `let ${v}; { const ${b} = buf[p++];`,
    `  if (${b} === undefined) H.truncated(${q(path)});`,
    // One- and two-byte varints (lengths below 8,192) are read here, longer ones by the scanner's reader.
    `  if (${b} < 128) ${v} = (${b} >>> 1) ^ -(${b} & 1);`,
    `  else if (buf[p] < 128) { const n = (${b} & 127) | (buf[p++] << 7); ${v} = (n >>> 1) ^ -(n & 1);${g.countVarints ? ' V++;' : ''} }`,
    // Every byte of a varint but its last has the high bit set (Avro spec, "Binary Encoding").
    `  else { ${v} = H.readLongSlow(buf, p - 1, ${q(path)}, S);${g.countVarints ? ' V += S.pos - p;' : ''} p = S.pos; } }`,
  );
  return v;
}

/** Emits a length (a long that must be >= 0 and fit in the bytes left). */
function length(g: Gen, path: string): string {
  const n = long(g, path);
  g.lines.push(
    `if (${n} < 0) H.malformed(${q(path)} + ": negative length " + ${n} + ".");`,
    `if (${n} > len - p) H.truncated(${q(path)});`,
  );
  return n;
}

function stringValue(g: Gen, path: string, key: boolean): string {
  const n = length(g, path);
  if (g.mode === 'validate') {
    if (key) g.lines.push(`if (${n} === 9 && buf.latin1Slice(p, p + 9) === "__proto__") H.violation(${q(path)} + ": the key __proto__ is not allowed.");`);
    if (!g.countVarints) g.lines.push(`H.checkString(buf, p, p + ${n}, ${q(path)});`);
    // The first bad log value is kept and refused after the structural checks, as the full decode orders it.
    if (g.jsonTextPaths.has(path)) g.lines.push(`if (D === undefined) D = H.jsonTextProblem(buf, p, p + ${n}, ${q(path.replace(/(\[\]|\{\})+$/, ''))});`);
    g.lines.push(`p += ${n};`);
    return 'null';
  }
  const v = `v${g.next++}`;
  if (!key && g.cachedPaths.has(path)) {
    g.lines.push(`const ${v} = H.cachedString(buf, p, p + ${n}, ${q(path)}, K[${g.caches.length}]); p += ${n};`);
    g.caches.push(newStringCache());
  } else {
    g.lines.push(`const ${v} = H.readString(buf, p, p + ${n}, ${q(path)}); p += ${n};`);
  }
  // A key "__proto__" would set the prototype of the plain object built for the map.
  if (key) g.lines.push(`if (${v} === "__proto__") H.violation(${q(path)} + ": the key __proto__ is not allowed.");`);
  return v;
}

/** The fewest bytes a value of the type takes (avro-scan.ts), to bound block counts. */
function minBytes(t: AvroSchema): number {
  if (Array.isArray(t)) return 1;
  const c: AvroComplexType = typeof t === 'string' ? { type: t } : (t as AvroComplexType);
  if (c.type === 'null') return 0;
  if (c.type === 'record') return (c.fields ?? []).reduce((s, f) => s + minBytes(f.type), 0);
  return 1;
}

/** Emits the Avro blocks of an array or map; `item` emits one item and returns the statement that stores it. */
function blocks(g: Gen, path: string, itemMin: number, item: () => string): void {
  const count = `c${g.next++}`;
  const min = Math.max(itemMin, 1);
  g.lines.push(`for (;;) {`);
  const c = long(g, path);
  g.lines.push(`let ${count} = ${c}; if (${count} === 0) break;`, `if (${count} < 0) { ${count} = -${count};`);
  length(g, path);
  g.lines.push(
    `}`,
    `if (${count} * ${min} > len - p) H.malformed(${q(path)} + ": a block of " + ${count} + " items is longer than the record.");`,
    `for (let k = 0; k < ${count}; k++) {`,
  );
  g.lines.push(item(), `}`, `}`);
}

/**
 * Emits code reading a value of type `t` and returns the expression holding it. Inside an array, map
 * or union (`nested`) a record is built at once; elsewhere its literal is returned as an expression,
 * so the whole decoded record is built after every byte was read and checked (see compileReader).
 */
function value(g: Gen, t: AvroSchema, path: string, nested = false): string {
  if (Array.isArray(t)) {
    const index = long(g, path);
    const out = `u${g.next++}`;
    g.lines.push(`let ${out};`);
    (t as readonly AvroSchema[]).forEach((branch, i) => {
      g.lines.push(`${i === 0 ? '' : 'else '}if (${index} === ${i}) {`);
      const v = value(g, branch, path, true);
      g.lines.push(`${out} = ${v}; }`);
    });
    g.lines.push(`else H.malformed(${q(path)} + ": union index " + ${index} + " is out of range.");`);
    return out;
  }
  const c: AvroComplexType = typeof t === 'string' ? { type: t } : (t as AvroComplexType);
  switch (c.type) {
    case 'null':
      return 'null';
    case 'boolean': {
      const v = `v${g.next++}`;
      g.lines.push(
        `const ${v} = buf[p++];`,
        `if (${v} === undefined) H.truncated(${q(path)});`,
        `if (${v} > 1) H.malformed(${q(path)} + ": boolean byte " + ${v} + " is neither 0 nor 1.");`,
      );
      return `(${v} === 1)`;
    }
    case 'int': {
      const v = long(g, path);
      g.lines.push(`if (${v} < -2147483648 || ${v} > 2147483647) H.violation(${q(path)} + ": " + ${v} + " is outside the int32 range.");`);
      return v;
    }
    case 'long': {
      const v = long(g, path);
      g.lines.push(`if (Math.abs(${v}) > H.MAX) H.violation(${q(path)} + ": " + ${v} + " is larger than a JSON number holds exactly.");`);
      return v;
    }
    case 'string':
      return stringValue(g, path, false);
    case 'array': {
      const arr = `a${g.next++}`;
      if (g.mode === 'read') g.lines.push(`const ${arr} = [];`);
      const items = c.items ?? 'null';
      blocks(g, path, minBytes(items), () => {
        const v = value(g, items, `${path}[]`, true);
        return g.mode === 'read' ? `${arr}.push(${v});` : '';
      });
      return g.mode === 'read' ? arr : 'null';
    }
    case 'map': {
      const obj = `m${g.next++}`;
      if (g.mode === 'read') g.lines.push(`const ${obj} = {};`);
      const values = c.values ?? 'null';
      blocks(g, path, 1 + minBytes(values), () => {
        const k = stringValue(g, `${path} key`, true);
        const v = value(g, values, `${path}{}`, true);
        return g.mode === 'read' ? `${obj}[${k}] = ${v};` : '';
      });
      return g.mode === 'read' ? obj : 'null';
    }
    case 'record':
      return recordValue(g, c, path, nested);
    default:
      throw new Error(`${path}: the Avro type ${JSON.stringify(c.type)} is not used by our schemas and has no reader`);
  }
}

/** Reads the fields in schema order into variables; the object literal lists them in the same order. */
function recordValue(g: Gen, c: AvroComplexType, path: string, nested: boolean): string {
  if (g.mode === 'validate') {
    for (const f of c.fields ?? []) {
      const fieldPath = path === '' ? f.name : `${path}.${f.name}`;
      const slot = g.located.get(fieldPath);
      if (slot !== undefined) g.lines.push(`P[${slot}] = p;`);
      value(g, f.type, fieldPath, nested);
    }
    return 'null';
  }
  const members: string[] = [];
  for (const f of c.fields ?? []) {
    const fieldPath = path === '' ? f.name : `${path}.${f.name}`;
    let v = value(g, f.type, fieldPath, nested);
    const leaf = g.leaves.get(fieldPath);
    if (leaf?.type === 'timestamp') v = `C.timestamp(${v})`;
    else if (leaf?.type === 'logs') v = `C.logs(${v}, ${q(fieldPath)})`;
    members.push(`${q(f.name)}: ${v}`);
  }
  const literal = `{ ${members.join(', ')} }`;
  if (!nested) return literal;
  const r = `r${g.next++}`;
  g.lines.push(`const ${r} = ${literal};`);
  return r;
}

/**
 * A reader for `schema`. `plan` names the leaves that need converting; with `exactEnd` the bytes must
 * end where the record does (a full record), without it trailing bytes are left alone (a prefix read).
 * Refusals come in the scanner's order: every structural check over all the bytes first, then the
 * conversions (a log value that is not JSON), because the record literal is built last.
 * The field names come from our schema files and are written as JSON string literals, so the generated
 * text holds only reads, checks and object literals. The string values at `cachedPaths` come from a
 * cache of recent strings of their own (string-cache.ts).
 */
export function compileReader(
  schema: AvroSchema,
  plan: RecordPlan | undefined,
  converters: LeafConverters,
  exactEnd: boolean,
  cachedPaths: ReadonlySet<string> = new Set(),
): GeneratedReader {
  const g: Gen = { lines: [], next: 0, leaves: new Map((plan?.leaves ?? []).map((l) => [l.path, l])), mode: 'read', jsonTextPaths: new Set(), located: new Map(), countVarints: false, cachedPaths, caches: [] };
  const root = value(g, schema, '');
  const end = exactEnd ? `if (p !== len) H.malformed("The record ends " + (len - p) + " bytes before the value does.");` : '';
  const body = `return function read(buf, start) {\n  const len = buf.length;\n  let p = start;\n  ${g.lines.join('\n  ')}\n  ${end}\n  return ${root};\n};`;
  const factory = new Function('H', 'C', 'S', 'K', body) as (h: typeof helpers, c: LeafConverters, s: State, k: StringCache[]) => GeneratedReader;
  return factory(helpers, converters, { pos: 0 }, g.caches);
}

/**
 * Checks a whole record without building it and writes where each located leaf starts into
 * `positions` (the slots given to compileValidatorCode), which the byte projections read
 * (src/projection/avro-projection.ts). Throws DecodeError.
 */
export type GeneratedValidator = (buf: Buffer, pos: number, positions: Int32Array) => void;

/**
 * A validator for `schema`: the checks of compileReader (and of avro-scan.ts compileValidator, the
 * reference) without making strings or objects. The record must end at the end of `buf`; string values
 * at `jsonTextPaths` must be JSON texts, refused after every structural check. The start of each leaf
 * named in `located` is stored in its slot as the scan passes it.
 *
 * Checking each string's UTF-8 where the scan met it was more than half of validating a record, a call
 * and a byte loop for each of about forty strings. The validator returned checks them all at once
 * instead. The bytes of a record of our schemas are string bytes, varint bytes and boolean bytes (0 or
 * 1); a varint has the high bit set on every byte but its last. So when the record's bytes with the high
 * bit set (counted a word at a time, utf8-range.ts) are exactly its varints' bytes but their last, no
 * string holds a byte of 0x80 or above: every string is ASCII, every UTF-8 check would have passed, and
 * the outcome is the exact one. Any other record (a string that is not ASCII, valid UTF-8 or not, or a
 * record refused on the way) is validated again by the exact validator, which checks each string where
 * it meets it and so refuses with the first problem in order, as the scanner does.
 */
export function compileValidatorCode(schema: AvroSchema, jsonTextPaths: ReadonlySet<string>, located: ReadonlyMap<string, number> = new Map()): GeneratedValidator {
  const exact = generateValidator(schema, jsonTextPaths, located, false);
  return generateValidator(schema, jsonTextPaths, located, true, exact);
}

function generateValidator(schema: AvroSchema, jsonTextPaths: ReadonlySet<string>, located: ReadonlyMap<string, number>, countVarints: boolean, exact?: GeneratedValidator): GeneratedValidator {
  const g: Gen = { lines: [], next: 0, leaves: new Map(), mode: 'validate', jsonTextPaths, located, countVarints, cachedPaths: new Set(), caches: [] };
  value(g, schema, '');
  const end = `if (p !== len) H.malformed("The record ends " + (len - p) + " bytes before the value does.");`;
  const body = countVarints
    ? `return function validate(buf, start, P) {\n  const len = buf.length;\n  let p = start;\n  let D;\n  let V = 0;\n  try {\n  ${g.lines.join('\n  ')}\n  ${end}\n` +
      `  } catch (err) {\n    X(buf, start, P);\n    throw err;\n  }\n  if (H.highByteCount(buf, start, len) !== V) return X(buf, start, P);\n  if (D !== undefined) throw D;\n};`
    : `return function validate(buf, start, P) {\n  const len = buf.length;\n  let p = start;\n  let D;\n  ${g.lines.join('\n  ')}\n  ${end}\n  if (D !== undefined) throw D;\n};`;
  const factory = new Function('H', 'S', 'X', body) as (h: typeof helpers, s: State, x: GeneratedValidator | undefined) => GeneratedValidator;
  return factory(helpers, { pos: 0 }, exact);
}
