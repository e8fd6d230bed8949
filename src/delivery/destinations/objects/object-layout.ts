// What every object store kind (object_store, azure_blob, gcs) shares in its target: where objects go
// (the key prefix with its placeholders), what they hold (NDJSON or CSV, gzipped or not) and when they are
// cut (the upload limits), with their schemas and their parse (README.md here).
import { EVENT_TYPES } from '../../../events/catalog.js';
import { ID_PREFIXES } from '../../../ids.js';
import type { ConfigReader } from '../../destination-config.js';
import type { JsonSchema } from '../../destination-kind.js';
import { COMPRESSIONS, type Compression } from '../../output-format.js';
import { choiceOrNull } from '../target-schema.js';

/** What an object holds: one event per line, or a CSV table. json_array is for http bodies only. */
export const OBJECT_OUTPUT_TYPES = ['ndjson', 'csv'] as const;
export type ObjectOutputType = (typeof OBJECT_OUTPUT_TYPES)[number];

export const PLACEHOLDERS = ['date', 'hour', 'account_id', 'event_type', 'subscription_id'] as const;

/** Each upload limit: its bounds and default (README.md here, "When objects are written"). */
export const UPLOAD_LIMITS = {
  max_upload_bytes: { min: 1024, max: 64 * 1024 * 1024, default: 8 * 1024 * 1024 },
  // The worker holds at most 50,000 deliveries in flight (in-flight-budget.ts): a bigger object could never fill.
  max_upload_records: { min: 1, max: 50_000, default: 10_000 },
  max_upload_interval_seconds: { min: 1, max: 300, default: 30 },
} as const;
type UploadLimit = keyof typeof UPLOAD_LIMITS;

export const DEFAULT_PREFIX = '{event_type}/{date}/';

