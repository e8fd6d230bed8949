import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../../src/admin/errors.js';
import { normalizeHostport } from '../../../../src/admin/tcp-edges/hostport.js';

const codeOf = (v: string): string | undefined => {
  try {
    normalizeHostport(v, 'hostports[0]');
    return undefined;
  } catch (err) {
    return (err as ApiError).code;
  }
};

describe('hostport validation', () => {
  it('a DNS name, IPv4 or bracketed IPv6 host with a port should be accepted in canonical form', () => {
    expect(normalizeHostport('1.TCP.Example.com:20000', 'h')).toBe('1.tcp.example.com:20000');
    expect(normalizeHostport('192.0.2.1:1', 'h')).toBe('192.0.2.1:1');
    expect(normalizeHostport('[2001:DB8:0::1]:65535', 'h')).toBe('[2001:db8::1]:65535');
    expect(normalizeHostport('localhost:22', 'h')).toBe('localhost:22');
  });

  it('a missing, zero, too large or padded port should be refused', () => {
    for (const bad of ['example.com', 'example.com:', 'example.com:0', 'example.com:65536', 'example.com:080', 'example.com:+80']) {
      expect([bad, codeOf(bad)]).toEqual([bad, 'invalid_hostport']);
    }
  });

  it('a malformed host should be refused', () => {
    for (const bad of [':80', '-a.com:80', 'a-.com:80', 'a..com:80', 'a_b.com:80', '2001:db8::1:80', '[10.0.0.1]:80', '300.1.1.1:80', `${'a'.repeat(64)}.com:80`]) {
      expect([bad, codeOf(bad)]).toEqual([bad, 'invalid_hostport']);
    }
  });
});
