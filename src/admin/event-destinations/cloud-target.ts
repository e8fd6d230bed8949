// The three cloud targets of SPEC.md 6.4 (delivery_stream, data_stream, log_service): the resource name's
// shape, auth as exactly one of role or creds, and the secret key sealed before it is stored.
import { DESTINATION_KINDS, validateTarget } from '../../delivery/writer-registry.js';
import { KEY_PATH_PATTERN } from '../../delivery/key-path.js';
import { ApiError } from '../errors.js';
import { fromConfigProblem, isPlainObject } from './target-errors.js';

export const CLOUD_KINDS = ['delivery_stream', 'data_stream', 'log_service'] as const;
export type CloudKind = (typeof CLOUD_KINDS)[number];

export function isCloudKind(k: string): k is CloudKind {
  return (CLOUD_KINDS as readonly string[]).includes(k);
}

// ARN format (AWS General Reference, "Amazon Resource Names"):
//   arn:partition:service:region:account-id:resource-type/resource-id
// Partitions are aws, aws-cn, aws-us-gov, ...; regions look like us-east-1; account ids are 12 digits.
const PARTITION = 'aws(?:-[a-z]+)*';
const REGION = '[a-z]{2}(?:-[a-z]+)+-\\d{1,2}';
const ACCOUNT = '\\d{12}';

interface ArnRule {
  readonly resource: string;
  readonly pattern: RegExp;
  readonly example: string;
}

/** IAM: role names are 1-64 of [\w+=,.@-], after an optional path; IAM ARNs have no region. */
export const ROLE_ARN: ArnRule = {
  resource: 'IAM role',
  pattern: new RegExp(`^arn:${PARTITION}:iam::${ACCOUNT}:role/(?:[\\w+=,.@-]+/)*[\\w+=,.@-]{1,64}$`),
  example: 'arn:aws:iam::123456789012:role/edge-events-delivery',
};

/** The field naming each kind's resource, and its rule (names per the services' CreateX limits). */
export const RESOURCE_ARNS: Readonly<Record<CloudKind, { readonly field: string } & ArnRule>> = {
  // Firehose DeliveryStreamName: 1-64 of [a-zA-Z0-9_.-].
  delivery_stream: {
    field: 'delivery_stream_arn',
    resource: 'delivery stream',
    pattern: new RegExp(`^arn:${PARTITION}:firehose:${REGION}:${ACCOUNT}:deliverystream/[a-zA-Z0-9_.-]{1,64}$`),
    example: 'arn:aws:firehose:us-east-1:123456789012:deliverystream/edge-events',
  },
  // Kinesis StreamName: 1-128 of [a-zA-Z0-9_.-].
  data_stream: {
    field: 'stream_arn',
    resource: 'data stream',
    pattern: new RegExp(`^arn:${PARTITION}:kinesis:${REGION}:${ACCOUNT}:stream/[a-zA-Z0-9_.-]{1,128}$`),
    example: 'arn:aws:kinesis:us-east-1:123456789012:stream/edge-events',
  },
  // CloudWatch Logs logGroupName: 1-512 of [.\-_/#A-Za-z0-9]; DescribeLogGroups answers ARNs ending in ":*".
  log_service: {
    field: 'log_group_arn',
    resource: 'log group',
    pattern: new RegExp(`^arn:${PARTITION}:logs:${REGION}:${ACCOUNT}:log-group:[.\\-_/#A-Za-z0-9]{1,512}(?::\\*)?$`),
    example: 'arn:aws:logs:us-east-1:123456789012:log-group:edge-events',
  },
};

/**
 * Options this service adds to SPEC.md 6.4's cloud targets (the cloud writers' own): an endpoint
 * override for private endpoints and emulators, and the data stream's partition key path.
 */
export const CLOUD_OPTIONS: Readonly<Record<CloudKind, readonly string[]>> = {
  delivery_stream: ['endpoint'],
  data_stream: ['endpoint', 'partition_key'],
  log_service: ['endpoint'],
};

