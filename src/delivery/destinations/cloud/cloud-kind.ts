// A cloud destination kind from its spec: the schemas, rules, secret and view every cloud kind shares
// (auth as a role or an access key pair, the endpoint override), with the kind's own resource and writer.
import { isPlainObject } from '../../destination-config.js';
import type { DestinationKind, JsonSchema } from '../../destination-kind.js';
import { nullable, obj, secretRequest, secretResponse, str } from '../target-schema.js';
import { ROLE_ARN } from './arn.js';
import { verifyCloudTarget, type CheckableCloudKind } from './cloud-check.js';
import { MAX_SECRET_KEY_LENGTH, cloudOptions, parseCloudTarget, type CloudKindSpec, type CloudTargetConfig } from './cloud-config.js';
import type { WriterLimits } from '../../contract.js';

function authSchema(response: boolean): JsonSchema {
  const about = 'Secret portion of a cloud access key.';
  const secret = response ? secretResponse(about) : secretRequest(about, MAX_SECRET_KEY_LENGTH);
  return obj(
    {
      role: nullable(obj({ role_arn: str(`Cloud resource name of the role used to deliver, e.g. ${ROLE_ARN.example}.`) }, ['role_arn'])),
      creds: nullable(
        obj(
          { cloud_access_key_id: str('ID portion of a cloud access key (16 to 128 letters, digits or underscores).'), cloud_secret_access_key: secret },
          response ? ['cloud_access_key_id', 'cloud_secret_access_key'] : ['cloud_access_key_id'],
        ),
      ),
    },
    [],
    'Exactly one of role or creds.',
  );
}

function cloudSchema(spec: CloudKindSpec, response: boolean): JsonSchema {
  const options = cloudOptions(spec);
  const required = response ? ['auth', spec.arnField, ...options.map((o) => o.name)] : ['auth', spec.arnField];
  return obj(
    { auth: authSchema(response), [spec.arnField]: str(`Cloud resource name, e.g. ${spec.arn.example}.`), ...Object.fromEntries(options.map((o) => [o.name, o.schema])) },
    required,
    spec.description,
  );
}

/** The stored object as answered: the auth given (the secret null), the ARN, and every option (null when unset). */
function cloudView(spec: CloudKindSpec, stored: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const auth = isPlainObject(stored.auth) ? stored.auth : {};
  let authView: Record<string, unknown> = {};
  if (isPlainObject(auth.role)) authView = { role: { role_arn: auth.role.role_arn } };
  else if (isPlainObject(auth.creds)) authView = { creds: { cloud_access_key_id: auth.creds.cloud_access_key_id, cloud_secret_access_key: null } };
  return { auth: authView, [spec.arnField]: stored[spec.arnField], ...Object.fromEntries(cloudOptions(spec).map((o) => [o.name, stored[o.name] ?? null])) };
}

export interface CloudKindParts extends CheckableCloudKind {
  readonly limits: WriterLimits;
}

export function cloudKind(parts: CloudKindParts): DestinationKind<CloudTargetConfig> {
  return {
    name: parts.name,
    schema: { request: cloudSchema(parts, false), response: cloudSchema(parts, true) },
    // A new key id needs its own secret; the same key id keeps the stored one when the secret is omitted.
    secrets: [{ path: 'auth.creds.cloud_secret_access_key', required: true, removable: false, keptWhileSame: 'cloud_access_key_id' }],
    limits: parts.limits,
    parse: (raw, prefix) => parseCloudTarget(parts, raw, prefix),
    view: (stored) => cloudView(parts, stored),
    createWriter: parts.createWriter,
    verify: (config, deps) => verifyCloudTarget(parts, config, deps),
  };
}
