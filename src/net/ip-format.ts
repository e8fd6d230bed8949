// Canonical text of IP addresses and CIDR ranges, as Go's netip prints them (cel-go's string(ip) and string(cidr)).
import type { CIDR, IPAddr } from './ip.js';

function groupOf(ip: IPAddr, g: number): number {
  const w = g < 2 ? ip.w0 : g < 4 ? ip.w1 : g < 6 ? ip.w2 : ip.w3;
  return (g & 1) === 0 ? w >>> 16 : w & 0xffff;
}

/**
 * IPv4 as a dotted quad; IPv6 in the RFC 5952 form netip.Addr.String() gives: lowercase hex without
 * leading zeros, and the first longest run of two or more zero groups shortened to "::".
 */
export function formatIP(ip: IPAddr): string {
  if (ip.family === 4) {
    const w = ip.w0;
    return `${w >>> 24}.${(w >>> 16) & 255}.${(w >>> 8) & 255}.${w & 255}`;
  }
  let zeroStart = -1;
  let zeroLen = 1; // a run must be longer than this to be shortened
  for (let i = 0; i < 8; ) {
    if (groupOf(ip, i) !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groupOf(ip, j) === 0) j++;
    if (j - i > zeroLen) {
      zeroStart = i;
      zeroLen = j - i;
    }
    i = j;
  }
  let out = '';
  for (let i = 0; i < 8; i++) {
    if (i === zeroStart) {
      out += '::';
      i += zeroLen - 1;
      continue;
    }
    if (i > 0 && i !== zeroStart + zeroLen) out += ':';
    out += groupOf(ip, i).toString(16);
  }
  return out;
}

/** The address as written (host bits kept) and the prefix length: netip.Prefix.String(). */
export function formatCIDR(c: CIDR): string {
  return `${formatIP(c.ip)}/${c.bits}`;
}