/** IAM AccessKeyId: "Length Constraints: Minimum length of 16. Maximum length of 128. Pattern: [\w]+". */
export const ACCESS_KEY_ID = /^\w{16,128}$/;
export const MAX_SECRET_KEY_LENGTH = 1024;

/** A stored cloud target's creds: the key id and the sealed secret key. */
export interface StoredCreds {
  readonly cloud_access_key_id: string;
  readonly cloud_secret_access_key_enc: string;
}

export type CloudTargetResult = { readonly ok: true; readonly stored: Record<string, unknown> } | { readonly ok: false; readonly error: ApiError };

function unknownKey(obj: Record<string, unknown>, allowed: readonly string[], prefix: string): ApiError | undefined {
  const extra = Object.keys(obj).find((k) => !allowed.includes(k));
  return extra === undefined ? undefined : new ApiError('unknown_field', { field: `${prefix}.${extra}` });
}

function arnError(value: unknown, field: string, rule: ArnRule): ApiError | undefined {
  if (value === undefined || value === null) return new ApiError('invalid_body', { field, reason: 'is required' });
  if (typeof value !== 'string' || !rule.pattern.test(value)) {
    return new ApiError('invalid_arn', { field, resource: rule.resource, example: rule.example });
  }
  return undefined;
}

/**
 * Checks one cloud target and returns its stored shape, the secret key sealed as
 * `cloud_secret_access_key_enc`. An omitted (or null) secret keeps `previous`'s when the key id is unchanged.
 */
export function parseCloudTarget(kind: CloudKind, raw: unknown, previous: StoredCreds | undefined, seal: (clear: string) => string): CloudTargetResult {
  const prefix = `target.${kind}`;
  const fail = (error: ApiError): CloudTargetResult => ({ ok: false, error });
  if (!isPlainObject(raw)) return fail(new ApiError('invalid_body', { field: prefix, reason: 'must be an object' }));
  const resource = RESOURCE_ARNS[kind];
  const bad = unknownKey(raw, ['auth', resource.field, ...CLOUD_OPTIONS[kind]], prefix) ?? arnError(raw[resource.field], `${prefix}.${resource.field}`, resource);
  if (bad !== undefined) return fail(bad);
  // null options mean "the default", which the stored shape writes by leaving them out.
  const options = Object.fromEntries(CLOUD_OPTIONS[kind].filter((k) => raw[k] !== undefined && raw[k] !== null).map((k) => [k, raw[k]]));
  const optionBad = optionError(options, prefix);
  if (optionBad !== undefined) return fail(optionBad);

  const authField = `${prefix}.auth`;
  const auth = raw.auth;
  if (!isPlainObject(auth)) return fail(new ApiError('invalid_target_auth', { field: authField, given: 'neither' }));
  const authExtra = unknownKey(auth, ['role', 'creds'], authField);
  if (authExtra !== undefined) return fail(authExtra);
  const given = ['role', 'creds'].filter((k) => auth[k] !== undefined && auth[k] !== null);
  if (given.length !== 1) return fail(new ApiError('invalid_target_auth', { field: authField, given: given.length === 0 ? 'neither' : 'both' }));

  if (given[0] === 'role') {
    const role = auth.role;
    const field = `${authField}.role`;
    if (!isPlainObject(role)) return fail(new ApiError('invalid_body', { field, reason: 'must be an object' }));
    const roleBad = unknownKey(role, ['role_arn'], field) ?? arnError(role.role_arn, `${field}.role_arn`, ROLE_ARN);
    if (roleBad !== undefined) return fail(roleBad);
    return finish(kind, { auth: { role: { role_arn: role.role_arn } }, [resource.field]: raw[resource.field], ...options }, undefined);
  }

  const creds = auth.creds;
  const field = `${authField}.creds`;
  if (!isPlainObject(creds)) return fail(new ApiError('invalid_body', { field, reason: 'must be an object' }));
  const credsExtra = unknownKey(creds, ['cloud_access_key_id', 'cloud_secret_access_key'], field);
  if (credsExtra !== undefined) return fail(credsExtra);
  const keyId = creds.cloud_access_key_id;
  if (typeof keyId !== 'string' || !ACCESS_KEY_ID.test(keyId)) {
    return fail(new ApiError('invalid_body', { field: `${field}.cloud_access_key_id`, reason: 'must be 16 to 128 letters, digits or underscores' }));
  }
  const secret = creds.cloud_secret_access_key;
  const secretField = `${field}.cloud_secret_access_key`;
  let sealed: string;
  let clear: string | undefined;
  if (secret === undefined || secret === null) {
    if (previous === undefined || previous.cloud_access_key_id !== keyId) {
      const reason = previous === undefined ? 'with creds' : 'when cloud_access_key_id changes';
      return fail(new ApiError('secret_required', { field: secretField, reason }));
    }
    sealed = previous.cloud_secret_access_key_enc;
  } else if (typeof secret !== 'string' || secret === '' || secret.length > MAX_SECRET_KEY_LENGTH) {
    // The error never echoes the secret.
    return fail(new ApiError('invalid_body', { field: secretField, reason: `must be a string of 1 to ${MAX_SECRET_KEY_LENGTH} characters` }));
  } else {
    clear = secret;
    sealed = seal(secret);
  }
  const stored = { auth: { creds: { cloud_access_key_id: keyId, cloud_secret_access_key_enc: sealed } }, [resource.field]: raw[resource.field], ...options };
  return finish(kind, stored, clear);
}

