// The API's IP and CIDR patterns (what the OpenAPI document states) must accept exactly what the parser
// accepts: checked on every spelling of random addresses, on mapped addresses, and on near-misses.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseCIDR, parseIP } from '../../../src/net/ip.js';
import { CIDR, CIDR_EXCLUDED, HOST_NAME, IP_ADDRESS, IP_ADDRESS_EXCLUDED, PORT } from '../../../src/net/ip-patterns.js';

// The `u` flag is how ajv compiles schema patterns.
const matches = (pattern: string, not: string, text: string): boolean => new RegExp(pattern, 'u').test(text) && !new RegExp(not, 'u').test(text);

/** Spellings of eight groups: any case, padding, any run of zeros as "::", maybe the last two groups as IPv4. */
const v6Spelling = fc
  .tuple(
    fc.array(fc.oneof(fc.constant(0), fc.constant(0xffff), fc.integer({ min: 0, max: 0xffff })), { minLength: 8, maxLength: 8 }),
    fc.boolean(),
    fc.boolean(),
    fc.boolean(),
    fc.nat(),
  )
  .map(([groups, upper, pad, dotted, pick]) => {
    let parts = groups.map((g) => {
      const h = pad ? g.toString(16).padStart(4, '0') : g.toString(16);
      return upper ? h.toUpperCase() : h;
    });
    if (dotted) parts = [...parts.slice(0, 6), `${(groups[6] as number) >> 8}.${(groups[6] as number) & 255}.${(groups[7] as number) >> 8}.${(groups[7] as number) & 255}`];
    const runs: [number, number][] = [];
    for (let i = 0; i < parts.length; i++) {
      if (parts[i] !== '0' && parts[i] !== '0000') continue;
      let j = i;
      while (j < parts.length && (parts[j] === '0' || parts[j] === '0000')) j++;
      runs.push([i, j]);
      i = j;
    }
    const run = runs.length > 0 ? runs[pick % (runs.length + 1)] : undefined;
    if (run === undefined) return parts.join(':');
    let text = [...parts.slice(0, run[0]), '', ...parts.slice(run[1])].join(':');
    if (run[0] === 0) text = `:${text}`;
    if (run[1] === parts.length) text = `${text}:`;
    return text;
  });

const v4Spelling = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(3)).map(([a, b, c, d, lead]) => {
  const octets = [a, b, c, d].map(String);
  // Now and then a leading zero, which the parser refuses.
  if (lead === 0) octets[1] = `0${octets[1] as string}`;
  return octets.join('.');
});

/** A valid text with one character inserted, removed or replaced. */
const nearMiss = (base: fc.Arbitrary<string>): fc.Arbitrary<string> =>
  fc.tuple(base, fc.nat(), fc.constantFrom(...'0123456789abcdefF:./%[]x '.split('')), fc.nat(2)).map(([t, at, c, how]) => {
    const i = at % (t.length + 1);
    if (how === 0) return t.slice(0, i) + c + t.slice(i);
    if (how === 1) return t.slice(0, i) + t.slice(i + 1);
    return t.slice(0, i) + c + t.slice(i + 1);
  });

const addressText = fc.oneof(v6Spelling, v4Spelling, nearMiss(v6Spelling), nearMiss(v4Spelling));

describe('IP_ADDRESS', () => {
  it('should accept exactly the addresses parseIP accepts', () => {
    fc.assert(
      fc.property(addressText, (text) => {
        expect(matches(IP_ADDRESS, IP_ADDRESS_EXCLUDED, text), text).toBe(parseIP(text) !== undefined);
      }),
      { numRuns: 20_000 },
    );
  });

  it.each(['::ffff:1.2.3.4', '::FFFF:0:0', '0:0:0:0:0:ffff:1:2', '0::ffff:a:b', '0:0:0:0:0:ffff::', '0:0:0:0:0:ffff::1', '0:0::0:ffff:1.2.3.4'])(
    'should refuse the IPv4-mapped address %s, as parseIP does',
    (text) => {
      expect(parseIP(text)).toBeUndefined();
      expect(matches(IP_ADDRESS, IP_ADDRESS_EXCLUDED, text)).toBe(false);
    },
  );

  it.each(['::ffff:1', '::ffff', '1::ffff:1:2', '::1:ffff:1:2', 'fe80::1', '::1.2.3.4', '1:2:3:4:5:6:7::'])('should accept %s, as parseIP does', (text) => {
    expect(parseIP(text)).toBeDefined();
    expect(matches(IP_ADDRESS, IP_ADDRESS_EXCLUDED, text)).toBe(true);
  });
});

describe('CIDR', () => {
  const bits = fc.oneof(fc.nat(130).map(String), fc.constantFrom('', '01', '-1', '+8', '008'));
  const cidrText = fc.tuple(addressText, bits).map(([a, b]) => `${a}/${b}`);

  it('should accept exactly the ranges parseCIDR accepts (host bits aside)', () => {
    fc.assert(
      fc.property(cidrText, (text) => {
        expect(matches(CIDR, CIDR_EXCLUDED, text), text).toBe(parseCIDR(text) !== undefined);
      }),
      { numRuns: 20_000 },
    );
  });
});

describe('HOST_NAME and PORT', () => {
  const name = new RegExp(`^${HOST_NAME}$`, 'u');
  const port = new RegExp(`^${PORT}$`, 'u');

  it.each(['example.com', 'a', 'xn--bcher-kva.example', '1.tcp.example.com', 'A-1.B'])('should take the host name %s', (n) => expect(name.test(n)).toBe(true));
  it.each(['1.2.3.4', 'example.com.', '-a.com', 'a-.com', 'a..b', 'a.1b', `${'a'.repeat(64)}.com`, 'a_b.com'])('should refuse the host name %s', (n) =>
    expect(name.test(n)).toBe(false),
  );

  it('should take exactly the ports 1 to 65535 written without leading zeros', () => {
    for (let p = 0; p <= 70_000; p++) expect(port.test(String(p)), String(p)).toBe(p >= 1 && p <= 65_535);
    expect(port.test('080')).toBe(false);
  });
});
