// Compile-time specialisations of the hottest filter shapes: a record field compared with, tested
// against, or searched for a constant. They read the raw field (a JSON number stays a number) and
// skip the general dispatch, with exactly the general path's results, errors included.
//
// A test of a two-step path (group.field, the shape of every Filterable field) is built as a test of
// the group object (see group.ts), so that the && and || of several such tests read the group once.
// The leaf reads its field in place: a closure that called a shared reader closure would pay an
// extra polymorphic call and share that reader's property-load feedback with every other field.
// Other paths take the general, equally correct, route.
import { compareStrings } from './equality.js';
import { groupFn, type GroupPredicate, type GroupTest } from './group.js';
import { CIDRValue, asCIDR, asIP, badIP } from './network.js';
import type { FieldPath, Fn, Node } from './node.js';
import { compileRegex, type CompiledRegex } from './regex.js';
import { cidrContainsIP, parseCIDR, parseIP, type CIDR } from '../../net/ip.js';
import { CelErr, noSuchOverload, sharedErr, sharedNoSuchKey, type Value } from './values.js';

type Report = (message: string) => void;

/** A specialised call: its closure, and its group test when it tests one field of a group. */
export interface Special {
  readonly fn: Fn;
  readonly group?: GroupPredicate;
}

const MIRROR: Readonly<Record<string, string>> = {
  '_==_': '_==_',
  '_!=_': '_!=_',
  '_<_': '_>_',
  '_<=_': '_>=_',
  '_>_': '_<_',
  '_>=_': '_<=_',
};

/** Ordering operators as small integers so a closure can test them without calling anything. */
const LT = 0;
const LE = 1;
const GT = 2;
const GE = 3;
const ORDER: Readonly<Record<string, number>> = { '_<_': LT, '_<=_': LE, '_>_': GT, '_>=_': GE };

const holds = (op: number, c: number): boolean => (op === LT ? c < 0 : op === LE ? c <= 0 : op === GT ? c > 0 : c >= 0);

/** A two-step field path with its prebuilt errors, so a record without the field allocates nothing. */
interface Site {
  readonly slot: number;
  /** The group, the first name after the variable. */
  readonly a: string;
  /** The field within the group. */
  readonly b: string;
  readonly missingB: CelErr;
  /** The error for a present field of the wrong type. */
  readonly wrongType: CelErr;
}

function siteOf(n: Node, kind: 'int' | 'string'): Site | undefined {
  const fp: FieldPath | undefined = n.field;
  if (fp === undefined || fp.path.length !== 2 || fp.leaf.kind !== kind) return undefined;
  const [a, b] = fp.path as [string, string];
  return {
    slot: fp.slot,
    a,
    b,
    missingB: sharedNoSuchKey(`'${b}'`),
    wrongType: sharedErr(`field '${b}' does not hold a ${kind}`),
  };
}

/** The special form of a test of one group field. */
function onGroup(s: Site, test: GroupTest): Special {
  const group: GroupPredicate = { slot: s.slot, name: s.a, test };
  return { fn: groupFn(group), group };
}

const constantOf = (n: Node): Value | undefined => n.constant?.value;

const isSafe = (c: bigint): boolean => c >= BigInt(Number.MIN_SAFE_INTEGER) && c <= BigInt(Number.MAX_SAFE_INTEGER);

function compareInt(op: string, s: Site, c: bigint): Special | undefined {
  if (!isSafe(c)) return undefined;
  const n = Number(c);
  const { b, missingB, wrongType } = s;
  if (op === '_==_' || op === '_!=_') {
    const eq = op === '_==_';
    return onGroup(s, (p) => {
      const v = p[b];
      if (typeof v === 'number') return v === n ? eq : Number.isSafeInteger(v) ? !eq : wrongType;
      if (typeof v === 'bigint') return (v === c) === eq;
      return v === undefined || v === null ? missingB : wrongType;
    });
  }
  const ord = ORDER[op] as number;
  return onGroup(s, (p) => {
    const v = p[b];
    if (typeof v === 'number' && Number.isSafeInteger(v)) return holds(ord, v < n ? -1 : v > n ? 1 : 0);
    if (typeof v === 'bigint') return holds(ord, v < c ? -1 : v > c ? 1 : 0);
    return v === undefined || v === null ? missingB : wrongType;
  });
}

