// The log_service destination kind: a CloudWatch Logs log group, named by its ARN (the cloud kinds'
// shared rules are in ../aws/).
import type { DestinationKind } from '../../destination-kind.js';
import { resourceArnRule } from '../aws/arn.js';
import { cloudDepsOf } from '../aws/client-config.js';
import type { CloudTargetConfig } from '../aws/cloud-config.js';
import { cloudKind } from '../aws/cloud-kind.js';
import { LOG_SERVICE_LIMITS, LogServiceWriter } from './log-service-writer.js';

export const logServiceKind: DestinationKind<CloudTargetConfig> = cloudKind({
  name: 'log_service',
  description: 'A cloud log group (CloudWatch Logs PutLogEvents).',
  schemaName: 'LogServiceTarget',
  arnField: 'log_group_arn',
  // CloudWatch Logs CreateLogGroup: "logGroupName ... Length 1-512, Pattern [\.\-_/#A-Za-z0-9]+".
  // DescribeLogGroups answers ARNs ending in ":*", so that form is accepted too.
  arn: resourceArnRule({
    resource: 'log group',
    service: 'logs',
    resourceType: 'log-group:',
    name: '[-._/#A-Za-z0-9]{1,512}',
    suffix: '(?::\\*)?',
    example: 'arn:aws:logs:us-east-1:123456789012:log-group:edge-events',
  }),
  limits: LOG_SERVICE_LIMITS,
  createWriter: (config, deps) => new LogServiceWriter(config, cloudDepsOf(deps)),
});
