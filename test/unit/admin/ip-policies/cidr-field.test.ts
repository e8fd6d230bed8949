import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../../src/admin/errors.js';
import { normalizeRuleCidr } from '../../../../src/admin/ip-policies/cidr-field.js';

function bodyOf(value: string): unknown {
  try {
    return normalizeRuleCidr(value);
  } catch (err) {
    return (err as ApiError).toBody();
  }
}

describe('rule cidr validation', () => {
  it('a normalized IPv4 or IPv6 range should be accepted in canonical form', () => {
    expect(normalizeRuleCidr('10.0.0.0/8')).toBe('10.0.0.0/8');
    expect(normalizeRuleCidr('2001:DB8:0:0::/32')).toBe('2001:db8::/32');
    expect(normalizeRuleCidr('0.0.0.0/0')).toBe('0.0.0.0/0');
    expect(normalizeRuleCidr('::/0')).toBe('::/0');
    expect(normalizeRuleCidr('192.168.1.7/32')).toBe('192.168.1.7/32');
  });

  it('a range with host bits should be refused with the masked form as suggestion', () => {
    expect(bodyOf('10.1.2.3/8')).toMatchObject({
      error_code: 'cidr_has_host_bits',
      msg: 'The field cidr has host bits set: 10.1.2.3/8; did you mean 10.0.0.0/8?',
      details: { field: 'cidr', suggestion: '10.0.0.0/8' },
    });
    expect(bodyOf('2001:db8::1/64')).toMatchObject({ error_code: 'cidr_has_host_bits', details: { suggestion: '2001:db8::/64' } });
  });

  it('text that is not a range should be invalid_cidr', () => {
    for (const bad of ['10.0.0.0', '10.0.0.0/33', '::/129', '10.0.0.0/08', 'fe80::/10%eth0', '::ffff:10.0.0.0/104', 'x/8', '']) {
      expect([bad, (bodyOf(bad) as { error_code?: string }).error_code]).toEqual([bad, 'invalid_cidr']);
    }
  });
});
