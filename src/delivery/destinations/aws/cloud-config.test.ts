// The rules every cloud kind shares, shown on a kind made up for the test: the ARN rule of its spec,
// auth as exactly one of role or creds, the endpoint override, the kind's own options, all problems at once.
import { OPERATOR, accountContext } from '../../../accounts/account.js';
import { DEFAULT_EGRESS } from '../../../../test/support/writer-deps.js';
import { describe, expect, it } from 'vitest';
import { parseResourceArn, resourceArnRule } from './arn.js';
import { parseCloudTarget, type CloudKindSpec } from './cloud-config.js';

const SPEC: CloudKindSpec = {
  name: 'sample_stream',
  description: 'A stream for this test.',
  arnField: 'sample_arn',
  schemaName: 'SampleStreamTarget',
  arn: resourceArnRule({ resource: 'sample stream', service: 'kinesis', resourceType: 'stream/', name: '[a-z]{1,8}', example: 'arn:aws:kinesis:us-east-1:123456789012:stream/edge' }),
  options: [{ name: 'color', schema: { type: 'string' }, problem: (v) => (v === 'blue' ? undefined : 'must be blue') }],
};
const ARN = 'arn:aws:kinesis:us-east-1:123456789012:stream/edge';
const creds = { creds: { cloud_access_key_id: 'AKIAEDGEEVENTSTEST01', cloud_secret_access_key: 'a-very-secret-key' } };
const role = { role: { role_arn: 'arn:aws:iam::123456789012:role/path/edge-events' } };

describe('cloud resource ARNs', () => {
  it('should give partition, region, account and name', () => {
    expect(parseResourceArn(SPEC.arn, 'arn:aws-cn:kinesis:cn-north-1:123456789012:stream/abc')).toEqual({
      arn: 'arn:aws-cn:kinesis:cn-north-1:123456789012:stream/abc',
      partition: 'aws-cn',
      region: 'cn-north-1',
      account: '123456789012',
      name: 'abc',
    });
  });

  it('should refuse an ARN of another service, without a region or account, or with a bad name', () => {
    for (const arn of [
      'arn:aws:firehose:us-east-1:123456789012:stream/abc',
      'arn:aws:kinesis::123456789012:stream/abc',
      'arn:aws:kinesis:us-east-1:12345:stream/abc',
      'arn:aws:kinesis:us-east-1:123456789012:stream/UPPER',
      'arn:aws:kinesis:us-east-1:123456789012:stream/abc:*',
      'not an arn',
    ]) {
      expect(parseResourceArn(SPEC.arn, arn), arn).toBeUndefined();
    }
  });
});

