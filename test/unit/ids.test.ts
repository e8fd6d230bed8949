import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { eventIdOf, isId, newId } from '../../src/ids.js';

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

describe('event ids', () => {
  const T = 1_700_000_000_000;

  it('should spell the first 80 bits of the XOR of the two SHA-256 digests in base32 after the time digits (ARCHITECTURE.md "Event ids")', () => {
    const first80 = (text: string): bigint => BigInt(`0x${createHash('sha256').update(text).digest('hex').slice(0, 20)}`);
    fc.assert(
      fc.property(fc.string(), fc.nat(100), fc.nat(), fc.string(), fc.string(), (topic, partition, offset, sub, dest) => {
        let v = first80(`${topic}\0${partition}\0${offset}`) ^ first80(`${sub}\0${dest}`);
        let digits = '';
        for (let i = 0; i < 16; i++, v >>= 5n) digits = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'[Number(v & 31n)] + digits;
        expect(eventIdOf(T, topic, partition, offset, sub, dest).slice(-16)).toBe(digits);
      }),
    );
  });

  it('should give a (record, subscription, destination) the same id every time, and change it when any of them changes', () => {
    const a = eventIdOf(T, 'edge.traffic.x', 3, '42', 'esb_1', 'ed_1');
    expect(isId('event', a)).toBe(true);
    expect(eventIdOf(T, 'edge.traffic.x', 3, 42, 'esb_1', 'ed_1')).toBe(a);
    const others = [
      eventIdOf(T, 'edge.traffic.x', 3, 43, 'esb_1', 'ed_1'),
      eventIdOf(T, 'edge.traffic.x', 4, 42, 'esb_1', 'ed_1'),
      eventIdOf(T, 'edge.traffic.y', 3, 42, 'esb_1', 'ed_1'),
      eventIdOf(T, 'edge.traffic.x', 3, 42, 'esb_2', 'ed_1'),
      eventIdOf(T, 'edge.traffic.x', 3, 42, 'esb_1', 'ed_2'),
    ];
    expect(new Set([a, ...others]).size).toBe(6);
  });

  it('should sort by the record timestamp', () => {
    expect(eventIdOf(T + 1, 't', 0, 0, 'esb_1', 'ed_1') > eventIdOf(T, 't', 0, 0, 'esb_1', 'ed_1')).toBe(true);
  });

  it('should give distinct ids to 200,000 (record, subscription, destination) triples', () => {
    const ids = new Set<string>();
    for (let offset = 0; offset < 2_000; offset++) {
      for (let s = 0; s < 20; s++) for (let d = 0; d < 5; d++) ids.add(eventIdOf(T, 't', 0, offset, `esb_${s}`, `ed_${d}`));
    }
    expect(ids.size).toBe(200_000);
  });
});
