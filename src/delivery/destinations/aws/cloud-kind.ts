// A cloud destination kind from its spec: the schemas, rules, secret and view every cloud kind shares
// (auth as a role or an access key pair, the endpoint override), with the kind's own resource and writer.
import type { AccountContext } from '../../../accounts/account.js';
import { isPlainObject, problem, type ConfigProblem } from '../../destination-config.js';
import type { DestinationKind, JsonSchema, WriterDeps } from '../../destination-kind.js';
import { hostRefusal } from '../../egress-guard.js';
import { exactlyOne, named, nullable, obj, patterned, secretRequest, secretResponse, str } from '../target-schema.js';
import { ROLE_ARN } from './arn.js';
import { verifyCloudTarget, type CheckableCloudKind } from './cloud-check.js';
import { ACCESS_KEY_ID, MAX_SECRET_KEY_LENGTH, cloudOptions, parseCloudTarget, type CloudKindSpec, type CloudTargetConfig } from './cloud-config.js';
import type { WriterLimits } from '../../contract.js';

const ROLE_ARN_FIELD = patterned(ROLE_ARN.pattern.source, `Cloud resource name of the role used to deliver, e.g. ${ROLE_ARN.example}.`, { examples: [ROLE_ARN.example] });
const KEY_ID = patterned(ACCESS_KEY_ID.source, 'ID portion of a cloud access key (3 to 128 letters, digits or underscores: AWS makes 16 or more, S3-compatible stores may make fewer).', { examples: ['AKIAIOSFODNN7EXAMPLE'] });
const SECRET_ABOUT = 'Secret portion of a cloud access key.';
const EXTERNAL_ID_ABOUT =
  "Read-only: the ExternalId the service passes to AssumeRole, the id of the account the destination belongs to; the role's trust policy should require it (sts:ExternalId). A request may send it back; it is ignored.";

/**
 * Exactly one of role or creds (CloudAuth, with RoleAuth and CredsAuth). In a request the other one may
 * be null; a response holds only the one set (CloudAuthView), its secret null. On an update the secret
 * may be left out to keep the stored one (same key id).
 */
export function authSchema(use: 'request' | 'response'): JsonSchema {
  const view = use === 'response' ? 'View' : '';
  const externalId = str(EXTERNAL_ID_ABOUT, { readOnly: true });
  const role =
    use === 'request'
      ? obj({ role_arn: ROLE_ARN_FIELD, external_id: nullable(externalId) }, ['role_arn'])
      : obj({ role_arn: str('Cloud resource name of the role used to deliver.'), external_id: externalId }, ['role_arn', 'external_id']);
  const creds =
    use === 'request'
      ? obj({ cloud_access_key_id: KEY_ID, cloud_secret_access_key: secretRequest(SECRET_ABOUT, { min: 1, max: MAX_SECRET_KEY_LENGTH }) }, ['cloud_access_key_id', 'cloud_secret_access_key'])
      : obj({ cloud_access_key_id: str('ID portion of a cloud access key.'), cloud_secret_access_key: secretResponse(SECRET_ABOUT) }, ['cloud_access_key_id', 'cloud_secret_access_key']);
  const choices = { role: named(`RoleAuth${view}`, role), creds: named(`CredsAuth${view}`, creds) };
  const about = 'How the service authenticates: a role it assumes, or an access key pair.';
  return named(`CloudAuth${view}`, use === 'request' ? exactlyOne(choices, about) : obj(choices, [], `${about} Exactly one is set.`));
}

function cloudSchema(spec: CloudKindSpec, use: 'request' | 'response'): JsonSchema {
  const options = cloudOptions(spec);
  const arn = `Cloud resource name, e.g. ${spec.arn.example}.`;
  const required = use === 'response' ? ['auth', spec.arnField, ...options.map((o) => o.name)] : ['auth', spec.arnField];
  return named(use === 'request' ? spec.schemaName : `${spec.schemaName}View`, obj(
    {
      auth: authSchema(use),
      [spec.arnField]: use === 'request' ? patterned(spec.arn.pattern.source, arn, { examples: [spec.arn.example] }) : str(arn),
      ...Object.fromEntries(options.map((o) => [o.name, use === 'request' ? o.schema : { type: ['string', 'null'], description: o.schema.description }])),
    },
    required,
    spec.description,
  ));
}

