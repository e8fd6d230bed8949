// Unit test of the local broker's KRaft cluster id: never one the storage tool would read as an option.
import { describe, expect, it } from 'vitest';
import { newClusterId } from '../../../src/kafka/local-broker.js';

describe('local broker cluster id', () => {
  it('should draw again when the id would start with "-", which the storage tool takes for an option', () => {
    // 0xfb as the first byte encodes to "-" first in base64url; the second draw does not.
    const draws = [Buffer.alloc(16, 0xfb), Buffer.alloc(16, 0x01)];
    let calls = 0;
    const id = newClusterId(() => draws[calls++] as Buffer);
    expect(Buffer.alloc(16, 0xfb).toString('base64url').startsWith('-')).toBe(true);
    expect(calls).toBe(2);
    expect(id).toBe(Buffer.alloc(16, 0x01).toString('base64url'));
  });

  it('should make 22-character URL-safe ids that never start with "-"', () => {
    for (let i = 0; i < 2000; i++) {
      const id = newClusterId();
      expect(id).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]{21}$/);
    }
  });
});
