// Tests of the IP/CIDR library against cel-go's network extension rules and independent references (node:net, bigint math, URL).
import { isIP } from 'node:net';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  cidrContainsCIDR,
  cidrContainsIP,
  cidrEquals,
  formatCIDR,
  formatIP,
  hasZeroHostBits,
  isCanonicalIP,
  isGlobalUnicast,
  isLinkLocalMulticast,
  isLinkLocalUnicast,
  isLoopback,
  isUnspecified,
  maskCIDR,
  parseCIDR,
  parseIP,
  parseIPWords,
  type IPAddr,
} from '../../../src/net/ip.js';

const ip = (s: string): IPAddr => {
  const a = parseIP(s);
  if (a === undefined) throw new Error(`test address ${s} does not parse`);
  return a;
};

/** The address as an unsigned bigint of 32 or 128 bits: the reference representation. */
function toBig(a: IPAddr): bigint {
  const u = (w: number): bigint => BigInt(w >>> 0);
  if (a.family === 4) return u(a.w0);
  return (u(a.w0) << 96n) | (u(a.w1) << 64n) | (u(a.w2) << 32n) | u(a.w3);
}

const groupsToText = (groups: readonly number[]): string => groups.map((g) => g.toString(16)).join(':');
const isMapped = (groups: readonly number[]): boolean =>
  groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff;

const v4Word = fc.integer({ min: 0, max: 0xffffffff });
const v6Groups = fc
  .array(fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 0xffff })), { minLength: 8, maxLength: 8 })
  .filter((g) => !isMapped(g));
const v4Text = (w: number): string => [w >>> 24, (w >>> 16) & 255, (w >>> 8) & 255, w & 255].join('.');

