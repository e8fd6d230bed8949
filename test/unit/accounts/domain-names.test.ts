// Reserved domain names: which texts are reservable, and which reservations cover or overlap others.
import { describe, expect, it } from 'vitest';
import { covers, normalizeDomain, overlaps, wildcardBase } from '../../../src/accounts/domain-names.js';

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
});
