// An independent brute-force reference of the IP restriction decision for tests: addresses and ranges
// as bigints, written without src/net, plus fast-check arbitraries that make overlapping rules likely.
import fc from 'fast-check';

export type Family = 4 | 6;

export interface RefAddr {
  readonly family: Family;
  readonly value: bigint;
}

export interface RefRule {
  readonly id: string;
  readonly family: Family;
  /** Host bits zero. */
  readonly network: bigint;
  readonly bits: number;
  readonly action: 'allow' | 'deny';
  readonly policy: string;
}

const width = (f: Family): number => (f === 4 ? 32 : 128);

export function maskOf(f: Family, bits: number): bigint {
  const w = BigInt(width(f));
  return ((1n << BigInt(bits)) - 1n) << (w - BigInt(bits));
}

/** Dotted quad, or eight uncompressed hex groups: a spelling the code under test must parse itself. */
export function formatAddr(a: RefAddr): string {
  if (a.family === 4) return [24n, 16n, 8n, 0n].map((s) => String((a.value >> s) & 255n)).join('.');
  const groups: string[] = [];
  for (let i = 7; i >= 0; i--) groups.push(((a.value >> BigInt(i * 16)) & 0xffffn).toString(16));
  return groups.join(':');
}

export function formatRuleCidr(r: RefRule): string {
  return `${formatAddr({ family: r.family, value: r.network })}/${r.bits}`;
}

export function contains(r: RefRule, a: RefAddr): boolean {
  return r.family === a.family && (a.value & maskOf(r.family, r.bits)) === r.network;
}

/** ARCHITECTURE.md "The IP restriction module": union of the referenced policies' rules; allowed iff some allow rule matches and no deny rule does. */
export function referenceDecision(a: RefAddr, rules: readonly RefRule[], policies: readonly string[]): { allow: boolean; matched: string[] } {
  const matched = rules.filter((r) => policies.includes(r.policy) && contains(r, a));
  const allow = matched.some((r) => r.action === 'allow') && !matched.some((r) => r.action === 'deny');
  return { allow, matched: matched.map((r) => r.id).sort() };
}

/** ::ffff:0:0/96 (IPv4-mapped) is refused by the service's parser, so generated IPv6 values avoid it. */
const MAPPED_PREFIX = 0xffffn << 32n;
function isMapped(v: bigint): boolean {
  return v >> 32n === MAPPED_PREFIX >> 32n;
}

/** A few hot prefixes per family, so generated rules and addresses overlap often. */
const HOT4 = [0x0a000000n, 0x0a010000n, 0xc0a80000n, 0x00000000n];
const HOT6 = [0x20010db8n << 96n, (0x20010db8n << 96n) | (1n << 80n), 0xfe800000n << 96n];

export function addrArb(family: Family): fc.Arbitrary<RefAddr> {
  const w = width(family);
  const hot = family === 4 ? HOT4 : HOT6;
  return fc
    .tuple(fc.constantFrom(...hot), fc.bigInt({ min: 0n, max: (1n << BigInt(w)) - 1n }), fc.integer({ min: 0, max: w }))
    .map(([base, random, keep]) => {
      // The top `keep` bits come from a hot prefix, the rest are random.
      const m = maskOf(family, keep);
      return { family, value: (base & m) | (random & ~m & ((1n << BigInt(w)) - 1n)) };
    })
    .filter((a) => family === 4 || !isMapped(a.value));
}

export function ruleArb(policies: readonly string[]): fc.Arbitrary<Omit<RefRule, 'id'>> {
  return fc
    .tuple(fc.constantFrom<Family>(4, 6), fc.boolean(), fc.constantFrom(...policies))
    .chain(([family, allow, policy]) =>
      fc.tuple(addrArb(family), fc.integer({ min: 0, max: width(family) })).map(([a, bits]) => ({
        family,
        network: a.value & maskOf(family, bits),
        bits,
        action: allow ? ('allow' as const) : ('deny' as const),
        policy,
      })),
    )
    .filter((r) => r.family === 4 || !isMapped(r.network));
}
