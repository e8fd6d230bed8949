// Amazon Resource Names of the cloud destinations: the shape each kind's resource ARN must have, and
// the region and name the writer reads from it. Each kind states its own rule (resourceArnRule).

/**
 * ARN format (AWS General Reference, "Amazon Resource Names"):
 *   arn:partition:service:region:account-id:resource-type/resource-id   (or resource-type:resource-id)
 * Partitions are aws, aws-cn, aws-us-gov, ...; regions look like us-east-1; account ids are 12 digits.
 */
// Spelled with ASCII classes (no \d or \w), as the patterns also go into the API's JSON schemas, which
// other regex dialects read (src/net/ip-patterns.ts).
const PARTITION = 'aws(?:-[a-z]+)*';
const REGION = '[a-z]{2}(?:-[a-z]+)+-[0-9]{1,2}';
const ACCOUNT = '[0-9]{12}';

export interface ArnRule {
  /** What the ARN names, in words: "delivery stream". */
  readonly resource: string;
  readonly pattern: RegExp;
  readonly example: string;
}

export interface ResourceArnShape {
  readonly resource: string;
  /** The service part, e.g. "firehose". */
  readonly service: string;
  /** What stands before the name, separator included, e.g. "deliverystream/" or "log-group:". */
  readonly resourceType: string;
  /** A regular expression for the name (the service's own naming rule). */
  readonly name: string;
  /** A regular expression allowed after the name, e.g. "(?::\\*)?". */
  readonly suffix?: string;
  readonly example: string;
}

/** The rule of a regional resource's ARN, capturing partition, region, account and name. */
export function resourceArnRule(shape: ResourceArnShape): ArnRule {
  const { service, resourceType, name, suffix = '' } = shape;
  return {
    resource: shape.resource,
    pattern: new RegExp(`^arn:(${PARTITION}):${service}:(${REGION}):(${ACCOUNT}):${resourceType}(${name})${suffix}$`),
    example: shape.example,
  };
}

const ROLE_NAME = '[A-Za-z0-9_+=,.@-]';

/** IAM ARNs have no region: arn:aws:iam::123456789012:role/path/name, names 1-64 of [\w+=,.@-]. */
export const ROLE_ARN: ArnRule = {
  resource: 'IAM role',
  pattern: new RegExp(`^arn:${PARTITION}:iam::${ACCOUNT}:role/(?:${ROLE_NAME}+/)*${ROLE_NAME}{1,64}$`),
  example: 'arn:aws:iam::123456789012:role/edge-events-delivery',
};

export interface ResourceArn {
  readonly arn: string;
  readonly partition: string;
  readonly region: string;
  readonly account: string;
  /** The delivery stream, stream or log group name. */
  readonly name: string;
}

/** The parts of a resource ARN, or undefined when it does not follow the rule. */
export function parseResourceArn(rule: ArnRule, arn: string): ResourceArn | undefined {
  const m = rule.pattern.exec(arn);
  if (m === null) return undefined;
  const [, partition, region, account, name] = m as unknown as [string, string, string, string, string];
  return { arn, partition, region, account, name };
}
