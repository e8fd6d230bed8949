// The fast path of JSON records: a JSON record scanned once from its bytes and written as the Avro record
// of the same content, so that it is read, validated and projected by the Avro path from then on
// (docs/record-formats.md, "JSON on the fast path").
//
// The scan accepts only records that the JSON decoder (json-record.ts over JSON.parse) accepts with the
// same content. Anything it is unsure of (a \u escape, a number with a fraction or an exponent, a
// repeated member, an unknown or missing field, any syntax error) makes it give up, and the caller
// decodes the record the exact way, which refuses it with today's code and message or accepts it.
import type { FieldType } from '../events/catalog.js';
import type { GroupPlan, RecordPlan } from './field-plan.js';
import { MAX_INT64_MAGNITUDE, rfc3339Micros } from './timestamps.js';

type Latin1 = { latin1Slice(start: number, end: number): string };

/** Thrown inside the scan to give up on a record; never leaves this module. */
const GIVE_UP: unique symbol = Symbol('give up');

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const MINUS = 0x2d;
const ZERO = 0x30;
const NINE = 0x39;

const TYPE = { string: 0, bool: 1, int32: 2, int64: 3, timestamp: 4, headers: 5, logs: 6 } as const satisfies Record<FieldType, number>;

/** A leaf's scanned value: where its text lies ([start, end), a string's without its quotes) or one of these. */
const ABSENT = -1;
const NULL = -2;

/** Log values nested deeper than this are left to the exact decoder, which holds them to MAX_LOG_VALUE_DEPTH. */
const MAX_FAST_DEPTH = 16;
/** Integers with more digits are left to the exact decoder; up to 16 the sum is exact below 2^53 and above it beyond every bound. */
const MAX_FAST_DIGITS = 16;
/** Numbers in log values with a longer integer part are checked for overflow to Infinity, as those with an exponent are. */
const MAX_LOG_NUMBER_DIGITS = 300;

interface GroupNode {
  /** The member names as bytes, for comparing without making strings. */
  readonly keys: readonly Buffer[];
  /** Per member: a leaf's slot (>= 0) or -1 - the index of a group in `groups`. */
  readonly targets: Int32Array;
  /** The index of this group in `groups` (its "seen" flag). */
  readonly index: number;
}

/** A plan compiled for the scan: the group tree with member names as bytes, and each leaf's type. */
interface ScanPlan {
  readonly root: GroupNode;
  readonly groups: readonly GroupNode[];
  readonly types: Uint8Array;
  readonly required: Uint8Array;
}

function compilePlan(plan: RecordPlan): ScanPlan {
  const groups: GroupNode[] = [];
  const slots = new Map(plan.leaves.map((l, i) => [l.path, i]));
  const build = (g: GroupPlan): GroupNode => {
    const node: { keys: Buffer[]; targets: Int32Array; index: number } = { keys: [], targets: new Int32Array(g.children.length), index: groups.length };
    groups.push(node);
    g.children.forEach((c, i) => {
      node.keys.push(Buffer.from(c.name, 'latin1'));
      node.targets[i] = c.kind === 'leaf' ? (slots.get(c.path) as number) : -1 - build(c).index;
    });
    return node;
  };
  const root = build(plan.root);
  return {
    root,
    groups,
    types: Uint8Array.from(plan.leaves.map((l) => TYPE[l.type])),
    required: Uint8Array.from(plan.leaves.map((l) => (l.required ? 1 : 0))),
  };
}

// The scan's functions take the text and a position and return the position after what they read: a
// position kept in a module-level variable instead made every byte a context load and store (ten times slower).

function ws(b: Buffer, i: number): number {
  for (;;) {
    const c = b[i];
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return i;
    i++;
  }
}

function expect(b: Buffer, i: number, c: number): number {
  if (b[i] !== c) throw GIVE_UP;
  return i + 1;
}

/** Skips `literal` (true, false, null) at i, or gives up. */
function word(b: Buffer, i: number, literal: Buffer): number {
  for (let k = 0; k < literal.length; k++) if (b[i + k] !== literal[k]) throw GIVE_UP;
  return i + literal.length;
}

const TRUE = Buffer.from('true');
const FALSE = Buffer.from('false');
const NULL_WORD = Buffer.from('null');

/** Set by scanString: whether the string it scanned holds escapes. */
let escapes = false;

/**
 * Scans a string from its opening quote, returning the position after its closing quote and noting in
 * `escapes` whether it holds any. \u escapes (which may stand for lone surrogates) and raw control
 * characters make it give up.
 */
