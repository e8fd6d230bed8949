// The IP functions of cel-go's network extension, with cases taken from cel-go's ext/network_test.go, plus inCidrRange.
import { describe, expect, it } from 'vitest';
import { compileFilter } from '../../../src/cel/compile.js';
import { NETWORK_FUNCTIONS, STANDARD_FUNCTIONS } from '../../../src/cel/compiler/declarations.js';
import { STRING } from '../../../src/cel/compiler/cel-types.js';
import { compileProgram } from '../../../src/cel/compiler/program.js';
import { CelErr, type Value } from '../../../src/cel/compiler/values.js';

/** One string variable, `s`, so a test can supply a value the compiler cannot see. */
const env = { variables: new Map([['s', STRING]]), functions: new Map([...STANDARD_FUNCTIONS, ...NETWORK_FUNCTIONS]) };

function evaluate(text: string, s = ''): Value {
  const r = compileProgram(text, { env });
  if (!r.ok) throw new Error(`${text}: ${r.issues.map((i) => i.message).join('; ')}`);
  return r.program.evalRaw({ s });
}

/** cel-go TestNetwork_Success, expression and expected result as cel-go lists them. */
const CEL_GO_SUCCESS: readonly [string, Value][] = [
  ["isIP('1.2.3.4')", true],
  ["isIP('2001:db8::1')", true],
  ["isIP('not.an.ip')", false],
  ["isIP('127.0.0.1:80')", false],
  ["isCIDR('10.0.0.0/8')", true],
  ["isCIDR('10.0.0.0/999')", false],
  ["ip('127.0.0.1') == ip('127.0.0.1')", true],
  ["ip('127.0.0.1') == ip('1.2.3.4')", false],
  ["ip('2001:db8::1') == ip('2001:DB8::1')", true],
  ["string(ip('1.2.3.4'))", '1.2.3.4'],
  ["string(ip('2001:db8::1'))", '2001:db8::1'],
  ["string(cidr('10.0.0.0/8'))", '10.0.0.0/8'],
  ["string(cidr('::1/128'))", '::1/128'],
  ["ip('127.0.0.1').family()", 4n],
  ["ip('::1').family()", 6n],
  ["ip('127.0.0.1').isLoopback()", true],
  ["ip('::1').isLoopback()", true],
  ["ip('0.0.0.0').isUnspecified()", true],
  ["ip('::').isUnspecified()", true],
  ["ip('8.8.8.8').isGlobalUnicast()", true],
  ["ip('ff02::1').isLinkLocalMulticast()", true],
  ["cidr('192.168.0.0/24').prefixLength()", 24n],
  ["cidr('192.168.0.0/24').ip() == ip('192.168.0.0')", true],
  ["cidr('192.168.1.5/24').ip() == ip('192.168.1.5')", true],
  ["cidr('192.168.1.5/24').masked() == cidr('192.168.1.0/24')", true],
  ["cidr('192.168.1.0/24').masked() == cidr('192.168.1.0/24')", true],
  ["cidr('10.0.0.0/8').containsIP(ip('10.1.2.3'))", true],
  ["cidr('10.0.0.0/8').containsIP('10.1.2.3')", true],
  ["cidr('10.0.0.0/8').containsIP(ip('10.0.0.0'))", true],
  ["cidr('10.0.0.0/8').containsIP(ip('10.255.255.255'))", true],
  ["cidr('10.0.0.0/8').containsIP(ip('11.0.0.0'))", false],
  ["cidr('10.0.0.0/8').containsCIDR(cidr('10.0.0.0/8'))", true],
  ["cidr('10.0.0.0/8').containsCIDR(cidr('10.1.0.0/16'))", true],
  ["cidr('10.0.0.0/8').containsCIDR('10.1.0.0/16')", true],
  ["cidr('10.0.0.0/8').containsCIDR(cidr('0.0.0.0/4'))", false],
  ["cidr('10.0.0.0/8').containsCIDR(cidr('11.0.0.0/8'))", false],
  ["cidr('10.0.0.0/8').containsCIDR(cidr('::1/128'))", false],
];

describe('network extension', () => {
  it.each(CEL_GO_SUCCESS)('%s should give cel-go\'s result', (text, want) => {
    expect(evaluate(text)).toEqual(want);
  });

  it('containsIP and containsCIDR should return an error for a string that does not parse (cel-go runtime errors)', () => {
    expect(evaluate("cidr('10.0.0.0/8').containsIP(s)", 'not-an-ip')).toBeInstanceOf(CelErr);
    expect(evaluate("cidr('10.0.0.0/8').containsCIDR(s)", 'not-a-cidr')).toBeInstanceOf(CelErr);
    expect(evaluate('cidr(s).containsIP("10.0.0.1")', '10.0.0.0/8')).toBe(true);
    expect(evaluate('ip(s)', '10.0.0.1:80')).toBeInstanceOf(CelErr);
  });

  it('invalid constant arguments should be compile problems, as cel-go reports them', () => {
    for (const text of ["ip('999.999.999.999')", "cidr('1.2.3.4')", "cidr('10.0.0.0/999')"]) {
      const r = compileProgram(text, { env });
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.issues[0]?.code).toBe('invalid_argument');
    }
    expect(compileProgram("ip('127.0.0.1')", { env }).ok).toBe(true);
  });

  it('ip() should refuse IPv4-mapped IPv6 addresses and zones, as cel-go does', () => {
    expect(evaluate("isIP('::ffff:10.0.0.1')")).toBe(false);
    expect(evaluate("isIP('fe80::1%eth0')")).toBe(false);
  });

  it('inCidrRange should accept strings or ip and cidr values', () => {
    expect(evaluate("inCidrRange('10.1.2.3', '10.0.0.0/8')")).toBe(true);
    expect(evaluate("inCidrRange(ip('10.1.2.3'), cidr('10.0.0.0/8'))")).toBe(true);
    expect(evaluate("inCidrRange('2001:db8::5', '2001:db8::/32')")).toBe(true);
    expect(evaluate("inCidrRange('10.1.2.3', '2001:db8::/32')")).toBe(false);
    expect(evaluate("inCidrRange(s, '10.0.0.0/8')", 'nope')).toBeInstanceOf(CelErr);
    expect(evaluate("inCidrRange('10.0.0.1', s)", 'nope')).toBeInstanceOf(CelErr);
  });

  it('a filter should test a record field against a CIDR range, IPv4 and IPv6', () => {
    const r = compileFilter(
      'cidr("10.0.0.0/8").containsIP(ev.conn.client_ip) || inCidrRange(ev.conn.client_ip, "2001:db8::/32")',
      'tcp_connection_closed.v0',
    );
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    const f = r.filter;
    expect(f.evaluate({ conn: { client_ip: '10.200.0.1' } })).toBe(true);
    expect(f.evaluate({ conn: { client_ip: '2001:db8:1::1' } })).toBe(true);
    expect(f.evaluate({ conn: { client_ip: '192.168.0.1' } })).toBe(false);
    // Not an IP: an error in each branch, so no match.
    expect(f.evaluateRaw({ conn: { client_ip: 'garbage' } })).toBeInstanceOf(CelErr);
    expect(f.evaluate({ conn: { client_ip: 'garbage' } })).toBe(false);
  });

  it('a filter should read the family of a field parsed as an IP', () => {
    const r = compileFilter('ip(ev.conn.server_ip).family() == 6', 'http_request_complete.v0');
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    expect(r.filter.evaluate({ conn: { server_ip: '::1' } })).toBe(true);
    expect(r.filter.evaluate({ conn: { server_ip: '127.0.0.1' } })).toBe(false);
  });
});
