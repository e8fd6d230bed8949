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

describe('event ids of consumed records', () => {
  it('should give a record the same id every time it is read, and other records other ids', async () => {
    const { eventIdFor } = await import('../../src/ids.js');
    const a = eventIdFor(1_700_000_000_000, 'edge.traffic.x', 3, '42');
    expect(a).toBe(eventIdFor(1_700_000_000_000, 'edge.traffic.x', 3, 42));
    expect(isId('event', a)).toBe(true);
    expect(a).not.toBe(eventIdFor(1_700_000_000_000, 'edge.traffic.x', 3, 43));
    expect(a).not.toBe(eventIdFor(1_700_000_000_000, 'edge.traffic.x', 4, 42));
    expect(eventIdFor(1_700_000_000_001, 't', 0, 0) > eventIdFor(1_700_000_000_000, 't', 0, 0)).toBe(true);
  });
});
