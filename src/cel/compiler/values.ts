// Run-time values of the compiled closures: CEL errors as values, uint, type values and maps.
//
// Representation: int = bigint, uint = CelUint, double = number, bool = boolean, string = string,
// bytes = Uint8Array, null = null, list = readonly array, map = CelMap, type = CelTypeValue.
// A record (the traffic event) stays a plain object and is read through its declared record type.

/**
 * A CEL error value. "Errors are values" (CEL spec, Runtime errors): they flow through the closures
 * like any other result and are never thrown on the hot path.
 */
export class CelErr {
  constructor(readonly message: string) {}
}

export class CelUint {
  constructor(readonly value: bigint) {}
}

export class CelTypeValue {
  private static readonly byName = new Map<string, CelTypeValue>();
  private constructor(readonly name: string) {}
  /** One instance per name, so type values compare by identity. */
  static of(name: string): CelTypeValue {
    let t = CelTypeValue.byName.get(name);
    if (t === undefined) {
      t = new CelTypeValue(name);
      CelTypeValue.byName.set(name, t);
    }
    return t;
  }
}

/**
 * A normalised map key: strings as themselves, int and uint both as bigint (so 1 and 1u are one key,
 * as CEL's heterogeneous equality demands), bools as themselves.
 */
export type MapKey = string | bigint | boolean;

export class CelMap {
  /** Normalised key -> [original key, value]; iteration yields the original keys in insertion order. */
  constructor(readonly entries: ReadonlyMap<MapKey, readonly [Value, Value]>) {}
  get size(): number {
    return this.entries.size;
  }
}

/** Opaque extension values (net.IP, net.CIDR) implement this to take part in equality and type(). */
export interface OpaqueValue {
  readonly celTypeName: string;
  celEquals(other: OpaqueValue): boolean;
  celString(): string;
}

export type Value =
  | null
  | boolean
  | bigint
  | number
  | string
  | Uint8Array
  | CelUint
  | CelMap
  | CelTypeValue
  | CelErr
  | OpaqueValue
  | readonly Value[]
  | Readonly<Record<string, unknown>>;

export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;
export const UINT64_MAX = 2n ** 64n - 1n;

export const isErr = (v: unknown): v is CelErr => v instanceof CelErr;

/** Strings longer than this are left as they are: interning is for names and short constants. */
const MAX_INTERNED = 1024;

/**
 * The interned (flat, unique) copy of a short string. The parser hands out field names and string
 * literals cut from the source text; V8 keeps those as slices, and a closure that reads a property
 * by such a key misses the named-property fast path (it measured at twice the cost of a whole
 * filter). An object literal's own key is always interned, so reading it back yields the copy.
 */
export function internalize(s: string): string {
  if (s.length > MAX_INTERNED) return s;
  for (const k in { [s]: 0 }) return k;
  return s;
}

export function isOpaque(v: unknown): v is OpaqueValue {
  return typeof v === 'object' && v !== null && typeof (v as Partial<OpaqueValue>).celTypeName === 'string';
}

/** An object standing for a record: anything but an array, bytes, a JavaScript Map or one of the value classes above. */
export function isRecordValue(v: unknown): v is Readonly<Record<string, unknown>> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  return !(
    v instanceof Uint8Array ||
    v instanceof Map ||
    v instanceof CelMap ||
    v instanceof CelUint ||
    v instanceof CelTypeValue ||
    v instanceof CelErr ||
    isOpaque(v)
  );
}

/** CEL's runtime type name of a value, as type() reports it. */
export function runtimeTypeName(v: Value): string {
  switch (typeof v) {
    case 'boolean':
      return 'bool';
    case 'bigint':
      return 'int';
    case 'number':
      return 'double';
    case 'string':
      return 'string';
  }
  if (v === null) return 'null_type';
  if (v instanceof Uint8Array) return 'bytes';
  if (v instanceof CelUint) return 'uint';
  if (v instanceof CelMap) return 'map';
  if (v instanceof CelTypeValue) return 'type';
  if (v instanceof CelErr) return 'error';
  if (Array.isArray(v)) return 'list';
  if (isOpaque(v)) return v.celTypeName;
  return 'map';
}

// Error constructors, with cel-go's wording where tests or users may read them.
export const noSuchOverload = (fn: string, ...args: readonly Value[]): CelErr =>
  new CelErr(`found no matching overload for '${fn}' applied to '(${args.map(runtimeTypeName).join(', ')})'`);
export const noSuchKey = (key: unknown): CelErr => new CelErr(`no such key: ${String(key)}`);

/** Most distinct messages sharedErr() keeps; past that it makes a new error each time. */
const SHARED_ERRORS_MAX = 4096;
const sharedErrors = new Map<string, CelErr>();

/**
 * One error object per message, for the errors a compiled program prepares once and returns at run
 * time (a missing field, a field of the wrong type). A CelErr is immutable and errors are never told
 * apart by identity, so programs share them: 10,000 filters made about five each, 5 MiB of heap in
 * all (bench/results/memory.md).
 */
export function sharedErr(message: string): CelErr {
  let e = sharedErrors.get(message);
  if (e === undefined) {
    e = new CelErr(message);
    if (sharedErrors.size < SHARED_ERRORS_MAX) sharedErrors.set(message, e);
  }
  return e;
}

/** The prepared "no such key" error of a read site (see sharedErr). */
export const sharedNoSuchKey = (key: string): CelErr => sharedErr(`no such key: ${key}`);
export const overflow = (): CelErr => new CelErr('integer overflow');
export const divideByZero = (): CelErr => new CelErr('division by zero');
export const moduloByZero = (): CelErr => new CelErr('modulus by zero');

/** The first error among strict arguments, cel-go's rule for which error a call returns. */
export function firstErr(a: Value, b: Value): CelErr | undefined {
  if (a instanceof CelErr) return a;
  if (b instanceof CelErr) return b;
  return undefined;
}

/** Normalises a value for use as a map key; undefined when the value's type cannot be a key. */
export function mapKeyOf(v: Value): MapKey | undefined {
  switch (typeof v) {
    case 'string':
    case 'bigint':
    case 'boolean':
      return v;
  }
  if (v instanceof CelUint) return v.value;
  return undefined;
}

/** Key lookup with CEL's numeric leniency: a double that is a whole number finds an int or uint key. */
export function lookupKey(v: Value): MapKey | undefined {
  if (typeof v === 'number') return Number.isInteger(v) ? BigInt(v) : undefined;
  return mapKeyOf(v);
}
