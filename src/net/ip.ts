// IP addresses and CIDR ranges with the semantics of cel-go's network extension (ext/network.go): the one place for IP/CIDR logic.
//
// cel-go parses with Go's net/netip and then narrows it: "It parses IPs strictly: IPv4-mapped IPv6
// addresses and IP zones are not allowed." So, as in netip.ParseAddr:
// - IPv4 is exactly four decimal octets, 0-255, with no leading zeros ("01.2.3.4" is rejected);
// - IPv6 has 1-4 hex digits per group, at most one "::" that stands for at least one zero group,
//   and may end with an embedded IPv4 in place of its last two groups ("::1.2.3.4");
// - a zone ("fe80::1%eth0") and an IPv4-mapped address (::ffff:0:0/96, in any spelling) are errors.
// A CIDR is "<addr>/<bits>" (netip.ParsePrefix): bits in decimal without sign or leading zero,
// at most 32 or 128. Host bits are kept, as in Go: cidr("192.168.1.5/24").ip() is 192.168.1.5, and
// its string form is "192.168.1.5/24"; maskCIDR gives the masked form.
//
// An address is four 32-bit words, big-endian, held as signed int32 so V8 keeps them as small
// integers; an IPv4 address uses w0 only. Parsing is a single pass over char codes: no regex, no
// substrings, one allocation (the result).

import { formatIP } from './ip-format.js';

export type IPFamily = 4 | 6;

export interface IPAddr {
  readonly family: IPFamily;
  /** Bits 0-31 (IPv4: the whole address). Signed int32; use `>>> 0` for the unsigned value. */
  readonly w0: number;
  readonly w1: number;
  readonly w2: number;
  readonly w3: number;
}

export interface CIDR {
  /** The address as written, host bits included. */
  readonly ip: IPAddr;
  /** The prefix length: 0-32 for IPv4, 0-128 for IPv6. */
  readonly bits: number;
}

const makeIP = (family: IPFamily, w0: number, w1: number, w2: number, w3: number): IPAddr => ({
  family,
  w0,
  w1,
  w2,
  w3,
});

/**
 * Parses the dotted-quad IPv4 text in s[start, end) and returns the address as an unsigned 32-bit
 * number, or -1 when it is not one (netip's parseIPv4Fields rules).
 */
export function parseIPv4Word(s: string, start = 0, end = s.length): number {
  let word = 0;
  let octet = 0;
  let digits = 0;
  let dots = 0;
  for (let i = start; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      if (digits === 1 && octet === 0) return -1; // leading zero
      octet = octet * 10 + (c - 48);
      if (octet > 255) return -1;
      digits++;
    } else if (c === 46) {
      if (digits === 0 || dots === 3) return -1;
      word = (word << 8) | octet;
      dots++;
      octet = 0;
      digits = 0;
    } else {
      return -1;
    }
  }
  if (dots !== 3 || digits === 0) return -1;
  return ((word << 8) | octet) >>> 0;
}

/** The value of each hex digit's char code, -1 for every other code below 128. */
const HEX_VALUE = Int8Array.from({ length: 128 }, (_, c) => {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 97 && c <= 102) return c - 87;
  if (c >= 65 && c <= 70) return c - 55;
  return -1;
});

function hexValue(c: number): number {
  return c < 128 ? (HEX_VALUE[c] as number) : -1;
}

/** Parses IPv6 text in s[start, end) into `groups` (eight 16-bit values); false when invalid. */
function parseIPv6Groups(s: string, start: number, end: number, groups: Uint16Array): boolean {
  let i = start;
  let n = 0; // groups written
  let ellipsis = -1; // group index where "::" stands
  if (end - i >= 2 && s.charCodeAt(i) === 58 && s.charCodeAt(i + 1) === 58) {
    ellipsis = 0;
    i += 2;
    if (i === end) {
      groups.fill(0); // "::"
      return true;
    }
  }
  while (n < 8) {
    const groupStart = i;
    let acc = 0;
    while (i < end) {
      const h = hexValue(s.charCodeAt(i));
      if (h < 0) break;
      if (i - groupStart === 4) return false; // more than four digits
      acc = (acc << 4) | h;
      i++;
    }
    if (i === groupStart) return false;
    if (i < end && s.charCodeAt(i) === 46) {
      // An embedded IPv4 must replace the final two groups.
      if ((ellipsis < 0 && n !== 6) || n > 6) return false;
      const v4 = parseIPv4Word(s, groupStart, end);
      if (v4 < 0) return false;
      groups[n++] = v4 >>> 16;
      groups[n++] = v4 & 0xffff;
      i = end;
      break;
    }
    groups[n++] = acc;
    if (i === end) break;
    if (s.charCodeAt(i) !== 58 || i + 1 === end) return false;
    i++;
    if (s.charCodeAt(i) === 58) {
      if (ellipsis >= 0) return false; // a second "::"
      ellipsis = n;
      i++;
      if (i === end) break;
    }
  }
  if (i !== end) return false;
  if (n < 8) {
    if (ellipsis < 0) return false;
    const shift = 8 - n;
    for (let j = n - 1; j >= ellipsis; j--) groups[j + shift] = groups[j] as number;
    for (let j = ellipsis; j < ellipsis + shift; j++) groups[j] = 0;
  } else if (ellipsis >= 0) {
    return false; // "::" must stand for at least one zero group
  }
  return true;
}

