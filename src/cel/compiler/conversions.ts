// Type conversions int(), uint(), double(), string(), bytes(), bool(), type() and size(), with cel-go's range rules.
import {
  CelErr,
  CelMap,
  CelTypeValue,
  CelUint,
  INT64_MAX,
  INT64_MIN,
  UINT64_MAX,
  isOpaque,
  noSuchOverload,
  runtimeTypeName,
  type Value,
} from './values.js';

const rangeError = (what: string): CelErr => new CelErr(`${what} out of range`);
const TWO63 = 9223372036854775808;
const TWO64 = 18446744073709551616;
const DECIMAL_INT = /^[+-]?\d+$/;
// Go's strconv.ParseFloat accepts decimal and exponent forms and the words inf, infinity and nan.
const DECIMAL_FLOAT = /^[+-]?(\d+\.?\d*([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?)$/;
const SPECIAL_FLOAT = /^([+-])?(inf|infinity|nan)$/i;

export function toInt(v: Value): Value {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number') {
    // cel-go: both bounds exclusive, since -2^63 as a double is rejected too.
    if (Number.isNaN(v) || v <= -TWO63 || v >= TWO63) return rangeError('int');
    return BigInt(Math.trunc(v));
  }
  if (v instanceof CelUint) return v.value > INT64_MAX ? rangeError('int') : v.value;
  if (typeof v === 'string') {
    if (!DECIMAL_INT.test(v)) return new CelErr(`cannot convert '${v}' to int`);
    const n = BigInt(v);
    return n > INT64_MAX || n < INT64_MIN ? rangeError('int') : n;
  }
  if (v instanceof CelErr) return v;
  return noSuchOverload('int', v);
}

export function toUint(v: Value): Value {
  if (v instanceof CelUint) return v;
  if (typeof v === 'bigint') return v < 0n ? rangeError('uint') : new CelUint(v);
  if (typeof v === 'number') {
    if (Number.isNaN(v) || v < 0 || v >= TWO64) return rangeError('uint');
    return new CelUint(BigInt(Math.trunc(v)));
  }
  if (typeof v === 'string') {
    if (!/^\+?\d+$/.test(v)) return new CelErr(`cannot convert '${v}' to uint`);
    const n = BigInt(v);
    return n > UINT64_MAX ? rangeError('uint') : new CelUint(n);
  }
  if (v instanceof CelErr) return v;
  return noSuchOverload('uint', v);
}

export function toDouble(v: Value): Value {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (v instanceof CelUint) return Number(v.value);
  if (typeof v === 'string') {
    if (DECIMAL_FLOAT.test(v)) return Number(v);
    const m = SPECIAL_FLOAT.exec(v);
    if (m !== null) {
      if ((m[2] as string).toLowerCase() === 'nan') return NaN;
      return m[1] === '-' ? -Infinity : Infinity;
    }
    return new CelErr(`cannot convert '${v}' to double`);
  }
  if (v instanceof CelErr) return v;
  return noSuchOverload('double', v);
}

const utf8 = new TextDecoder('utf-8', { fatal: true });
const utf8Encoder = new TextEncoder();

export function toStringValue(v: Value): Value {
  switch (typeof v) {
    case 'string':
      return v;
    case 'bigint':
      return v.toString();
    case 'number':
      return formatDouble(v);
    case 'boolean':
      return v ? 'true' : 'false';
  }
  if (v instanceof CelUint) return v.value.toString();
  if (v instanceof Uint8Array) {
    try {
      return utf8.decode(v);
    } catch {
      return new CelErr('invalid UTF-8 in bytes converted to string');
    }
  }
  if (v instanceof CelErr) return v;
  if (isOpaque(v)) return v.celString();
  return noSuchOverload('string', v);
}

export function toBytes(v: Value): Value {
  if (v instanceof Uint8Array) return v;
  if (typeof v === 'string') return utf8Encoder.encode(v);
  if (v instanceof CelErr) return v;
  return noSuchOverload('bytes', v);
}

const TRUE_WORDS = new Set(['1', 't', 'true', 'TRUE', 'True']);
const FALSE_WORDS = new Set(['0', 'f', 'false', 'FALSE', 'False']);

export function toBool(v: Value): Value {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') {
    if (TRUE_WORDS.has(v)) return true;
    if (FALSE_WORDS.has(v)) return false;
    return new CelErr(`cannot convert '${v}' to bool`);
  }
  if (v instanceof CelErr) return v;
  return noSuchOverload('bool', v);
}

export function typeOfValue(v: Value): Value {
  if (v instanceof CelErr) return v;
  return CelTypeValue.of(runtimeTypeName(v));
}

/** Number of Unicode code points; CEL's size(string) does not count UTF-16 units. */
export function codePointLength(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

export function size(v: Value): Value {
  if (typeof v === 'string') return BigInt(codePointLength(v));
  if (Array.isArray(v)) return BigInt(v.length);
  if (v instanceof CelMap) return BigInt(v.size);
  if (v instanceof Uint8Array) return BigInt(v.length);
  if (v instanceof CelErr) return v;
  return noSuchOverload('size', v);
}

/**
 * Formats a double as cel-go's string(double) does, i.e. Go's fmt "%g": the shortest digits that
 * round-trip, in exponent form (two-digit exponent at least) when the exponent is below -4 or at
 * least 6 (strconv: "if precision was the shortest possible, use precision 6 for this decision").
 */
export function formatDouble(d: number): string {
  if (Number.isNaN(d)) return 'NaN';
  if (d === Infinity) return '+Inf';
  if (d === -Infinity) return '-Inf';
  if (d === 0) return Object.is(d, -0) ? '-0' : '0';
  const [mant, expText] = d.toExponential().split('e') as [string, string];
  const exp = Number(expText);
  if (exp < -4 || exp >= 6) {
    const sign = exp < 0 ? '-' : '+';
    const abs = Math.abs(exp);
    return `${mant}e${sign}${abs < 10 ? '0' : ''}${abs}`;
  }
  return String(d);
}
