import { describe, expect, it } from 'vitest';
import { parseResourceArn } from '../../../../../src/delivery/destinations/cloud/arn.js';
import { parseCloudTarget } from '../../../../../src/delivery/destinations/cloud/config.js';
import { validateTarget } from '../../../../../src/delivery/writer-registry.js';

const creds = { creds: { cloud_access_key_id: 'AKIAEDGEEVENTSTEST01', cloud_secret_access_key: 'a-very-secret-key' } };
const role = { role: { role_arn: 'arn:aws:iam::123456789012:role/path/edge-events' } };

describe('cloud resource ARNs', () => {
  it('should give region, account and name for each kind', () => {
    expect(parseResourceArn('delivery_stream', 'arn:aws:firehose:eu-west-1:123456789012:deliverystream/edge.events_1')).toMatchObject({
      partition: 'aws',
      region: 'eu-west-1',
      account: '123456789012',
      name: 'edge.events_1',
    });
    expect(parseResourceArn('data_stream', 'arn:aws-cn:kinesis:cn-north-1:123456789012:stream/s-1')).toMatchObject({ region: 'cn-north-1', name: 's-1' });
    expect(parseResourceArn('log_service', 'arn:aws:logs:us-gov-west-1:123456789012:log-group:/edge/events#1:*')).toMatchObject({
      region: 'us-gov-west-1',
      name: '/edge/events#1',
    });
  });

  it('should refuse an ARN of another service, without a region, or with a bad name, saying what is expected', () => {
    for (const [kind, arn] of [
      ['data_stream', 'arn:aws:firehose:us-east-1:123456789012:deliverystream/x'],
      ['data_stream', 'arn:aws:kinesis::123456789012:stream/x'],
      ['data_stream', 'arn:aws:kinesis:us-east-1:12345:stream/x'],
      ['delivery_stream', `arn:aws:firehose:us-east-1:123456789012:deliverystream/${'x'.repeat(65)}`],
      ['log_service', 'arn:aws:logs:us-east-1:123456789012:log-group:has space'],
      ['log_service', 'not an arn'],
    ] as const) {
      expect(parseResourceArn(kind, arn), arn).toMatch(/^must be the ARN of a .*, such as arn:aws:/);
    }
  });
});

describe('cloud target config', () => {
  it('should accept either auth kind, an endpoint and, for data_stream, a partition key', () => {
    const a = parseCloudTarget('data_stream', { auth: creds, stream_arn: 'arn:aws:kinesis:us-east-1:123456789012:stream/s', endpoint: 'http://127.0.0.1:4566', partition_key: 'object.conn.client_ip' }, 't');
    expect(a).toMatchObject({
      ok: true,
      config: { kind: 'data_stream', auth: { kind: 'creds', accessKeyId: 'AKIAEDGEEVENTSTEST01' }, endpoint: 'http://127.0.0.1:4566', partitionKey: 'object.conn.client_ip' },
    });
    const b = parseCloudTarget('log_service', { auth: { ...role, creds: null }, log_group_arn: 'arn:aws:logs:us-east-1:123456789012:log-group:g' }, 't');
    expect(b).toMatchObject({ ok: true, config: { auth: { kind: 'role', roleArn: role.role.role_arn }, resource: { name: 'g' } } });
  });

  it('should collect every problem at once, naming each field, and never echo the secret', () => {
    const r = parseCloudTarget(
      'delivery_stream',
      {
        auth: { creds: { cloud_access_key_id: 'short', cloud_secret_access_key: 'a-very-secret-key' } },
        delivery_stream_arn: 'arn:aws:kinesis:us-east-1:123456789012:stream/s',
        endpoint: 'ftp://x',
        partition_key: 'a',
      },
      'target.delivery_stream',
    );
    expect(r.ok).toBe(false);
    const problems = r.ok ? [] : r.problems;
    expect(problems.map((p) => p.field).sort()).toEqual(
      [
        'target.delivery_stream.auth.creds.cloud_access_key_id',
        'target.delivery_stream.delivery_stream_arn',
        'target.delivery_stream.endpoint',
        'target.delivery_stream.partition_key',
      ].sort(),
    );
    expect(JSON.stringify(problems)).not.toContain('a-very-secret-key');
  });

  it('should require exactly one of role and creds', () => {
    const arn = 'arn:aws:kinesis:us-east-1:123456789012:stream/s';
    for (const [auth, word] of [[{}, 'neither'], [{ ...role, ...creds }, 'both']] as const) {
      const r = parseCloudTarget('data_stream', { auth, stream_arn: arn }, 't');
      expect(r.ok ? [] : r.problems).toEqual([{ field: 't.auth', message: `t.auth must set exactly one of role and creds, not ${word}.` }]);
    }
    const missing = parseCloudTarget('data_stream', { stream_arn: arn }, 't');
    expect(missing.ok ? [] : missing.problems.map((p) => p.field)).toEqual(['t.auth']);
    const badRole = parseCloudTarget('data_stream', { auth: { role: { role_arn: 'arn:aws:iam:us-east-1:123456789012:role/x' } }, stream_arn: arn }, 't');
    expect(badRole.ok ? [] : badRole.problems.map((p) => p.field)).toEqual(['t.auth.role.role_arn']);
  });

  it('should be what the registry validates for the three cloud kinds', () => {
    expect(validateTarget({ log_service: { auth: role, log_group_arn: 'arn:aws:logs:us-east-1:123456789012:log-group:g' } })).toEqual([]);
    expect(validateTarget({ data_stream: { auth: role } }).map((p) => p.field)).toEqual(['target.data_stream.stream_arn']);
  });

  it('should refuse an endpoint carrying credentials', () => {
    const r = parseCloudTarget('data_stream', { auth: role, stream_arn: 'arn:aws:kinesis:us-east-1:123456789012:stream/s', endpoint: 'https://u:p@vpce.example' }, 't');
    expect(r.ok ? [] : r.problems).toEqual([{ field: 't.endpoint', message: 't.endpoint must not carry credentials.' }]);
  });
});
