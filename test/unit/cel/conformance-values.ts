// Translates the conformance suite's protobuf values, types and declarations into the engine's own, and compares results.
import type { Type } from '@bufbuild/cel-spec/cel/expr/checked_pb.js';
import type { Value as ProtoValue } from '@bufbuild/cel-spec/cel/expr/value_pb.js';
import { BOOL, BYTES, DOUBLE, DYN, INT, NULL, STRING, TYPE, UINT, formatType, listOf, mapOf, typeOf, type CelT } from '../../../src/cel/compiler/cel-types.js';
import { CelErr, CelMap, CelTypeValue, CelUint, mapKeyOf, type MapKey, type Value } from '../../../src/cel/compiler/values.js';

/** Thrown for inputs outside the engine's language; such cases must be listed in conformance-skips.ts. */
export class Unsupported extends Error {}

const PRIMITIVES: Readonly<Record<number, CelT>> = { 1: BOOL, 2: INT, 3: UINT, 4: DOUBLE, 5: STRING, 6: BYTES };

export function typeFromProto(t: Type | undefined): CelT {
  const k = t?.typeKind;
  switch (k?.case) {
    case 'dyn':
      return DYN;
    case 'null':
      return NULL;
    case 'primitive': {
      const p = PRIMITIVES[k.value];
      if (p === undefined) throw new Unsupported(`primitive type ${k.value}`);
      return p;
    }
    case 'listType':
      return listOf(typeFromProto(k.value.elemType));
    case 'mapType':
      return mapOf(typeFromProto(k.value.keyType), typeFromProto(k.value.valueType));
    case 'type':
      return k.value.typeKind.case === undefined ? TYPE : typeOf(typeFromProto(k.value));
    default:
      throw new Unsupported(`type kind ${String(k?.case)}`);
  }
}

export function valueFromProto(v: ProtoValue | undefined): Value {
  const k = v?.kind;
  switch (k?.case) {
    case 'nullValue':
      return null;
    case 'boolValue':
    case 'int64Value':
    case 'doubleValue':
    case 'stringValue':
    case 'bytesValue':
      return k.value;
    case 'uint64Value':
      return new CelUint(k.value);
    case 'typeValue':
      return CelTypeValue.of(k.value);
    case 'listValue':
      return k.value.values.map(valueFromProto);
    case 'mapValue': {
      const entries = new Map<MapKey, readonly [Value, Value]>();
      for (const e of k.value.entries) {
        const key = valueFromProto(e.key);
        const nk = mapKeyOf(key);
        if (nk === undefined) throw new Unsupported('map key type');
        entries.set(nk, [key, valueFromProto(e.value)]);
      }
      return new CelMap(entries);
    }
    default:
      throw new Unsupported(`value kind ${String(k?.case)}`);
  }
}

/** Strict equality for test results: same types (1 is not 1.0), NaN equal to NaN. */
export function sameValue(a: Value, b: Value): boolean {
  if (typeof a === 'number') return typeof b === 'number' && (a === b || (Number.isNaN(a) && Number.isNaN(b)));
  if (typeof a !== 'object' || a === null) return a === b;
  if (a instanceof CelUint) return b instanceof CelUint && a.value === b.value;
  if (a instanceof Uint8Array) return b instanceof Uint8Array && a.length === b.length && a.every((x, i) => x === b[i]);
  if (a instanceof CelTypeValue) return a === b;
  if (Array.isArray(a)) {
    const bl = b as readonly Value[];
    return Array.isArray(b) && a.length === bl.length && a.every((x: Value, i: number) => sameValue(x, bl[i] as Value));
  }
  if (a instanceof CelMap) {
    if (!(b instanceof CelMap) || a.size !== b.size) return false;
    for (const [k, [ka, va]] of a.entries) {
      const other = b.entries.get(k);
      if (other === undefined || !sameValue(ka, other[0]) || !sameValue(va, other[1])) return false;
    }
    return true;
  }
  if (a instanceof CelErr) return b instanceof CelErr;
  return false;
}

export function describeValue(v: Value): string {
  if (typeof v === 'bigint') return `${v}`;
  if (v instanceof CelUint) return `${v.value}u`;
  if (v instanceof CelErr) return `error(${v.message})`;
  if (v instanceof CelTypeValue) return `type(${v.name})`;
  if (v instanceof CelMap) return `{${[...v.entries.values()].map(([k, x]) => `${describeValue(k)}: ${describeValue(x)}`).join(', ')}}`;
  if (Array.isArray(v)) return `[${(v as readonly Value[]).map(describeValue).join(', ')}]`;
  if (v instanceof Uint8Array) return `b[${[...v].join(',')}]`;
  return JSON.stringify(v) ?? String(v);
}

export const sameType = (a: CelT, b: CelT): boolean => formatType(a) === formatType(b);
