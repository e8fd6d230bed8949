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
// fields' checks. It notes where each leaf's value lies, for projecting the record from its text
// (src/projection/avro-projection.ts) and for writing that Avro record where that gives up (json-transcode.ts).
import { isUtf8 } from 'node:buffer';
import type { FieldType } from '../events/catalog.js';
import type { GroupPlan, LeafPlan, RecordPlan } from './field-plan.js';
import { FILTERABLE_PATHS, REPEATING_PATHS, checkFilterable } from './filterable.js';
import type { FilterableFields } from './record-types.js';
import { plainWordsCode, specialAt, wordView } from './json-string-bytes.js';
import { latin1Text } from './latin1-text.js';
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

/** Where a scanned leaf's value lies, and what it is; written by the scan, read by the text projection and the Avro writer. */
export interface ScanState {
  /** Per leaf: where its value starts (a string's after its opening quote), or ABSENT for a missing or null one. */
  readonly starts: Int32Array;
  /** Per leaf: where its value ends (a string's at its closing quote). */
  readonly ends: Int32Array;
  /** Per string leaf: 1 when it holds escapes. */
  readonly escaped: Uint8Array;
  /** Per bool, integer or timestamp leaf: its value (a timestamp's in microseconds). */
  readonly numbers: Float64Array;
  /**
   * The strings of the header maps, as the scan found them, so that the text projection and the Avro
   * writer read them without looking for their ends again: per string two entries, its body's start (negated for a name) and end
   * (its closing quote; ~end when it holds escapes). Entry 0 counts the entries used, from 1 on; entries
   * beyond the array's length are counted, not noted.
   */
  readonly notes: Int32Array;
  /** Per header leaf: its map's first note and the one after its last (beyond notes.length when they did not all fit). */
  readonly noteFrom: Int32Array;
  readonly noteTo: Int32Array;
}

export const ABSENT = -1;

/** The filterable fields of a record that passed every check, or undefined to decode it the exact way. */
export type JsonScan = (json: Buffer) => FilterableFields | undefined;

/** Longer texts are left to the exact decoder, so that the scan's positions are int32 (far above any record's size). */
const MAX_SCAN_BYTES = 2 ** 30;
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

/**
 * The position of the closing quote of the string whose body starts at s, as ~position when the body holds
 * escapes, or -1 to give up; `v` is wordView(b), `o` b.byteOffset.
 */
function closingQuote(b: Buffer, v: DataView, o: number, s: number): number {
  // The scan gives up on longer texts than MAX_SCAN_BYTES: the length is an int32.
  const len = b.length | 0;
  const e = specialAt(b, v, o, s, len);
  if (e >= len) return -1;
  if (b[e] === QUOTE) return e;
  // A backslash (walked escape by escape: it may escape a quote) or a control character (refused).
  const q = quotedEnd(b, s);
  return q < 0 ? -1 : ~q;
}

/** The position after the string whose opening quote is at i, or -1 to give up. */
function stringEnd(b: Buffer, v: DataView, o: number, i: number): number {
  const e = closingQuote(b, v, o, i + 1);
  if (e === -1) return -1;
  return (e < 0 ? ~e : e) + 1;
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
function anyEnd(b: Buffer, v: DataView, o: number, i: number, depth: number): number {
  const c = b[i];
  if (c === QUOTE) return stringEnd(b, v, o, i);
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
      i = stringEnd(b, v, o, i);
      if (i < 0) return -1;
      i = ws(b, i);
      if (b[i] !== COLON) return -1;
      i = ws(b, i + 1);
    }
    i = anyEnd(b, v, o, i, depth + 1);
    if (i < 0) return -1;
    i = ws(b, i);
    if (b[i] === COMMA) i = ws(b, i + 1);
    else return b[i] === close ? i + 1 : -1;
  }
}

/**
 * True when bytes [a, end) of `b` hold one JSON text that the scan's check accepts (RFC 8259, at most
 * MAX_FAST_DEPTH deep, no \u escape); false when it gives up, and the caller parses the text. The check may
 * look at the bytes after `end`, never accepting what they would extend.
 */
export function plainJsonText(b: Buffer, a: number, end: number): boolean {
  if (end > MAX_SCAN_BYTES) return false;
  const start = ws(b, a);
  if (start >= end) return false;
  const i = anyEnd(b, wordView(b), b.byteOffset, start, 0);
  // Only whitespace between the value and `end` (ws may pass `end` over whitespace that follows it).
  return i >= 0 && i <= end && ws(b, i) >= end;
}

