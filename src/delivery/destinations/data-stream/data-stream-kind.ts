// The data_stream destination kind: a Kinesis data stream, named by its ARN, with an optional partition
// key path (the cloud kinds' shared rules are in ../aws/).
import type { DestinationKind } from '../../destination-kind.js';
import { KEY_PATH_EXAMPLE, KEY_PATH_PATTERN } from '../../key-path.js';
import { resourceArnRule } from '../aws/arn.js';
import { cloudDepsOf } from '../aws/client-config.js';
import type { CloudOption, CloudTargetConfig } from '../aws/cloud-config.js';
import { cloudKind } from '../aws/cloud-kind.js';
import { DATA_STREAM_LIMITS, DataStreamWriter } from './data-stream-writer.js';

/** This service's addition: which envelope field keys the records (the writer's partitionKey()). */
const PARTITION_KEY_OPTION: CloudOption = {
  name: 'partition_key',
  schema: {
    type: ['string', 'null'],
    pattern: KEY_PATH_PATTERN.source,
    description: `This service's addition: a dotted envelope path whose value is the partition key, e.g. ${KEY_PATH_EXAMPLE}; null means the event id.`,
  },
  problem: (value) => (typeof value === 'string' && KEY_PATH_PATTERN.test(value) ? undefined : `must be a dotted envelope path such as ${KEY_PATH_EXAMPLE}`),
};

export const dataStreamKind: DestinationKind<CloudTargetConfig> = cloudKind({
  name: 'data_stream',
  description: 'A cloud data stream (Kinesis PutRecords).',
  schemaName: 'DataStreamTarget',
  arnField: 'stream_arn',
  // Kinesis CreateStream: "StreamName ... Length 1-128, Pattern [a-zA-Z0-9_.-]+".
  arn: resourceArnRule({
    resource: 'data stream',
    service: 'kinesis',
    resourceType: 'stream/',
    name: '[a-zA-Z0-9_.-]{1,128}',
    example: 'arn:aws:kinesis:us-east-1:123456789012:stream/edge-events',
  }),
  options: [PARTITION_KEY_OPTION],
  limits: DATA_STREAM_LIMITS,
  createWriter: (config, deps) => new DataStreamWriter(config, cloudDepsOf(deps)),
});
