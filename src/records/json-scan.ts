// The scan of a JSON record generated per schema, as avro-codegen.ts generates the Avro reader: straight-line
// code per member that knows the member names and their types, so a record is checked in one pass from its
// bytes with no call per token and no string but the filterable fields' (docs/record-formats.md, "JSON on
// the fast path").
//
// The scan accepts only records that the JSON decoder (json-record.ts over JSON.parse) accepts with the
// same content, and gives up (returns undefined) on anything it is unsure of: a \u escape, a number with a
// fraction or an exponent, a repeated member, an unknown or missing field, any syntax error. The caller
// then decodes the record the exact way, which refuses it with today's code and message or accepts it.
// What it accepts it has checked as the Avro validation would the Avro record of the same content
// (avro-codegen.ts): valid UTF-8, no "__proto__" map key, log values that are JSON texts, the filterable
// fields' checks. It notes where each leaf's value lies, for writing that Avro record (json-transcode.ts).
import { isUtf8 } from 'node:buffer';
import type { FieldType } from '../events/catalog.js';
import type { GroupPlan, LeafPlan, RecordPlan } from './field-plan.js';
import { FILTERABLE_PATHS, REPEATING_PATHS, checkFilterable } from './filterable.js';
import type { FilterableFields } from './record-types.js';
import { cachedString, newStringCache, type StringCache } from './string-cache.js';
import { MAX_INT64_MAGNITUDE, rfc3339Micros } from './timestamps.js';

type Slices = { latin1Slice(start: number, end: number): string; utf8Slice(start: number, end: number): string };

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

/** Where a scanned leaf's value lies, and what it is; written by the scan, read by the Avro writer (json-transcode.ts). */
export interface ScanState {
  /** Per leaf: where its value starts (a string's after its opening quote), or ABSENT for a missing or null one. */
  readonly starts: Int32Array;
  /** Per leaf: where its value ends (a string's at its closing quote). */
  readonly ends: Int32Array;
  /** Per string leaf: 1 when it holds escapes. */
  readonly escaped: Uint8Array;
  /** Per bool, integer or timestamp leaf: its value (a timestamp's in microseconds). */
  readonly numbers: Float64Array;
}

export const ABSENT = -1;

/** The filterable fields of a record that passed every check, or undefined to decode it the exact way. */
export type JsonScan = (json: Buffer) => FilterableFields | undefined;

/** Log values nested deeper than this are left to the exact decoder, which holds them to MAX_LOG_VALUE_DEPTH (32). */
const MAX_FAST_DEPTH = 16;
/** Integers with more digits are left to the exact decoder; up to 16 the sum is exact below 2^53 and above it beyond every bound. */
const MAX_FAST_DIGITS = 16;
/** Numbers in log values with a longer integer part are checked for overflow to Infinity, as those with an exponent are. */
const MAX_LOG_NUMBER_DIGITS = 300;

/** The position after the whitespace at i (RFC 8259 2). */
function ws(b: Buffer, i: number): number {
  for (;;) {
    const c = b[i];
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return i;
    i++;
  }
}

/** True for the letter after a backslash of a simple escape (RFC 8259 7); \u is left to the exact decoder. */
function simpleEscape(c: number | undefined): boolean {
  return c === QUOTE || c === BACKSLASH || c === 0x2f || c === 0x62 || c === 0x66 || c === 0x6e || c === 0x72 || c === 0x74;
}

/**
 * Per byte: 1 for a backslash, 2 for a control character, which a JSON string may not hold raw. A string's
 * bytes are scanned to the next quote OR-ing these flags, one predictable branch a byte; the rare string
 * with a backslash is walked again escape by escape (quotedEnd). Branching on each byte's class instead
 * was twice as slow (bench/results/PROFILE.md).
 */
const SPECIAL = new Uint8Array(256);
SPECIAL[BACKSLASH] = 1;
SPECIAL.fill(2, 0, 0x20);

/**
 * The position of the closing quote of the string whose first byte (after its opening quote) is at i,
 * walking its escapes, or -1 to give up (a \u escape, a raw control character, no end).
 */
function quotedEnd(b: Buffer, i: number): number {
  const len = b.length;
  for (; i < len; i++) {
    const c = b[i] as number;
    if (c === QUOTE) return i;
    if (c === BACKSLASH) {
      if (!simpleEscape(b[++i])) return -1;
    } else if (c < 0x20) return -1;
  }
  return -1;
}

