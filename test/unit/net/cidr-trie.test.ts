// Tests of the CIDR prefix trie against a brute-force scan with cidrContainsIP, and of its persistence.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CidrTrie, PrefixMap } from '../../../src/net/cidr-trie.js';
import { cidrContainsIP, formatIP, parseCIDR, parseIP, type CIDR, type IPAddr } from '../../../src/net/ip.js';

const cidr = (s: string): CIDR => {
  const c = parseCIDR(s);
  if (c === undefined) throw new Error(`test range ${s} does not parse`);
  return c;
};
const ip = (s: string): IPAddr => {
  const a = parseIP(s);
  if (a === undefined) throw new Error(`test address ${s} does not parse`);
  return a;
};

// Few distinct leading octets, so that random ranges and addresses overlap often.
const octet = fc.constantFrom(0, 10, 128, 192, 255);
const v4Text = fc.tuple(octet, octet, fc.integer({ min: 0, max: 255 }), octet).map((o) => o.join('.'));
const v6Text = fc
  .tuple(fc.constantFrom('2001', 'fe80', '0', 'ffff'), fc.constantFrom('db8', '0', '8000'), fc.nat(0xffff))
  .map(([a, b, c]) => `${a}:${b}::${c.toString(16)}`);
const address = fc.oneof(v4Text, v6Text);
const range = fc
  .oneof(fc.tuple(v4Text, fc.integer({ min: 0, max: 32 })), fc.tuple(v6Text, fc.integer({ min: 0, max: 128 })))
  .map(([a, bits]) => cidr(`${a}/${bits}`));

const build = (ranges: readonly CIDR[]): CidrTrie<number> =>
  ranges.reduce((t, c, i) => t.with(c, i), CidrTrie.empty<number>());

/** The brute-force answer: indices of the ranges containing `a`, shortest prefix first, then insertion order. */
const expectedFor = (ranges: readonly CIDR[], a: IPAddr, live: (i: number) => boolean = () => true): number[] =>
  ranges
    .map((c, i) => ({ c, i }))
    .filter(({ c, i }) => live(i) && cidrContainsIP(c, a))
    .sort((x, y) => x.c.bits - y.c.bits || x.i - y.i)
    .map(({ i }) => i);

