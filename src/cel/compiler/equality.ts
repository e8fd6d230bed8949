// CEL equality and ordering, with heterogeneous numeric comparison as cel-go implements it.
//
// CEL spec, Equality: "numeric values compare as though on a continuous number line"; values of
// different non-numeric types are simply unequal (false, not an error); NaN equals nothing.
import { CelErr, CelMap, CelTypeValue, CelUint, isOpaque, isRecordValue, type Value } from './values.js';

const TWO64 = 18446744073709551616;
const TWO63 = 9223372036854775808;

/**
 * Compares an int (or uint) with a double as cel-go does (compareIntDouble / compareUintDouble):
 * a double beyond the integer type's range is simply larger or smaller; otherwise the integer is
 * converted to double and compared, lossily, so 2^63-1 equals 2^63 as a double. NaN for NaN.
 */
function cmpBigDouble(a: bigint, d: number, unsigned: boolean): number {
  if (Number.isNaN(d)) return NaN;
  if (d < (unsigned ? 0 : -TWO63)) return 1;
  if (d > (unsigned ? TWO64 : TWO63)) return -1;
  const x = Number(a);
  return x < d ? -1 : x > d ? 1 : 0;
}

/** Numeric comparison across int, uint and double; undefined when either side is not a number. */
export function compareNumbers(a: Value, b: Value): number | undefined {
  if (typeof a === 'bigint') {
    if (typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0;
    if (typeof b === 'number') return cmpBigDouble(a, b, false);
    if (b instanceof CelUint) return a < b.value ? -1 : a > b.value ? 1 : 0;
    return undefined;
  }
  if (typeof a === 'number') {
    if (typeof b === 'number') return Number.isNaN(a) || Number.isNaN(b) ? NaN : a < b ? -1 : a > b ? 1 : 0;
    if (typeof b === 'bigint') return -cmpBigDouble(b, a, false);
    if (b instanceof CelUint) return -cmpBigDouble(b.value, a, true);
    return undefined;
  }
  if (a instanceof CelUint) {
    if (b instanceof CelUint) return a.value < b.value ? -1 : a.value > b.value ? 1 : 0;
    if (typeof b === 'bigint') return a.value < b ? -1 : a.value > b ? 1 : 0;
    if (typeof b === 'number') return cmpBigDouble(a.value, b, true);
  }
  return undefined;
}

/**
 * Orders strings by Unicode code point, as cel-go does (it compares UTF-8 bytes). JavaScript's `<`
 * orders UTF-16 code units, which differs only when a surrogate meets a unit at or above U+E000.
 */
export function compareStrings(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys && (xs ? y >= 0xe000 : x >= 0xe000)) return xs ? 1 : -1;
    return x < y ? -1 : 1;
  }
  return a.length - b.length < 0 ? -1 : a.length === b.length ? 0 : 1;
}

export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    if (x !== y) return x < y ? -1 : 1;
  }
  return a.length < b.length ? -1 : a.length === b.length ? 0 : 1;
}

/**
 * Ordering for < <= > >=: a number, NaN for NaN operands (every comparison false), or undefined when
 * the two values have no ordering overload (an error for the caller).
 */
export function compareValues(a: Value, b: Value): number | undefined {
  if (typeof a === 'string') return typeof b === 'string' ? compareStrings(a, b) : undefined;
  if (typeof a === 'boolean') return typeof b === 'boolean' ? (a === b ? 0 : a ? 1 : -1) : undefined;
  if (a instanceof Uint8Array) return b instanceof Uint8Array ? compareBytes(a, b) : undefined;
  return compareNumbers(a, b);
}

/** CEL equality. Never an error: callers have already passed error operands through. */
export function celEquals(a: Value, b: Value): boolean {
  if (a === b) return typeof a !== 'number' || !Number.isNaN(a);
  switch (typeof a) {
    case 'string':
    case 'boolean':
      return false;
    case 'bigint':
    case 'number': {
      const c = compareNumbers(a, b);
      return c === 0;
    }
  }
  if (a === null || b === null) return false;
  if (a instanceof CelUint) return compareNumbers(a, b) === 0;
  if (a instanceof Uint8Array) return b instanceof Uint8Array && compareBytes(a, b) === 0;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!celEquals(a[i] as Value, b[i] as Value)) return false;
    return true;
  }
  if (a instanceof CelMap) {
    if (!(b instanceof CelMap) || a.size !== b.size) return false;
    for (const [k, [, v]] of a.entries) {
      const other = b.entries.get(k);
      if (other === undefined || !celEquals(v, other[1])) return false;
    }
    return true;
  }
  if (a instanceof CelTypeValue || a instanceof CelErr) return false;
  if (isOpaque(a)) return isOpaque(b) && a.celTypeName === b.celTypeName && a.celEquals(b);
  if (isRecordValue(a) && isRecordValue(b)) return recordEquals(a, b);
  return false;
}

function recordEquals(a: Readonly<Record<string, unknown>>, b: Readonly<Record<string, unknown>>): boolean {
  const ka = Object.keys(a).filter((k) => a[k] !== undefined && a[k] !== null);
  const kb = Object.keys(b).filter((k) => b[k] !== undefined && b[k] !== null);
  if (ka.length !== kb.length) return false;
  for (const k of ka) {
    const x = a[k];
    const y = b[k];
    if (y === undefined || y === null) return false;
    if (typeof x === 'number' && typeof y === 'number') {
      if (x !== y) return false;
    } else if (!celEquals(x as Value, y as Value)) return false;
  }
  return true;
}

export { TWO63, TWO64 };
