import { describe, expect, it } from 'vitest';
import { RECORD_BATCH_OVERHEAD_BYTES, recordBytes, splitToBatchLimit } from '../../../src/kafka/record-limits.js';

describe('record limits', () => {
  it('should count the key, value and every header name and value of a message', () => {
    const bare = recordBytes({ key: null, value: Buffer.alloc(100) });
    expect(recordBytes({ key: 'k'.repeat(10), value: Buffer.alloc(100) })).toBe(bare + 10);
    // One header: its name, its value and their two length bytes, and nothing else grows.
    expect(recordBytes({ key: null, value: Buffer.alloc(100), headers: { 'x-a': 'vvvv' } })).toBe(bare + 3 + 4 + 2);
  });

  it('should split messages into chunks within the limit, in order, and list those over it alone', () => {
    const messages = [10, 400, 10, 3000, 10, 10, 900].map((n, i) => ({ key: String(i), value: Buffer.alloc(n) }));
    const limit = 1_000;
    const { chunks, oversize } = splitToBatchLimit(messages, limit);
    expect(oversize.map((o) => o.index)).toEqual([3]);
    expect(oversize[0]?.bytes).toBeGreaterThan(limit);
    expect(chunks.flat().map((m) => m.key)).toEqual(['0', '1', '2', '4', '5', '6']);
    for (const chunk of chunks) {
      expect(chunk.reduce((n, m) => n + recordBytes(m), RECORD_BATCH_OVERHEAD_BYTES)).toBeLessThanOrEqual(limit);
    }
    expect(chunks).toHaveLength(2);
  });
});