function compareString(op: string, s: Site, str: string): Special {
  const { b, missingB, wrongType } = s;
  if (op === '_==_' || op === '_!=_') {
    const eq = op === '_==_';
    return onGroup(s, (p) => {
      const v = p[b];
      if (typeof v === 'string') return (v === str) === eq;
      return v === undefined || v === null ? missingB : wrongType;
    });
  }
  const ord = ORDER[op] as number;
  return onGroup(s, (p) => {
    const v = p[b];
    if (typeof v === 'string') return holds(ord, compareStrings(v, str));
    return v === undefined || v === null ? missingB : wrongType;
  });
}

function comparison(op: string, x: Node, y: Node): Special | undefined {
  let field = x;
  let c = constantOf(y);
  let effective = op;
  if (c === undefined) {
    c = constantOf(x);
    field = y;
    effective = MIRROR[op] as string;
  }
  if (typeof c === 'bigint') {
    const s = siteOf(field, 'int');
    return s && compareInt(effective, s, c);
  }
  if (typeof c === 'string') {
    const s = siteOf(field, 'string');
    return s && compareString(effective, s, c);
  }
  return undefined;
}

/** `field in [constants]`: a linear scan for a few values, a Set beyond that. */
function membership(x: Node, list: Node): Special | undefined {
  const items = constantOf(list);
  if (!Array.isArray(items) || items.length === 0) return undefined;
  const values = items as readonly Value[];
  if (values.every((v) => typeof v === 'bigint' && isSafe(v))) {
    const s = siteOf(x, 'int');
    if (s === undefined) return undefined;
    const { b, missingB, wrongType } = s;
    const nums = values.map(Number);
    const set = new Set(nums);
    const bigs = new Set(values as readonly bigint[]);
    const few = nums.length <= 8;
    return onGroup(s, (p) => {
      const v = p[b];
      if (typeof v === 'number') return (few ? nums.includes(v) : set.has(v)) || (Number.isSafeInteger(v) ? false : wrongType);
      if (typeof v === 'bigint') return bigs.has(v);
      return v === undefined || v === null ? missingB : wrongType;
    });
  }
  if (values.every((v) => typeof v === 'string')) {
    const s = siteOf(x, 'string');
    if (s === undefined) return undefined;
    const { b, missingB, wrongType } = s;
    const strs = values as readonly string[];
    const set = new Set(strs);
    const few = strs.length <= 8;
    return onGroup(s, (p) => {
      const v = p[b];
      if (typeof v === 'string') return few ? strs.includes(v) : set.has(v);
      return v === undefined || v === null ? missingB : wrongType;
    });
  }
  return undefined;
}

function stringMethod(name: string, recv: Node, arg: Node): Special | undefined {
  const str = constantOf(arg);
  if (typeof str !== 'string') return undefined;
  const s = siteOf(recv, 'string');
  if (s === undefined) {
    const fn = stringMethodOnValue(name, recv, str);
    return fn && { fn };
  }
  const { b, missingB, wrongType } = s;
  switch (name) {
    case 'startsWith':
      return onGroup(s, (p) => {
        const v = p[b];
        if (typeof v === 'string') return v.startsWith(str);
        return v === undefined || v === null ? missingB : wrongType;
      });
    case 'endsWith':
      return onGroup(s, (p) => {
        const v = p[b];
        if (typeof v === 'string') return v.endsWith(str);
        return v === undefined || v === null ? missingB : wrongType;
      });
    case 'contains':
      return onGroup(s, (p) => {
        const v = p[b];
        if (typeof v === 'string') return v.includes(str);
        return v === undefined || v === null ? missingB : wrongType;
      });
    default:
      return undefined;
  }
}

