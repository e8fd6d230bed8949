// Run-time implementations of the standard functions, dispatched on the operands' run-time types.
//
// These are the general path, used for dyn operands and wherever the compiler has no faster
// specialisation. Arguments arrive already evaluated and known not to be errors (calls are strict).
import { add, divide, modulo, multiply, negate, subtract } from './arithmetic.js';
import { size, toBool, toBytes, toDouble, toInt, toStringValue, toUint, typeOfValue } from './conversions.js';
import { celEquals, compareValues } from './equality.js';
import { cachedRegex } from './regex.js';
import {
  CelErr,
  CelMap,
  CelUint,
  isRecordValue,
  lookupKey,
  noSuchKey,
  noSuchOverload,
  type Value,
} from './values.js';
import { fromNative } from './native.js';

export type Impl1 = (a: Value) => Value;
export type Impl2 = (a: Value, b: Value) => Value;

const compare =
  (fn: string, test: (c: number) => boolean): Impl2 =>
  (a, b) => {
    const c = compareValues(a, b);
    if (c === undefined) return noSuchOverload(fn, a, b);
    return Number.isNaN(c) ? false : test(c);
  };

function inCollection(a: Value, coll: Value): Value {
  if (Array.isArray(coll)) {
    for (const x of coll as readonly Value[]) if (celEquals(a, x)) return true;
    return false;
  }
  if (coll instanceof CelMap) {
    const k = lookupKey(a);
    return k !== undefined && coll.entries.has(k);
  }
  return noSuchOverload('@in', a, coll);
}

/** CEL list indexing accepts int, uint, and a double with no fractional part. */
function listIndex(i: Value): number | undefined {
  if (typeof i === 'bigint') return i >= 0n && i <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(i) : -1;
  if (i instanceof CelUint) return i.value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(i.value) : -1;
  if (typeof i === 'number') return Number.isInteger(i) ? i : undefined;
  return undefined;
}

export function index(coll: Value, i: Value): Value {
  if (Array.isArray(coll)) {
    const n = listIndex(i);
    if (n === undefined) return new CelErr(`invalid list index of type ${typeof i}`);
    if (n < 0 || n >= coll.length) return new CelErr(`index out of range: ${String(i)}`);
    return coll[n] as Value;
  }
  if (coll instanceof CelMap) {
    const k = lookupKey(i);
    const hit = k === undefined ? undefined : coll.entries.get(k);
    return hit === undefined ? noSuchKey(String(i)) : hit[1];
  }
  if (isRecordValue(coll) && typeof i === 'string') return selectDynamic(coll, i);
  return noSuchOverload('_[_]', coll, i);
}

/** Field selection when the operand's type is only known at run time. */
export function selectDynamic(o: Value, field: string): Value {
  if (o instanceof CelMap) {
    const hit = o.entries.get(field);
    return hit === undefined ? noSuchKey(`'${field}'`) : hit[1];
  }
  if (o instanceof CelErr) return o;
  if (isRecordValue(o)) {
    const v = o[field];
    return v === undefined || v === null ? noSuchKey(`'${field}'`) : fromNative(v);
  }
  return new CelErr(`type '${typeof o}' does not support field selection`);
}

/** has(o.field) when o's type is only known at run time. */
export function hasDynamic(o: Value, field: string): Value {
  if (o instanceof CelMap) return o.entries.has(field);
  if (o instanceof CelErr) return o;
  if (isRecordValue(o)) return o[field] !== undefined && o[field] !== null;
  return noSuchOverload('has', o);
}

function stringMethod(fn: string, op: (s: string, arg: string) => boolean): Impl2 {
  return (s, arg) => (typeof s === 'string' && typeof arg === 'string' ? op(s, arg) : noSuchOverload(fn, s, arg));
}

export function matches(s: Value, pattern: Value): Value {
  if (typeof s !== 'string' || typeof pattern !== 'string') return noSuchOverload('matches', s, pattern);
  const re = cachedRegex(pattern);
  return re instanceof CelErr ? re : re.test(s);
}

/** Unary functions and operators by name (global style). */
export const UNARY: ReadonlyMap<string, Impl1> = new Map<string, Impl1>([
  ['-_', negate],
  ['!_', (a) => (typeof a === 'boolean' ? !a : noSuchOverload('!_', a))],
  ['size', size],
  ['int', toInt],
  ['uint', toUint],
  ['double', toDouble],
  ['string', toStringValue],
  ['bytes', toBytes],
  ['bool', toBool],
  ['dyn', (a) => a],
  ['type', typeOfValue],
]);

/** Binary functions and operators by name (global style). */
export const BINARY: ReadonlyMap<string, Impl2> = new Map<string, Impl2>([
  ['_==_', (a, b) => celEquals(a, b)],
  ['_!=_', (a, b) => !celEquals(a, b)],
  ['_<_', compare('_<_', (c) => c < 0)],
  ['_<=_', compare('_<=_', (c) => c <= 0)],
  ['_>_', compare('_>_', (c) => c > 0)],
  ['_>=_', compare('_>=_', (c) => c >= 0)],
  ['_+_', add],
  ['_-_', subtract],
  ['_*_', multiply],
  ['_/_', divide],
  ['_%_', modulo],
  ['@in', inCollection],
  ['_[_]', index],
  ['matches', matches],
]);

/** Member-style functions by name; the receiver is the first argument. */
export const METHODS_1: ReadonlyMap<string, Impl1> = new Map<string, Impl1>([['size', size]]);

export const METHODS_2: ReadonlyMap<string, Impl2> = new Map<string, Impl2>([
  ['contains', stringMethod('contains', (s, x) => s.includes(x))],
  ['startsWith', stringMethod('startsWith', (s, x) => s.startsWith(x))],
  ['endsWith', stringMethod('endsWith', (s, x) => s.endsWith(x))],
  ['matches', matches],
]);
