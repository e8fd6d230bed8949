import { describe, expect, it } from 'vitest';
import { describeKindContract } from '../../../../test/support/destination-kind-contract.js';
import { dataStreamKind } from './data-stream-kind.js';
import { OPERATOR } from '../../../accounts/account.js';

const ARN = 'arn:aws-cn:kinesis:cn-north-1:123456789012:stream/s-1';
const role = { role: { role_arn: 'arn:aws:iam::123456789012:role/edge-events' } };
const creds = { creds: { cloud_access_key_id: 'AKIAEDGEEVENTSTEST01', cloud_secret_access_key: 'a-very-secret-key' } };

describe('data_stream kind', () => {
  describeKindContract(dataStreamKind, {
    valid: [{ auth: role, stream_arn: ARN }, { auth: creds, stream_arn: ARN, endpoint: 'https://vpce.example', partition_key: 'object.conn.client_ip' }],
    invalid: [
      { object: { auth: role, stream_arn: 'arn:aws:kinesis::123456789012:stream/x' }, code: 'invalid_arn', field: 'stream_arn' },
      { object: { auth: role, stream_arn: ARN, partition_key: 'not a path' }, code: 'invalid_body', field: 'partition_key' },
      { object: { auth: role, stream_arn: ARN, partition_key: '' }, code: 'invalid_body', field: 'partition_key' },
      { object: { auth: {}, stream_arn: ARN }, code: 'invalid_target_auth', field: 'auth' },
    ],
  });

  it('should hand the partition key path to the writer and answer it as null when unset', () => {
    expect(dataStreamKind.parse({ auth: role, stream_arn: ARN, partition_key: 'object.k' }, 't', OPERATOR)).toMatchObject({ ok: true, config: { options: { partition_key: 'object.k' } } });
    expect(dataStreamKind.view({ auth: role, stream_arn: ARN }, { fileRoot: '.', account: OPERATOR })).toEqual({ auth: { role: { ...role.role, external_id: OPERATOR.accountId } }, stream_arn: ARN, endpoint: null, partition_key: null });
  });
});