function scanString(b: Buffer, i: number): number {
  if (b[i] !== QUOTE) throw GIVE_UP;
  const len = b.length;
  let e = false;
  for (i++; i < len; i++) {
    const c = b[i] as number;
    if (c === QUOTE) {
      escapes = e;
      return i + 1;
    }
    if (c < 0x20) throw GIVE_UP;
    if (c === BACKSLASH) {
      const x = b[i + 1];
      // RFC 8259 7: \" \\ \/ \b \f \n \r \t (and \u, left to the exact decoder).
      if (x !== QUOTE && x !== BACKSLASH && x !== 0x2f && x !== 0x62 && x !== 0x66 && x !== 0x6e && x !== 0x72 && x !== 0x74) throw GIVE_UP;
      e = true;
      i++;
    }
  }
  throw GIVE_UP;
}

/** Set by scanInteger: the integer it read. */
let integer = 0;

/** An integer token at i: -?(0|[1-9][0-9]*) with no fraction or exponent, at most MAX_FAST_DIGITS digits, not -0. */
function scanInteger(b: Buffer, i: number): number {
  let negative = false;
  if (b[i] === MINUS) {
    negative = true;
    i++;
  }
  const first = i;
  let v = 0;
  for (;;) {
    const c = b[i] as number;
    if (!(c >= ZERO && c <= NINE)) break;
    v = v * 10 + (c - ZERO);
    i++;
  }
  const digits = i - first;
  if (digits === 0 || digits > MAX_FAST_DIGITS || (b[first] === ZERO && (digits > 1 || negative))) throw GIVE_UP;
  const next = b[i];
  if (next === 0x2e || next === 0x65 || next === 0x45) throw GIVE_UP;
  integer = negative ? -v : v;
  return i;
}

function digitsEnd(b: Buffer, k: number): number {
  for (;;) {
    const c = b[k] as number;
    if (!(c >= ZERO && c <= NINE)) return k;
    k++;
  }
}

/** Any JSON number in a log value (RFC 8259 6); one that JSON.parse would make Infinity is left to the exact decoder. */
function scanLogNumber(b: Buffer, i: number): number {
  const start = i;
  if (b[i] === MINUS) i++;
  const first = i;
  i = digitsEnd(b, i);
  const digits = i - first;
  if (digits === 0 || (b[first] === ZERO && digits > 1)) throw GIVE_UP;
  let exponent = false;
  if (b[i] === 0x2e) {
    const f = ++i;
    i = digitsEnd(b, i);
    if (i === f) throw GIVE_UP;
  }
  if (b[i] === 0x65 || b[i] === 0x45) {
    exponent = true;
    i++;
    if (b[i] === 0x2b || b[i] === MINUS) i++;
    const f = i;
    i = digitsEnd(b, i);
    if (i === f) throw GIVE_UP;
  }
  if ((exponent || digits > MAX_LOG_NUMBER_DIGITS) && !Number.isFinite(Number((b as unknown as Latin1).latin1Slice(start, i)))) throw GIVE_UP;
  return i;
}

/** Any JSON value of a log entry, checked for syntax; `depth` counts the containers around it. */
function scanAny(b: Buffer, i: number, depth: number): number {
  const c = b[i];
  if (c === QUOTE) return scanString(b, i);
  if (c === 0x74) return word(b, i, TRUE);
  if (c === 0x66) return word(b, i, FALSE);
  if (c === 0x6e) return word(b, i, NULL_WORD);
  if (c !== OPEN_BRACE && c !== OPEN_BRACKET) return scanLogNumber(b, i);
  if (depth >= MAX_FAST_DEPTH) throw GIVE_UP;
  const close = c === OPEN_BRACE ? CLOSE_BRACE : CLOSE_BRACKET;
  i = ws(b, i + 1);
  if (b[i] === close) return i + 1;
  for (;;) {
    if (close === CLOSE_BRACE) i = ws(b, expect(b, ws(b, scanString(b, i)), COLON));
    i = ws(b, scanAny(b, i, depth + 1));
    if (b[i] !== COMMA) return expect(b, i, close);
    i = ws(b, i + 1);
  }
}

