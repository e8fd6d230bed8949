// cel-go's network extension (ext.Network: ip, cidr, isIP, isCIDR, containsIP, containsCIDR, family, ...) plus inCidrRange.
//
// Parsing and containment live in src/net/ip.ts; this file wraps them as CEL values and functions.
// As in cel-go, a string that does not parse is an error value, and equality compares addresses.
import {
  cidrContainsCIDR,
  cidrContainsIP,
  cidrEquals,
  formatCIDR,
  formatIP,
  ipEquals,
  maskCIDR,
  parseCIDR,
  parseIP,
  type CIDR,
  type IPAddr,
} from '../../net/ip.js';
import { isGlobalUnicast, isLinkLocalMulticast, isLinkLocalUnicast, isLoopback, isUnspecified } from '../../net/ip-class.js';
import type { Impl1, Impl2 } from './runtime.js';
import { CelErr, noSuchOverload, type OpaqueValue, type Value } from './values.js';

export class IPValue implements OpaqueValue {
  readonly celTypeName = 'net.IP';
  constructor(readonly ip: IPAddr) {}
  celEquals(other: OpaqueValue): boolean {
    return other instanceof IPValue && ipEquals(this.ip, other.ip);
  }
  celString(): string {
    return formatIP(this.ip);
  }
}

export class CIDRValue implements OpaqueValue {
  readonly celTypeName = 'net.CIDR';
  constructor(readonly cidr: CIDR) {}
  celEquals(other: OpaqueValue): boolean {
    return other instanceof CIDRValue && cidrEquals(this.cidr, other.cidr);
  }
  celString(): string {
    return formatCIDR(this.cidr);
  }
}

export const badIP = (s: string): CelErr => new CelErr(`IP Address '${s}' parse error during conversion from string`);
export const badCIDR = (s: string): CelErr => new CelErr(`CIDR '${s}' parse error during conversion from string`);

/** An IP from an ip value or a string (inCidrRange and containsIP accept both). */
export function asIP(v: Value): IPAddr | CelErr {
  if (v instanceof IPValue) return v.ip;
  if (typeof v === 'string') return parseIP(v) ?? badIP(v);
  return v instanceof CelErr ? v : noSuchOverload('ip', v);
}

export function asCIDR(v: Value): CIDR | CelErr {
  if (v instanceof CIDRValue) return v.cidr;
  if (typeof v === 'string') return parseCIDR(v) ?? badCIDR(v);
  return v instanceof CelErr ? v : noSuchOverload('cidr', v);
}

function ipMethod(fn: string, op: (ip: IPAddr) => Value): Impl1 {
  return (v) => (v instanceof IPValue ? op(v.ip) : noSuchOverload(fn, v));
}

function cidrMethod(fn: string, op: (c: CIDR) => Value): Impl1 {
  return (v) => (v instanceof CIDRValue ? op(v.cidr) : noSuchOverload(fn, v));
}

export function inCidrRange(ipArg: Value, cidrArg: Value): Value {
  const c = asCIDR(cidrArg);
  if (c instanceof CelErr) return c;
  const ip = asIP(ipArg);
  return ip instanceof CelErr ? ip : cidrContainsIP(c, ip);
}

export const NETWORK_UNARY: ReadonlyMap<string, Impl1> = new Map<string, Impl1>([
  [
    'ip',
    (v) => {
      if (typeof v !== 'string') return noSuchOverload('ip', v);
      const ip = parseIP(v);
      return ip === undefined ? badIP(v) : new IPValue(ip);
    },
  ],
  [
    'cidr',
    (v) => {
      if (typeof v !== 'string') return noSuchOverload('cidr', v);
      const c = parseCIDR(v);
      return c === undefined ? badCIDR(v) : new CIDRValue(c);
    },
  ],
  ['isIP', (v) => (typeof v === 'string' ? parseIP(v) !== undefined : noSuchOverload('isIP', v))],
  ['isCIDR', (v) => (typeof v === 'string' ? parseCIDR(v) !== undefined : noSuchOverload('isCIDR', v))],
]);

export const NETWORK_BINARY: ReadonlyMap<string, Impl2> = new Map<string, Impl2>([['inCidrRange', inCidrRange]]);

export const NETWORK_METHODS_1: ReadonlyMap<string, Impl1> = new Map<string, Impl1>([
  ['family', ipMethod('family', (ip) => BigInt(ip.family))],
  ['isLoopback', ipMethod('isLoopback', isLoopback)],
  ['isUnspecified', ipMethod('isUnspecified', isUnspecified)],
  ['isGlobalUnicast', ipMethod('isGlobalUnicast', isGlobalUnicast)],
  ['isLinkLocalMulticast', ipMethod('isLinkLocalMulticast', isLinkLocalMulticast)],
  ['isLinkLocalUnicast', ipMethod('isLinkLocalUnicast', isLinkLocalUnicast)],
  ['ip', cidrMethod('ip', (c) => new IPValue(c.ip))],
  ['masked', cidrMethod('masked', (c) => new CIDRValue(maskCIDR(c)))],
  ['prefixLength', cidrMethod('prefixLength', (c) => BigInt(c.bits))],
]);

export const NETWORK_METHODS_2: ReadonlyMap<string, Impl2> = new Map<string, Impl2>([
  [
    'containsIP',
    (c, x) => {
      if (!(c instanceof CIDRValue) || !(x instanceof IPValue || typeof x === 'string')) return noSuchOverload('containsIP', c, x);
      const ip = asIP(x);
      return ip instanceof CelErr ? ip : cidrContainsIP(c.cidr, ip);
    },
  ],
  [
    'containsCIDR',
    (c, x) => {
      if (!(c instanceof CIDRValue) || !(x instanceof CIDRValue || typeof x === 'string')) return noSuchOverload('containsCIDR', c, x);
      const child = asCIDR(x);
      return child instanceof CelErr ? child : cidrContainsCIDR(c.cidr, child);
    },
  ],
]);
