// The operator's pool of TCP addresses (TCP_ADDRESS_HOSTS x TCP_ADDRESS_PORTS): every host with every port
// of the ranges, as canonical hostports. An account reserves one with POST /reserved_addrs, and the
// service gives it the first free one in pool order (SECURITY.md "Traffic ownership").
import { formatIP, parseIP } from '../net/ip.js';
import { HOST } from '../net/ip-patterns.js';

export interface TcpAddressPool {
  /** Canonical hosts: lowercase names, canonical IPv4, bracketed canonical IPv6. */
  readonly hosts: readonly string[];
  /** Inclusive port ranges, in the order given. */
  readonly ports: readonly (readonly [number, number])[];
}

/** TCP_ADDRESS_PORTS when unset. */
export const DEFAULT_TCP_ADDRESS_PORTS = '20000-29999';

const HOST_ONLY = new RegExp(`^${HOST}$`, 'u');

/** A pool host in canonical form, or undefined when it is not a host name, an IPv4 address or a bracketed IPv6 address. */
export function canonicalPoolHost(raw: string): string | undefined {
  if (!HOST_ONLY.test(raw)) return undefined;
  if (raw.startsWith('[')) {
    const ip = parseIP(raw.slice(1, -1));
    return ip === undefined || ip.family !== 6 ? undefined : `[${formatIP(ip)}]`;
  }
  const ip = parseIP(raw);
  return ip === undefined ? raw.toLowerCase() : formatIP(ip);
}

/** "20000-29999,30000" as ranges, or the problem with it. */
export function parsePortRanges(raw: string): { ranges: [number, number][] } | { problem: string } {
  const ranges: [number, number][] = [];
  for (const part of raw.split(',').map((p) => p.trim()).filter((p) => p !== '')) {
    const m = /^(\d{1,5})(?:-(\d{1,5}))?$/.exec(part);
    const from = Number(m?.[1]);
    const to = m?.[2] === undefined ? from : Number(m[2]);
    if (m === null || from < 1 || to > 65_535 || to < from) return { problem: `"${part}" is not a port from 1 to 65535 or a range of them such as 20000-29999` };
    ranges.push([from, to]);
  }
  if (ranges.length === 0) return { problem: 'it lists no port' };
  return { ranges };
}

export function poolSize(pool: TcpAddressPool): number {
  return pool.hosts.length * pool.ports.reduce((n, [from, to]) => n + to - from + 1, 0);
}

/** Whether a canonical hostport is one of the pool's addresses. */
export function inPool(pool: TcpAddressPool, hostport: string): boolean {
  const colon = hostport.lastIndexOf(':');
  const port = Number(hostport.slice(colon + 1));
  return pool.hosts.includes(hostport.slice(0, colon)) && pool.ports.some(([from, to]) => port >= from && port <= to);
}

/** The first address of the pool, host by host and port by port, for which `taken` is false; undefined when all are. */
export function firstFree(pool: TcpAddressPool, taken: (hostport: string) => boolean): string | undefined {
  for (const host of pool.hosts) {
    for (const [from, to] of pool.ports) {
      for (let port = from; port <= to; port++) {
        const hostport = `${host}:${port}`;
        if (!taken(hostport)) return hostport;
      }
    }
  }
  return undefined;
}