/** The position after the string whose opening quote is at i, or -1 to give up. */
function stringEnd(b: Buffer, i: number): number {
  const len = b.length;
  const s = ++i;
  let flags = 0;
  for (; i < len; i++) {
    const c = b[i] as number;
    if (c === QUOTE) break;
    flags |= SPECIAL[c] as number;
  }
  if (i >= len || flags >= 2) return -1;
  if (flags === 0) return i + 1;
  const e = quotedEnd(b, s);
  return e < 0 ? -1 : e + 1;
}

/** True when the string [s, e) between its quotes is "__proto__", refused as a map key (json-record.ts checkKey). */
function isProto(b: Buffer, s: number, e: number): boolean {
  return e - s === 9 && (b as unknown as Slices).latin1Slice(s, e) === '__proto__';
}

/** The position after the literal `word` at i, or -1. */
function literal(b: Buffer, i: number, word: string): number {
  for (let k = 0; k < word.length; k++) if (b[i + k] !== word.charCodeAt(k)) return -1;
  return i + word.length;
}

function digitsEnd(b: Buffer, k: number): number {
  for (;;) {
    const c = b[k] as number;
    if (!(c >= ZERO && c <= NINE)) return k;
    k++;
  }
}

/** The position after any JSON number at i (RFC 8259 6), or -1; one that JSON.parse would make Infinity is left to the exact decoder. */
function numberEnd(b: Buffer, i: number): number {
  const start = i;
  if (b[i] === MINUS) i++;
  const first = i;
  i = digitsEnd(b, i);
  const digits = i - first;
  if (digits === 0 || (b[first] === ZERO && digits > 1)) return -1;
  let exponent = false;
  if (b[i] === 0x2e) {
    const f = ++i;
    i = digitsEnd(b, i);
    if (i === f) return -1;
  }
  if (b[i] === 0x65 || b[i] === 0x45) {
    exponent = true;
    i++;
    if (b[i] === 0x2b || b[i] === MINUS) i++;
    const f = i;
    i = digitsEnd(b, i);
    if (i === f) return -1;
  }
  if ((exponent || digits > MAX_LOG_NUMBER_DIGITS) && !Number.isFinite(Number((b as unknown as Slices).latin1Slice(start, i)))) return -1;
  return i;
}

/** The position after any JSON value at i, checked for syntax, or -1; `depth` counts the containers around it. */
function anyEnd(b: Buffer, i: number, depth: number): number {
  const c = b[i];
  if (c === QUOTE) return stringEnd(b, i);
  if (c === 0x74) return literal(b, i, 'true');
  if (c === 0x66) return literal(b, i, 'false');
  if (c === 0x6e) return literal(b, i, 'null');
  if (c !== OPEN_BRACE && c !== OPEN_BRACKET) return numberEnd(b, i);
  if (depth >= MAX_FAST_DEPTH) return -1;
  const close = c === OPEN_BRACE ? CLOSE_BRACE : CLOSE_BRACKET;
  i = ws(b, i + 1);
  if (b[i] === close) return i + 1;
  for (;;) {
    if (close === CLOSE_BRACE) {
      if (b[i] !== QUOTE) return -1;
      i = stringEnd(b, i);
      if (i < 0) return -1;
      i = ws(b, i);
      if (b[i] !== COLON) return -1;
      i = ws(b, i + 1);
    }
    i = anyEnd(b, i, depth + 1);
    if (i < 0) return -1;
    i = ws(b, i);
    if (b[i] === COMMA) i = ws(b, i + 1);
    else return b[i] === close ? i + 1 : -1;
  }
}

/** The position after the member name at i and its colon, or -1; a "__proto__" name gives up. */
function keyEnd(b: Buffer, i: number): number {
  if (b[i] !== QUOTE) return -1;
  const e = stringEnd(b, i);
  if (e < 0 || isProto(b, i + 1, e - 1)) return -1;
  i = ws(b, e);
  return b[i] === COLON ? ws(b, i + 1) : -1;
}

