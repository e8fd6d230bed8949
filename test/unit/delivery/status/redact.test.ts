import { describe, expect, it } from 'vitest';
import { MAX_MESSAGE_LENGTH, redactMessage } from '../../../../src/delivery/status/redact.js';

describe('status message redaction', () => {
  it('should remove credentials from URLs and credential-like query values', () => {
    expect(redactMessage('POST https://bob:hunter2-secret@hooks.example/in failed')).toBe('POST https://[redacted]@hooks.example/in failed');
    expect(redactMessage('GET http://a.example/x?user=1&token=abc123&sig=zz#f')).toBe('GET http://a.example/x?user=1&token=[redacted]&sig=[redacted]#f');
    expect(redactMessage('https://s3.example/o?X-Amz-Signature=deadbeef&X-Amz-Credential=AKIA/x')).toBe('https://s3.example/o?X-Amz-Signature=[redacted]&X-Amz-Credential=[redacted]');
  });

  it("should remove the destination's own secrets wherever they appear, and leave the rest alone", () => {
    expect(redactMessage('the receiver echoed signing-secret-7f3a9c2e5b back', ['signing-secret-7f3a9c2e5b'])).toBe('the receiver echoed [redacted] back');
    expect(redactMessage('127.0.0.1:9 could not be reached: ECONNREFUSED', ['short'])).toBe('127.0.0.1:9 could not be reached: ECONNREFUSED');
  });

  it('should cut a long answer', () => {
    const cut = redactMessage('x'.repeat(5_000));
    expect(cut).toHaveLength(MAX_MESSAGE_LENGTH);
    expect(cut.endsWith('…')).toBe(true);
  });
});