// Every group is written by a successful parse ("::" fills them), so nothing is cleared between parses.
const groups = new Uint16Array(8);
const words = new Int32Array(4);

/**
 * Parses s[start, end) as parseIP does into `out` (the four words of IPAddr, an IPv4 address in
 * out[0] and zeros after it), without allocating, and returns the family; 0 when it is no address.
 * With `unmap` an IPv4-mapped IPv6 address is read as the IPv4 address it maps; else it is none.
 */
export function parseIPWords(s: string, start: number, end: number, out: Int32Array, unmap = false): 0 | IPFamily {
  for (let i = start; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c === 46) {
      const w = parseIPv4Word(s, start, end);
      if (w < 0) return 0;
      out[0] = w;
      out[1] = out[2] = out[3] = 0;
      return 4;
    }
    if (c === 58) {
      // A '%' (zone) fails here as an unexpected character: zones are not allowed.
      let w0: number;
      let w1: number;
      let w2: number;
      let w3: number;
      if (parseFullIPv6(s, start, end, out)) {
        w0 = out[0] as number;
        w1 = out[1] as number;
        w2 = out[2] as number;
        w3 = out[3] as number;
      } else {
        if (!parseIPv6Groups(s, start, end, groups)) return 0;
        const g = groups;
        w0 = ((g[0] as number) << 16) | (g[1] as number);
        w1 = ((g[2] as number) << 16) | (g[3] as number);
        w2 = ((g[4] as number) << 16) | (g[5] as number);
        w3 = ((g[6] as number) << 16) | (g[7] as number);
      }
      if (w0 === 0 && w1 === 0 && w2 === 0xffff) {
        // IPv4-mapped: not allowed as an address of its own.
        if (!unmap) return 0;
        out[0] = w3;
        out[1] = out[2] = out[3] = 0;
        return 4;
      }
      out[0] = w0;
      out[1] = w1;
      out[2] = w2;
      out[3] = w3;
      return 6;
    }
  }
  return 0;
}

/**
 * The common spelling of an IPv6 address, eight groups of one to four hex digits and no "::" or
 * embedded IPv4, read in one pass into `out`; false for any other text (which parseIPv6Groups reads).
 */
function parseFullIPv6(s: string, start: number, end: number, out: Int32Array): boolean {
  let acc = 0;
  let digits = 0;
  let group = 0;
  let high = 0;
  for (let i = start; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c === 58) {
      if (digits === 0 || group === 7) return false;
      if ((group & 1) === 0) high = acc;
      else out[group >> 1] = (high << 16) | acc;
      group++;
      acc = 0;
      digits = 0;
      continue;
    }
    const h = hexValue(c);
    if (h < 0 || digits === 4) return false;
    acc = (acc << 4) | h;
    digits++;
  }
  if (digits === 0 || group !== 7) return false;
  out[3] = (high << 16) | acc;
  return true;
}

function parseIPRange(s: string, start: number, end: number, unmap = false): IPAddr | undefined {
  const f = parseIPWords(s, start, end, words, unmap);
  return f === 0 ? undefined : makeIP(f, words[0] as number, words[1] as number, words[2] as number, words[3] as number);
}

/** ip(string) of cel-go's network extension: the address, or undefined when cel-go returns an error. */
export function parseIP(s: string): IPAddr | undefined {
  return parseIPRange(s, 0, s.length);
}

/**
 * An address as a socket reaches it (an answer of DNS, a URL's host): as parseIP, but an IPv4-mapped IPv6
 * address (::ffff:a.b.c.d, in any spelling) is read as the IPv4 address it reaches.
 */
export function parseSocketAddress(s: string): IPAddr | undefined {
  return parseIPRange(s, 0, s.length, true);
}

