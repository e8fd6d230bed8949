// Validation of a TCP edge hostport: "host:port" where host is a DNS name, an IPv4 address or a
// bracketed IPv6 address (RFC 3986 3.2.2 "IP-literal = [ IPv6address ]"), and port is 1-65535.
import { formatIP, parseIP } from '../../net/ip.js';
import { ApiError } from '../errors.js';

/** RFC 1123 2.1 host names: labels of 1-63 letters, digits and hyphens, not starting or ending with a hyphen. */
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

function normalizeHost(host: string): string | undefined {
  if (host.startsWith('[') && host.endsWith(']')) {
    const ip = parseIP(host.slice(1, -1));
    return ip?.family === 6 ? `[${formatIP(ip)}]` : undefined;
  }
  if (/^[0-9.]+$/.test(host)) {
    const ip = parseIP(host);
    return ip?.family === 4 ? formatIP(ip) : undefined;
  }
  const name = host.toLowerCase();
  if (name.length > 253) return undefined;
  const labels = name.split('.');
  return labels.every((l) => LABEL.test(l)) ? name : undefined;
}

/** The hostport in canonical form (lowercase name, canonical IP text), or an invalid_hostport error. */
export function normalizeHostport(value: string, field: string): string {
  const colon = value.lastIndexOf(':');
  const host = colon > 0 ? normalizeHost(value.slice(0, colon)) : undefined;
  const portText = value.slice(colon + 1);
  const port = /^[1-9][0-9]{0,4}$/.test(portText) ? Number(portText) : 0;
  if (host === undefined || port < 1 || port > 65535) throw new ApiError('invalid_hostport', { field, value });
  return `${host}:${port}`;
}
