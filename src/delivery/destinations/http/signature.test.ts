import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { signBody, verifySignature } from './signature.js';

const secret = 'whsec-0123456789abcdef';

describe('http signature', () => {
  it('should sign "<t>.<body>" with HMAC-SHA256 as the receiver documentation says', () => {
    const body = '[{"event_id":"ev_1"}]';
    const expected = createHmac('sha256', secret).update(`1700000000.${body}`).digest('hex');
    expect(signBody(secret, Buffer.from(body), 1_700_000_000)).toBe(`t=1700000000,v1=${expected}`);
  });

  it('should match the worked example in the receiver documentation', () => {
    expect(signBody('example-secret-0123456789', Buffer.from('[]'), 1_700_000_000)).toBe(
      't=1700000000,v1=2f70cc0f79bed9d4ed25e5f2ee22ac2cf2af0dc1d84aa9844c2167706438da0f',
    );
  });

  it('should verify its own signature of any body within the tolerance', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.integer({ min: -300, max: 300 }), (bytes, skew) => {
        const body = Buffer.from(bytes);
        const header = signBody(secret, body, 1_700_000_000);
        expect(verifySignature(secret, header, body, { nowSeconds: 1_700_000_000 + skew })).toBe(true);
      }),
      { numRuns: 100 },
    );
  });

  it('should reject a changed body, another secret, a stale timestamp and a malformed header', () => {
    const body = Buffer.from('[{"a":1}]');
    const header = signBody(secret, body, 1_700_000_000);
    const now = { nowSeconds: 1_700_000_010 };
    expect(verifySignature(secret, header, Buffer.from('[{"a":2}]'), now)).toBe(false);
    expect(verifySignature('another-secret-0000', header, body, now)).toBe(false);
    expect(verifySignature(secret, header, body, { nowSeconds: 1_700_000_301 })).toBe(false);
    expect(verifySignature(secret, undefined, body, now)).toBe(false);
    expect(verifySignature(secret, 'v1=abc', body, now)).toBe(false);
    expect(verifySignature(secret, header.replace('t=1700000000', 't=1700000001'), body, now)).toBe(false);
  });

  it('should accept any of several v1 signatures, for secret rotation', () => {
    const body = Buffer.from('[]');
    const fromOld = signBody('old-secret-000000000', body, 1_700_000_000);
    const fromNew = signBody(secret, body, 1_700_000_000).split(',')[1];
    expect(verifySignature(secret, `${fromOld},${fromNew}`, body, { nowSeconds: 1_700_000_000 })).toBe(true);
  });
});
