// The delivery_stream destination kind: a Firehose delivery stream, named by its ARN (the cloud kinds'
// shared rules are in ../aws/).
import type { DestinationKind } from '../../destination-kind.js';
import { resourceArnRule } from '../aws/arn.js';
import { cloudDepsOf } from '../aws/client-config.js';
import type { CloudTargetConfig } from '../aws/cloud-config.js';
import { cloudKind } from '../aws/cloud-kind.js';
import { DELIVERY_STREAM_LIMITS, DeliveryStreamWriter } from './delivery-stream-writer.js';

export const deliveryStreamKind: DestinationKind<CloudTargetConfig> = cloudKind({
  name: 'delivery_stream',
  description: 'A cloud delivery stream (Firehose PutRecordBatch).',
  schemaName: 'DeliveryStreamTarget',
  arnField: 'delivery_stream_arn',
  // Firehose CreateDeliveryStream: "DeliveryStreamName ... Length 1-64, Pattern [a-zA-Z0-9_.-]+".
  arn: resourceArnRule({
    resource: 'delivery stream',
    service: 'firehose',
    resourceType: 'deliverystream/',
    name: '[a-zA-Z0-9_.-]{1,64}',
    example: 'arn:aws:firehose:us-east-1:123456789012:deliverystream/edge-events',
  }),
  limits: DELIVERY_STREAM_LIMITS,
  createWriter: (config, deps) => new DeliveryStreamWriter(config, cloudDepsOf(deps)),
});
