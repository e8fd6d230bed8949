// The text that parseIP and parseCIDR (ip.ts) accept, as regular expressions for JSON schemas: the API
// states its IP and CIDR fields with these, so a client sees the same rule the parser applies.
//
// They are written for every regex dialect a schema meets (JavaScript's, Python's re, Rust's): ASCII
// classes spelled out (no \d, \w or \s, whose meaning differs), no look-around, and IPv4-mapped IPv6,
// which the parser refuses, as a separate pattern that a schema excludes with `not`.

const DEC_OCTET = '(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])';

/** Four decimal octets, 0-255, no leading zeros (netip.ParseAddr). */
export const IPV4 = `${DEC_OCTET}(?:\\.${DEC_OCTET}){3}`;

const H = '[0-9A-Fa-f]{1,4}';

/**
 * IPv6 as netip.ParseAddr takes it: eight groups of 1-4 hex digits, or fewer with one "::" standing for
 * at least one zero group, the last two groups possibly written as an IPv4 address. No zone.
 */
export const IPV6 = [
  `(?:${H}:){7}${H}`,
  `(?:${H}:){1,7}:`,
  `(?:${H}:){1,6}:${H}`,
  `(?:${H}:){1,5}(?::${H}){1,2}`,
  `(?:${H}:){1,4}(?::${H}){1,3}`,
  `(?:${H}:){1,3}(?::${H}){1,4}`,
  `(?:${H}:){1,2}(?::${H}){1,5}`,
  `${H}:(?::${H}){1,6}`,
  `:(?:(?::${H}){1,7}|:)`,
  `(?:${H}:){6}${IPV4}`,
  `::(?:${H}:){0,5}${IPV4}`,
  `${H}::(?:${H}:){0,4}${IPV4}`,
  `(?:${H}:){2}:(?:${H}:){0,3}${IPV4}`,
  `(?:${H}:){3}:(?:${H}:){0,2}${IPV4}`,
  `(?:${H}:){4}:(?:${H}:){0,1}${IPV4}`,
  `(?:${H}:){5}:${IPV4}`,
]
  .map((b) => `(?:${b})`)
  .join('|');

const ZERO = '0{1,4}';
const FFFF = '[fF]{4}';

/**
 * An IPv4-mapped IPv6 address (::ffff:0:0/96) in any spelling, followed by `end`, for a text that is
 * already a valid IPv6 address: five zero groups then ffff, either written out before any "::", or with
 * the "::" among the zeros and exactly two groups (or an IPv4 address) after the ffff.
 */
function mappedIPv6(end: string): string {
  return `(?:(?:${ZERO}:){5}${FFFF}:|(?:${ZERO}(?::${ZERO}){0,3})?::(?:${ZERO}:){0,4}${FFFF}:(?:${H}:${H}|${IPV4})${end})`;
}

const BITS_V4 = '(?:3[0-2]|[12]?[0-9])';
const BITS_V6 = '(?:12[0-8]|1[01][0-9]|[1-9]?[0-9])';

/** An address parseIP accepts: this pattern and not IP_ADDRESS_EXCLUDED. */
export const IP_ADDRESS = `^(?:${IPV4}|${IPV6})$`;
export const IP_ADDRESS_EXCLUDED = `^${mappedIPv6('$')}`;

/** A range parseCIDR accepts: this pattern and not CIDR_EXCLUDED. Host bits are the caller's rule. */
export const CIDR = `^(?:${IPV4}/${BITS_V4}|(?:${IPV6})/${BITS_V6})$`;
export const CIDR_EXCLUDED = `^${mappedIPv6('/')}`;

/** An IPv4-mapped IPv6 address in brackets at the start of a text, as in "[::ffff:1.2.3.4]:443". */
export const BRACKETED_MAPPED_IPV6 = `^\\[${mappedIPv6('\\]')}`;

/** An RFC 1123 label: letters, digits and hyphens, 1-63, not starting or ending with a hyphen. */
const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
/** The last label starts with a letter (no top-level domain is numeric), so a name never reads as an IPv4 address. */
const LAST_LABEL = '[A-Za-z](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';

/** A DNS host name: dot-separated labels, the last one starting with a letter. At most 253 characters is the caller's rule. */
export const HOST_NAME = `(?:${LABEL}\\.)*${LAST_LABEL}`;

/** A DNS name of two labels or more (a name under a domain, never a bare top-level one), as reserved domains take it. */
export const DOTTED_HOST_NAME = `(?:${LABEL}\\.)+${LAST_LABEL}`;

/** A TCP port, 1-65535, in decimal without leading zeros. */
export const PORT = '(?:[1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])';

/** A host: a DNS name, an IPv4 address or a bracketed IPv6 address (RFC 3986 3.2.2). */
export const HOST = `(?:${HOST_NAME}|${IPV4}|\\[(?:${IPV6})\\])`;

/** A host name longer than 253 characters at the start of a "host:port" or URL authority. */
export const LONG_HOST_NAME = '^[^:/\\[]{254}';
