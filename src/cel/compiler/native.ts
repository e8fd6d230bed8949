// Conversion of plain JavaScript data (a decoded record) into CEL values, guided by a declared type when there is one.
import type { CelT } from './cel-types.js';
import { CelErr, CelMap, isErr, isRecordValue, mapKeyOf, type MapKey, type Value } from './values.js';

/**
 * Converts a JavaScript value whose CEL type is not declared. Numbers become doubles, as in
 * @bufbuild/cel; integers arrive as bigint where the producer knows they are integers.
 */
export function fromNative(v: unknown): Value {
  switch (typeof v) {
    case 'string':
    case 'boolean':
    case 'bigint':
    case 'number':
      return v;
  }
  if (v === null || v === undefined) return null;
  if (Array.isArray(v)) return v.map(fromNative);
  if (v instanceof Uint8Array || v instanceof CelMap || isErr(v)) return v;
  if (v instanceof Map) {
    const entries = new Map<MapKey, readonly [Value, Value]>();
    for (const [k, x] of v as Map<unknown, unknown>) {
      const key = fromNative(k);
      const nk = mapKeyOf(key);
      if (nk !== undefined) entries.set(nk, [key, fromNative(x)]);
    }
    return new CelMap(entries);
  }
  return v as Value;
}

const mismatch = (field: string, t: string): CelErr => new CelErr(`field '${field}' does not hold a ${t}`);

/**
 * Converts a record field's raw value to the field's declared CEL type, e.g. a JSON number in an
 * int32 field to an int. A value of the wrong shape is an error, not a silent coercion.
 */
export function fieldConverter(field: string, t: CelT): (raw: unknown) => Value {
  switch (t.kind) {
    case 'string': {
      const err = mismatch(field, 'string');
      return (v) => (typeof v === 'string' ? v : err);
    }
    case 'bool': {
      const err = mismatch(field, 'bool');
      return (v) => (typeof v === 'boolean' ? v : err);
    }
    case 'int': {
      const err = mismatch(field, 'int');
      return (v) => (typeof v === 'number' ? (Number.isSafeInteger(v) ? BigInt(v) : err) : typeof v === 'bigint' ? v : err);
    }
    case 'double': {
      const err = mismatch(field, 'double');
      return (v) => (typeof v === 'number' ? v : err);
    }
    case 'record': {
      const err = mismatch(field, t.name);
      return (v) => (isRecordValue(v) ? v : err);
    }
    case 'map':
      return (v) => (isRecordValue(v) ? recordToMap(v) : fromNative(v));
    default:
      return fromNative;
  }
}

function recordToMap(o: Readonly<Record<string, unknown>>): CelMap {
  const entries = new Map<MapKey, readonly [Value, Value]>();
  for (const [k, x] of Object.entries(o)) if (x !== undefined) entries.set(k, [k, fromNative(x)]);
  return new CelMap(entries);
}