describe('CidrTrie', () => {
  it('should return exactly the values whose range contains the address, shortest prefix first', () => {
    fc.assert(
      fc.property(fc.array(range, { maxLength: 40 }), fc.array(address, { minLength: 1, maxLength: 20 }), (ranges, addrs) => {
        const trie = build(ranges);
        const bulk = CidrTrie.of(ranges.map((c, i) => [c, i] as const));
        expect(trie.size).toBe(ranges.length);
        expect(bulk.size).toBe(ranges.length);
        for (const text of addrs) {
          const a = ip(text);
          const expected = expectedFor(ranges, a);
          expect(trie.match(a)).toEqual(expected);
          expect(bulk.match(a)).toEqual(expected);
          // From the text, as the matcher looks records up: a reused buffer with stale entries past the count must not leak into the result.
          const lists: (readonly number[])[] = Array.from({ length: 40 }, () => [-1]);
          for (const spelled of [text, formatIP(a)]) {
            const n = bulk.collectText(spelled, lists);
            expect(lists.slice(0, n).flat()).toEqual(expected);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('should leave the original trie untouched when values are removed from a copy', () => {
    fc.assert(
      fc.property(fc.array(range, { minLength: 1, maxLength: 30 }), fc.array(fc.nat(), { maxLength: 30 }), address, (ranges, drops, text) => {
        const full = build(ranges);
        let trie = full;
        const removed = new Set<number>();
        for (const d of drops) {
          const i = d % ranges.length;
          const next = trie.without(ranges[i] as CIDR, i);
          expect(next === trie).toBe(removed.has(i));
          trie = next;
          removed.add(i);
        }
        const a = ip(text);
        expect(trie.size).toBe(ranges.length - removed.size);
        expect(trie.match(a)).toEqual(expectedFor(ranges, a, (i) => !removed.has(i)));
        expect(full.size).toBe(ranges.length);
        expect(full.match(a)).toEqual(expectedFor(ranges, a));
      }),
      { numRuns: 300 },
    );
  });

  it('should list the values stored at exactly one prefix, host bits ignored', () => {
    fc.assert(
      fc.property(fc.array(range, { maxLength: 30 }), range, (ranges, probe) => {
        const trie = build(ranges);
        const same = (c: CIDR): boolean => c.ip.family === probe.ip.family && c.bits === probe.bits && cidrContainsIP(c, probe.ip);
        const expected = ranges.flatMap((c, i) => (same(c) ? [i] : []));
        expect(trie.at(probe)).toEqual(expected);
        expect(CidrTrie.of(ranges.map((c, i) => [c, i] as const)).at(probe)).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('should keep the values of one prefix in the order of the given comparison', () => {
    const ten = cidr('10.0.0.0/8');
    const trie = ['m', 'c', 'x', 'a'].reduce((t, v) => t.with(ten, v, (p, q) => p.localeCompare(q)), CidrTrie.empty<string>());
    expect(trie.match(ip('10.1.1.1'))).toEqual(['a', 'c', 'm', 'x']);
  });

  it('should store a range with host bits at its masked prefix and keep the families apart', () => {
    const trie = CidrTrie.empty<string>()
      .with(cidr('10.1.2.3/8'), 'ten')
      .with(cidr('0.0.0.0/0'), 'all4')
      .with(cidr('::/0'), 'all6');
    expect(trie.match(ip('10.200.0.1'))).toEqual(['all4', 'ten']);
    expect(trie.match(ip('2001:db8::1'))).toEqual(['all6']);
    expect(trie.without(cidr('10.0.0.0/8'), 'ten').match(ip('10.200.0.1'))).toEqual(['all4']);
    expect(trie.collectText('2001:db8::1', [])).toBe(1);
    expect(trie.collectText('10.0.0.01', [])).toBe(0);
    expect(trie.collectText('::ffff:10.0.0.1', [])).toBe(0);
    expect(trie.collectText('fe80::1%eth0', [])).toBe(0);
  });
});

describe('PrefixMap', () => {
  it('should hold one value per prefix, replace and remove it, and leave earlier maps as they were', () => {
    const empty = PrefixMap.empty<string>();
    const a = empty.set(cidr('10.1.2.3/16'), 'a').set(cidr('10.0.0.0/8'), 'b').set(cidr('2001:db8::/32'), 'c');
    const replaced = a.set(cidr('10.1.0.0/16'), 'a2');
    const removed = replaced.set(cidr('10.0.0.0/8'), undefined).set(cidr('2001:db8::1/32'), undefined);
    const hits = (m: PrefixMap<string>, text: string): string[] => {
      const out: string[] = [];
      return out.slice(0, m.collect(ip(text), out));
    };
    expect(hits(a, '10.1.9.9')).toEqual(['b', 'a']);
    expect(hits(replaced, '10.1.9.9')).toEqual(['b', 'a2']);
    expect(hits(removed, '10.1.9.9')).toEqual(['a2']);
    expect(hits(a, '2001:db8::5')).toEqual(['c']);
    expect(hits(removed, '2001:db8::5')).toEqual([]);
    expect(a.get(cidr('10.1.0.0/16'))).toBe('a');
    expect(removed.get(cidr('10.0.0.0/8'))).toBeUndefined();
    expect(hits(empty, '10.1.9.9')).toEqual([]);
    expect(PrefixMap.of([[cidr('10.0.0.0/8'), 'x'] as const, [cidr('10.9.9.9/8'), 'y'] as const]).get(cidr('10.0.0.0/8'))).toBe('y');
    expect(a.collectText('10.1.0.01', [])).toBe(0);
  });
});
