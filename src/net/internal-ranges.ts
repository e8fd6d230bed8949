// The address ranges that lead inside a network rather than to the internet: loopback, link-local
// (where cloud metadata services answer), private, shared, multicast and unspecified addresses. What
// customers point destinations at may not resolve into them (src/delivery/egress-rules.ts).
import { cidrContainsIP, parseCIDR, parseSocketAddress, type CIDR, type IPAddr } from './ip.js';

export interface InternalRange {
  readonly cidr: string;
  /** What the range is, completing "… is a <what> address". */
  readonly what: string;
}

/** RFC 6890's special-purpose ranges that reach inside a host or a network; the rest of the space is the internet's. */
export const INTERNAL_RANGES: readonly InternalRange[] = [
  { cidr: '0.0.0.0/8', what: 'unspecified ("this network", RFC 1122)' },
  { cidr: '10.0.0.0/8', what: 'private (RFC 1918)' },
  { cidr: '100.64.0.0/10', what: 'shared (carrier-grade NAT, RFC 6598)' },
  { cidr: '127.0.0.0/8', what: 'loopback' },
  { cidr: '169.254.0.0/16', what: 'link-local (cloud metadata services answer there)' },
  { cidr: '172.16.0.0/12', what: 'private (RFC 1918)' },
  { cidr: '192.168.0.0/16', what: 'private (RFC 1918)' },
  { cidr: '224.0.0.0/4', what: 'multicast' },
  { cidr: '255.255.255.255/32', what: 'broadcast' },
  { cidr: '::/128', what: 'unspecified' },
  { cidr: '::1/128', what: 'loopback' },
  { cidr: 'fc00::/7', what: 'unique local (private, RFC 4193)' },
  { cidr: 'fe80::/10', what: 'link-local' },
  { cidr: 'fec0::/10', what: 'site-local (deprecated, RFC 3879)' },
  { cidr: 'ff00::/8', what: 'multicast' },
  // IPv6 ranges whose translators or relays lead to IPv4 addresses that cannot be judged from the text.
  { cidr: '64:ff9b:1::/48', what: 'local-use NAT64 (RFC 8215, translated by the network itself)' },
  { cidr: '2001::/32', what: 'Teredo (RFC 4380, relayed to the IPv4 addresses it carries)' },
];

const PARSED: readonly { readonly range: InternalRange; readonly cidr: CIDR }[] = INTERNAL_RANGES.map((range) => ({ range, cidr: parseCIDR(range.cidr) as CIDR }));

/**
 * IPv6 ranges that carry an IPv4 address and reach it: such an address is judged by the IPv4 address,
 * as IPv4-mapped IPv6 (::ffff:0:0/96) is when it is parsed (ip.ts parseSocketAddress). SECURITY.md "Egress".
 */
const EMBEDDING: readonly { readonly cidr: CIDR; readonly ipv4: (ip: IPAddr) => number }[] = [
  // NAT64's well-known prefix (RFC 6052): a translator reaches the last 32 bits.
  { cidr: parseCIDR('64:ff9b::/96') as CIDR, ipv4: (ip) => ip.w3 },
  // IPv4-translated (RFC 6145, ::ffff:0:a.b.c.d): the last 32 bits.
  { cidr: parseCIDR('::ffff:0:0:0/96') as CIDR, ipv4: (ip) => ip.w3 },
  // IPv4-compatible (RFC 4291, deprecated, ::a.b.c.d): the last 32 bits; :: and ::1 are themselves.
  { cidr: parseCIDR('::/96') as CIDR, ipv4: (ip) => ip.w3 },
  // 6to4 (RFC 3056, 2002:aabb:ccdd::/48): a relay reaches the 32 bits after the prefix.
  { cidr: parseCIDR('2002::/16') as CIDR, ipv4: (ip) => (ip.w0 << 16) | (ip.w1 >>> 16) },
];

const UNSPECIFIED_OR_LOOPBACK = parseCIDR('::/127') as CIDR;

/** The address a socket reaches for this text: IPv6 that carries an IPv4 address (EMBEDDING, IPv4-mapped) reads as that; undefined when it is not an address. */
export function reachedAddress(text: string): IPAddr | undefined {
  const ip = parseSocketAddress(text);
  if (ip === undefined || ip.family === 4 || cidrContainsIP(UNSPECIFIED_OR_LOOPBACK, ip)) return ip;
  const embedding = EMBEDDING.find((e) => cidrContainsIP(e.cidr, ip));
  return embedding === undefined ? ip : { family: 4, w0: embedding.ipv4(ip), w1: 0, w2: 0, w3: 0 };
}

/** The internal range holding this address, or undefined for an address of the internet. */
export function internalRangeOf(ip: IPAddr): InternalRange | undefined {
  return PARSED.find((p) => cidrContainsIP(p.cidr, ip))?.range;
}
