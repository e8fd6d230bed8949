// Config of the object_store destination: a bucket behind the S3 API (AWS, or an S3-compatible store
// through `endpoint`), auth as the cloud kinds have it (../aws/), the key prefix with its placeholders,
// the output and the upload limits (README.md here).
import type { AccountContext } from '../../../accounts/account.js';
import { EVENT_TYPES } from '../../../events/catalog.js';
import { ID_PREFIXES } from '../../../ids.js';
import { ConfigReader, isPlainObject, type ParseResult } from '../../destination-config.js';
import type { EgressRules } from '../../egress-rules.js';
import { COMPRESSIONS, type Compression } from '../../output-format.js';
import { authSchema } from '../aws/cloud-kind.js';
import { ENDPOINT_OPTION, parseAuth, refuseEndpoint, type CloudAuth } from '../aws/cloud-config.js';
import { choiceOrNull, named, obj, patterned, str } from '../target-schema.js';

/** What an object holds: one event per line, or a CSV table. json_array is for http bodies only. */
export const OBJECT_OUTPUT_TYPES = ['ndjson', 'csv'] as const;
export type ObjectOutputType = (typeof OBJECT_OUTPUT_TYPES)[number];

export const PLACEHOLDERS = ['date', 'hour', 'account_id', 'event_type', 'subscription_id'] as const;

/** Each upload limit: its bounds and default (README.md here, "Batching"). */
export const UPLOAD_LIMITS = {
  max_upload_bytes: { min: 1024, max: 64 * 1024 * 1024, default: 8 * 1024 * 1024 },
  // The worker holds at most 50,000 deliveries in flight (in-flight-budget.ts): a bigger object could never fill.
  max_upload_records: { min: 1, max: 50_000, default: 10_000 },
  max_upload_interval_seconds: { min: 1, max: 300, default: 30 },
} as const;
type UploadLimit = keyof typeof UPLOAD_LIMITS;

export const DEFAULT_PREFIX = '{event_type}/{date}/';
export const DEFAULT_REGION = 'us-east-1';

export interface ObjectStoreConfig {
  readonly auth: CloudAuth;
  readonly bucket: string;
  readonly region: string;
  readonly endpoint?: string;
  /** The endpoint is a customer's (a normal account's): judged at every connect, answered in our words (SECURITY.md "Egress"). */
  readonly customerEndpoint?: true;
  /** The key prefix as sent, placeholders unexpanded. */
  readonly prefix: string;
  /** The account the destination belongs to: `{account_id}`. */
  readonly accountId: string;
  readonly outputType: ObjectOutputType;
  readonly compression: Compression;
  readonly maxUploadBytes: number;
  readonly maxUploadRecords: number;
  readonly maxUploadIntervalSeconds: number;
}

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
// Characters S3 calls safe in keys ("Object key naming guidelines"), "=" for partitions, and the placeholders.
const PREFIX = `^(?:[A-Za-z0-9!_.*'()/=-]|\\{(?:${PLACEHOLDERS.join('|')})\\})*$`;
const PREFIX_MAX = 512;
/** S3's longest key, in UTF-8 bytes (a prefix is ASCII, so its characters). */
const KEY_MAX_BYTES = 1024;
/** The longest object name objectName() writes: 20261126T101502123Z-9f86d081884c7d65.ndjson.gz. */
const OBJECT_NAME_MAX = 46;
/** Each placeholder's longest value: ids are a prefix, "_" and 26 characters (ids.ts). */
const PLACEHOLDER_MAX: Readonly<Record<(typeof PLACEHOLDERS)[number], number>> = {
  date: 'YYYY-MM-DD'.length,
  hour: 'HH'.length,
  account_id: `${ID_PREFIXES.account}_`.length + 26,
  event_type: Math.max(...EVENT_TYPES.map((t) => t.length)),
  subscription_id: `${ID_PREFIXES.event_subscription}_`.length + 26,
};

/**
 * Why a prefix that matches PREFIX still makes keys S3-compatible stores (and proxies before them) may
 * misread or refuse: a leading "/", an empty, "." or ".." segment that a path normaliser folds into
 * another path, or placeholders that could expand past S3's longest key.
 */
function prefixProblem(prefix: string): string | undefined {
  const segments = prefix.split('/');
  // The last segment may be empty: a prefix that ends with "/".
  if (segments.slice(0, -1).some((s) => s === '') || segments.some((s) => s === '.' || s === '..')) return 'must not start with "/" or hold an empty, "." or ".." path segment';
  const longest = prefix.replace(/\{([a-z_]+)\}/g, (_whole, name: string) => 'x'.repeat(PLACEHOLDER_MAX[name as (typeof PLACEHOLDERS)[number]] ?? 0)).length + OBJECT_NAME_MAX;
  if (longest > KEY_MAX_BYTES) return `could make keys of ${longest} bytes with its placeholders filled and the object's name, past S3's ${KEY_MAX_BYTES}`;
  return undefined;
}

/** The optional fields, each null in a view when unset (its default applies). */
export const OPTIONS = ['region', 'endpoint', 'prefix', 'output_type', 'compression', ...Object.keys(UPLOAD_LIMITS)];
const FIELDS = ['auth', 'bucket', ...OPTIONS];

