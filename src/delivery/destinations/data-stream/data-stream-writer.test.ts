import { describe, expect, it } from 'vitest';
import { MAX_PARTITION_KEY_BYTES, partitionKey } from './data-stream-writer.js';
import { compileKeyPath } from '../../key-path.js';

const item = (object: Record<string, unknown>) => ({
  eventId: 'ev_1',
  payload: Buffer.from('{}'),
  envelope: { event_id: 'ev_1', event_type: 't', event_timestamp: '2026-01-01T00:00:00Z', principal: null, object },
});

describe('data_stream partition keys', () => {
  it('should use the event id by default and when the field is empty or absent', () => {
    expect(partitionKey(compileKeyPath(undefined), item({}))).toBe('ev_1');
    expect(partitionKey(compileKeyPath('object.k'), item({ k: '' }))).toBe('ev_1');
    expect(partitionKey(compileKeyPath('object.k'), item({}))).toBe('ev_1');
    expect(partitionKey(compileKeyPath('object.k'), item({ k: '10.0.0.1' }))).toBe('10.0.0.1');
  });

  it('should replace a key over 256 bytes by its SHA-256, the same for the same value', () => {
    const long = 'é'.repeat(200);
    const a = partitionKey(compileKeyPath('object.k'), item({ k: long }));
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(partitionKey(compileKeyPath('object.k'), item({ k: long }))).toBe(a);
    expect(Buffer.byteLength(partitionKey(compileKeyPath('object.k'), item({ k: 'x'.repeat(256) })))).toBe(MAX_PARTITION_KEY_BYTES);
  });
});