/** The options' own rules, for a build whose writer registry does not know the cloud kinds yet. */
function optionError(options: Record<string, unknown>, prefix: string): ApiError | undefined {
  const { endpoint, partition_key: partitionKey } = options;
  if (endpoint !== undefined) {
    let url: URL | undefined;
    try {
      url = typeof endpoint === 'string' ? new URL(endpoint) : undefined;
    } catch {
      url = undefined;
    }
    if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.username !== '' || url.password !== '') {
      return new ApiError('invalid_body', { field: `${prefix}.endpoint`, reason: 'must be an absolute http or https URL without credentials' });
    }
  }
  if (partitionKey !== undefined && (typeof partitionKey !== 'string' || !KEY_PATH_PATTERN.test(partitionKey))) {
    return new ApiError('invalid_body', { field: `${prefix}.partition_key`, reason: 'must be a dotted envelope path such as object.conn.client_ip' });
  }
  return undefined;
}

/**
 * Once the writer registry knows the kind (the cloud writers), its parser has the last word, as it does
 * for kafka, http and file: the stored target is checked with its secret opened (or a stand-in for a
 * kept one, which was checked when it was sent).
 */
function finish(kind: CloudKind, stored: Record<string, unknown>, clearSecret: string | undefined): CloudTargetResult {
  if (!DESTINATION_KINDS.includes(kind)) return { ok: true, stored };
  const auth = stored.auth as { role?: unknown; creds?: { cloud_access_key_id: string } };
  const opened =
    auth.creds === undefined
      ? stored
      : { ...stored, auth: { creds: { cloud_access_key_id: auth.creds.cloud_access_key_id, cloud_secret_access_key: clearSecret ?? 'kept-secret-stand-in-0000000000' } } };
  const first = validateTarget({ [kind]: opened })[0];
  return first === undefined ? { ok: true, stored } : { ok: false, error: fromConfigProblem(first) };
}

/** The creds a stored cloud target holds, for keeping its secret across a PATCH. */
export function storedCreds(stored: unknown): StoredCreds | undefined {
  if (!isPlainObject(stored) || !isPlainObject(stored.auth)) return undefined;
  const creds = stored.auth.creds;
  if (!isPlainObject(creds)) return undefined;
  const { cloud_access_key_id: id, cloud_secret_access_key_enc: enc } = creds;
  return typeof id === 'string' && typeof enc === 'string' ? { cloud_access_key_id: id, cloud_secret_access_key_enc: enc } : undefined;
}
