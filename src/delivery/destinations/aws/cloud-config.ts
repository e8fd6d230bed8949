// Config of a cloud destination: the resource ARN, auth as exactly one of a role or an access key pair,
// this service's optional endpoint override, and any option of the kind's own. Each cloud kind states
// its resource (CloudKindSpec); the rules below are the same for all of them.
import type { AccountContext } from '../../../accounts/account.js';
import type { EgressRules } from '../../egress-rules.js';
import { ConfigReader, isPlainObject, problem, type ConfigProblem, type ParseResult } from '../../destination-config.js';
import type { JsonSchema } from '../../destination-kind.js';
import { httpUrlSchema } from '../../../net/http-url.js';
import { nullable, withError } from '../target-schema.js';
import { ROLE_ARN, parseResourceArn, type ArnRule, type ResourceArn } from './arn.js';

export type CloudAuth =
  | { readonly kind: 'creds'; readonly accessKeyId: string; readonly secretAccessKey: string }
  /** `externalId` is the id of the account the destination belongs to: the role's trust policy names it (README.md here). */
  | { readonly kind: 'role'; readonly roleArn: string; readonly externalId: string };

export interface CloudTargetConfig {
  readonly resource: ResourceArn;
  readonly auth: CloudAuth;
  /** The service endpoint to call instead of the region's public one: a VPC endpoint, or an emulator. */
  readonly endpoint?: string;
  /**
   * The endpoint is a normal account's, what a customer provides (SECURITY.md "Egress"): its host is
   * judged at every connect, and what it answers is told in the service's own words only.
   */
  readonly customerEndpoint?: true;
  /** The kind's own options that are set, by name. */
  readonly options: Readonly<Record<string, string>>;
}

/** An option a cloud kind adds: its schema (the same in requests and responses) and its rule. */
export interface CloudOption {
  readonly name: string;
  readonly schema: JsonSchema;
  /** Why a value is refused (completing "The field <field> …"), or undefined when it is fine. */
  problem(value: unknown): string | undefined;
}

/** What makes one cloud kind: its name, the field holding its resource ARN and that ARN's rule. */
export interface CloudKindSpec {
  readonly name: string;
  /** One line for the API docs, e.g. "A cloud data stream (Kinesis PutRecords)." */
  readonly description: string;
  readonly arnField: string;
  readonly arn: ArnRule;
  /** The name of its request schema in the OpenAPI document, e.g. DataStreamTarget; its response's is that with View. */
  readonly schemaName: string;
  readonly options?: readonly CloudOption[];
}

// IAM AccessKeyId: "Length Constraints: Minimum length of 16. Maximum length of 128. Pattern: [\w]+". S3-compatible
// stores take shorter ones (MinIO's default is minioadmin); a key id the provider does not know fails the check.
export const ACCESS_KEY_ID = /^[A-Za-z0-9_]{3,128}$/;
export const MAX_SECRET_KEY_LENGTH = 1024;

/** The endpoint override, which every cloud kind takes: an absolute http(s) URL with no credentials in it. */
export const ENDPOINT_OPTION: CloudOption = {
  name: 'endpoint',
  schema: withError(
    nullable(
      httpUrlSchema(
        "This service's addition: the service endpoint to call instead of the region's public one (a private endpoint or an emulator); null means the public one. An http or https URL with a DNS name, IPv4 or [IPv6] host, an optional port 1-65535, and no user info.",
      ),
    ),
    'invalid_body',
    { reason: 'must be an absolute http or https URL with a DNS name, IPv4 or [IPv6] host, an optional port 1-65535, and no user info' },
  ),
  // Laxer than the schema, which the API applies on top: targets stored before the schema was narrowed still load.
  problem(value) {
    let url: URL | undefined;
    try {
      url = typeof value === 'string' ? new URL(value) : undefined;
    } catch {
      url = undefined;
    }
    const ok = url !== undefined && (url.protocol === 'http:' || url.protocol === 'https:') && url.username === '' && url.password === '';
    return ok ? undefined : 'must be an absolute http or https URL without credentials';
  },
};

/**
 * A normal account's endpoint override is what a customer provides: held to the http destinations' rules
 * as written (SECURITY.md "Egress"); the operator's may name a private endpoint or an emulator.
 */
export function refuseEndpoint(r: ConfigReader, endpoint: string | undefined, account: AccountContext, egress?: EgressRules): void {
  const refused = endpoint === undefined || account.isOperator ? undefined : egress?.urlRefusal(new URL(endpoint));
  if (refused !== undefined) r.add(problem.egress(refused.code, r.path('endpoint'), refused.reason));
}