describe('cloud target config', () => {
  it('should accept either auth, the endpoint and the kind\'s own options', () => {
    const a = parseCloudTarget(SPEC, { auth: creds, sample_arn: ARN, endpoint: 'http://127.0.0.1:4566', color: 'blue' }, 't', OPERATOR);
    expect(a).toMatchObject({
      ok: true,
      config: { resource: { name: 'edge' }, auth: { kind: 'creds', accessKeyId: 'AKIAEDGEEVENTSTEST01', secretAccessKey: 'a-very-secret-key' }, endpoint: 'http://127.0.0.1:4566', options: { color: 'blue' } },
    });
    const b = parseCloudTarget(SPEC, { auth: { ...role, creds: null }, sample_arn: ARN }, 't', OPERATOR);
    expect(b).toMatchObject({ ok: true, config: { auth: { kind: 'role', roleArn: role.role.role_arn, externalId: OPERATOR.accountId }, options: {} } });
  });

  it("should give role auth the destination's account id as its ExternalId, whatever a request sends back", () => {
    const account = accountContext('acct_01kw0000000000000000000001');
    const r = parseCloudTarget(SPEC, { auth: { role: { ...role.role, external_id: 'acct_someone_else' } }, sample_arn: ARN }, 't', account);
    expect(r).toMatchObject({ ok: true, config: { auth: { kind: 'role', externalId: 'acct_01kw0000000000000000000001' } } });
  });

  it('should collect every problem at once, in the order the API reports them, and never echo the secret', () => {
    const r = parseCloudTarget(
      SPEC,
      { auth: { creds: { cloud_access_key_id: 'no spaces', cloud_secret_access_key: 'a-very-secret-key' } }, sample_arn: 'arn:x', endpoint: 'ftp://x', color: 'red', shape: 1 },
      'target.sample_stream',
      OPERATOR,
    );
    const problems = r.ok ? [] : r.problems;
    expect(problems.map((p) => [p.code, p.field])).toEqual([
      ['unknown_field', 'target.sample_stream.shape'],
      ['invalid_arn', 'target.sample_stream.sample_arn'],
      ['invalid_body', 'target.sample_stream.endpoint'],
      ['invalid_body', 'target.sample_stream.color'],
      ['invalid_body', 'target.sample_stream.auth.creds.cloud_access_key_id'],
    ]);
    expect(problems[1]?.details).toEqual({ field: 'target.sample_stream.sample_arn', resource: 'sample stream', example: SPEC.arn.example });
    expect(JSON.stringify(problems)).not.toContain('a-very-secret-key');
  });

  it('should require exactly one of role and creds', () => {
    for (const [auth, word] of [[{}, 'neither'], [{ ...role, ...creds }, 'both'], [undefined, 'neither'], ['x', 'neither']] as const) {
      const r = parseCloudTarget(SPEC, { auth, sample_arn: ARN }, 't', OPERATOR);
      expect(r.ok ? [] : r.problems).toEqual([{ code: 'invalid_target_auth', field: 't.auth', details: { field: 't.auth', given: word }, message: `t.auth must set exactly one of role and creds, not ${word}.` }]);
    }
    const badRole = parseCloudTarget(SPEC, { auth: { role: { role_arn: 'arn:aws:iam:us-east-1:123456789012:role/x' } }, sample_arn: ARN }, 't', OPERATOR);
    expect(badRole.ok ? [] : badRole.problems.map((p) => [p.code, p.field])).toEqual([['invalid_arn', 't.auth.role.role_arn']]);
  });

  it("should hold a normal account's endpoint to the egress rules, and leave the operator's to the operator", () => {
    const account = accountContext('acct_01kw0000000000000000000002');
    const codes = (endpoint: string, who = account) => {
      const r = parseCloudTarget(SPEC, { auth: role, sample_arn: ARN, endpoint }, 't', who, DEFAULT_EGRESS);
      return r.ok ? [] : r.problems.map((p) => [p.code, p.field]);
    };
    expect(codes('http://vpce.example')).toEqual([['insecure_url', 't.endpoint']]);
    expect(codes('https://169.254.169.254')).toEqual([['internal_address', 't.endpoint']]);
    expect(codes('https://[::ffff:10.0.0.1]:4566')).toEqual([['internal_address', 't.endpoint']]);
    expect(codes('https://vpce.example')).toEqual([]);
    expect(codes('http://127.0.0.1:4566', OPERATOR)).toEqual([]);
  });

  it('should refuse an endpoint carrying credentials or of another scheme', () => {
    for (const endpoint of ['https://u:p@vpce.example', 'ftp://x', 'not a url', '']) {
      const r = parseCloudTarget(SPEC, { auth: role, sample_arn: ARN, endpoint }, 't', OPERATOR);
      expect(r.ok ? [] : r.problems.map((p) => p.message), endpoint).toEqual(['t.endpoint must be an absolute http or https URL without credentials.']);
    }
  });

  it('should refuse a secret key that is empty or too long, without echoing it', () => {
    for (const secret of ['', 'k'.repeat(1025), 5]) {
      const r = parseCloudTarget(SPEC, { auth: { creds: { cloud_access_key_id: 'AKIAEDGEEVENTSTEST01', cloud_secret_access_key: secret } }, sample_arn: ARN }, 't', OPERATOR);
      expect(r.ok ? [] : r.problems.map((p) => p.field)).toEqual(['t.auth.creds.cloud_secret_access_key']);
      expect(JSON.stringify(r)).not.toContain('kkkk');
    }
  });
});