describe('parseIP', () => {
  it.each([
    ['1.2.3.4', '1.2.3.4'],
    ['0.0.0.0', '0.0.0.0'],
    ['255.255.255.255', '255.255.255.255'],
    ['::', '::'],
    ['::1', '::1'],
    ['2001:DB8:0:0:0:0:0:1', '2001:db8::1'],
    ['2001:0db8::0001', '2001:db8::1'],
    ['::1.2.3.4', '::102:304'],
    ['1:2:3:4:5:6:1.2.3.4', '1:2:3:4:5:6:102:304'],
    ['1:2:3:4:5:6:7::', '1:2:3:4:5:6:7:0'],
    ['1:0:0:1:0:0:0:1', '1:0:0:1::1'],
    ['1:0:0:1:0:0:1:1', '1::1:0:0:1:1'],
    ['1:0:1:1:1:1:1:1', '1:0:1:1:1:1:1:1'],
  ])('should accept %s and print it as %s', (text, canonical) => {
    expect(formatIP(ip(text))).toBe(canonical);
  });

  it.each([
    ['', 'the empty string'],
    ['1.2.3', 'three octets'],
    ['1.2.3.4.5', 'five octets'],
    ['01.2.3.4', 'a leading zero'],
    ['1.2.3.256', 'an octet over 255'],
    ['1..2.3', 'an empty octet'],
    ['1.2.3.4 ', 'trailing space'],
    ['fe80::1%eth0', 'a zone'],
    ['1.2.3.4%eth0', 'a zone on IPv4'],
    ['::ffff:1.2.3.4', 'an IPv4-mapped address'],
    ['::ffff:102:304', 'an IPv4-mapped address in hex'],
    ['1::2::3', 'two ellipses'],
    ['1:2:3:4:5:6:7:8::', 'an ellipsis standing for no group'],
    ['::1:2:3:4:5:6:7:8', 'an ellipsis standing for no group at the start'],
    ['12345::', 'five hex digits'],
    ['1:2:3:4:5:6:7', 'seven groups'],
    [':1::', 'a single leading colon'],
    ['1:', 'a trailing colon'],
    ['1:2:3:4:5:6:7:1.2.3.4', 'an embedded IPv4 that does not replace the last two groups'],
    ['1.2.3.4::', 'an IPv4 followed by groups'],
    ['::1.2.3', 'a short embedded IPv4'],
    ['g::', 'a non-hex digit'],
  ])('should reject %s (%s)', (text) => {
    expect(parseIP(text)).toBeUndefined();
  });

  it('should round-trip every IPv4 address through its dotted form', () => {
    fc.assert(
      fc.property(v4Word, (w) => {
        const a = ip(v4Text(w));
        expect(a.family).toBe(4);
        expect(toBig(a)).toBe(BigInt(w));
        expect(formatIP(a)).toBe(v4Text(w));
      }),
    );
  });

  it('should print IPv6 exactly as the WHATWG URL serializer does (RFC 5952 compression)', () => {
    fc.assert(
      fc.property(v6Groups, (groups) => {
        const text = groupsToText(groups);
        const expected = new URL(`http://[${text}]/`).hostname.slice(1, -1);
        expect(formatIP(ip(text))).toBe(expected);
      }),
    );
  });

  it('should read any spelling of an IPv6 address (case, padding, ellipsis) as the same bits', () => {
    fc.assert(
      fc.property(v6Groups, fc.boolean(), fc.boolean(), fc.nat(), (groups, upper, pad, pick) => {
        let parts = groups.map((g) => {
          const h = pad ? g.toString(16).padStart(4, '0') : g.toString(16);
          return upper ? h.toUpperCase() : h;
        });
        // Shorten one run of zero groups (any run, not only the longest) to "::".
        const runs: [number, number][] = [];
        for (let i = 0; i < 8; i++) {
          if (groups[i] !== 0) continue;
          let j = i;
          while (j < 8 && groups[j] === 0) j++;
          runs.push([i, j]);
          i = j;
        }
        let text = parts.join(':');
        const run = runs.length > 0 ? runs[pick % runs.length] : undefined;
        if (run !== undefined) {
          parts = [...parts.slice(0, run[0]), '', ...parts.slice(run[1])];
          text = parts.join(':');
          if (run[0] === 0) text = `:${text}`;
          if (run[1] === 8) text = `${text}:`;
        }
        const expected = groups.reduce((acc, g) => (acc << 16n) | BigInt(g), 0n);
        expect(toBig(ip(text))).toBe(expected);
      }),
    );
  });

  it('should read each address on its own when parsed right after another, into words as into an address', () => {
    // The text, then its family (0: no address) and words, as signed int32 values.
    const table: [string, number, number[]][] = [
      ['ffff:eeee:dddd:cccc:bbbb:aaaa:9999:8888', 6, [0xffffeeee | 0, 0xddddcccc | 0, 0xbbbbaaaa | 0, 0x99998888 | 0]],
      ['::', 6, [0, 0, 0, 0]],
      ['1::', 6, [0x10000, 0, 0, 0]],
      ['::2', 6, [0, 0, 0, 2]],
      ['1:2:3:4:5:6:1.2.3.4', 6, [0x10002, 0x30004, 0x50006, 0x01020304]],
      ['a::b:c', 6, [0xa0000, 0, 0, 0xb000c]],
      ['10.0.0.1', 4, [0x0a000001, 0, 0, 0]],
      ['bad', 0, []],
      ['::ffff:1.2.3.4', 0, []],
      ['0:0:0:0:0:ffff:102:304', 0, []],
      ['1:2:3:4:5:6:7:8:9', 0, []],
      ['1:2:3:4:5:6:7:12345', 0, []],
      ['1:2:3:4:5:6:7:', 0, []],
      ['A:b:C:d:E:f:0:FFFF', 6, [0xa000b, 0xc000d, 0xe000f, 0xffff]],
    ];
    const words = new Int32Array(4);
    for (const [first] of table) {
      for (const [text, family, expected] of table) {
        parseIPWords(first, 0, first.length, words);
        expect(parseIPWords(text, 0, text.length, words)).toBe(family);
        if (family !== 0) expect([...words]).toEqual(expected);
        parseIP(first);
        const a = parseIP(text);
        expect(a === undefined ? [] : [a.w0, a.w1, a.w2, a.w3]).toEqual(expected);
      }
    }
    expect(parseIPWords('::ffff:1.2.3.4', 0, 14, words, true)).toBe(4);
    expect([...words]).toEqual([0x01020304, 0, 0, 0]);
  });

  it('should accept a string exactly when node:net does, minus zones, mapped addresses and leading zeros', () => {
    const chars = fc.constantFrom(...'0123456789abcdefABF:.%'.split(''));
    const candidate = fc.oneof(
      fc.array(chars, { maxLength: 20 }).map((c) => c.join('')),
      fc.tuple(v6Groups, fc.integer({ min: 0, max: 39 }), chars).map(([g, at, c]) => {
        const t = groupsToText(g);
        return t.slice(0, at) + c + t.slice(at);
      }),
    );
    fc.assert(
      fc.property(candidate, (text) => {
        const parsed = parseIP(text);
        let expected = isIP(text) !== 0 && !text.includes('%');
        if (expected && isIP(text) === 6) {
          // The URL serializer compresses zeros and writes no dotted tail, so a mapped address
          // (::ffff:0:0/96) reads exactly "[::ffff:x:y]"; "[::ffff:0]" (ffff in group 7) is not one.
          const bits = new URL(`http://[${text}]/`).hostname;
          if (/^\[::ffff:[0-9a-f]{1,4}:[0-9a-f]{1,4}\]$/.test(bits)) expected = false;
        }
        expect(parsed !== undefined).toBe(expected);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('parseCIDR', () => {
  it.each([
    ['10.0.0.0/8', '10.0.0.0/8'],
    ['192.168.1.5/24', '192.168.1.5/24'],
    ['0.0.0.0/0', '0.0.0.0/0'],
    ['1.2.3.4/32', '1.2.3.4/32'],
    ['2001:DB8::/32', '2001:db8::/32'],
    ['::/0', '::/0'],
    ['::1/128', '::1/128'],
  ])('should accept %s and keep its host bits when printing it as %s', (text, canonical) => {
    const c = parseCIDR(text);
    expect(c && formatCIDR(c)).toBe(canonical);
  });

  it.each([
    ['10.0.0.0', 'no slash'],
    ['10.0.0.0/', 'no bits'],
    ['/8', 'no address'],
    ['10.0.0.0/33', 'too many bits for IPv4'],
    ['::/129', 'too many bits for IPv6'],
    ['10.0.0.0/08', 'a leading zero in the bits'],
    ['10.0.0.0/+8', 'a sign'],
    ['10.0.0.0/-1', 'a negative length'],
    ['10.0.0.0/8/8', 'two slashes'],
    ['fe80::%eth0/64', 'a zone'],
    ['::ffff:10.0.0.0/104', 'an IPv4-mapped address'],
    ['10.0.0.0/8 ', 'trailing space'],
  ])('should reject %s (%s)', (text) => {
    expect(parseCIDR(text)).toBeUndefined();
  });

  it('should mask host bits only when asked to, and report whether there were any', () => {
    const c = parseCIDR('192.168.1.5/24');
    expect(c && hasZeroHostBits(c)).toBe(false);
    expect(c && formatCIDR(maskCIDR(c))).toBe('192.168.1.0/24');
    const v6 = parseCIDR('2001:db8::1/64');
    expect(v6 && formatCIDR(maskCIDR(v6))).toBe('2001:db8::/64');
    const zero = parseCIDR('2001:db8::/32');
    expect(zero && hasZeroHostBits(zero)).toBe(true);
    expect(zero && cidrEquals(maskCIDR(zero), zero)).toBe(true);
  });
});

describe('CIDR containment', () => {
  const refContains = (net: IPAddr, bits: number, a: IPAddr): boolean => {
    if (net.family !== a.family) return false;
    const width = net.family === 4 ? 32n : 128n;
    const shift = width - BigInt(bits);
    return toBig(net) >> shift === toBig(a) >> shift;
  };
  const anyIP = fc.oneof(
    v4Word.map((w) => ip(v4Text(w))),
    v6Groups.map((g) => ip(groupsToText(g))),
  );
  const anyCIDR = anyIP.chain((a) =>
    fc.integer({ min: 0, max: a.family === 4 ? 32 : 128 }).map((bits) => ({ ip: a, bits })),
  );
  /** An address that shares a random number of leading bits with the CIDR, so containment is often true. */
  const near = (c: { ip: IPAddr; bits: number }, keep: number, noise: IPAddr): IPAddr => {
    if (noise.family !== c.ip.family) return noise;
    const width = c.ip.family === 4 ? 32n : 128n;
    const k = BigInt(Math.min(keep, Number(width)));
    const mask = ((1n << k) - 1n) << (width - k);
    const v = (toBig(c.ip) & mask) | (toBig(noise) & ~mask & ((1n << width) - 1n));
    const text =
      c.ip.family === 4
        ? v4Text(Number(v))
        : groupsToText(Array.from({ length: 8 }, (_, i) => Number((v >> BigInt(112 - 16 * i)) & 0xffffn)));
    return parseIP(text) ?? noise;
  };

  it('should agree with bigint prefix comparison on containsIP', () => {
    fc.assert(
      fc.property(anyCIDR, fc.nat(128), anyIP, (c, keep, noise) => {
        const a = near(c, keep, noise);
        expect(cidrContainsIP(c, a)).toBe(refContains(c.ip, c.bits, a));
      }),
      { numRuns: 3000 },
    );
  });

  it('should contain a CIDR exactly when it is no longer and contains its address (cel-go containsCIDR)', () => {
    fc.assert(
      fc.property(anyCIDR, fc.nat(128), anyIP, fc.nat(128), (parent, keep, noise, childBits) => {
        const a = near(parent, keep, noise);
        const child = { ip: a, bits: Math.min(childBits, a.family === 4 ? 32 : 128) };
        expect(cidrContainsCIDR(parent, child)).toBe(
          parent.bits <= child.bits && refContains(parent.ip, parent.bits, a),
        );
      }),
      { numRuns: 3000 },
    );
  });

  it('should never match across families', () => {
    const all4 = parseCIDR('0.0.0.0/0');
    const all6 = parseCIDR('::/0');
    expect(all4 && cidrContainsIP(all4, ip('::1'))).toBe(false);
    expect(all6 && cidrContainsIP(all6, ip('1.2.3.4'))).toBe(false);
    expect(all4 && all6 && cidrContainsCIDR(all6, all4)).toBe(false);
  });
});

describe('address classes and canonical form', () => {
  it('should report whether a text is the canonical form, and undefined when it is no address', () => {
    expect(isCanonicalIP('2001:db8::1')).toBe(true);
    expect(isCanonicalIP('2001:DB8::1')).toBe(false);
    expect(isCanonicalIP('2001:db8:0:0:0:0:0:1')).toBe(false);
    expect(isCanonicalIP('127.0.0.1')).toBe(true);
    expect(isCanonicalIP('nope')).toBeUndefined();
  });

  it.each([
    ['127.0.0.1', { loopback: true, unspecified: false, global: false, llu: false, llm: false }],
    ['::1', { loopback: true, unspecified: false, global: false, llu: false, llm: false }],
    ['0.0.0.0', { loopback: false, unspecified: true, global: false, llu: false, llm: false }],
    ['::', { loopback: false, unspecified: true, global: false, llu: false, llm: false }],
    ['169.254.1.1', { loopback: false, unspecified: false, global: false, llu: true, llm: false }],
    ['fe80::1', { loopback: false, unspecified: false, global: false, llu: true, llm: false }],
    ['febf::1', { loopback: false, unspecified: false, global: false, llu: true, llm: false }],
    ['fec0::1', { loopback: false, unspecified: false, global: true, llu: false, llm: false }],
    ['224.0.0.251', { loopback: false, unspecified: false, global: false, llu: false, llm: true }],
    ['224.0.1.1', { loopback: false, unspecified: false, global: false, llu: false, llm: false }],
    ['ff02::fb', { loopback: false, unspecified: false, global: false, llu: false, llm: true }],
    ['255.255.255.255', { loopback: false, unspecified: false, global: false, llu: false, llm: false }],
    ['10.0.0.1', { loopback: false, unspecified: false, global: true, llu: false, llm: false }],
    ['2001:db8::1', { loopback: false, unspecified: false, global: true, llu: false, llm: false }],
  ])('should classify %s as netip does', (text, want) => {
    const a = ip(text);
    expect({
      loopback: isLoopback(a),
      unspecified: isUnspecified(a),
      global: isGlobalUnicast(a),
      llu: isLinkLocalUnicast(a),
      llm: isLinkLocalMulticast(a),
    }).toEqual(want);
  });
});
