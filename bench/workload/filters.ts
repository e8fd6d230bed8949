// Realistic subscription filters over the generated traffic, each with the share of all records it is expected to match.
import type { TrafficEventType } from '../../src/events/catalog.js';
import { formatCIDR } from '../../src/net/ip-format.js';
import type { ClientNetwork } from '../../src/traffic/client-networks.js';
import type { TrafficUniverse } from '../../src/traffic/generator.js';

export interface FilterCandidate {
  readonly eventType: TrafficEventType;
  readonly text: string;
  /** Expected share of all records (both types) the filter matches. */
  readonly share: number;
  readonly kind: string;
}

const q = (s: string): string => JSON.stringify(s);

/** Sub-blocks of a network `extra` bits longer, each with its share (host bits are uniform). */
function subBlocks(n: ClientNetwork, extra: number, limit: number): { cidr: string; share: number }[] {
  const width = n.family === 4 ? 32 : 128;
  const bits = n.bits + extra;
  if (bits > (n.family === 4 ? 30 : 64)) return [];
  const words = [n.base.w0, n.base.w1, n.base.w2, n.base.w3].map((w) => BigInt(w >>> 0));
  const base = n.family === 4 ? (words[0] as bigint) : words.reduce((acc, w) => (acc << 32n) | w, 0n);
  const out: { cidr: string; share: number }[] = [];
  for (let k = 0; k < Math.min(2 ** extra, limit); k++) {
    const v = base | (BigInt(k) << BigInt(width - bits));
    const word = (i: number): number => Number((v >> BigInt(width - 32 * (i + 1))) & 0xffffffffn) | 0;
    const ip = n.family === 4 ? { family: 4 as const, w0: word(0), w1: 0, w2: 0, w3: 0 } : { family: 6 as const, w0: word(0), w1: word(1), w2: word(2), w3: word(3) };
    out.push({ cidr: formatCIDR({ ip, bits }), share: n.share / 2 ** extra });
  }
  return out;
}

/**
 * Candidates whose expected share of all records lies in [lo, hi]. The kinds are what tenants write:
 * their hostnames (one, or a list), their domain, a client network (an ISP, an office range), and a
 * TCP address. Shares follow from the generator's distributions: a host of Zipf rank k gets
 * typeShare x P(k); a client network its share, whatever the event type.
 */
export function filterCandidates(u: TrafficUniverse, httpShare: number, lo = 0.006, hi = 0.016): FilterCandidate[] {
  const out: FilterCandidate[] = [];
  const keep = (c: FilterCandidate): void => {
    if (c.share >= lo && c.share <= hi) out.push(c);
  };
  const httpHostShare = (rank: number): number => httpShare * u.hostZipf.probability(rank);
  const http: TrafficEventType = 'http_request_complete.v0';
  const tcp: TrafficEventType = 'tcp_connection_closed.v0';

  u.httpHosts.forEach((h, i) => {
    const s = httpHostShare(i + 1);
    keep({ eventType: http, kind: 'host', text: `ev.conn.server_name == ${q(h.name)}`, share: s });
    // Most of a host's requests come in on 443.
    keep({ eventType: http, kind: 'host+port', text: `ev.conn.server_name == ${q(h.name)} && ev.conn.server_port == 443`, share: s * (1 - h.plainShare) * (h.altPort ? 0 : 1) });
  });
  // A tenant's list of hostnames: consecutive less popular hosts packed until they reach about 1%.
  let pack: string[] = [];
  let packShare = 0;
  for (let i = 20; i < u.httpHosts.length && out.filter((c) => c.kind === 'host list').length < 60; i++) {
    pack.push((u.httpHosts[i] as { name: string }).name);
    packShare += httpHostShare(i + 1);
    if (packShare >= 0.009 || pack.length >= 40) {
      keep({ eventType: http, kind: 'host list', text: `ev.conn.server_name in [${pack.map(q).join(', ')}]`, share: packShare });
      pack = [];
      packShare = 0;
    }
  }
  const apex = new Map<string, number>();
  u.httpHosts.forEach((h, i) => apex.set(h.apex, (apex.get(h.apex) ?? 0) + httpHostShare(i + 1)));
  for (const [domain, s] of apex) keep({ eventType: http, kind: 'domain', text: `ev.conn.server_name.endsWith(${q(`.${domain}`)})`, share: s });

  for (const n of u.clientNetworks) {
    for (const extra of [0, 1, 2, 3, 4]) {
      for (const b of subBlocks(n, extra, 4)) {
        keep({ eventType: http, kind: 'client network', text: `cidr(${q(b.cidr)}).containsIP(ev.conn.client_ip)`, share: b.share * httpShare });
        keep({ eventType: tcp, kind: 'client network', text: `cidr(${q(b.cidr)}).containsIP(ev.conn.client_ip)`, share: b.share * (1 - httpShare) });
      }
    }
  }
  u.tcpAddresses.forEach((a, i) => {
    const s = (1 - httpShare) * u.tcpZipf.probability(i + 1);
    keep({ eventType: tcp, kind: 'tcp address', text: `ev.conn.server_name == ${q(a.name)} && ev.conn.server_port == ${a.port}`, share: s });
  });
  let ports: number[] = [];
  let portShare = 0;
  for (let i = 10; i < u.tcpAddresses.length && out.filter((c) => c.kind === 'tcp ports').length < 30; i++) {
    ports.push((u.tcpAddresses[i] as { port: number }).port);
    portShare += (1 - httpShare) * u.tcpZipf.probability(i + 1);
    if (portShare >= 0.009 || ports.length >= 40) {
      keep({ eventType: tcp, kind: 'tcp ports', text: `ev.conn.server_port in [${ports.join(', ')}]`, share: portShare });
      ports = [];
      portShare = 0;
    }
  }
  return out;
}
