// The record format of the compacted config topic edge.config: key = resource id, value = JSON, null = deleted.
// The admin API writes it; every API replica and ingest worker materializes it in memory.

/** Bumped when a stored shape changes incompatibly; readers skip records of a version they don't know. */
export const CONFIG_FORMAT_VERSION = 1;

export type ConfigKind =
  | 'account'
  | 'api_key'
  | 'ip_policy'
  | 'ip_policy_rule'
  | 'tcp_edge'
  | 'event_destination'
  | 'event_subscription'
  | 'reserved_domain'
  | 'tcp_address'
  | 'replay';

const KIND_BY_PREFIX: Readonly<Record<string, ConfigKind>> = {
  acct: 'account',
  ak: 'api_key',
  ipp: 'ip_policy',
  ipr: 'ip_policy_rule',
  edgtcp: 'tcp_edge',
  ed: 'event_destination',
  esb: 'event_subscription',
  rd: 'reserved_domain',
  ra: 'tcp_address',
  rpl: 'replay',
};

/** Keys that start with this are sync markers, not resources (see ConfigLog.sync). */
export const SYNC_KEY_PREFIX = '__sync/';

/** The value of a config record. `data` is the stored resource: secrets hashed or encrypted, never clear. */
export interface ConfigValue<T = Record<string, unknown>> {
  readonly v: number;
  readonly kind: ConfigKind;
  readonly data: T;
}

/** Every kind of resource the config log holds. */
export const CONFIG_KINDS: readonly ConfigKind[] = Object.values(KIND_BY_PREFIX);

export function kindOfId(id: string): ConfigKind | undefined {
  const i = id.indexOf('_');
  return i > 0 ? KIND_BY_PREFIX[id.slice(0, i)] : undefined;
}

export function encodeConfigValue(kind: ConfigKind, data: object): Buffer {
  return Buffer.from(JSON.stringify({ v: CONFIG_FORMAT_VERSION, kind, data }));
}

/** Most distinct strings `shared` keeps; past that, new ones are kept per resource as before. */
const SHARED_STRINGS_MAX = 10_000;
const SHARED_STRING_MAX_LENGTH = 128;
const shared = new Map<string, string>();

/**
 * One copy of the short strings many resources repeat: the elements of lists (a subscription's field
 * names and destination ids) and event types. JSON.parse makes a new string for each occurrence; with
 * 10,000 subscriptions in memory that was 3.8 of their 8.8 MiB (bench/results/memory.md).
 */
function share(key: string, value: unknown): unknown {
  if (typeof value !== 'string' || value.length > SHARED_STRING_MAX_LENGTH) return value;
  const c = key.charCodeAt(0);
  if (key !== 'type' && !(c >= 48 && c <= 57)) return value;
  const known = shared.get(value);
  if (known !== undefined) return known;
  if (shared.size < SHARED_STRINGS_MAX) shared.set(value, value);
  return value;
}

export type DecodedConfigRecord =
  | { readonly type: 'put'; readonly id: string; readonly value: ConfigValue }
  | { readonly type: 'delete'; readonly id: string }
  | { readonly type: 'sync'; readonly id: string }
  | { readonly type: 'invalid'; readonly id: string; readonly reason: string };

/** Decodes one config record; a record this version cannot read is reported, never thrown. */
export function decodeConfigRecord(key: Buffer | null, value: Buffer | null): DecodedConfigRecord {
  const id = key?.toString('utf8') ?? '';
  if (id.startsWith(SYNC_KEY_PREFIX)) return { type: 'sync', id };
  const kind = kindOfId(id);
  if (kind === undefined) return { type: 'invalid', id, reason: 'the key is not a known resource id' };
  if (value === null) return { type: 'delete', id };
  let parsed: unknown;
  try {
    parsed = JSON.parse(value.toString('utf8'), share);
  } catch {
    return { type: 'invalid', id, reason: 'the value is not JSON' };
  }
  if (parsed === null || typeof parsed !== 'object') return { type: 'invalid', id, reason: 'the value is not an object' };
  const { v, kind: k, data } = parsed as Partial<ConfigValue>;
  if (v !== CONFIG_FORMAT_VERSION) return { type: 'invalid', id, reason: `format version ${String(v)} is not supported` };
  if (k !== kind) return { type: 'invalid', id, reason: `kind ${String(k)} does not match the id prefix` };
  if (data === null || typeof data !== 'object') return { type: 'invalid', id, reason: 'data is not an object' };
  return { type: 'put', id, value: { v, kind, data } };
}