/** A header map at i, {"name": ["value", ...], ...}: the position after it, or -1. */
function headersEnd(b: Buffer, i: number): number {
  if (b[i] !== OPEN_BRACE) return -1;
  i = ws(b, i + 1);
  if (b[i] === CLOSE_BRACE) return i + 1;
  for (;;) {
    i = keyEnd(b, i);
    if (i < 0 || b[i] !== OPEN_BRACKET) return -1;
    i = ws(b, i + 1);
    if (b[i] === CLOSE_BRACKET) i++;
    else {
      for (;;) {
        if (b[i] !== QUOTE) return -1;
        i = stringEnd(b, i);
        if (i < 0) return -1;
        i = ws(b, i);
        if (b[i] === COMMA) i = ws(b, i + 1);
        else if (b[i] === CLOSE_BRACKET) {
          i++;
          break;
        } else return -1;
      }
    }
    i = ws(b, i);
    if (b[i] === COMMA) i = ws(b, i + 1);
    else return b[i] === CLOSE_BRACE ? i + 1 : -1;
  }
}

/** traffic_policy.logs at i, [{"name": any JSON value, ...}, ...]: the position after it, or -1. */
function logsEnd(b: Buffer, i: number): number {
  if (b[i] !== OPEN_BRACKET) return -1;
  i = ws(b, i + 1);
  if (b[i] === CLOSE_BRACKET) return i + 1;
  for (;;) {
    if (b[i] !== OPEN_BRACE) return -1;
    i = ws(b, i + 1);
    if (b[i] === CLOSE_BRACE) i++;
    else {
      for (;;) {
        i = keyEnd(b, i);
        if (i < 0) return -1;
        i = anyEnd(b, i, 0);
        if (i < 0) return -1;
        i = ws(b, i);
        if (b[i] === COMMA) i = ws(b, i + 1);
        else if (b[i] === CLOSE_BRACE) {
          i++;
          break;
        } else return -1;
      }
    }
    i = ws(b, i);
    if (b[i] === COMMA) i = ws(b, i + 1);
    else return b[i] === CLOSE_BRACKET ? i + 1 : -1;
  }
}

/** A filterable string field's value without escapes whose values do not repeat (those come from cachedString): the text of its bytes. */
function plainText(b: Buffer, s: number, e: number): string {
  for (let k = s; k < e; k++) if ((b[k] as number) >= 0x80) return (b as unknown as Slices).utf8Slice(s, e);
  return (b as unknown as Slices).latin1Slice(s, e);
}

/** A filterable string field's value that holds escapes (simple ones: the scan gave up on \u), decoded as JSON.parse decodes it. */
function escapedText(b: Buffer, s: number, e: number): string {
  return JSON.parse((b as unknown as Slices).utf8Slice(s - 1, e + 1)) as string;
}

function filterableOk(f: FilterableFields): boolean {
  try {
    checkFilterable(f);
    return true;
  } catch {
    return false;
  }
}

const helpers = { ws, isUtf8, quotedEnd, headersEnd, logsEnd, rfc3339Micros, cachedString, plainText, escapedText, filterableOk, MAX: MAX_INT64_MAGNITUDE };

interface Gen {
  readonly lines: string[];
  next: number;
  readonly slots: ReadonlyMap<string, number>;
  readonly caches: StringCache[];
}

const q = (s: string): string => JSON.stringify(s);

/** Skips whitespace at i: compact JSON has none, so one comparison in the common case. */
const WS = 'if (b[i] <= 0x20) i = H.ws(b, i);';

/** Code comparing the bytes at `at` with `text` (ASCII). */
function bytesAre(at: string, text: string): string {
  return [...text].map((ch, k) => `b[${at} + ${k}] === ${ch.charCodeAt(0)}`).join(' && ');
}

/** Emits the scan of a string at i into slot k: its start and end, and whether it holds escapes. */
function stringLeaf(g: Gen, k: number): void {
  g.lines.push(
    `if (b[i] !== ${QUOTE}) return;`,
    `S[${k}] = ++i; X[${k}] = 0;`,
    `{ let f = 0;`,
    `  for (;; i++) { if (i >= len) return; const c = b[i]; if (c === ${QUOTE}) break; f |= T[c]; }`,
    // A backslash may have escaped the quote found: the string is walked again escape by escape.
    `  if (f !== 0) { if (f >= 2) return; i = H.quotedEnd(b, S[${k}]); if (i < 0) return; X[${k}] = 1; } }`,
    `E[${k}] = i++;`,
  );
}