/** cidr(string) of cel-go's network extension: the range (host bits kept), or undefined when invalid. */
export function parseCIDR(s: string): CIDR | undefined {
  const slash = s.lastIndexOf('/');
  if (slash < 0) return undefined;
  const ip = parseIPRange(s, 0, slash);
  if (ip === undefined) return undefined;
  const digits = s.length - slash - 1;
  // netip: "strconv.Atoi accepts a leading sign and leading zeros, but we don't want that."
  if (digits === 0 || digits > 3) return undefined;
  let bits = 0;
  for (let i = slash + 1; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return undefined;
    if (i === slash + 1 && c === 48 && digits > 1) return undefined;
    bits = bits * 10 + (c - 48);
  }
  if (bits > (ip.family === 4 ? 32 : 128)) return undefined;
  return { ip, bits };
}

export function family(ip: IPAddr): IPFamily {
  return ip.family;
}

/** The mask of word `index` (0-3) for a prefix of `bits` bits, as a signed int32. */
export function wordMask(bits: number, index: number): number {
  const b = bits - index * 32;
  if (b <= 0) return 0;
  if (b >= 32) return -1;
  return -1 << (32 - b);
}

/** Whether `ip` falls inside `c` (netip.Prefix.Contains): never across families. */
export function cidrContainsIP(c: CIDR, ip: IPAddr): boolean {
  const a = c.ip;
  if (a.family !== ip.family) return false;
  const bits = c.bits;
  if (((a.w0 ^ ip.w0) & wordMask(bits, 0)) !== 0) return false;
  if (bits <= 32) return true;
  return (
    ((a.w1 ^ ip.w1) & wordMask(bits, 1)) === 0 &&
    ((a.w2 ^ ip.w2) & wordMask(bits, 2)) === 0 &&
    ((a.w3 ^ ip.w3) & wordMask(bits, 3)) === 0
  );
}

/** cel-go's containsCIDR: `parent.Overlaps(child) && parent.Bits() <= child.Bits()`. */
export function cidrContainsCIDR(parent: CIDR, child: CIDR): boolean {
  return parent.bits <= child.bits && cidrContainsIP(parent, child.ip);
}

export function ipEquals(a: IPAddr, b: IPAddr): boolean {
  return a.family === b.family && a.w0 === b.w0 && a.w1 === b.w1 && a.w2 === b.w2 && a.w3 === b.w3;
}

/** netip.Prefix equality, which cel-go uses for `==` on cidr values: same address (host bits included) and length. */
export function cidrEquals(a: CIDR, b: CIDR): boolean {
  return a.bits === b.bits && ipEquals(a.ip, b.ip);
}

/** True when every bit after the prefix is zero, i.e. the CIDR is in its normalized form. */
export function hasZeroHostBits(c: CIDR): boolean {
  const ip = c.ip;
  return (
    (ip.w0 & ~wordMask(c.bits, 0)) === 0 &&
    (ip.w1 & ~wordMask(c.bits, 1)) === 0 &&
    (ip.w2 & ~wordMask(c.bits, 2)) === 0 &&
    (ip.w3 & ~wordMask(c.bits, 3)) === 0
  );
}

/** cidr.masked() of cel-go (netip.Prefix.Masked): the same range with its host bits cleared. */
export function maskCIDR(c: CIDR): CIDR {
  const { ip, bits } = c;
  const masked = makeIP(
    ip.family,
    ip.w0 & wordMask(bits, 0),
    ip.w1 & wordMask(bits, 1),
    ip.w2 & wordMask(bits, 2),
    ip.w3 & wordMask(bits, 3),
  );
  return { ip: masked, bits };
}

/** Bit `index` (0 = most significant) of the address. */
export function ipBit(ip: IPAddr, index: number): number {
  const w = index < 32 ? ip.w0 : index < 64 ? ip.w1 : index < 96 ? ip.w2 : ip.w3;
  return (w >>> (31 - (index & 31))) & 1;
}

/** ip.isCanonical(string) of cel-go: the text parses and is exactly the RFC 5952 form; undefined when it does not parse (an error in CEL). */
export function isCanonicalIP(s: string): boolean | undefined {
  const ip = parseIP(s);
  return ip === undefined ? undefined : formatIP(ip) === s;
}

export { formatCIDR, formatIP } from './ip-format.js';
export {
  isGlobalUnicast,
  isLinkLocalMulticast,
  isLinkLocalUnicast,
  isLoopback,
  isUnspecified,
} from './ip-class.js';