/** Where a destination's objects go and what they hold: the part of its config every object store kind has. */
export interface ObjectLayout {
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

/** What differs between the stores in the layout's rules: the store's name in messages, and its longest key. */
export interface StoreKeys {
  /** "S3", "Azure Blob Storage", "Cloud Storage". */
  readonly store: string;
  /** The longest object name the store takes, in UTF-8 bytes (a prefix is ASCII, so its characters). */
  readonly keyMaxBytes: number;
}

// Characters S3 calls safe in keys ("Object key naming guidelines"), which Azure blob names and Cloud
// Storage object names take as they are; "=" for partitions, and the placeholders.
const PREFIX = `^(?:[A-Za-z0-9!_.*'()/=-]|\\{(?:${PLACEHOLDERS.join('|')})\\})*$`;
const PREFIX_MAX = 512;
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
 * Why a prefix that matches PREFIX still makes keys stores (and proxies before them) may misread or
 * refuse: a leading "/", an empty, "." or ".." segment that a path normaliser folds into another path,
 * or placeholders that could expand past the store's longest key.
 */
function prefixProblem(prefix: string, keys: StoreKeys): string | undefined {
  const segments = prefix.split('/');
  // The last segment may be empty: a prefix that ends with "/".
  if (segments.slice(0, -1).some((s) => s === '') || segments.some((s) => s === '.' || s === '..')) return 'must not start with "/" or hold an empty, "." or ".." path segment';
  const longest = prefix.replace(/\{([a-z_]+)\}/g, (_whole, name: string) => 'x'.repeat(PLACEHOLDER_MAX[name as (typeof PLACEHOLDERS)[number]] ?? 0)).length + OBJECT_NAME_MAX;
  if (longest > keys.keyMaxBytes) return `could make keys of ${longest} bytes with its placeholders filled and the object's name, past ${keys.store}'s ${keys.keyMaxBytes}`;
  return undefined;
}

/** The layout's fields, each optional and null in a view when unset (its default applies). */
export const LAYOUT_FIELDS = ['prefix', 'output_type', 'compression', ...Object.keys(UPLOAD_LIMITS)] as const;

const about = (keys: StoreKeys) => ({
  prefix: `Where the objects go: the start of every object name, up to ${PREFIX_MAX} characters of letters, digits and !_.*'()/=- (no leading / and no empty, . or .. segment; names stay within ${keys.store}'s ${keys.keyMaxBytes} bytes) with the placeholders {date} (YYYY-MM-DD, UTC, when the object is written), {hour} (HH, UTC), {account_id}, {event_type} and {subscription_id} (test for a test event). A batch is written as one object per event type and subscription where the prefix names them. Each object is <prefix><time>-<random>.<ndjson|csv>[.gz]. Default ${DEFAULT_PREFIX}.`,
  output_type: 'ndjson: one event per line (the default); csv: a header line, then one line per event, one column per selected field by its dotted name, a headers map one column of its JSON, formulas neutralised (RFC 4180); an object is cut at max_upload_bytes.',
  compression: 'gzip (the default): each object is gzipped and its name ends in .gz; none: plain.',
  max_upload_bytes: `An object is written once its events reach this many bytes before compression (counted as NDJSON lines); a larger event is an object of its own. ${UPLOAD_LIMITS.max_upload_bytes.min} to ${UPLOAD_LIMITS.max_upload_bytes.max}; default ${UPLOAD_LIMITS.max_upload_bytes.default}.`,
  max_upload_records: `An object is written once it holds this many events. ${UPLOAD_LIMITS.max_upload_records.min} to ${UPLOAD_LIMITS.max_upload_records.max}; default ${UPLOAD_LIMITS.max_upload_records.default}.`,
  max_upload_interval_seconds: `The longest an event waits for its object to fill. ${UPLOAD_LIMITS.max_upload_interval_seconds.min} to ${UPLOAD_LIMITS.max_upload_interval_seconds.max}; default ${UPLOAD_LIMITS.max_upload_interval_seconds.default}. A worker also writes what it holds once it has routed a fetched batch of records, so an object never holds back the offsets behind it: on a busy stream objects are about one fetch per partition.`,
});

/** The layout's properties of a kind's request or response schema: a request may leave out or null each, a response answers each, null where the default applies. */
export function layoutSchema(use: 'request' | 'response', keys: StoreKeys): Record<string, JsonSchema> {
  const request = use === 'request';
  const text = about(keys);
  const limit = (name: UploadLimit) => {
    const { min, max } = UPLOAD_LIMITS[name];
    return { type: ['integer', 'null'], ...(request && { minimum: min, maximum: max }), description: text[name] };
  };
  return {
    prefix: { type: ['string', 'null'], description: text.prefix, ...(request && { pattern: PREFIX, maxLength: PREFIX_MAX, examples: ['logs/{event_type}/dt={date}/'] }) },
    output_type: choiceOrNull(OBJECT_OUTPUT_TYPES, text.output_type),
    compression: choiceOrNull(COMPRESSIONS, text.compression),
    ...Object.fromEntries(Object.keys(UPLOAD_LIMITS).map((n) => [n, limit(n as UploadLimit)])),
  };
}

/** A string field matching `pattern`, or `fallback` when unset (or wrong, with a problem). */
export function matching(r: ConfigReader, field: string, pattern: string, reason: string, fallback: string, maxLength = Infinity): string {
  const v = r.obj[field];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'string' || v.length > maxLength || !new RegExp(pattern).test(v)) {
    r.invalid(field, reason);
    return fallback;
  }
  return v;
}

/** Reads the layout's fields of a target of a destination of `accountId`, adding its problems to `r`. */
export function parseLayout(r: ConfigReader, accountId: string, keys: StoreKeys): ObjectLayout {
  const prefix = matching(r, 'prefix', PREFIX, `must be at most ${PREFIX_MAX} characters of letters, digits and !_.*'()/=-, with the placeholders ${PLACEHOLDERS.map((p) => `{${p}}`).join(' ')}`, DEFAULT_PREFIX, PREFIX_MAX);
  const unsafe = r.has('prefix') && prefix !== DEFAULT_PREFIX ? prefixProblem(prefix, keys) : undefined;
  if (unsafe !== undefined) r.invalid('prefix', unsafe);
  const limit = (name: UploadLimit) => r.integer(name, UPLOAD_LIMITS[name].min, UPLOAD_LIMITS[name].max) ?? UPLOAD_LIMITS[name].default;
  return {
    prefix,
    accountId,
    outputType: r.oneOf('output_type', OBJECT_OUTPUT_TYPES, 'ndjson'),
    compression: r.oneOf('compression', COMPRESSIONS, 'gzip'),
    maxUploadBytes: limit('max_upload_bytes'),
    maxUploadRecords: limit('max_upload_records'),
    maxUploadIntervalSeconds: limit('max_upload_interval_seconds'),
  };
}

/** The layout's fields of a view: each as stored, null where its default applies. */
export function layoutView(stored: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(LAYOUT_FIELDS.map((name) => [name, stored[name] ?? null]));
}
