import { OPERATOR } from '../../../accounts/account.js';
import { describe, expect, it } from 'vitest';
import { describeKindContract } from '../../../../test/support/destination-kind-contract.js';
import { httpKind } from './http-kind.js';

describe('http kind', () => {
  describeKindContract(httpKind, {
    valid: [{ url: 'https://hooks.example/in' }, { url: 'http://127.0.0.1:8080/x', secret: 'a-signing-secret-of-32-characters', timeout_ms: 500 }],
    invalid: [
      { object: { url: '' }, code: 'invalid_body', field: 'url' },
      { object: { url: 'not a url' }, code: 'invalid_body', field: 'url' },
      { object: { url: 'ftp://example.com' }, code: 'invalid_body', field: 'url' },
      // Sent as Basic auth decoded: a % that does not decode could never be sent.
      { object: { url: 'https://edge:pa%zz@a.example/in' }, code: 'invalid_body', field: 'url' },
      { object: { url: 'https://a.example', secret: 'short' }, code: 'invalid_body', field: 'secret' },
      { object: { url: 'https://a.example', timeout_ms: 99 }, code: 'invalid_body', field: 'timeout_ms' },
    ],
  });

  it('should answer the secret as null and the default timeout and output as null', () => {
    expect(httpKind.view({ url: 'https://a.example', secret_enc: 'v1.x' }, { fileRoot: '.', account: OPERATOR })).toEqual({ url: 'https://a.example', secret: null, timeout_ms: null, output_type: null, compression: null });
  });
});
