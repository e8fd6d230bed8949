// The client side of generated traffic: many public IPv4 and IPv6 networks of different sizes and popularity.
import { maskCIDR, parseCIDR, type IPAddr } from '../net/ip.js';
import { formatCIDR, formatIP } from '../net/ip-format.js';
import { WeightedChoice, intBetween, pick, type Random } from './random.js';
import { Zipf } from './zipf.js';

export interface ClientNetwork {
  /** The network as a canonical CIDR, e.g. "81.24.0.0/14" or "2a02:1f8::/32". */
  readonly cidr: string;
  readonly family: 4 | 6;
  /** Share of client traffic from this network, 0..1. */
  readonly share: number;
  /** The network address words (host bits zero) and prefix length. */
  readonly base: IPAddr;
  readonly bits: number;
}

export interface ClientNetworkOptions {
  readonly ipv4Networks: number;
  readonly ipv6Networks: number;
  /** Share of clients that connect over IPv6, 0..1. */
  readonly ipv6Share: number;
  /** Zipf exponent of network popularity within each family. */
  readonly exponent: number;
}

// First octets of public unicast space, leaving out 0/8, 10/8, 100/8 (shared CGNAT space is 100.64/10),
// 127/8, 169/8, 172/8, 192/8 and 198/8 (they hold private, link-local and documentation blocks), and 224+.
const IPV4_FIRST_OCTETS = Array.from({ length: 223 }, (_, i) => i + 1).filter(
  (o) => ![10, 100, 127, 169, 172, 192, 198].includes(o),
);
// The regional registries' IPv6 allocations sit under 2001::/16 and 2400::/12, 2600::/12, 2800::/12, 2a00::/12, 2c00::/12.
const IPV6_LEADS = [0x2001, 0x2400, 0x2401, 0x2402, 0x2403, 0x2600, 0x2601, 0x2602, 0x2603, 0x2604, 0x2605, 0x2800, 0x2803, 0x2a00, 0x2a01, 0x2a02, 0x2a03, 0x2a04, 0x2a05, 0x2c0f];

const mask32 = (bits: number): number => (bits <= 0 ? 0 : bits >= 32 ? -1 : (-1 << (32 - bits)) | 0);

function ipv4Network(r: Random): { base: IPAddr; bits: number } {
  const bits = pick(r, [12, 13, 14, 15, 16, 16, 17, 18, 19, 20]);
  const word = ((pick(r, IPV4_FIRST_OCTETS) << 24) | (intBetween(r, 0, 255) << 16) | (intBetween(r, 0, 255) << 8)) & mask32(bits);
  return { base: { family: 4, w0: word | 0, w1: 0, w2: 0, w3: 0 }, bits };
}

function ipv6Network(r: Random): { base: IPAddr; bits: number } {
  const bits = pick(r, [29, 32, 32, 32, 36, 40, 44, 48]);
  const w0 = ((pick(r, IPV6_LEADS) << 16) | intBetween(r, 0, 0xffff)) & mask32(bits);
  const w1 = bits > 32 ? ((intBetween(r, 0, 0xffff) << 16) & mask32(bits - 32)) | 0 : 0;
  return { base: { family: 6, w0: w0 | 0, w1, w2: 0, w3: 0 }, bits };
}

/** The networks, deterministic for a seed, with unique CIDRs. */
export function buildClientNetworks(r: Random, opts: ClientNetworkOptions): ClientNetwork[] {
  const out: ClientNetwork[] = [];
  const seen = new Set<string>();
  const add = (family: 4 | 6, count: number, familyShare: number): void => {
    if (count === 0 || familyShare === 0) return;
    const zipf = new Zipf(count, opts.exponent);
    let rank = 1;
    while (rank <= count) {
      const { base, bits } = family === 4 ? ipv4Network(r) : ipv6Network(r);
      const cidr = formatCIDR({ ip: base, bits });
      if (seen.has(cidr)) continue;
      seen.add(cidr);
      out.push({ cidr, family, share: familyShare * zipf.probability(rank), base, bits });
      rank++;
    }
  };
  add(4, opts.ipv4Networks, 1 - opts.ipv6Share);
  add(6, opts.ipv6Networks, opts.ipv6Share);
  return out;
}

/** `networks` plus `extra`, which `extra.share` of all clients come from; the others make room in proportion. */
export function withClientNetwork(networks: ClientNetwork[], extra: { readonly cidr: string; readonly share: number } | undefined): ClientNetwork[] {
  if (extra === undefined || extra.share === 0) return networks;
  const parsed = parseCIDR(extra.cidr);
  if (parsed === undefined) throw new RangeError(`clientNetwork.cidr must be a CIDR such as 10.0.0.0/8, got "${extra.cidr}"`);
  const { ip, bits } = maskCIDR(parsed);
  const others = networks.map((n) => ({ ...n, share: n.share * (1 - extra.share) }));
  return [...others, { cidr: formatCIDR({ ip, bits }), family: ip.family, share: extra.share, base: ip, bits }];
}

/** Host bits drawn at random, never all zero or all one in IPv4 (network and broadcast addresses). */
function hostAddress(r: Random, n: ClientNetwork): IPAddr {
  const rand32 = (): number => (Math.floor(r() * 4_294_967_296) | 0);
  if (n.family === 4) {
    const hostMask = ~mask32(n.bits);
    let host = rand32() & hostMask;
    if (host === 0) host = 1;
    if (host === hostMask) host = hostMask - 1;
    return { family: 4, w0: n.base.w0 | host, w1: 0, w2: 0, w3: 0 };
  }
  const word = (i: number, base: number): number => {
    const bitsHere = Math.min(32, Math.max(0, n.bits - 32 * i));
    return (base & mask32(bitsHere)) | (rand32() & ~mask32(bitsHere));
  };
  return { family: 6, w0: word(0, n.base.w0), w1: word(1, n.base.w1), w2: word(2, 0), w3: word(3, 0) | 1 };
}

/** Draws client addresses: a network by its share, then random host bits inside it. */
export class ClientAddresses {
  private readonly choice: WeightedChoice<ClientNetwork>;

  constructor(readonly networks: readonly ClientNetwork[]) {
    this.choice = new WeightedChoice(networks.map((n) => [n, n.share] as const));
  }

  draw(r: Random): { ip: string; network: ClientNetwork } {
    const network = this.choice.draw(r);
    return { ip: formatIP(hostAddress(r, network)), network };
  }
}
