import { describe, expect, it } from 'vitest';
import { describeKindContract } from '../../../../test/support/destination-kind-contract.js';
import { logServiceKind } from './log-service-kind.js';
import { OPERATOR } from '../../../accounts/account.js';

const ARN = 'arn:aws:logs:us-gov-west-1:123456789012:log-group:/edge/events#1';
const role = { role: { role_arn: 'arn:aws:iam::123456789012:role/edge-events' } };
const creds = { creds: { cloud_access_key_id: 'AKIAEDGEEVENTSTEST01', cloud_secret_access_key: 'a-very-secret-key' } };

describe('log_service kind', () => {
  describeKindContract(logServiceKind, {
    valid: [{ auth: role, log_group_arn: ARN }, { auth: creds, log_group_arn: `${ARN}:*` }],
    invalid: [
      { object: { auth: role, log_group_arn: 'arn:aws:logs:us-east-1:123456789012:log-group:has space' }, code: 'invalid_arn', field: 'log_group_arn' },
      { object: { auth: role, log_group_arn: 'not an arn' }, code: 'invalid_arn', field: 'log_group_arn' },
      { object: { auth: { role: { role_arn: 'arn:aws:iam::123456789012:user/x' } }, log_group_arn: ARN }, code: 'invalid_arn', field: 'auth.role.role_arn' },
    ],
  });

  it('should read the log group name from an ARN with or without the ":*" DescribeLogGroups adds', () => {
    for (const arn of [ARN, `${ARN}:*`]) {
      expect(logServiceKind.parse({ auth: role, log_group_arn: arn }, 't', OPERATOR), arn).toMatchObject({ ok: true, config: { resource: { region: 'us-gov-west-1', name: '/edge/events#1' } } });
    }
  });
});