/** A header map: {"name": ["value", ...], ...}. Names are strings like any other: a "__proto__" is refused by the Avro validation that follows. */
function scanHeaders(b: Buffer, i: number): number {
  i = ws(b, expect(b, i, OPEN_BRACE));
  if (b[i] === CLOSE_BRACE) return i + 1;
  for (;;) {
    i = ws(b, expect(b, ws(b, scanString(b, i)), COLON));
    i = ws(b, expect(b, i, OPEN_BRACKET));
    if (b[i] === CLOSE_BRACKET) i++;
    else {
      for (;;) {
        i = ws(b, scanString(b, i));
        if (b[i] !== COMMA) {
          i = expect(b, i, CLOSE_BRACKET);
          break;
        }
        i = ws(b, i + 1);
      }
    }
    i = ws(b, i);
    if (b[i] !== COMMA) return expect(b, i, CLOSE_BRACE);
    i = ws(b, i + 1);
  }
}

/** traffic_policy.logs: [{"name": any JSON value, ...}, ...]. */
function scanLogs(b: Buffer, i: number): number {
  i = ws(b, expect(b, i, OPEN_BRACKET));
  if (b[i] === CLOSE_BRACKET) return i + 1;
  for (;;) {
    i = ws(b, expect(b, i, OPEN_BRACE));
    if (b[i] === CLOSE_BRACE) i++;
    else {
      for (;;) {
        i = ws(b, expect(b, ws(b, scanString(b, i)), COLON));
        i = ws(b, scanAny(b, i, 0));
        if (b[i] !== COMMA) {
          i = expect(b, i, CLOSE_BRACE);
          break;
        }
        i = ws(b, i + 1);
      }
    }
    i = ws(b, i);
    if (b[i] !== COMMA) return expect(b, i, CLOSE_BRACKET);
    i = ws(b, i + 1);
  }
}

/** Compiles a plan's transcoder: `transcode(json)` is the Avro record of the same content, or undefined to decode it the exact way. */
export function createJsonTranscoder(plan: RecordPlan): (json: Buffer) => { buf: Buffer; pos: number } | undefined {
  const sp = compilePlan(plan);
  const leaves = sp.types.length;
  const starts = new Int32Array(leaves);
  const ends = new Int32Array(leaves);
  const escaped = new Uint8Array(leaves);
  const numbers = new Float64Array(leaves);
  const seen = new Uint8Array(sp.groups.length);

  /** The child of `g` whose name is [s, e), by its index, trying `hint` first (producers write the schema's order). */
  const childOf = (b: Buffer, g: GroupNode, s: number, e: number, hint: number): number => {
    const n = g.keys.length;
    for (let t = 0; t < n; t++) {
      const k = hint + t < n ? hint + t : hint + t - n;
      const key = g.keys[k] as Buffer;
      if (key.length !== e - s) continue;
      let j = 0;
      while (j < key.length && b[s + j] === key[j]) j++;
      if (j === key.length) return k;
    }
    throw GIVE_UP;
  };

  /** The value of leaf `slot` at i; returns the position after it. */
  const leafValue = (b: Buffer, i: number, slot: number): number => {
    if (starts[slot] !== ABSENT) throw GIVE_UP;
    if (b[i] === 0x6e) {
      starts[slot] = NULL;
      return word(b, i, NULL_WORD);
    }
    const start = i;
    switch (sp.types[slot]) {
      case TYPE.string:
        i = scanString(b, i);
        escaped[slot] = escapes ? 1 : 0;
        starts[slot] = start + 1;
        ends[slot] = i - 1;
        return i;
      case TYPE.timestamp: {
        i = scanString(b, i);
        const micros = escapes ? undefined : rfc3339Micros(b, start + 1, i - 1);
        if (micros === undefined) throw GIVE_UP;
        numbers[slot] = micros;
        break;
      }
      case TYPE.bool:
        if (b[i] === 0x74) {
          i = word(b, i, TRUE);
          numbers[slot] = 1;
        } else {
          i = word(b, i, FALSE);
          numbers[slot] = 0;
        }
        break;
      case TYPE.int32:
        i = scanInteger(b, i);
        if (integer < -2_147_483_648 || integer > 2_147_483_647) throw GIVE_UP;
        numbers[slot] = integer;
        break;
      case TYPE.int64:
        i = scanInteger(b, i);
        if (Math.abs(integer) > MAX_INT64_MAGNITUDE) throw GIVE_UP;
        numbers[slot] = integer;
        break;
      case TYPE.headers:
        i = scanHeaders(b, i);
        break;
      default:
        i = scanLogs(b, i);
    }
    starts[slot] = start;
    ends[slot] = i;
    return i;
  };

  /** The members of group `g` at i (an object, or null for none); returns the position after it. */
  const group = (b: Buffer, i: number, g: GroupNode): number => {
    if (seen[g.index] === 1) throw GIVE_UP;
    seen[g.index] = 1;
    if (b[i] === 0x6e) return word(b, i, NULL_WORD);
    i = ws(b, expect(b, i, OPEN_BRACE));
    if (b[i] === CLOSE_BRACE) return i + 1;
    let hint = 0;
    for (;;) {
      const s = i + 1;
      i = scanString(b, i);
      // A name with escapes matches no member: their names are plain.
      const child = childOf(b, g, s, i - 1, hint);
      hint = child + 1;
      i = ws(b, expect(b, ws(b, i), COLON));
      const target = g.targets[child] as number;
      i = ws(b, target >= 0 ? leafValue(b, i, target) : group(b, i, sp.groups[-1 - target] as GroupNode));
      if (b[i] !== COMMA) return expect(b, i, CLOSE_BRACE);
      i = ws(b, i + 1);
    }
  };

  return (json) => {
    starts.fill(ABSENT);
    seen.fill(0);
    try {
      let i = ws(json, 0);
      if (json[i] === 0x6e) return undefined;
      i = ws(json, group(json, i, sp.root));
      if (i !== json.length) return undefined;
      return write(json);
    } catch (err) {
      if (err === GIVE_UP) return undefined;
      throw err;
    }
  };

  function write(json: Buffer): { buf: Buffer; pos: number } | undefined {
    const out = room(2 * json.length + 2 * leaves + 64);
    const o = out.b;
    const pos = out.at;
    let at = pos;
    for (let slot = 0; slot < leaves; slot++) {
      const s = starts[slot] as number;
      if (s < 0) {
        if (sp.required[slot] === 1) return undefined;
        o[at++] = 0;
        continue;
      }
      if (sp.required[slot] === 0) o[at++] = 2;
      const e = ends[slot] as number;
      switch (sp.types[slot]) {
        case TYPE.string:
          at = escaped[slot] === 1 ? escapedString(o, at, json, s, e) : plainString(o, at, json, s, e);
          break;
        case TYPE.bool:
          o[at++] = numbers[slot] as number;
          break;
        case TYPE.headers:
          at = headersAvro(o, at, json, s);
          break;
        case TYPE.logs:
          at = logsAvro(o, at, json, s);
          break;
        default:
          at = long(o, at, numbers[slot] as number);
      }
    }
    used = at;
    return { buf: o.subarray(pos, at), pos: 0 };
  }
}

