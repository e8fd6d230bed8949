import { OPERATOR } from '../../../accounts/account.js';
import { describe, expect, it } from 'vitest';
import { describeKindContract } from '../../../../test/support/destination-kind-contract.js';
import { datadogKind } from './datadog-kind.js';
import { DatadogWriter, MAX_PAYLOAD_BYTES, MAX_PAYLOAD_ENTRIES, packRequests } from './datadog-writer.js';

const KEY = '0123456789abcdef0123456789abcdef';

describe('datadog kind', () => {
  describeKindContract(datadogKind, {
    valid: [{ api_key: KEY }, { api_key: KEY, ddsite: 'datadoghq.eu', service: 'edge', ddtags: 'env:prod,team:edge' }, { api_key: KEY, ddsite: null, service: null, ddtags: null }],
    invalid: [
      { object: {}, code: 'secret_required', field: 'api_key' },
      { object: { api_key: 'has a space' }, code: 'invalid_body', field: 'api_key' },
      { object: { api_key: KEY, ddsite: 'datadoghq.org' }, code: 'invalid_body', field: 'ddsite' },
      { object: { api_key: KEY, service: 'x'.repeat(101) }, code: 'invalid_body', field: 'service' },
      { object: { api_key: KEY, ddtags: 'a\nb' }, code: 'invalid_body', field: 'ddtags' },
    ],
  });

  it('should answer the key as null and unset fields as null', () => {
    expect(datadogKind.view({ api_key_enc: 'v1.x' }, { fileRoot: '.', account: OPERATOR })).toEqual({ api_key: null, ddsite: null, service: null, ddtags: null });
  });

  it("should send to the site's intake and check the key at the site's API, or at the operator's base URL", () => {
    const eu = new DatadogWriter({ apiKey: KEY, site: 'datadoghq.eu', service: 'edge-events' });
    expect([eu.intakeUrl.href, eu.validateUrl.href]).toEqual(['https://http-intake.logs.datadoghq.eu/api/v2/logs', 'https://api.datadoghq.eu/api/v1/validate']);
    const own = new DatadogWriter({ apiKey: KEY, site: 'datadoghq.com', service: 'edge-events' }, { baseUrl: 'http://127.0.0.1:9428/insert/datadog' });
    expect([own.intakeUrl.href, own.validateUrl.href]).toEqual(['http://127.0.0.1:9428/insert/datadog/api/v2/logs', 'http://127.0.0.1:9428/insert/datadog/api/v1/validate']);
  });

  it("should cut requests at the intake's 1,000 entries and 5,000,000 bytes, brackets and commas counted", () => {
    const small = Array.from({ length: 2_500 }, () => ({ json: Buffer.alloc(10) }));
    expect(packRequests(small).map((r) => r.length)).toEqual([MAX_PAYLOAD_ENTRIES, MAX_PAYLOAD_ENTRIES, 500]);
    const big = Array.from({ length: 10 }, () => ({ json: Buffer.alloc(999_998) }));
    const requests = packRequests(big);
    for (const r of requests) expect(2 + r.reduce((n, e) => n + e.json.length, 0) + r.length - 1).toBeLessThanOrEqual(MAX_PAYLOAD_BYTES);
    expect(requests.map((r) => r.length)).toEqual([5, 5]);
  });
});