/** The position after the member name at i and its colon, or -1; a "__proto__" name gives up. */
function keyEnd(b: Buffer, v: DataView, o: number, i: number): number {
  if (b[i] !== QUOTE) return -1;
  const e = stringEnd(b, v, o, i);
  if (e < 0 || isProto(b, i + 1, e - 1)) return -1;
  i = ws(b, e);
  return b[i] === COLON ? ws(b, i + 1) : -1;
}

/**
 * A header map at i, {"name": ["value", ...], ...}: the position after it, or -1; its strings are noted in
 * `notes` (ScanState). The map's loop is the scan's hottest: whitespace is skipped by a call only where
 * there is some, and the names are read here as keyEnd reads them (the calls cost about 8% of the scan,
 * bench/results/PROFILE.md).
 */
function headersEnd(b: Buffer, v: DataView, o: number, i: number, notes: Int32Array): number {
  let n = notes[0] as number;
  if (b[i] !== OPEN_BRACE) return -1;
  i = ws(b, i + 1);
  if (b[i] === CLOSE_BRACE) return i + 1;
  for (;;) {
    if (b[i] !== QUOTE) return -1;
    const s = i + 1;
    let e = closingQuote(b, v, o, s);
    if (e === -1) return -1;
    if (n + 2 <= notes.length) {
      notes[n] = -s;
      notes[n + 1] = e;
    }
    n += 2;
    if (e < 0) e = ~e;
    if (isProto(b, s, e)) return -1;
    i = e + 1;
    if ((b[i] as number) <= 0x20) i = ws(b, i);
    if (b[i] !== COLON) return -1;
    if ((b[++i] as number) <= 0x20) i = ws(b, i);
    if (b[i] !== OPEN_BRACKET) return -1;
    if ((b[++i] as number) <= 0x20) i = ws(b, i);
    if (b[i] === CLOSE_BRACKET) i++;
    else {
      for (;;) {
        if (b[i] !== QUOTE) return -1;
        e = closingQuote(b, v, o, i + 1);
        if (e === -1) return -1;
        if (n + 2 <= notes.length) {
          notes[n] = i + 1;
          notes[n + 1] = e;
        }
        n += 2;
        i = (e < 0 ? ~e : e) + 1;
        if ((b[i] as number) <= 0x20) i = ws(b, i);
        if (b[i] === COMMA) {
          if ((b[++i] as number) <= 0x20) i = ws(b, i);
        } else if (b[i] === CLOSE_BRACKET) {
          i++;
          break;
        } else return -1;
      }
    }
    if ((b[i] as number) <= 0x20) i = ws(b, i);
    if (b[i] === COMMA) {
      if ((b[++i] as number) <= 0x20) i = ws(b, i);
    } else if (b[i] === CLOSE_BRACE) {
      notes[0] = n;
      return i + 1;
    } else return -1;
  }
}

