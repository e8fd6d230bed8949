// Address classes of cel-go's network extension (isLoopback, isUnspecified, ...), with netip's definitions.
import type { IPAddr } from './ip.js';

/** 127.0.0.0/8 or ::1. */
export function isLoopback(ip: IPAddr): boolean {
  if (ip.family === 4) return ip.w0 >>> 24 === 127;
  return ip.w0 === 0 && ip.w1 === 0 && ip.w2 === 0 && ip.w3 === 1;
}

/** 0.0.0.0 or ::. */
export function isUnspecified(ip: IPAddr): boolean {
  return ip.w0 === 0 && ip.w1 === 0 && ip.w2 === 0 && ip.w3 === 0;
}

/** 169.254.0.0/16 or fe80::/10. */
export function isLinkLocalUnicast(ip: IPAddr): boolean {
  if (ip.family === 4) return ip.w0 >>> 16 === 0xa9fe;
  return ip.w0 >>> 22 === 0x3fa;
}

/** 224.0.0.0/24 or ff02::/16. */
export function isLinkLocalMulticast(ip: IPAddr): boolean {
  if (ip.family === 4) return ip.w0 >>> 8 === 0xe00000;
  return ip.w0 >>> 16 === 0xff02;
}

function isMulticast(ip: IPAddr): boolean {
  if (ip.family === 4) return ip.w0 >>> 28 === 0xe;
  return ip.w0 >>> 24 === 0xff;
}

/**
 * netip.Addr.IsGlobalUnicast: "private IPv4 addresses and ULA IPv6 addresses are still considered
 * global unicast"; the unspecified, broadcast, loopback, multicast and link-local ones are not.
 */
export function isGlobalUnicast(ip: IPAddr): boolean {
  if (ip.family === 4 && ip.w0 === -1) return false; // 255.255.255.255
  return !isUnspecified(ip) && !isLoopback(ip) && !isMulticast(ip) && !isLinkLocalUnicast(ip);
}
