// The object_store destination kind: batches of events as objects in a bucket behind the S3 API
// (README.md here). Auth, endpoint and client settings are the cloud kinds' (../aws/).
import type { ConfigProblem } from '../../destination-config.js';
import type { DestinationKind, WriterDeps } from '../../destination-kind.js';
import { checkWithOwnAuth } from '../aws/cloud-check.js';
import { cloudDepsOf } from '../aws/client-config.js';
import { authAndEndpointRules, authView, CLOUD_AUTH_SECRETS, guardEndpoint } from '../aws/cloud-kind.js';
import { OBJECT_LIMITS } from '../objects/object-batches.js';
import { OBJECT_STORE_SCHEMA, OPTIONS, parseObjectStoreTarget, type ObjectStoreConfig } from './config.js';
import { ObjectStoreWriter } from './object-store-writer.js';

/**
 * The create-time check, with the destination's own auth (the role assumed first): HeadBucket (a role
 * allowed to put but not to list passes, as the cloud kinds' describe does), then a small object written
 * under the prefix, named to be skipped by query engines (../objects/README.md "The check object"), which
 * proves the writes will be taken.
 */
function verifyObjectStore(config: ObjectStoreConfig, deps: WriterDeps): Promise<readonly ConfigProblem[]> {
  return checkWithOwnAuth('object_store', config, new ObjectStoreWriter(config, cloudDepsOf(deps)), 'bucket', async (writer) => {
    await writer.describeResource();
    await writer.objects.writeCheck();
  });
}

export const objectStoreKind: DestinationKind<ObjectStoreConfig> = {
  name: 'object_store',
  schema: OBJECT_STORE_SCHEMA,
  rules: [
    ...authAndEndpointRules('object_store'),
    {
      code: 'invalid_body',
      rule: 'target.object_store.bucket holds no two adjacent periods and is not an IP address; without endpoint (on AWS) it neither starts with xn--, sthree- or amzn-s3-demo- nor ends with -s3alias, --ol-s3, .mrap, --x-s3 or --table-s3 (S3 bucket naming rules)',
    },
    {
      code: 'destination_check_failed',
      rule: 'unless "verify" is false, the object_store bucket is checked with its own auth (the role assumed first): HeadBucket, then a small check object written under the prefix (its name begins with _); a failure is answered 422 with the store\'s error code',
    },
  ],
  secrets: CLOUD_AUTH_SECRETS,
  readOnly: ['auth.role.external_id'],
  limits: OBJECT_LIMITS,
  parse: parseObjectStoreTarget,
  // Unset options as null (their defaults: config.ts and README.md here).
  view: (stored, deps) => ({
    auth: authView(stored.auth, deps.account),
    bucket: stored.bucket,
    ...Object.fromEntries(OPTIONS.map((name) => [name, stored[name] ?? null])),
  }),
  createWriter: (config, deps) => new ObjectStoreWriter(config, cloudDepsOf(deps)),
  verify: verifyObjectStore,
  guard: (config, deps) => guardEndpoint('object_store', config, deps),
};
