// Checked int64/uint64 arithmetic and double arithmetic, dispatched on run-time operand types.
//
// CEL spec, Arithmetic: int and uint operations "return an error on overflow"; division by zero and
// modulus by zero are errors; integer division truncates toward zero (as bigint division does).
import {
  CelErr,
  CelUint,
  INT64_MAX,
  INT64_MIN,
  UINT64_MAX,
  divideByZero,
  moduloByZero,
  noSuchOverload,
  overflow,
  type Value,
} from './values.js';

export function checkedInt(r: bigint): bigint | CelErr {
  return r > INT64_MAX || r < INT64_MIN ? overflow() : r;
}

function checkedUint(r: bigint): CelUint | CelErr {
  return r > UINT64_MAX || r < 0n ? overflow() : new CelUint(r);
}

function concatBytes(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

export function add(a: Value, b: Value): Value {
  if (typeof a === 'bigint' && typeof b === 'bigint') return checkedInt(a + b);
  if (typeof a === 'number' && typeof b === 'number') return a + b;
  if (typeof a === 'string' && typeof b === 'string') return a + b;
  if (a instanceof CelUint && b instanceof CelUint) return checkedUint(a.value + b.value);
  if (Array.isArray(a) && Array.isArray(b)) return (a as readonly Value[]).concat(b as readonly Value[]);
  if (a instanceof Uint8Array && b instanceof Uint8Array) return concatBytes(a, b);
  return badOperands('_+_', a, b);
}

export function subtract(a: Value, b: Value): Value {
  if (typeof a === 'bigint' && typeof b === 'bigint') return checkedInt(a - b);
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (a instanceof CelUint && b instanceof CelUint) return checkedUint(a.value - b.value);
  return badOperands('_-_', a, b);
}

export function multiply(a: Value, b: Value): Value {
  if (typeof a === 'bigint' && typeof b === 'bigint') return checkedInt(a * b);
  if (typeof a === 'number' && typeof b === 'number') return a * b;
  if (a instanceof CelUint && b instanceof CelUint) return checkedUint(a.value * b.value);
  return badOperands('_*_', a, b);
}

export function divide(a: Value, b: Value): Value {
  if (typeof a === 'bigint' && typeof b === 'bigint') {
    if (b === 0n) return divideByZero();
    // INT64_MIN / -1 is the one quotient that does not fit.
    return checkedInt(a / b);
  }
  if (typeof a === 'number' && typeof b === 'number') return a / b;
  if (a instanceof CelUint && b instanceof CelUint) {
    if (b.value === 0n) return divideByZero();
    return new CelUint(a.value / b.value);
  }
  return badOperands('_/_', a, b);
}

export function modulo(a: Value, b: Value): Value {
  if (typeof a === 'bigint' && typeof b === 'bigint') {
    if (b === 0n) return moduloByZero();
    // cel-go reports INT64_MIN % -1 as overflow, mirroring the division it implies.
    if (b === -1n && a === INT64_MIN) return overflow();
    return a % b;
  }
  if (a instanceof CelUint && b instanceof CelUint) {
    if (b.value === 0n) return moduloByZero();
    return new CelUint(a.value % b.value);
  }
  return badOperands('_%_', a, b);
}

export function negate(a: Value): Value {
  if (typeof a === 'bigint') return checkedInt(-a);
  if (typeof a === 'number') return -a;
  if (a instanceof CelErr) return a;
  return noSuchOverload('-_', a);
}

function badOperands(fn: string, a: Value, b: Value): CelErr {
  if (a instanceof CelErr) return a;
  if (b instanceof CelErr) return b;
  return noSuchOverload(fn, a, b);
}
