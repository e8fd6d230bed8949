// A TCP edge hostport: "host:port" where host is a DNS name, an IPv4 address or a bracketed IPv6 address
// (RFC 3986 3.2.2 "IP-literal = [ IPv6address ]"), and port is 1-65535. The schema states the rule and
// normalizeHostport applies the same patterns, then writes the canonical form.
import { formatIP, parseIP } from '../../net/ip.js';
import { BRACKETED_MAPPED_IPV6, HOST, LONG_HOST_NAME, PORT } from '../../net/ip-patterns.js';
import { ApiError } from '../errors.js';
import { withError, type Schema } from '../schemas.js';

const HOSTPORT = `^${HOST}:${PORT}$`;
const MATCHES = new RegExp(HOSTPORT, 'u');
const EXCLUDED = [new RegExp(BRACKETED_MAPPED_IPV6, 'u'), new RegExp(LONG_HOST_NAME, 'u')];

/** One hostport in a request; a value that breaks it is 400 invalid_hostport. */
export const HOSTPORT_SCHEMA: Schema = withError(
  {
    type: 'string',
    maxLength: 259,
    pattern: HOSTPORT,
    not: { type: 'string', anyOf: [{ pattern: BRACKETED_MAPPED_IPV6 }, { pattern: LONG_HOST_NAME }] },
    examples: ['1.tcp.example.com:20000', '192.0.2.1:22', '[2001:db8::1]:443'],
    description:
      'host:port, e.g. 1.tcp.example.com:20000, 192.0.2.1:22 or [2001:db8::1]:443. A host name is at most 253 characters of ' +
      'RFC 1123 labels, the last one starting with a letter; the port is 1 to 65535. Stored lowercase and canonical.',
  },
  'invalid_hostport',
);

/** The hostport in canonical form (lowercase name, canonical IP text), or an invalid_hostport error. */
export function normalizeHostport(value: string, field: string): string {
  if (!MATCHES.test(value) || EXCLUDED.some((re) => re.test(value))) throw new ApiError('invalid_hostport', { field, value });
  const colon = value.lastIndexOf(':');
  const host = value.slice(0, colon);
  const port = value.slice(colon + 1);
  if (host.startsWith('[')) return `[${formatIP(parseIP(host.slice(1, -1)) as NonNullable<ReturnType<typeof parseIP>>)}]:${port}`;
  const ip = parseIP(host);
  return `${ip === undefined ? host.toLowerCase() : formatIP(ip)}:${port}`;
}