/** Emits the scan of an integer at i into slot k: -?(0|[1-9][0-9]*), no fraction or exponent, at most MAX_FAST_DIGITS digits, not -0. */
function integerLeaf(g: Gen, k: number, type: FieldType): void {
  const n = g.next++;
  const bound = type === 'int32' ? `v${n} < -2147483648 || v${n} > 2147483647` : `Math.abs(v${n}) > H.MAX`;
  g.lines.push(
    `S[${k}] = i;`,
    `let neg${n} = false; if (b[i] === ${MINUS}) { neg${n} = true; i++; }`,
    `const d${n} = i; let v${n} = 0;`,
    `for (;;) { const c = b[i]; if (!(c >= ${ZERO} && c <= ${NINE})) break; v${n} = v${n} * 10 + (c - ${ZERO}); i++; }`,
    `if (i === d${n} || i - d${n} > ${MAX_FAST_DIGITS} || (b[d${n}] === ${ZERO} && (i - d${n} > 1 || neg${n}))) return;`,
    `{ const c = b[i]; if (c === 0x2e || c === 0x65 || c === 0x45) return; }`,
    `if (neg${n}) v${n} = -v${n};`,
    `if (${bound}) return;`,
    `N[${k}] = v${n};`,
  );
}

function leafValue(g: Gen, leaf: LeafPlan): void {
  const k = g.slots.get(leaf.path) as number;
  // A null optional leaf is left ABSENT, as a missing one; a null required one is left to the exact decoder.
  if (!leaf.required) g.lines.push(`if (b[i] === 0x6e) { if (!(${bytesAre('i', 'null')})) return; i += 4; } else {`);
  switch (leaf.type) {
    case 'string':
      stringLeaf(g, k);
      break;
    case 'timestamp':
      stringLeaf(g, k);
      g.lines.push(`if (X[${k}] === 1) return;`, `{ const t = H.rfc3339Micros(b, S[${k}], E[${k}]); if (t === undefined) return; N[${k}] = t; }`);
      break;
    case 'bool':
      g.lines.push(
        `S[${k}] = i;`,
        `if (${bytesAre('i', 'true')}) { N[${k}] = 1; i += 4; }`,
        `else if (${bytesAre('i', 'false')}) { N[${k}] = 0; i += 5; }`,
        `else return;`,
      );
      break;
    case 'int32':
    case 'int64':
      integerLeaf(g, k, leaf.type);
      break;
    case 'headers':
      g.lines.push(`S[${k}] = i; i = H.headersEnd(b, i); if (i < 0) return; E[${k}] = i;`);
      break;
    case 'logs':
      g.lines.push(`S[${k}] = i; i = H.logsEnd(b, i); if (i < 0) return; E[${k}] = i;`);
      break;
  }
  if (!leaf.required) g.lines.push('}');
}

/**
 * Emits the scan of a group's object (or null, for none) at i. Members may come in any order and each at
 * most once (a bit each in m<n>); a name is matched by its length and bytes, so a name with escapes,
 * which no member's has, is unknown and gives up.
 */
function groupValue(g: Gen, group: GroupPlan): void {
  if (group.children.length > 30) throw new Error(`${group.path || 'the record'}: more members than the scan's bit set holds`);
  const n = g.next++;
  g.lines.push(
    `if (b[i] === 0x6e) { if (!(${bytesAre('i', 'null')})) return; i += 4; }`,
    `else {`,
    `if (b[i] !== ${OPEN_BRACE}) return;`,
    `i++; ${WS}`,
    `if (b[i] === ${CLOSE_BRACE}) i++;`,
    `else { let m${n} = 0; for (;;) {`,
    `if (b[i] !== ${QUOTE}) return;`,
    `const k${n} = ++i;`,
    `for (;;) { if (i >= len) return; if (b[i] === ${QUOTE}) break; i++; }`,
    `const n${n} = i++ - k${n};`,
  );
  const byLength = new Map<number, { child: GroupPlan | LeafPlan; bit: number }[]>();
  group.children.forEach((child, index) => {
    const list = byLength.get(child.name.length) ?? [];
    list.push({ child, bit: 1 << index });
    byLength.set(child.name.length, list);
  });
  g.lines.push(`switch (n${n}) {`);
  for (const [length, members] of byLength) {
    g.lines.push(`case ${length}:`);
    members.forEach(({ child, bit }, index) => {
      g.lines.push(`${index === 0 ? '' : 'else '}if (${bytesAre(`k${n}`, child.name)}) {`, `if ((m${n} & ${bit}) !== 0) return; m${n} |= ${bit};`, WS, `if (b[i] !== ${COLON}) return;`, `i++; ${WS}`);
      if (child.kind === 'group') groupValue(g, child);
      else leafValue(g, child);
      g.lines.push('}');
    });
    g.lines.push('else return;', 'break;');
  }
  g.lines.push(
    'default: return;',
    '}',
    WS,
    `if (b[i] === ${COMMA}) { i++; ${WS} } else if (b[i] === ${CLOSE_BRACE}) { i++; break; } else return;`,
    '} }',
    '}',
  );
}

