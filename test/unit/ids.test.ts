import { describe, expect, it } from 'vitest';
import { isId, newId } from '../../src/ids.js';

describe('ids', () => {
  it('should carry the kind prefix and a 26-character body', () => {
    const id = newId('event_subscription');
    expect(id).toMatch(/^esb_[0-9A-Z]{26}$/);
    expect(isId('event_subscription', id)).toBe(true);
    expect(isId('event_destination', id)).toBe(false);
  });

  it('should sort ids made later after earlier ones, even within one millisecond', () => {
    const ids = Array.from({ length: 2000 }, () => newId('event'));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('should reject a malformed body', () => {
    expect(isId('api_key', 'ak_short')).toBe(false);
    expect(isId('api_key', 'ak_01JD3ZZZZZZZZZZZZZZZZZZZZU')).toBe(false); // U is not in Crockford base32
  });
});
