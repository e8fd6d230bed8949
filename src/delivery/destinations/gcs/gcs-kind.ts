// The gcs destination kind: batches of events as objects in a Google Cloud Storage bucket through its
// JSON API (README.md here). The batching, names and check object are every object store kind's (../objects/).
import type { DestinationKind } from '../../destination-kind.js';
import { OBJECT_LIMITS } from '../objects/object-batches.js';
import { layoutView } from '../objects/object-layout.js';
import { checkStore } from '../objects/store-writer.js';
import { GCS_SCHEMA, parseGcsTarget, type GcsConfig } from './config.js';
import { GcsWriter } from './gcs-writer.js';

const P = 'target.gcs';

export const gcsKind: DestinationKind<GcsConfig> = {
  name: 'gcs',
  schema: GCS_SCHEMA,
  rules: [
    { code: 'invalid_body', rule: `${P}.bucket holds no two adjacent periods, is not an IP address, and neither begins with goog nor holds google; ${P}.service_account_key is a service-account key's JSON (type service_account, client_email, an RSA private_key, token_uri Google's)` },
    {
      code: 'destination_check_failed',
      rule: `unless "verify" is false, the bucket is checked with the destination's own key: a token made from it, the bucket read, then a small check object written under the prefix (its name begins with _); a failure is answered 422 with Cloud Storage's error reason`,
    },
  ],
  secrets: [{ path: 'service_account_key', required: true, removable: false }],
  limits: OBJECT_LIMITS,
  parse: (raw, prefix, account) => parseGcsTarget(raw, prefix, account),
  view: (stored) => ({ bucket: stored.bucket, service_account_key: null, ...layoutView(stored) }),
  createWriter: (config, deps) => new GcsWriter(config, deps),
  verify: async (config, deps) => {
    let writer: GcsWriter;
    try {
      writer = new GcsWriter(config, deps);
    } catch (err) {
      return [{ code: 'destination_check_failed', field: `${P}.service_account_key`, details: { field: `${P}.service_account_key`, error: 'InvalidKey', reason: String((err as Error).message) }, message: String((err as Error).message), deliveryCode: 'DESTINATION_MISCONFIGURED' }];
    }
    return checkStore(writer, { resource: `${P}.bucket`, auth: `${P}.service_account_key` }, false);
  },
};