/** Emits the filterable fields' object, shaped as the Avro prefix read makes it (avro-record.ts), from the scanned slots. */
function filterableLiteral(g: Gen, plan: RecordPlan): string {
  interface Node {
    [name: string]: Node | string;
  }
  const root: Node = {};
  for (const leaf of plan.leaves) {
    if (!FILTERABLE_PATHS.has(leaf.path)) continue;
    const k = g.slots.get(leaf.path) as number;
    let value: string;
    if (leaf.type === 'string') {
      const text = REPEATING_PATHS.has(leaf.path) ? `H.cachedString(b, S[${k}], E[${k}], ${q(leaf.path)}, K[${g.caches.push(newStringCache()) - 1}])` : `H.plainText(b, S[${k}], E[${k}])`;
      value = `(X[${k}] === 1 ? H.escapedText(b, S[${k}], E[${k}]) : ${text})`;
    } else if (leaf.type === 'int32' || leaf.type === 'int64') value = `N[${k}]`;
    else throw new Error(`${leaf.path}: a filterable ${leaf.type} field has no fast JSON read`);
    const parts = leaf.path.split('.');
    let node = root;
    for (const p of parts.slice(0, -1)) node = (node[p] ??= {}) as Node;
    node[parts[parts.length - 1] as string] = value;
  }
  const text = (node: Node): string => `{ ${Object.entries(node).map(([name, v]) => `${q(name)}: ${typeof v === 'string' ? v : text(v)}`).join(', ')} }`;
  return text(root);
}

/** Compiles the scan of a plan's records, writing into `state` (one record at a time: the next scan overwrites it). */
export function compileJsonScan(plan: RecordPlan, state: ScanState): JsonScan {
  const g: Gen = { lines: [], next: 0, slots: new Map(plan.leaves.map((l, i) => [l.path, i])), caches: [] };
  groupValue(g, plan.root);
  const required = plan.leaves.flatMap((l, i) => (l.required ? [`S[${i}] < 0`] : []));
  const scan = g.lines.join('\n');
  g.lines.length = 0;
  const literalText = filterableLiteral(g, plan);
  const body = [
    'return function scan(b) {',
    'const len = b.length;',
    // The exact decoder refuses a body that is not UTF-8 first; what is, holds only valid UTF-8 strings.
    'if (!H.isUtf8(b)) return;',
    `S.fill(${ABSENT});`,
    'let i = 0;',
    WS,
    // A top-level null is not a record: leave it to the exact decoder's message.
    'if (b[i] === 0x6e) return;',
    scan,
    WS,
    'if (i !== len) return;',
    required.length > 0 ? `if (${required.join(' || ')}) return;` : '',
    ...g.lines,
    `const f = ${literalText};`,
    'return H.filterableOk(f) ? f : undefined;',
    '};',
  ].join('\n');
  const factory = new Function('H', 'T', 'S', 'E', 'X', 'N', 'K', body) as (
    h: typeof helpers,
    t: Uint8Array,
    s: Int32Array,
    e: Int32Array,
    x: Uint8Array,
    n: Float64Array,
    k: StringCache[],
  ) => JsonScan;
  return factory(helpers, SPECIAL, state.starts, state.ends, state.escaped, state.numbers, g.caches);
}
