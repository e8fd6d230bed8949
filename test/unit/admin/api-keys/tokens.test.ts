import { describe, expect, it } from 'vitest';
import { bootstrapKeyId, hashToken, newToken, sameHash } from '../../../../src/admin/api-keys/tokens.js';
import { isId } from '../../../../src/ids.js';

describe('API key tokens', () => {
  it('a new token should be eek_ plus 43 base62 characters and never repeat', () => {
    const a = newToken();
    expect(a).toMatch(/^eek_[0-9A-Za-z]{43}$/);
    expect(new Set(Array.from({ length: 200 }, newToken)).size).toBe(200);
  });

  it('the stored hash should be the hex SHA-256 of the token and not contain it', () => {
    const t = newToken();
    const h = hashToken(t);
    expect(h).toMatch(/^[0-9a-f]{64}$/);
    expect(h).not.toContain(t.slice(4));
    expect(sameHash(h, hashToken(t))).toBe(true);
    expect(sameHash(h, hashToken(newToken()))).toBe(false);
  });

  it('the bootstrap key id should be a well-formed api key id that depends only on the token hash', () => {
    const h = hashToken('eek_fixed');
    expect(isId('api_key', bootstrapKeyId(h))).toBe(true);
    expect(bootstrapKeyId(h)).toBe(bootstrapKeyId(hashToken('eek_fixed')));
    expect(bootstrapKeyId(h)).not.toBe(bootstrapKeyId(hashToken('eek_other')));
  });
});
