// Amazon Resource Names of the cloud destinations: each gives the region the client talks to and the
// name of the resource the writer puts records into.

/**
 * ARN format (AWS General Reference, "Amazon Resource Names"):
 *   arn:partition:service:region:account-id:resource-type/resource-id   (or resource-type:resource-id)
 * Partitions are aws, aws-cn, aws-us-gov, ...; regions look like us-east-1; account ids are 12 digits.
 */
const PARTITION = 'aws(?:-[a-z]+)*';
const REGION = '[a-z]{2}(?:-[a-z]+)+-\\d{1,2}';
const ACCOUNT = '\\d{12}';

export type CloudResourceKind = 'delivery_stream' | 'data_stream' | 'log_service';

interface ArnRule {
  readonly resource: string;
  readonly pattern: RegExp;
  readonly example: string;
}

const RULES: Readonly<Record<CloudResourceKind, ArnRule>> = {
  // Firehose CreateDeliveryStream: "DeliveryStreamName ... Length 1-64, Pattern [a-zA-Z0-9_.-]+".
  delivery_stream: {
    resource: 'delivery stream',
    pattern: new RegExp(`^arn:(${PARTITION}):firehose:(${REGION}):(${ACCOUNT}):deliverystream/([a-zA-Z0-9_.-]{1,64})$`),
    example: 'arn:aws:firehose:us-east-1:123456789012:deliverystream/edge-events',
  },
  // Kinesis CreateStream: "StreamName ... Length 1-128, Pattern [a-zA-Z0-9_.-]+".
  data_stream: {
    resource: 'data stream',
    pattern: new RegExp(`^arn:(${PARTITION}):kinesis:(${REGION}):(${ACCOUNT}):stream/([a-zA-Z0-9_.-]{1,128})$`),
    example: 'arn:aws:kinesis:us-east-1:123456789012:stream/edge-events',
  },
  // CloudWatch Logs CreateLogGroup: "logGroupName ... Length 1-512, Pattern [\.\-_/#A-Za-z0-9]+".
  // DescribeLogGroups answers ARNs ending in ":*", so that form is accepted too.
  log_service: {
    resource: 'log group',
    pattern: new RegExp(`^arn:(${PARTITION}):logs:(${REGION}):(${ACCOUNT}):log-group:([.\\-_/#A-Za-z0-9]{1,512})(?::\\*)?$`),
    example: 'arn:aws:logs:us-east-1:123456789012:log-group:edge-events',
  },
};

/** IAM ARNs have no region: arn:aws:iam::123456789012:role/path/name, names 1-64 of [\w+=,.@-]. */
const ROLE = new RegExp(`^arn:${PARTITION}:iam::${ACCOUNT}:role/(?:[\\w+=,.@-]+/)*[\\w+=,.@-]{1,64}$`);
export const ROLE_ARN_EXAMPLE = 'arn:aws:iam::123456789012:role/edge-events-delivery';

export interface ResourceArn {
  readonly arn: string;
  readonly partition: string;
  readonly region: string;
  readonly account: string;
  /** The delivery stream, stream or log group name. */
  readonly name: string;
}

/** The parts of a resource ARN, or a sentence saying what is wrong with it. */
export function parseResourceArn(kind: CloudResourceKind, arn: string): ResourceArn | string {
  const rule = RULES[kind];
  const m = rule.pattern.exec(arn);
  if (m === null) return `must be the ARN of a ${rule.resource}, such as ${rule.example}`;
  const [, partition, region, account, name] = m as unknown as [string, string, string, string, string];
  return { arn, partition, region, account, name };
}

export function isRoleArn(arn: string): boolean {
  return ROLE.test(arn);
}