/** Every option of a kind: the endpoint, then the kind's own. */
export function cloudOptions(spec: CloudKindSpec): readonly CloudOption[] {
  return [ENDPOINT_OPTION, ...(spec.options ?? [])];
}

function arnProblem(r: ConfigReader, field: string, rule: ArnRule): ResourceArn | undefined {
  if (!r.has(field)) {
    r.invalid(field, 'is required');
    return undefined;
  }
  const value = r.obj[field];
  const arn = typeof value === 'string' ? parseResourceArn(rule, value) : undefined;
  if (arn === undefined) r.add(problem.arn(r.path(field), rule.resource, rule.example));
  return arn;
}

/** `auth` as exactly one of a role (its ExternalId the account's id) or a key pair; problems are added to `problems`. */
export function parseAuth(raw: unknown, field: string, problems: ConfigProblem[], account: AccountContext): CloudAuth | undefined {
  if (!isPlainObject(raw)) {
    problems.push(problem.auth(field, 'neither'));
    return undefined;
  }
  const r = new ConfigReader(raw, field, ['role', 'creds']);
  problems.push(...r.problems);
  const given = ['role', 'creds'].filter((k) => r.has(k));
  if (given.length !== 1) {
    problems.push(problem.auth(field, given.length === 0 ? 'neither' : 'both'));
    return undefined;
  }
  if (given[0] === 'role') {
    // external_id is read-only (the account's id, whatever a request sends back): acceptTarget drops it.
    const role = new ConfigReader(raw.role, `${field}.role`, ['role_arn', 'external_id']);
    const arn = role.problems.length === 0 ? arnProblem(role, 'role_arn', ROLE_ARN) : undefined;
    problems.push(...role.problems);
    return arn === undefined ? undefined : { kind: 'role', roleArn: arn.arn, externalId: account.accountId };
  }
  const creds = new ConfigReader(raw.creds, `${field}.creds`, ['cloud_access_key_id', 'cloud_secret_access_key']);
  const accessKeyId = creds.string('cloud_access_key_id', true);
  if (accessKeyId !== undefined && !ACCESS_KEY_ID.test(accessKeyId)) creds.invalid('cloud_access_key_id', 'must be 3 to 128 letters, digits or underscores');
  const secret = creds.obj.cloud_secret_access_key;
  // The problem never echoes the secret.
  if (secret === undefined || secret === null) creds.invalid('cloud_secret_access_key', 'is required');
  // In characters (code points), as the schema's maxLength counts them.
  else if (typeof secret !== 'string' || secret === '' || [...secret].length > MAX_SECRET_KEY_LENGTH) {
    creds.invalid('cloud_secret_access_key', `must be a string of 1 to ${MAX_SECRET_KEY_LENGTH} characters`);
  }
  problems.push(...creds.problems);
  if (creds.problems.length > 0 || accessKeyId === undefined) return undefined;
  return { kind: 'creds', accessKeyId, secretAccessKey: secret as string };
}

/**
 * Validates one cloud target, collecting every problem at once in the order the API reports the first
 * of them: unknown fields, the resource ARN, the options, then auth.
 */
export function parseCloudTarget(spec: CloudKindSpec, raw: unknown, prefix: string, account: AccountContext, egress?: EgressRules): ParseResult<CloudTargetConfig> {
  const options = cloudOptions(spec);
  const r = new ConfigReader(raw, prefix, ['auth', spec.arnField, ...options.map((o) => o.name)]);
  if (!isPlainObject(raw)) return { ok: false, problems: r.problems };
  const resource = arnProblem(r, spec.arnField, spec.arn);
  const set: Record<string, string> = {};
  for (const option of options) {
    if (!r.has(option.name)) continue;
    const why = option.problem(r.obj[option.name]);
    if (why !== undefined) r.invalid(option.name, why);
    else set[option.name] = r.obj[option.name] as string;
  }
  refuseEndpoint(r, set.endpoint, account, egress);
  const auth = parseAuth(raw.auth, r.path('auth'), r.problems, account);
  // Every path that leaves resource or auth undefined has added a problem.
  if (r.problems.length > 0 || resource === undefined || auth === undefined) return { ok: false, problems: r.problems };
  const { endpoint, ...own } = set;
  const customer = endpoint !== undefined && !account.isOperator;
  return { ok: true, config: { resource, auth, ...(endpoint !== undefined && { endpoint }), ...(customer && { customerEndpoint: true as const }), options: own } };
}
