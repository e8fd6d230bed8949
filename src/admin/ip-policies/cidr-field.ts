// Validation of a rule's cidr: it must parse (src/net/ip.ts, the filter engine's CIDR code) and be in
// normalized form, with zero host bits; the error suggests the masked form.
import { formatCIDR, hasZeroHostBits, maskCIDR, parseCIDR } from '../../net/ip.js';
import { ApiError } from '../errors.js';

/**
 * The cidr in canonical text (RFC 5952 for IPv6, so "2001:DB8:0::/32" is stored as "2001:db8::/32"),
 * or an ApiError. IPv4-mapped IPv6 ranges and zones are refused, as the shared parser refuses them.
 */
export function normalizeRuleCidr(value: string, field = 'cidr'): string {
  const c = parseCIDR(value);
  if (c === undefined) throw new ApiError('invalid_cidr', { field, value });
  if (!hasZeroHostBits(c)) throw new ApiError('cidr_has_host_bits', { field, value, suggestion: formatCIDR(maskCIDR(c)) });
  return formatCIDR(c);
}
