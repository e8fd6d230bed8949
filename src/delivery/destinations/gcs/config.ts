// Config of the gcs destination: objects in a Cloud Storage bucket through its JSON API, authorized by a
// service-account key (../gcp/service-account.ts), and the object layout every object store kind shares
// (../objects/).
import type { AccountContext } from '../../../accounts/account.js';
import { ConfigReader, KEPT_STAND_IN, isPlainObject, problem, type ParseResult } from '../../destination-config.js';
import type { JsonSchema } from '../../destination-kind.js';
import { parseServiceAccountKey } from '../gcp/service-account.js';
import { LAYOUT_FIELDS, layoutSchema, matching, parseLayout, type ObjectLayout, type StoreKeys } from '../objects/object-layout.js';
import { named, obj, patterned, secretRequest, secretResponse, str } from '../target-schema.js';

export interface GcsConfig extends ObjectLayout {
  readonly bucket: string;
  /** The service-account key's JSON text. */
  readonly serviceAccountKey: string;
}

/** An object's name is at most 1,024 bytes of UTF-8 ("Object naming requirements"). */
const GCS_KEYS: StoreKeys = { store: 'Cloud Storage', keyMaxBytes: 1024 };

// "Bucket naming requirements": 3 to 63 lowercase letters, digits, dashes, underscores and dots, beginning
// and ending with a letter or digit; not an IP address, not beginning with "goog" nor holding "google".
const BUCKET = '^[a-z0-9][a-z0-9._-]{1,61}[a-z0-9]$';
const NO_BUCKET: readonly (readonly [RegExp, string])[] = [
  [/\.\./, 'must not hold two adjacent periods'],
  [/^\d+\.\d+\.\d+\.\d+$/, 'must not be formatted as an IP address'],
  [/^goog|google/, 'must not begin with "goog" or hold "google" (reserved by Cloud Storage)'],
];
const KEY_MAX = 16 * 1024;

export const OPTIONS = [...LAYOUT_FIELDS];
const FIELDS = ['bucket', 'service_account_key', ...OPTIONS];

const about = {
  bucket: 'The Cloud Storage bucket the objects are written to (3 to 63 lowercase letters, digits, dashes, underscores and dots).',
  service_account_key:
    'The JSON key of a service account that may create objects in the bucket (roles/storage.objectCreator; roles/storage.legacyBucketReader too lets the check read the bucket), as the console downloads it. Access tokens are made from it by the JWT flow of Google\'s OAuth 2.0 for server-to-server applications.',
};

function schema(use: 'request' | 'response'): JsonSchema {
  const request = use === 'request';
  return named(request ? 'GcsTarget' : 'GcsTargetView', obj(
    {
      bucket: request ? patterned(BUCKET, about.bucket, { examples: ['edge-events-logs'] }) : str(about.bucket),
      service_account_key: request ? secretRequest(about.service_account_key, { min: 2, max: KEY_MAX }) : secretResponse(about.service_account_key),
      ...layoutSchema(use, GCS_KEYS),
    },
    request ? ['bucket', 'service_account_key'] : FIELDS,
    'Objects in a Google Cloud Storage bucket, through its JSON API: batches of events, gzipped NDJSON or CSV.',
  ));
}

export const GCS_SCHEMA = { request: schema('request'), response: schema('response') };

/** Validates a gcs target of a destination of `account`, every problem at once: fields, bucket, layout, key. */
export function parseGcsTarget(raw: unknown, prefix: string, account: AccountContext): ParseResult<GcsConfig> {
  const r = new ConfigReader(raw, prefix, FIELDS);
  if (!isPlainObject(raw)) return { ok: false, problems: r.problems };
  if (!r.has('bucket')) r.invalid('bucket', 'is required');
  const bucket = matching(r, 'bucket', BUCKET, 'must be 3 to 63 lowercase letters, digits, dashes, underscores and dots, beginning and ending with a letter or digit', '');
  const broken = bucket === '' ? undefined : NO_BUCKET.find(([rule]) => rule.test(bucket));
  if (broken !== undefined) r.invalid('bucket', broken[1]);
  const layout = parseLayout(r, account.accountId, GCS_KEYS);
  const key = r.obj.service_account_key;
  // The problems never echo the key.
  if (key === undefined || key === null) r.add(problem.secretRequired(r.path('service_account_key'), 'with gcs'));
  else if (typeof key !== 'string' || key.length > KEY_MAX) r.invalid('service_account_key', `must be the key's JSON text, at most ${KEY_MAX} characters`);
  else if (key !== KEPT_STAND_IN) {
    const parsed = parseServiceAccountKey(key);
    if (typeof parsed === 'string') r.invalid('service_account_key', parsed);
  }
  return r.result({ bucket, serviceAccountKey: key as string, ...layout });
}
