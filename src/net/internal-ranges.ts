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
  { cidr: 'ff00::/8', what: 'multicast' },
];

const PARSED: readonly { readonly range: InternalRange; readonly cidr: CIDR }[] = INTERNAL_RANGES.map((range) => ({ range, cidr: parseCIDR(range.cidr) as CIDR }));

/**
 * NAT64's well-known prefix (RFC 6052) carries an IPv4 address in its last 32 bits, as IPv4-mapped IPv6
 * does; both reach that IPv4 address, so they are judged by it.
 */
const NAT64 = parseCIDR('64:ff9b::/96') as CIDR;

/** The address a socket reaches for this text: IPv4-mapped and NAT64 IPv6 read as their IPv4 address; undefined when it is not an address. */
export function reachedAddress(text: string): IPAddr | undefined {
  const ip = parseSocketAddress(text);
  if (ip === undefined || !cidrContainsIP(NAT64, ip)) return ip;
  return { family: 4, w0: ip.w3, w1: 0, w2: 0, w3: 0 };
}

/** The internal range holding this address, or undefined for an address of the internet. */
export function internalRangeOf(ip: IPAddr): InternalRange | undefined {
  return PARSED.find((p) => cidrContainsIP(p.cidr, ip))?.range;
}
