import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/admin/errors.js';
import { checkTextLimits } from '../../../src/admin/text-limits.js';

function codeOf(fn: () => void): unknown {
  try {
    fn();
    return undefined;
  } catch (err) {
    return err instanceof ApiError ? err.toBody() : err;
  }
}

describe('description and metadata limits', () => {
  it('a description of 255 bytes should pass and one of 256 bytes should fail', () => {
    expect(codeOf(() => checkTextLimits({ description: 'a'.repeat(255) }))).toBeUndefined();
    expect(codeOf(() => checkTextLimits({ description: 'a'.repeat(256) }))).toMatchObject({
      error_code: 'field_too_long',
      details: { field: 'description', limit: 255, actual: 256, unit: 'bytes' },
    });
  });

  it('multi-byte characters should count as their UTF-8 bytes', () => {
    // 128 two-byte characters: 128 characters, 256 bytes.
    expect(codeOf(() => checkTextLimits({ description: 'é'.repeat(128) }))).toMatchObject({ details: { actual: 256 } });
    expect(codeOf(() => checkTextLimits({ metadata: '€'.repeat(1366) }))).toMatchObject({ details: { field: 'metadata', actual: 4098 } });
    expect(codeOf(() => checkTextLimits({ metadata: '€'.repeat(1365) }))).toBeUndefined();
  });

  it('in characters, an emoji should count once and 255 of them should pass', () => {
    expect(codeOf(() => checkTextLimits({ description: '😀'.repeat(255) }, 'characters'))).toBeUndefined();
    expect(codeOf(() => checkTextLimits({ description: '😀'.repeat(256) }, 'characters'))).toMatchObject({ details: { unit: 'characters', actual: 256 } });
  });
});