/** The transcoded records are views into slabs, as the projections' tails are (avro-projection.ts). */
const SLAB_BYTES = 256 * 1024;
let slab = Buffer.allocUnsafe(SLAB_BYTES);
let used = 0;

function room(need: number): { b: Buffer; at: number } {
  if (slab.length - used < need) {
    slab = Buffer.allocUnsafe(Math.max(SLAB_BYTES, need));
    used = 0;
  }
  return { b: slab, at: used };
}

/** Zig-zag values from here on are not exact as doubles. */
const EXACT_ZIGZAG = 2 ** 52;

/** An Avro long (zig-zag varint) of an integer of at most 2^53 in magnitude. */
function long(o: Buffer, at: number, v: number): number {
  if (v >= EXACT_ZIGZAG || v < -EXACT_ZIGZAG) return bigLong(o, at, v);
  let z = v >= 0 ? 2 * v : -2 * v - 1;
  while (z >= 128) {
    o[at++] = (z % 128) | 128;
    z = Math.floor(z / 128);
  }
  o[at++] = z;
  return at;
}

function bigLong(o: Buffer, at: number, v: number): number {
  let z = v >= 0 ? BigInt(v) * 2n : -BigInt(v) * 2n - 1n;
  while (z >= 128n) {
    o[at++] = Number(z & 127n) | 128;
    z >>= 7n;
  }
  o[at++] = Number(z);
  return at;
}

/** Texts at least this long are copied by Buffer.copy, shorter ones byte by byte (cheaper than the native call). */
const NATIVE_COPY_FROM = 64;

/** An Avro string of the JSON string bytes [s, e), which hold no escapes. */
function plainString(o: Buffer, at: number, src: Buffer, s: number, e: number): number {
  at = long(o, at, e - s);
  if (e - s >= NATIVE_COPY_FROM) return at + src.copy(o, at, s, e);
  for (let k = s; k < e; k++) o[at++] = src[k] as number;
  return at;
}

/** The byte an escape's letter stands for (RFC 8259 7); \u is never met here. */
function unescaped(c: number): number {
  switch (c) {
    case 0x62:
      return 0x08;
    case 0x66:
      return 0x0c;
    case 0x6e:
      return 0x0a;
    case 0x72:
      return 0x0d;
    case 0x74:
      return 0x09;
    default:
      return c;
  }
}