/** The stored auth as answered: the one given, the secret null, the role's ExternalId the account's id. */
export function authView(stored: unknown, account: AccountContext): Record<string, unknown> {
  const auth = isPlainObject(stored) ? stored : {};
  if (isPlainObject(auth.role)) return { role: { role_arn: auth.role.role_arn, external_id: account.accountId } };
  if (isPlainObject(auth.creds)) return { creds: { cloud_access_key_id: auth.creds.cloud_access_key_id, cloud_secret_access_key: null } };
  return {};
}

/** The stored object as answered: the auth given (the secret null), the ARN, and every option (null when unset). */
function cloudView(spec: CloudKindSpec, stored: Readonly<Record<string, unknown>>, account: AccountContext): Record<string, unknown> {
  return { auth: authView(stored.auth, account), [spec.arnField]: stored[spec.arnField], ...Object.fromEntries(cloudOptions(spec).map((o) => [o.name, stored[o.name] ?? null])) };
}

/** The rules beyond the schema of auth and endpoint that every kind authenticating as the cloud kinds do states. */
export function authAndEndpointRules(name: string): NonNullable<DestinationKind['rules']> {
  return [
    { code: 'invalid_target_auth', rule: `target.${name}.auth sets exactly one of role and creds` },
    {
      code: 'secret_required',
      rule: `target.${name}.auth.creds.cloud_secret_access_key is sent unless the stored target has the same kind and cloud_access_key_id`,
      updateOnly: true,
    },
    { code: 'insecure_url', rule: `for every account but the operator's, target.${name}.endpoint uses https, unless the operator allows http` },
    {
      code: 'internal_address',
      rule: `for every account but the operator's, target.${name}.endpoint's host is not, and does not resolve to, an internal address (loopback, link-local, private, ...), unless the operator opens its range; checked when the target is set, "verify": false or not, and again at every connect`,
    },
  ];
}

/** A new key id needs its own secret; the same key id keeps the stored one when the secret is omitted. */
export const CLOUD_AUTH_SECRETS: DestinationKind['secrets'] = [{ path: 'auth.creds.cloud_secret_access_key', required: true, removable: false, keptWhileSame: 'cloud_access_key_id' }];

export interface CloudKindParts extends CheckableCloudKind {
  readonly limits: WriterLimits;
}

export function cloudKind(parts: CloudKindParts): DestinationKind<CloudTargetConfig> {
  return {
    name: parts.name,
    schema: { request: cloudSchema(parts, 'request'), response: cloudSchema(parts, 'response') },
    rules: [
      ...authAndEndpointRules(parts.name),
      {
        code: 'destination_check_failed',
        rule: `unless "verify" is false, the ${parts.name} target is described with its own auth (the role assumed first) before it is stored; a failure is answered 422 with the cloud's error code`,
      },
    ],
    secrets: CLOUD_AUTH_SECRETS,
    limits: parts.limits,
    readOnly: ['auth.role.external_id'],
    parse: (raw, prefix, account, egress) => parseCloudTarget(parts, raw, prefix, account, egress),
    view: (stored, deps) => cloudView(parts, stored, deps.account),
    createWriter: parts.createWriter,
    verify: (config, deps) => verifyCloudTarget(parts, config, deps),
    guard: (config, deps) => guardEndpoint(parts.name, config, deps),
  };
}

/**
 * A customer's endpoint named by a host name is refused when any of its addresses is (an IP literal was
 * judged when the target was parsed); the writer judges every connect again.
 */
export async function guardEndpoint(name: string, config: { readonly endpoint?: string; readonly customerEndpoint?: true }, deps: WriterDeps): Promise<readonly ConfigProblem[]> {
  if (config.customerEndpoint !== true || config.endpoint === undefined) return [];
  const host = new URL(config.endpoint).hostname;
  const why = await hostRefusal(host, deps);
  const field = `target.${name}.endpoint`;
  return why === undefined ? [] : [problem.egress('internal_address', field, `its host ${host} resolves to an address destinations may not reach: ${why}`, { host })];
}
