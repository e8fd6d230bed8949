// Config of the object_store destination: a bucket behind the S3 API (AWS, or an S3-compatible store
// through `endpoint`), auth as the cloud kinds have it (../aws/), and the object layout every object store
// kind shares (../objects/: the prefix with its placeholders, the output and the upload limits).
import type { AccountContext } from '../../../accounts/account.js';
import { ConfigReader, isPlainObject, type ParseResult } from '../../destination-config.js';
import type { EgressRules } from '../../egress-rules.js';
import { authSchema } from '../aws/cloud-kind.js';
import { ENDPOINT_OPTION, parseAuth, refuseEndpoint, type CloudAuth } from '../aws/cloud-config.js';
import { LAYOUT_FIELDS, layoutSchema, matching, parseLayout, type ObjectLayout, type StoreKeys } from '../objects/object-layout.js';
import { named, obj, patterned, str } from '../target-schema.js';

export const DEFAULT_REGION = 'us-east-1';

export interface ObjectStoreConfig extends ObjectLayout {
  readonly auth: CloudAuth;
  readonly bucket: string;
  readonly region: string;
  readonly endpoint?: string;
  /** The endpoint is a customer's (a normal account's): judged at every connect, answered in our words (SECURITY.md "Egress"). */
  readonly customerEndpoint?: true;
}

/** S3's longest key is 1,024 bytes of UTF-8. */
const S3_KEYS: StoreKeys = { store: 'S3', keyMaxBytes: 1024 };

// S3 "General purpose bucket naming rules": 3 to 63 lowercase letters, digits, dots and hyphens, beginning
// and ending with a letter or digit (the schema's pattern), no two adjacent periods and not an IP address
// (S3-compatible stores refuse these too), and on AWS none of its reserved prefixes and suffixes. The
// rules past the pattern are in the parse (the schemas' patterns avoid look-around: src/delivery/destinations/README.md).
const BUCKET = '^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$';
const NO_BUCKET: readonly (readonly [RegExp, string])[] = [
  [/\.\./, 'must not hold two adjacent periods'],
  [/^\d+\.\d+\.\d+\.\d+$/, 'must not be formatted as an IP address'],
];
const NO_AWS_BUCKET: readonly (readonly [RegExp, string])[] = [
  [/^(?:xn--|sthree-|amzn-s3-demo-)/, 'must not start with xn--, sthree- or amzn-s3-demo- on AWS (reserved by S3; an S3-compatible store is named with endpoint)'],
  [/(?:-s3alias|--ol-s3|\.mrap|--x-s3|--table-s3)$/, 'must not end with -s3alias, --ol-s3, .mrap, --x-s3 or --table-s3 on AWS (reserved by S3; an S3-compatible store is named with endpoint)'],
];
// AWS regions (us-east-1) and what S3-compatible stores name theirs (R2's "auto").
const REGION = '^[a-z0-9-]{1,32}$';

/** The optional fields, each null in a view when unset (its default applies). */
export const OPTIONS = ['region', 'endpoint', ...LAYOUT_FIELDS];
const FIELDS = ['auth', 'bucket', ...OPTIONS];

const about = {
  bucket: 'The bucket the objects are written to (3 to 63 lowercase letters, digits, dots and hyphens).',
  region: `The bucket's region, signed into every call; S3-compatible stores name theirs (e.g. auto). Default ${DEFAULT_REGION}.`,
};

/** A request may leave out or null every option; a response answers each, null where the default applies. */
function schema(use: 'request' | 'response') {
  const request = use === 'request';
  const text = (description: string, extra: Record<string, unknown> = {}) => ({ type: ['string', 'null'], description, ...(request && extra) });
  return named(request ? 'ObjectStoreTarget' : 'ObjectStoreTargetView', obj(
    {
      auth: authSchema(use),
      bucket: request ? patterned(BUCKET, about.bucket, { examples: ['edge-events-logs'] }) : str(about.bucket),
      region: text(about.region, { pattern: REGION }),
      endpoint: request ? ENDPOINT_OPTION.schema : text((ENDPOINT_OPTION.schema as { description: string }).description),
      ...layoutSchema(use, S3_KEYS),
    },
    request ? ['auth', 'bucket'] : FIELDS,
    'Objects in a bucket behind the S3 API (AWS S3, or an S3-compatible store through endpoint): batches of events, gzipped NDJSON or CSV.',
  ));
}

export const OBJECT_STORE_SCHEMA = { request: schema('request'), response: schema('response') };

/** Validates an object_store target of a destination of `account`, every problem at once: fields, bucket, options, endpoint, auth. */
export function parseObjectStoreTarget(raw: unknown, prefix: string, account: AccountContext, egress?: EgressRules): ParseResult<ObjectStoreConfig> {
  const r = new ConfigReader(raw, prefix, FIELDS);
  if (!isPlainObject(raw)) return { ok: false, problems: r.problems };
  if (!r.has('bucket')) r.invalid('bucket', 'is required');
  const bucket = matching(r, 'bucket', BUCKET, 'must be 3 to 63 lowercase letters, digits, dots and hyphens, beginning and ending with a letter or digit', '');
  const onAws = !r.has('endpoint');
  const broken = bucket === '' ? undefined : [...NO_BUCKET, ...(onAws ? NO_AWS_BUCKET : [])].find(([rule]) => rule.test(bucket));
  if (broken !== undefined) r.invalid('bucket', broken[1]);
  const region = matching(r, 'region', REGION, 'must be 1 to 32 lowercase letters, digits and hyphens', DEFAULT_REGION);
  const layout = parseLayout(r, account.accountId, S3_KEYS);
  let endpoint: string | undefined;
  if (r.has('endpoint')) {
    const why = ENDPOINT_OPTION.problem(r.obj.endpoint);
    if (why !== undefined) r.invalid('endpoint', why);
    else endpoint = r.obj.endpoint as string;
  }
  refuseEndpoint(r, endpoint, account, egress);
  const auth = parseAuth(raw.auth, r.path('auth'), r.problems, account);
  if (r.problems.length > 0 || auth === undefined) return { ok: false, problems: r.problems };
  return {
    ok: true,
    config: {
      auth,
      bucket,
      region,
      ...(endpoint !== undefined && { endpoint }),
      ...(endpoint !== undefined && !account.isOperator && { customerEndpoint: true as const }),
      ...layout,
    },
  };
}