/** An Avro string of the JSON string bytes [s, e), decoding its escapes. */
function escapedString(o: Buffer, at: number, src: Buffer, s: number, e: number): number {
  let n = 0;
  for (let k = s; k < e; k++, n++) if (src[k] === BACKSLASH) k++;
  at = long(o, at, n);
  for (let k = s; k < e; k++) {
    const c = src[k] as number;
    if (c === BACKSLASH) o[at++] = unescaped(src[++k] as number);
    else o[at++] = c;
  }
  return at;
}

/** Skips whitespace in trusted text (already scanned). */
function skipWs(src: Buffer, k: number): number {
  for (;;) {
    const c = src[k];
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return k;
    k++;
  }
}

/** The end of the string whose opening quote is at k, in trusted text; `escapes` tells whether it holds any. */
const str = { end: 0, escapes: false };
function stringAt(src: Buffer, k: number): void {
  let escapes = false;
  for (k++; ; k++) {
    const c = src[k];
    if (c === QUOTE) break;
    if (c === BACKSLASH) {
      escapes = true;
      k++;
    }
  }
  str.end = k;
  str.escapes = escapes;
}

/** Writes the string whose opening quote is at k as an Avro string; returns the position after its closing quote in `lastEnd`. */
let lastEnd = 0;
function avroString(o: Buffer, at: number, src: Buffer, k: number): number {
  stringAt(src, k);
  lastEnd = str.end + 1;
  return str.escapes ? escapedString(o, at, src, k + 1, str.end) : plainString(o, at, src, k + 1, str.end);
}

/** A scanned header map at k as an Avro map of string arrays, one entry and one item a block. */
function headersAvro(o: Buffer, at: number, src: Buffer, k: number): number {
  k = skipWs(src, k + 1);
  while (src[k] !== CLOSE_BRACE) {
    o[at++] = 2;
    at = avroString(o, at, src, k);
    k = skipWs(src, skipWs(src, lastEnd) + 1);
    k = skipWs(src, k + 1);
    while (src[k] !== CLOSE_BRACKET) {
      o[at++] = 2;
      at = avroString(o, at, src, k);
      k = skipWs(src, lastEnd);
      if (src[k] === COMMA) k = skipWs(src, k + 1);
    }
    o[at++] = 0;
    k = skipWs(src, k + 1);
    if (src[k] === COMMA) k = skipWs(src, k + 1);
  }
  o[at++] = 0;
  return at;
}

/** The end of the JSON value at k in trusted text. */
function valueEnd(src: Buffer, k: number): number {
  const c = src[k];
  if (c === QUOTE) {
    stringAt(src, k);
    return str.end + 1;
  }
  if (c === OPEN_BRACE || c === OPEN_BRACKET) {
    let depth = 0;
    for (; ; k++) {
      const d = src[k];
      if (d === QUOTE) {
        stringAt(src, k);
        k = str.end;
      } else if (d === OPEN_BRACE || d === OPEN_BRACKET) depth++;
      else if (d === CLOSE_BRACE || d === CLOSE_BRACKET) {
        depth--;
        if (depth === 0) return k + 1;
      }
    }
  }
  // A number or a literal: up to the next delimiter.
  while (k < src.length) {
    const d = src[k];
    if (d === COMMA || d === CLOSE_BRACE || d === CLOSE_BRACKET || d === 0x20 || d === 0x0a || d === 0x0d || d === 0x09) break;
    k++;
  }
  return k;
}

/** Scanned logs at k as an Avro array of maps whose values are the entries' JSON texts, one item and one entry a block. */
function logsAvro(o: Buffer, at: number, src: Buffer, k: number): number {
  k = skipWs(src, k + 1);
  while (src[k] !== CLOSE_BRACKET) {
    o[at++] = 2;
    k = skipWs(src, k + 1);
    while (src[k] !== CLOSE_BRACE) {
      o[at++] = 2;
      at = avroString(o, at, src, k);
      k = skipWs(src, skipWs(src, lastEnd) + 1);
      const e = valueEnd(src, k);
      at = plainString(o, at, src, k, e);
      k = skipWs(src, e);
      if (src[k] === COMMA) k = skipWs(src, k + 1);
    }
    o[at++] = 0;
    k = skipWs(src, k + 1);
    if (src[k] === COMMA) k = skipWs(src, k + 1);
  }
  o[at++] = 0;
  return at;
}