/** The same three methods on any string-typed receiver, with the constant argument captured. */
function stringMethodOnValue(name: string, recv: Node, str: string): Fn | undefined {
  const x = recv.fn;
  const other = (v: Value): CelErr => (v instanceof CelErr ? v : noSuchOverload(name, v, str));
  switch (name) {
    case 'startsWith':
      return (f) => {
        const v = x(f);
        return typeof v === 'string' ? v.startsWith(str) : other(v);
      };
    case 'endsWith':
      return (f) => {
        const v = x(f);
        return typeof v === 'string' ? v.endsWith(str) : other(v);
      };
    case 'contains':
      return (f) => {
        const v = x(f);
        return typeof v === 'string' ? v.includes(str) : other(v);
      };
    default:
      return undefined;
  }
}

/** matches() with a constant pattern: compiled once here, and an invalid pattern is a compile problem. */
function matchesConstant(recv: Node, pattern: Node, report: Report): Special | undefined {
  const p = constantOf(pattern);
  if (typeof p !== 'string') return undefined;
  const re: CompiledRegex | CelErr = compileRegex(p);
  if (re instanceof CelErr) {
    report(`The regular expression ${JSON.stringify(p)} is not valid RE2 syntax.`);
    return { fn: () => re };
  }
  const s = siteOf(recv, 'string');
  if (s !== undefined) {
    const { b, missingB, wrongType } = s;
    return onGroup(s, (q) => {
      const v = q[b];
      if (typeof v === 'string') return re.test(v);
      return v === undefined || v === null ? missingB : wrongType;
    });
  }
  const x = recv.fn;
  return {
    fn: (f) => {
      const v = x(f);
      return typeof v === 'string' ? re.test(v) : v instanceof CelErr ? v : noSuchOverload('matches', v, p);
    },
  };
}

function constantCIDR(n: Node, allowString: boolean, report: Report): CIDR | CelErr | undefined {
  const c = constantOf(n);
  if (c instanceof CIDRValue) return c.cidr;
  if (typeof c !== 'string' || !allowString) return undefined;
  const parsed = parseCIDR(c);
  if (parsed !== undefined) return parsed;
  report(`${JSON.stringify(c)} is not a valid CIDR range.`);
  return asCIDR(c) as CelErr;
}

/** cidr(...).containsIP(x) and inCidrRange(x, ...) with a constant range: one parse of x per record. */
function cidrContainsIPConstant(cidrNode: Node, arg: Node, allowString: boolean, report: Report): Special | undefined {
  const c = constantCIDR(cidrNode, allowString, report);
  if (c === undefined) return undefined;
  if (c instanceof CelErr) return { fn: () => c };
  const ipConst = constantOf(arg);
  if (typeof ipConst === 'string' && parseIP(ipConst) === undefined) report(`${JSON.stringify(ipConst)} is not a valid IP address.`);
  const s = siteOf(arg, 'string');
  if (s !== undefined) {
    const { b, missingB, wrongType } = s;
    return onGroup(s, (p) => {
      const v = p[b];
      if (typeof v !== 'string') return v === undefined || v === null ? missingB : wrongType;
      const ip = parseIP(v);
      return ip === undefined ? badIP(v) : cidrContainsIP(c, ip);
    });
  }
  const x = arg.fn;
  return {
    fn: (f) => {
      const ip = asIP(x(f));
      return ip instanceof CelErr ? ip : cidrContainsIP(c, ip);
    },
  };
}

export function specializeCall(name: string, receiver: boolean, args: readonly Node[], report: Report): Special | undefined {
  const [a, b] = args;
  if (a === undefined || b === undefined || args.length !== 2) return undefined;
  if (!receiver) {
    if (name in MIRROR) return comparison(name, a, b);
    if (name === '@in') return membership(a, b);
    if (name === 'matches') return matchesConstant(a, b, report);
    if (name === 'inCidrRange') return cidrContainsIPConstant(b, a, true, report);
    return undefined;
  }
  if (name === 'startsWith' || name === 'endsWith' || name === 'contains') return stringMethod(name, a, b);
  if (name === 'matches') return matchesConstant(a, b, report);
  if (name === 'containsIP') return cidrContainsIPConstant(a, b, false, report);
  if (name === 'containsCIDR') {
    const child = constantOf(b);
    if (constantOf(a) instanceof CIDRValue && typeof child === 'string' && parseCIDR(child) === undefined)
      report(`${JSON.stringify(child)} is not a valid CIDR range.`);
  }
  return undefined;
}
