import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { API_ERRORS, ApiError, codesWithStatus, type ApiErrorCode } from '../../../src/admin/errors.js';

const doc = readFileSync(new URL('../../../docs/api-errors.md', import.meta.url), 'utf8');

/** `| \`code\` | status | ...` rows of docs/api-errors.md. */
function documentedCodes(): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of doc.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \|/gm)) out.set(m[1] as string, Number(m[2]));
  return out;
}

describe('admin error catalogue', () => {
  it('docs/api-errors.md should list every code of the catalogue with its status', () => {
    const documented = documentedCodes();
    for (const [code, spec] of Object.entries(API_ERRORS)) expect([code, documented.get(code)]).toEqual([code, spec.status]);
  });

  it('no message should name a file of the repository: a message names what a user of the API can reach', () => {
    for (const [code, spec] of Object.entries(API_ERRORS)) expect([code, /\.md\b|\bsrc\/|\.ts\b|SPEC/.test(spec.template)]).toEqual([code, false]);
  });

  it('docs/api-errors.md should list no code the catalogue lacks', () => {
    expect([...documentedCodes().keys()].filter((c) => !(c in API_ERRORS))).toEqual([]);
  });

  it('an ApiError should render its template from details and carry them in the body', () => {
    const e = new ApiError('cidr_has_host_bits', { field: 'cidr', value: '10.1.2.3/8', suggestion: '10.0.0.0/8' });
    expect(e.toBody()).toEqual({
      error_code: 'cidr_has_host_bits',
      status_code: 400,
      msg: 'The field cidr has host bits set: 10.1.2.3/8; did you mean 10.0.0.0/8?',
      details: {
        field: 'cidr',
        value: '10.1.2.3/8',
        suggestion: '10.0.0.0/8',
        problems: [{ path: 'cidr', code: 'cidr_has_host_bits', message: 'The field cidr has host bits set: 10.1.2.3/8; did you mean 10.0.0.0/8?' }],
      },
    });
  });

  it('an ApiError of several should answer the first as ever and list every one once in details.problems', () => {
    const long = new ApiError('field_too_long', { field: 'description', limit: 255, unit: 'bytes', actual: 300 });
    const url = new ApiError('internal_address', { field: 'target.http.url', reason: '10.1.2.3 is an internal address' });
    const e = ApiError.all([long, url, long]);
    expect([e.code, e.message, e.details.field]).toEqual([long.code, long.message, 'description']);
    expect(e.toBody().details.problems).toEqual([
      { path: 'description', code: 'field_too_long', message: long.message },
      { path: 'target.http.url', code: 'internal_address', message: url.message },
    ]);
    // A field-less error has no place of its own: the request as a whole.
    expect(new ApiError('payload_too_large', { limit: 1 }).toBody().details.problems).toBeUndefined();
  });

  it('an ApiError should join a list detail with commas in its message', () => {
    const e = new ApiError('ip_policy_in_use', { id: 'ipp_1', edges: ['edgtcp_1', 'edgtcp_2'] });
    expect(e.message).toContain('edgtcp_1, edgtcp_2');
    expect(e.status).toBe(409);
  });

  it('codesWithStatus should return exactly the codes with that status', () => {
    const codes = codesWithStatus(401);
    expect(codes).toEqual(['unauthorized']);
    for (const c of codesWithStatus(409)) expect(API_ERRORS[c as ApiErrorCode].status).toBe(409);
  });

  it('only unavailable and rate_limited should be retryable', () => {
    const retryable = Object.entries(API_ERRORS).filter(([, s]) => s.retryable).map(([c]) => c);
    expect(retryable.sort()).toEqual(['rate_limited', 'unavailable']);
  });
});