/** traffic_policy.logs at i, [{"name": any JSON value, ...}, ...]: the position after it, or -1. */
function logsEnd(b: Buffer, v: DataView, o: number, i: number): number {
  if (b[i] !== OPEN_BRACKET) return -1;
  i = ws(b, i + 1);
  if (b[i] === CLOSE_BRACKET) return i + 1;
  for (;;) {
    if (b[i] !== OPEN_BRACE) return -1;
    i = ws(b, i + 1);
    if (b[i] === CLOSE_BRACE) i++;
    else {
      for (;;) {
        i = keyEnd(b, v, o, i);
        if (i < 0) return -1;
        i = anyEnd(b, v, o, i, 0);
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
  return latin1Text(b, s, e);
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

const helpers = { ws, isUtf8, wordView, specialAt, quotedEnd, headersEnd, logsEnd, rfc3339Micros, cachedString, plainText, escapedText, filterableOk, MAX: MAX_INT64_MAGNITUDE };

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
    plainWordsCode('D', 'O', 'i', 'len'),
    `if (i + 4 > len) i = H.specialAt(b, D, O, i, len);`,
    `if (i >= len) return;`,
    // A backslash may escape a quote: the string is walked again escape by escape (a control character gives up).
    `if (b[i] !== ${QUOTE}) { i = H.quotedEnd(b, S[${k}]); if (i < 0) return; X[${k}] = 1; }`,
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
      g.lines.push(`S[${k}] = i; NF[${k}] = P[0]; i = H.headersEnd(b, D, O, i, P); if (i < 0) return; E[${k}] = i; NT[${k}] = P[0];`);
      break;
    case 'logs':
      g.lines.push(`S[${k}] = i; i = H.logsEnd(b, D, O, i); if (i < 0) return; E[${k}] = i;`);
      break;
  }
  if (!leaf.required) g.lines.push('}');
}

/** The little-endian 32-bit word of the four ASCII characters of `text` at `at`, as DataView.getInt32(_, true) reads them. */
function wordOf(text: string, at: number): number {
  return (text.charCodeAt(at) | (text.charCodeAt(at + 1) << 8) | (text.charCodeAt(at + 2) << 16) | (text.charCodeAt(at + 3) << 24)) | 0;
}

/** Code comparing the bytes at `at` from byte `from` on with those of `text` (ASCII), a word at a time; the caller checked that they are inside the buffer. */
function wordsAre(at: string, text: string, from: number): string {
  if (text.length < 4) return bytesAre(at, text);
  const tests: string[] = [];
  let k = from;
  for (; k + 4 <= text.length; k += 4) tests.push(`D.getInt32(O + ${at} + ${k}, true) === ${wordOf(text, k)}`);
  // The last bytes in a word that overlaps the one before.
  if (k < text.length) tests.push(`D.getInt32(O + ${at} + ${text.length - 4}, true) === ${wordOf(text, text.length - 4)}`);
  return tests.length === 0 ? 'true' : tests.join(' && ');
}

/**
 * Emits the scan of a group's object (or null, for none) at i. Members may come in any order and each at
 * most once (a bit each in m<n>). A member name is matched with its closing quote by words, the first of
 * them chosen by a switch, so a name is never scanned for its end; a name with escapes, which no member's
 * has, is unknown and gives up.
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
    // A member, its colon, a value and the closing brace take more than 4 bytes: fewer left is no record.
    `if (k${n} + 4 > len) return;`,
  );
  // Names with their closing quote, by their first word; those shorter than a word are tested in the default.
  const byWord = new Map<number, { child: GroupPlan | LeafPlan; bit: number; quoted: string }[]>();
  const short: { child: GroupPlan | LeafPlan; bit: number; quoted: string }[] = [];
  group.children.forEach((child, index) => {
    const member = { child, bit: 1 << index, quoted: `${child.name}"` };
    if (member.quoted.length < 4) short.push(member);
    else {
      const word = wordOf(member.quoted, 0);
      byWord.set(word, [...(byWord.get(word) ?? []), member]);
    }
  });
  const members = (list: readonly { child: GroupPlan | LeafPlan; bit: number; quoted: string }[], from: number): void => {
    list.forEach(({ child, bit, quoted }, index) => {
      g.lines.push(
        `${index === 0 ? '' : 'else '}if (k${n} + ${quoted.length} <= len && ${wordsAre(`k${n}`, quoted, from)}) {`,
        `i = k${n} + ${quoted.length};`,
        `if ((m${n} & ${bit}) !== 0) return; m${n} |= ${bit};`,
        WS,
        `if (b[i] !== ${COLON}) return;`,
        `i++; ${WS}`,
      );
      if (child.kind === 'group') groupValue(g, child);
      else leafValue(g, child);
      g.lines.push('}');
    });
    g.lines.push('else return;');
  };
  g.lines.push(`switch (D.getInt32(O + k${n}, true)) {`);
  for (const [word, list] of byWord) {
    g.lines.push(`case ${word}:`);
    members(list, 4);
    g.lines.push('break;');
  }
  g.lines.push('default:');
  if (short.length > 0) members(short, 0);
  else g.lines.push('return;');
  g.lines.push(
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
    `if (b.length > ${MAX_SCAN_BYTES}) return;`,
    // Positions as int32: a length that may be beyond int32 makes every comparison with it a float one.
    'const len = b.length | 0;',
    // The exact decoder refuses a body that is not UTF-8 first; what is, holds only valid UTF-8 strings.
    'if (!H.isUtf8(b)) return;',
    'const D = H.wordView(b), O = b.byteOffset;',
    `S.fill(${ABSENT});`,
    'P[0] = 1;',
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
  const factory = new Function('H', 'S', 'E', 'X', 'N', 'P', 'NF', 'NT', 'K', body) as (
    h: typeof helpers,
    s: Int32Array,
    e: Int32Array,
    x: Uint8Array,
    n: Float64Array,
    p: Int32Array,
    nf: Int32Array,
    nt: Int32Array,
    k: StringCache[],
  ) => JsonScan;
  return factory(helpers, state.starts, state.ends, state.escaped, state.numbers, state.notes, state.noteFrom, state.noteTo, g.caches);
}
