// Config of the three cloud destinations (SPEC.md 6.4): the resource ARN, auth as exactly one of a role
// or an access key pair, and this service's optional endpoint override and partition key.
import { ConfigReader, type ConfigProblem, type ParseResult } from '../../destination-config.js';
import { KEY_PATH_PATTERN } from '../../key-path.js';
import { ROLE_ARN_EXAMPLE, isRoleArn, parseResourceArn, type CloudResourceKind, type ResourceArn } from './arn.js';

export type CloudAuth =
  | { readonly kind: 'creds'; readonly accessKeyId: string; readonly secretAccessKey: string }
  | { readonly kind: 'role'; readonly roleArn: string };

export interface CloudTargetConfig {
  readonly kind: CloudResourceKind;
  readonly resource: ResourceArn;
  readonly auth: CloudAuth;
  /** The service endpoint to call instead of the region's public one: a VPC endpoint, or an emulator. */
  readonly endpoint?: string;
  /** data_stream only: a dotted envelope path whose value is the partition key; the default is the event id. */
  readonly partitionKey?: string;
}

/** The target field holding each kind's resource ARN (SPEC.md 6.4). */
export const ARN_FIELDS: Readonly<Record<CloudResourceKind, string>> = {
  delivery_stream: 'delivery_stream_arn',
  data_stream: 'stream_arn',
  log_service: 'log_group_arn',
};

/** Fields this service adds to SPEC.md 6.4's cloud targets, per kind. */
export const EXTRA_CLOUD_FIELDS: Readonly<Record<CloudResourceKind, readonly string[]>> = {
  delivery_stream: ['endpoint'],
  data_stream: ['endpoint', 'partition_key'],
  log_service: ['endpoint'],
};

// IAM AccessKeyId: "Length Constraints: Minimum length of 16. Maximum length of 128. Pattern: [\w]+".
const ACCESS_KEY_ID = /^\w{16,128}$/;

function present(obj: unknown, key: string): boolean {
  const v = (obj as Record<string, unknown> | null)?.[key];
  return v !== undefined && v !== null;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** An endpoint override: an absolute http(s) URL with no credentials in it. */
export function endpointProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute http or https URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must use http or https';
  if (url.username !== '' || url.password !== '') return 'must not carry credentials';
  return undefined;
}

function parseAuth(raw: unknown, prefix: string, problems: ConfigProblem[]): CloudAuth | undefined {
  const field = `${prefix}.auth`;
  if (!isObject(raw)) {
    problems.push({ field, message: `${field} must set exactly one of role and creds.` });
    return undefined;
  }
  problems.push(...new ConfigReader(raw, field, ['role', 'creds']).problems);
  const given = ['role', 'creds'].filter((k) => present(raw, k));
  if (given.length !== 1) {
    problems.push({ field, message: `${field} must set exactly one of role and creds, not ${given.length === 0 ? 'neither' : 'both'}.` });
    return undefined;
  }
  if (given[0] === 'role') {
    const role = new ConfigReader(raw.role, `${field}.role`, ['role_arn']);
    const roleArn = role.string('role_arn', true);
    if (roleArn !== undefined && !isRoleArn(roleArn)) {
      role.problem('role_arn', `${field}.role.role_arn must be an IAM role ARN, such as ${ROLE_ARN_EXAMPLE}.`);
    }
    problems.push(...role.problems);
    return role.problems.length === 0 && roleArn !== undefined ? { kind: 'role', roleArn } : undefined;
  }
  const creds = new ConfigReader(raw.creds, `${field}.creds`, ['cloud_access_key_id', 'cloud_secret_access_key']);
  const accessKeyId = creds.string('cloud_access_key_id', true);
  if (accessKeyId !== undefined && !ACCESS_KEY_ID.test(accessKeyId)) {
    creds.problem('cloud_access_key_id', `${field}.creds.cloud_access_key_id must be 16 to 128 letters, digits or underscores.`);
  }
  // The message never echoes the secret.
  const secretAccessKey = creds.string('cloud_secret_access_key', true);
  problems.push(...creds.problems);
  if (creds.problems.length > 0 || accessKeyId === undefined || secretAccessKey === undefined) return undefined;
  return { kind: 'creds', accessKeyId, secretAccessKey };
}

/** Validates one cloud target, collecting every problem at once. */
export function parseCloudTarget(kind: CloudResourceKind, raw: unknown, prefix: string): ParseResult<CloudTargetConfig> {
  const arnField = ARN_FIELDS[kind];
  const r = new ConfigReader(raw, prefix, ['auth', arnField, ...EXTRA_CLOUD_FIELDS[kind]]);
  const arn = r.string(arnField, true);
  let resource: ResourceArn | undefined;
  if (arn !== undefined) {
    const parsed = parseResourceArn(kind, arn);
    if (typeof parsed === 'string') r.problem(arnField, `${prefix}.${arnField} ${parsed}.`);
    else resource = parsed;
  }
  const auth = isObject(raw) ? parseAuth(raw.auth, prefix, r.problems) : undefined;
  const endpoint = r.string('endpoint', false);
  const why = endpoint === undefined ? undefined : endpointProblem(endpoint);
  if (why !== undefined) r.problem('endpoint', `${prefix}.endpoint ${why}.`);
  const partitionKey = kind === 'data_stream' ? r.string('partition_key', false) : undefined;
  if (partitionKey !== undefined && !KEY_PATH_PATTERN.test(partitionKey)) {
    r.problem('partition_key', `${prefix}.partition_key must be a dotted envelope path such as "object.conn.client_ip".`);
  }
  if (r.problems.length > 0 || resource === undefined || auth === undefined) {
    return { ok: false, problems: r.problems.length > 0 ? r.problems : [{ field: prefix, message: `${prefix} is incomplete.` }] };
  }
  return {
    ok: true,
    config: { kind, resource, auth, ...(endpoint !== undefined && { endpoint }), ...(partitionKey !== undefined && { partitionKey }) },
  };
}
