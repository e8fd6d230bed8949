// Reserved domain names: which texts are reservable, and which reservations cover or overlap others.
import { describe, expect, it } from 'vitest';
import { challengeRecordName, covers, isAddressHost, normalizeDomain, overlaps, publicSuffixTaken, wildcardBase } from '../../../src/accounts/domain-names.js';

describe('reserved domain names', () => {
  it('should take names of two labels or more, with one leading wildcard, and store them lowercase', () => {
    expect(normalizeDomain('Shop.Example.COM')).toBe('shop.example.com');
    expect(normalizeDomain('*.example.com')).toBe('*.example.com');
    expect(normalizeDomain('a-b.c1.example.io')).toBe('a-b.c1.example.io');
  });

  it('should refuse a bare top-level name, a wildcard over one, a wildcard inside a name, an IP address and an over-long name', () => {
    for (const bad of ['localhost', '*.com', 'shop.*.example.com', '**.example.com', '*example.com', '192.0.2.1', '-a.example.com', 'a..example.com', 'example.com.', '', `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}.com`]) {
      expect(normalizeDomain(bad), bad).toBeUndefined();
    }
  });

  it('should find the public suffix a reservation would take whole, from both sections of the Public Suffix List', () => {
    for (const [domain, suffix] of [['co.uk', 'co.uk'], ['*.co.uk', 'co.uk'], ['*.github.io', 'github.io'], ['github.io', 'github.io'], ['*.s3.amazonaws.com', 's3.amazonaws.com'], ['*.com.au', 'com.au']] as const) {
      expect(publicSuffixTaken(domain), domain).toBe(suffix);
    }
    for (const domain of ['shop.co.uk', '*.shop.co.uk', 'me.github.io', '*.me.github.io', '*.example.com', 'example.com', '*.domains.test', 'shop.example.internal']) {
      expect(publicSuffixTaken(domain), domain).toBeUndefined();
    }
  });

  it('should put the TXT challenge of a wildcard at its base', () => {
    expect(challengeRecordName('*.shop.example.com')).toBe('_edge-events-challenge.shop.example.com');
    expect(challengeRecordName('shop.example.com')).toBe('_edge-events-challenge.shop.example.com');
  });

  it('should make a wildcard cover every name below its base, at any depth, but not the base', () => {
    expect(wildcardBase('*.example.com')).toBe('example.com');
    expect(wildcardBase('example.com')).toBeUndefined();
    expect(covers('*.example.com', 'shop.example.com')).toBe(true);
    expect(covers('*.example.com', 'a.b.example.com')).toBe(true);
    expect(covers('*.example.com', '*.shop.example.com')).toBe(true);
    expect(covers('*.example.com', 'example.com')).toBe(false);
    expect(covers('*.example.com', 'badexample.com')).toBe(false);
    expect(covers('*.shop.example.com', '*.example.com')).toBe(false);
    expect(covers('shop.example.com', 'shop.example.com')).toBe(true);
    expect(covers('shop.example.com', '*.shop.example.com')).toBe(false);
  });

  it('should find an overlap in either direction and none between siblings', () => {
    expect(overlaps('a.example.com', '*.example.com')).toBe(true);
    expect(overlaps('*.example.com', 'a.example.com')).toBe(true);
    expect(overlaps('*.a.example.com', '*.example.com')).toBe(true);
    expect(overlaps('a.example.com', 'b.example.com')).toBe(false);
    expect(overlaps('*.a.example.com', '*.b.example.com')).toBe(false);
    expect(overlaps('example.com', '*.example.com')).toBe(false);
  });

  it('should tell an address from a name among canonical hosts, a name ending in a digit included', () => {
    for (const host of ['192.0.2.1', '[2001:db8::1]', '2001:db8::1', '::ffff:192.0.2.1']) expect(isAddressHost(host), host).toBe(true);
    for (const host of ['tcp.example.com', 'example.a1', 'x1.example.org', 'localhost']) expect(isAddressHost(host), host).toBe(false);
  });
});
