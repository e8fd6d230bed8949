// Reading record fields (the traffic event) by a fixed path, without allocating on the hot path.
//
// A missing field is an error ("no such key"), as selecting an absent key of a map is in CEL; the
// error objects are made once per read site so a record without the field costs no allocation.
import type { FieldPath, Frame } from './node.js';
import { fieldConverter } from './native.js';
import { CelErr, sharedErr, sharedNoSuchKey, type Value } from './values.js';

/** Returns the raw leaf value (never undefined or null) or a CelErr. */
export type RawReader = (f: Frame) => unknown;

type Rec = Record<string, unknown>;

export function rawReader(fp: FieldPath): RawReader {
  const { slot, path } = fp;
  const missing = path.map((p) => sharedNoSuchKey(`'${p}'`));
  const notRecord = sharedErr(`ev is not a record`);
  const obj = (v: unknown, err: CelErr): CelErr | undefined =>
    typeof v === 'object' && v !== null ? (v instanceof CelErr ? v : undefined) : err;
  if (path.length === 1) {
    const [a] = path as [string];
    const [ma] = missing as [CelErr];
    return (f) => {
      const o = f[slot];
      if (typeof o !== 'object' || o === null || o instanceof CelErr) return obj(o, notRecord) ?? notRecord;
      const v = (o as Rec)[a];
      return v === undefined || v === null ? ma : v;
    };
  }
  if (path.length === 2) {
    const [a, b] = path as [string, string];
    const [ma, mb] = missing as [CelErr, CelErr];
    return (f) => {
      const o = f[slot];
      if (typeof o !== 'object' || o === null || o instanceof CelErr) return obj(o, notRecord) ?? notRecord;
      const p = (o as Rec)[a];
      if (typeof p !== 'object' || p === null) return ma;
      const v = (p as Rec)[b];
      return v === undefined || v === null ? mb : v;
    };
  }
  return (f) => {
    let cur: unknown = f[slot];
    if (typeof cur !== 'object' || cur === null || cur instanceof CelErr) return obj(cur, notRecord) ?? notRecord;
    for (let i = 0; i < path.length; i++) {
      if (typeof cur !== 'object' || cur === null) return missing[i - 1] ?? notRecord;
      cur = (cur as Rec)[path[i] as string];
      if (cur === undefined || cur === null) return missing[i] as CelErr;
    }
    return cur;
  };
}

/** A reader that converts the leaf to its declared CEL type (e.g. an int32 JSON number to int). */
export function typedReader(fp: FieldPath): (f: Frame) => Value {
  if (fp.path.length === 0) return (f) => f[fp.slot] as Value;
  const raw = rawReader(fp);
  const conv = fieldConverter(fp.path[fp.path.length - 1] as string, fp.leaf);
  return (f) => {
    const v = raw(f);
    return v instanceof CelErr ? v : conv(v);
  };
}

/** has(path): the intermediate records must exist (else error); the last field must be present and not null. */
export function presenceTester(fp: FieldPath): (f: Frame) => Value {
  const parent: FieldPath = { slot: fp.slot, path: fp.path.slice(0, -1), leaf: fp.leaf };
  const last = fp.path[fp.path.length - 1] as string;
  const readParent = parent.path.length === 0 ? (f: Frame) => f[fp.slot] : rawReader(parent);
  const notRecord = sharedErr(`has() needs a record for '${last}'`);
  return (f) => {
    const o = readParent(f);
    if (o instanceof CelErr) return o;
    if (typeof o !== 'object' || o === null) return notRecord;
    const v = (o as Rec)[last];
    return v !== undefined && v !== null;
  };
}
