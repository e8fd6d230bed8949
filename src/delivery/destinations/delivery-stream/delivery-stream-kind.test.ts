import { describe, expect, it } from 'vitest';
import { describeKindContract } from '../../../../test/support/destination-kind-contract.js';
import { deliveryStreamKind } from './delivery-stream-kind.js';
import { OPERATOR } from '../../../accounts/account.js';

const ARN = 'arn:aws:firehose:eu-west-1:123456789012:deliverystream/edge.events_1';
const role = { role: { role_arn: 'arn:aws:iam::123456789012:role/edge-events' } };
const creds = { creds: { cloud_access_key_id: 'AKIAEDGEEVENTSTEST01', cloud_secret_access_key: 'a-very-secret-key' } };

describe('delivery_stream kind', () => {
  describeKindContract(deliveryStreamKind, {
    valid: [{ auth: role, delivery_stream_arn: ARN }, { auth: creds, delivery_stream_arn: ARN, endpoint: 'http://127.0.0.1:4566' }],
    invalid: [
      { object: { auth: role, delivery_stream_arn: 'arn:aws:kinesis:us-east-1:123456789012:stream/x' }, code: 'invalid_arn', field: 'delivery_stream_arn' },
      { object: { auth: role, delivery_stream_arn: `arn:aws:firehose:us-east-1:123456789012:deliverystream/${'x'.repeat(65)}` }, code: 'invalid_arn', field: 'delivery_stream_arn' },
      { object: { auth: role, delivery_stream_arn: ARN, partition_key: 'object.a' }, code: 'unknown_field', field: 'partition_key' },
      { object: { auth: { creds: { cloud_access_key_id: 'AKIAEDGEEVENTSTEST01' } }, delivery_stream_arn: ARN }, code: 'secret_required', field: 'auth.creds.cloud_secret_access_key' },
    ],
  });

  it('should take the region and the stream name from the ARN', () => {
    const r = deliveryStreamKind.parse({ auth: role, delivery_stream_arn: ARN }, 't', OPERATOR);
    expect(r).toMatchObject({ ok: true, config: { resource: { region: 'eu-west-1', account: '123456789012', name: 'edge.events_1' } } });
  });
});