const about = {
  bucket: 'The bucket the objects are written to (3 to 63 lowercase letters, digits, dots and hyphens).',
  region: `The bucket's region, signed into every call; S3-compatible stores name theirs (e.g. auto). Default ${DEFAULT_REGION}.`,
  prefix: `Where the objects go: the start of every key, up to ${PREFIX_MAX} characters of letters, digits and !_.*'()/=- (no leading / and no empty, . or .. segment; keys stay within S3's ${KEY_MAX_BYTES} bytes) with the placeholders {date} (YYYY-MM-DD, UTC, when the object is written), {hour} (HH, UTC), {account_id}, {event_type} and {subscription_id} (test for a test event). A batch is written as one object per event type and subscription where the prefix names them. Each object is <prefix><time>-<random>.<ndjson|csv>[.gz]. Default ${DEFAULT_PREFIX}.`,
  output_type: 'ndjson: one event per line (the default); csv: a header line, then one line per event, one column per selected field by its dotted name, a headers map one column of its JSON, formulas neutralised (RFC 4180); an object is cut at max_upload_bytes.',
  compression: 'gzip (the default): each object is gzipped and its key ends in .gz; none: plain.',
  max_upload_bytes: `An object is written once its events reach this many bytes before compression (counted as NDJSON lines); a larger event is an object of its own. ${UPLOAD_LIMITS.max_upload_bytes.min} to ${UPLOAD_LIMITS.max_upload_bytes.max}; default ${UPLOAD_LIMITS.max_upload_bytes.default}.`,
  max_upload_records: `An object is written once it holds this many events. ${UPLOAD_LIMITS.max_upload_records.min} to ${UPLOAD_LIMITS.max_upload_records.max}; default ${UPLOAD_LIMITS.max_upload_records.default}.`,
  max_upload_interval_seconds: `The longest an event waits for its object to fill. ${UPLOAD_LIMITS.max_upload_interval_seconds.min} to ${UPLOAD_LIMITS.max_upload_interval_seconds.max}; default ${UPLOAD_LIMITS.max_upload_interval_seconds.default}. A worker also writes what it holds once it has routed a fetched batch of records, so an object never holds back the offsets behind it: on a busy stream objects are about one fetch per partition.`,
};

const limitSchema = (name: UploadLimit, request: boolean) => {
  const { min, max } = UPLOAD_LIMITS[name];
  return { type: ['integer', 'null'], ...(request && { minimum: min, maximum: max }), description: about[name] };
};

/** A request may leave out or null every option; a response answers each, null where the default applies. */
function schema(use: 'request' | 'response') {
  const request = use === 'request';
  const text = (description: string, extra: Record<string, unknown> = {}) => ({ type: ['string', 'null'], description, ...(request && extra) });
  const limits = Object.fromEntries(Object.keys(UPLOAD_LIMITS).map((n) => [n, limitSchema(n as UploadLimit, request)]));
  return named(request ? 'ObjectStoreTarget' : 'ObjectStoreTargetView', obj(
    {
      auth: authSchema(use),
      bucket: request ? patterned(BUCKET, about.bucket, { examples: ['edge-events-logs'] }) : str(about.bucket),
      region: text(about.region, { pattern: REGION }),
      endpoint: request ? ENDPOINT_OPTION.schema : text((ENDPOINT_OPTION.schema as { description: string }).description),
      prefix: text(about.prefix, { pattern: PREFIX, maxLength: PREFIX_MAX, examples: ['logs/{event_type}/dt={date}/'] }),
      output_type: choiceOrNull(OBJECT_OUTPUT_TYPES, about.output_type),
      compression: choiceOrNull(COMPRESSIONS, about.compression),
      ...limits,
    },
    request ? ['auth', 'bucket'] : FIELDS,
    'Objects in a bucket behind the S3 API (AWS S3, or an S3-compatible store through endpoint): batches of events, gzipped NDJSON or CSV.',
  ));
}

export const OBJECT_STORE_SCHEMA = { request: schema('request'), response: schema('response') };

function matching(r: ConfigReader, field: string, pattern: string, reason: string, fallback: string, maxLength = Infinity): string {
  const v = r.obj[field];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'string' || v.length > maxLength || !new RegExp(pattern).test(v)) {
    r.invalid(field, reason);
    return fallback;
  }
  return v;
}

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
  const keyPrefix = matching(r, 'prefix', PREFIX, `must be at most ${PREFIX_MAX} characters of letters, digits and !_.*'()/=-, with the placeholders ${PLACEHOLDERS.map((p) => `{${p}}`).join(' ')}`, DEFAULT_PREFIX, PREFIX_MAX);
  const unsafe = r.has('prefix') && keyPrefix !== DEFAULT_PREFIX ? prefixProblem(keyPrefix) : undefined;
  if (unsafe !== undefined) r.invalid('prefix', unsafe);
  const outputType = r.oneOf('output_type', OBJECT_OUTPUT_TYPES, 'ndjson');
  const compression = r.oneOf('compression', COMPRESSIONS, 'gzip');
  const limit = (name: UploadLimit) => r.integer(name, UPLOAD_LIMITS[name].min, UPLOAD_LIMITS[name].max) ?? UPLOAD_LIMITS[name].default;
  const [maxUploadBytes, maxUploadRecords, maxUploadIntervalSeconds] = [limit('max_upload_bytes'), limit('max_upload_records'), limit('max_upload_interval_seconds')];
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
      prefix: keyPrefix,
      accountId: account.accountId,
      outputType,
      compression,
      maxUploadBytes,
      maxUploadRecords,
      maxUploadIntervalSeconds,
    },
  };
}
