// Tests on the fields of one record group (e.g. ev.conn), so that a conjunction of field tests reads the group once.
//
// Every Filterable field is `conn.<name>`, so a typical filter is a tree of && and || over tests of
// `ev.conn.<field>` against constants. Compiled leaf by leaf, each test would read `ev`, check it,
// read `conn` and check it again; here the leaves are tests of the group object and the connectives
// combine those tests, and one closure reads the group for the whole tree.
//
// Why that keeps CEL's results: when `ev` is no record or `ev.conn` is absent, every leaf of the
// tree yields the same error, and && or || of an error with itself is that error (CEL spec, Logical
// operators: the result is an error only when no operand decides it, and none can here).
import type { Fn } from './node.js';
import { CelErr, noSuchOverload, sharedNoSuchKey, type Value } from './values.js';

export type Group = Readonly<Record<string, unknown>>;

/** A test of the fields of a group object that is known to be a non-null object. */
export type GroupTest = (group: Group) => Value;

/** An expression equal to `test(variable[name])`, with the errors below when that group cannot be read. */
export interface GroupPredicate {
  /** The frame slot of the variable, e.g. of `ev`. */
  readonly slot: number;
  /** The group's field name on the variable, e.g. "conn" (interned). */
  readonly name: string;
  readonly test: GroupTest;
}

const NOT_RECORD = new CelErr('the event is not a record');

/** The error for a variable that is not an object: an error flows on, anything else is "not a record". */
const notRecord = (o: unknown): CelErr => (o instanceof CelErr ? o : NOT_RECORD);

/** The error for a variable without the group. */
const groupMissing = (name: string): CelErr => sharedNoSuchKey(`'${name}'`);

/** The predicate as a closure over the frame. */
export function groupFn(g: GroupPredicate): Fn {
  const { slot, name, test } = g;
  const missing = groupMissing(name);
  return (f) => {
    const o = f[slot];
    if (typeof o !== 'object' || o === null) return notRecord(o);
    const p = (o as Group)[name];
    if (typeof p !== 'object' || p === null) return missing;
    return test(p as Group);
  };
}

/** The predicate as a function of the variable's value itself, for callers that hold no frame. */
export function groupOnValue(g: GroupPredicate): (value: unknown) => Value {
  const { name, test } = g;
  const missing = groupMissing(name);
  return (o) => {
    if (typeof o !== 'object' || o === null) return notRecord(o);
    const p = (o as Group)[name];
    if (typeof p !== 'object' || p === null) return missing;
    return test(p as Group);
  };
}

export const sameGroup = (x: GroupPredicate | undefined, y: GroupPredicate | undefined): boolean =>
  x !== undefined && y !== undefined && x.slot === y.slot && x.name === y.name;

function logicErr(fn: string, a: Value, b: Value): Value {
  if (a instanceof CelErr) return a;
  if (b instanceof CelErr) return b;
  return noSuchOverload(fn, a, b);
}

/** `x && y` over one group, with codegen's rules: false on either side decides, even against an error. */
export function andTests(x: GroupTest, y: GroupTest): GroupTest {
  return (p) => {
    const a = x(p);
    if (a === false) return false;
    const b = y(p);
    if (b === false) return false;
    if (a === true && b === true) return true;
    return logicErr('_&&_', a, b);
  };
}

export function orTests(x: GroupTest, y: GroupTest): GroupTest {
  return (p) => {
    const a = x(p);
    if (a === true) return true;
    const b = y(p);
    if (b === true) return true;
    if (a === false && b === false) return false;
    return logicErr('_||_', a, b);
  };
}

/** `!x` over one group. */
export function notTest(x: GroupTest): GroupTest {
  return (p) => {
    const a = x(p);
    return typeof a === 'boolean' ? !a : a instanceof CelErr ? a : noSuchOverload('!_', a);
  };
}
