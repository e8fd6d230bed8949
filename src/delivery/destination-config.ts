// Shared pieces of destination config validation: problems with stable codes, collected all at once.
import type { DeliveryErrorCode } from './errors.js';

/**
 * The codes a target problem carries. They are error codes of the admin API (docs/api-errors.md), so
 * the API answers a problem as it is, and a worker logs the same problem in the same words.
 */
export type ConfigProblemCode =
  | 'invalid_body'
  | 'unknown_field'
  | 'invalid_target_kind'
  | 'invalid_target_auth'
  | 'invalid_arn'
  | 'invalid_file_path'
  | 'secret_required'
  | 'invalid_topic_name'
  | 'internal_topic'
  | 'topic_prefix_required'
  | 'file_destinations_disabled'
  | 'insecure_url'
  | 'internal_address'
  | 'host_not_allowed'
  // Found by a kind's create-time check (verify), not by parse(): 422.
  | 'topic_not_created'
  | 'destination_check_failed'
  // Found by the kafka kind's check on the service's own cluster: 409.
  | 'account_partition_limit';

export interface ConfigProblem {
  readonly code: ConfigProblemCode;
  /** Dotted path of the offending field, e.g. "target.http.url". */
  readonly field: string;
  /** The values of the API error (its `details`), `field` first. */
  readonly details: Readonly<Record<string, unknown>>;
  /** A sentence for logs and delivery errors; it never quotes a secret. */
  readonly message: string;
  /**
   * For a problem a create-time check found: the delivery error code a worker's status shows for it
   * (ARCHITECTURE.md "Destination status"), e.g. DESTINATION_NOT_FOUND. Absent: DESTINATION_MISCONFIGURED.
   */
  readonly deliveryCode?: DeliveryErrorCode;
}

export type ParseResult<C> =
  | { readonly ok: true; readonly config: C }
  | { readonly ok: false; readonly problems: readonly ConfigProblem[] };

/** The problems a destination kind can report, each with its code and details. */
export const problem = {
  /** `reason` completes "The field <field> …", e.g. "must use http or https". */
  invalid: (field: string, reason: string): ConfigProblem => ({ code: 'invalid_body', field, details: { field, reason }, message: `${field} ${reason}.` }),
  unknownField: (field: string): ConfigProblem => ({ code: 'unknown_field', field, details: { field }, message: `${field} is not a known field.` }),
  targetKind: (field: string, kinds: string, reason: string): ConfigProblem => ({
    code: 'invalid_target_kind',
    field,
    details: { field, kinds, reason },
    message: `${field} must set exactly one of ${kinds}; ${reason}.`,
  }),
  /** `given` is "neither" or "both". */
  auth: (field: string, given: string): ConfigProblem => ({
    code: 'invalid_target_auth',
    field,
    details: { field, given },
    message: `${field} must set exactly one of role and creds, not ${given}.`,
  }),
  arn: (field: string, resource: string, example: string): ConfigProblem => ({
    code: 'invalid_arn',
    field,
    details: { field, resource, example },
    message: `${field} is not a valid ${resource} ARN; expected the shape ${example}.`,
  }),
  filePath: (field: string, reason: string): ConfigProblem => ({ code: 'invalid_file_path', field, details: { field, reason }, message: `${field} ${reason}.` }),
  /** `reason` names the rule broken, e.g. "it is longer than 249 characters". */
  topicName: (field: string, topic: string, reason: string): ConfigProblem => ({
    code: 'invalid_topic_name',
    field,
    details: { field, topic, reason },
    message: `${field} is not a valid Kafka topic name: ${reason}.`,
  }),
  /** `reason` completes "… is refused: …" (src/delivery/egress-rules.ts). */
  internalTopic: (field: string, topic: string, reason: string): ConfigProblem => ({
    code: 'internal_topic',
    field,
    details: { field, topic, reason },
    message: `${field} names the topic ${topic}, which is refused: ${reason}.`,
  }),
  /** A normal account's topic outside its prefix (egress-rules.ts). */
  topicPrefix: (field: string, topic: string, prefix: string): ConfigProblem => ({
    code: 'topic_prefix_required',
    field,
    details: { field, topic, prefix },
    message: `${field} names the topic ${topic}; this account's kafka destinations write to topics beginning with "${prefix}".`,
  }),
  /**
   * What the destination points at is refused (egress-rules.ts): `code` says what, `reason` completes
   * "… is refused: …" and names the setting that would open it.
   */
  egress: (code: 'file_destinations_disabled' | 'insecure_url' | 'internal_address' | 'host_not_allowed', field: string, reason: string, extra: Readonly<Record<string, unknown>> = {}): ConfigProblem => ({
    code,
    field,
    details: { field, reason, ...extra },
    message: `${field} is refused: ${reason}.`,
    ...(code === 'internal_address' && { deliveryCode: 'DESTINATION_ADDRESS_REFUSED' as const }),
  }),
  /** The topic is missing and the cluster refused to create it: `error` is Kafka's error code, `reason` its text. */
  topicNotCreated: (field: string, topic: string, error: string, reason: string): ConfigProblem => ({
    code: 'topic_not_created',
    field,
    details: { field, topic, error, reason },
    message: `The topic ${topic} does not exist and could not be created: ${error}: ${reason}.`,
    deliveryCode: 'DESTINATION_NOT_FOUND',
  }),
  /**
   * A topic the service would create for a normal account on its own cluster would take the partitions of
   * all the topics under the account's prefix (`used`, in `topics` topics) past `limit` (ACCOUNT_MAX_PARTITIONS).
   */
  accountPartitionLimit: (field: string, d: { account_id: string; topic: string; partitions: number; used: number; topics: number; limit: number }): ConfigProblem => ({
    code: 'account_partition_limit',
    field,
    details: { field, ...d },
    message:
      `The topic ${d.topic} would add ${d.partitions} partition(s) to the ${d.used} of the ${d.topics} topic(s) under the prefix of account ${d.account_id} on the service's cluster, ` +
      `past its limit of ${d.limit}.`,
    deliveryCode: 'DESTINATION_MISCONFIGURED',
  }),
  /**
   * The destination's own service answered the check with an error: `error` is its error code (an AWS
   * error code, a Kafka error), `reason` its message; `deliveryCode` how a delivery would have failed.
   */
  checkFailed: (field: string, error: string, reason: string, deliveryCode: DeliveryErrorCode): ConfigProblem => {
    // The service's own text may lack a full stop; the API message goes on after it.
    const sentence = /[.!?]$/.test(reason) ? reason : `${reason}.`;
    return { code: 'destination_check_failed', field, details: { field, error, reason: sentence }, message: `The check of ${field} failed: ${error}: ${sentence}`, deliveryCode };
  },
  /** `reason` completes "The field <field> is required …", e.g. "with creds". */
  secretRequired: (field: string, reason: string): ConfigProblem => ({
    code: 'secret_required',
    field,
    details: { field, reason },
    message: `${field} is required ${reason}.`,
  }),
};

/**
 * What stands in for a kept secret while parse() reads an update (destination-target.ts): the stored one
 * was checked when it was sent, so a kind that reads a secret's content (gcs's key) takes this as checked.
 */
export const KEPT_STAND_IN = 'kept-secret-stand-in-0000000000';

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Reads fields of one config object while collecting problems, so a caller sees them all at once. */
export class ConfigReader {
  readonly problems: ConfigProblem[] = [];
  readonly obj: Record<string, unknown>;

  constructor(
    raw: unknown,
    readonly prefix: string,
    allowed: readonly string[],
  ) {
    if (!isPlainObject(raw)) {
      this.problems.push(problem.invalid(prefix, 'must be an object'));
      this.obj = {};
      return;
    }
    this.obj = raw;
    for (const key of Object.keys(raw)) {
      if (!allowed.includes(key)) this.problems.push(problem.unknownField(`${prefix}.${key}`));
    }
  }

  /** The dotted path of one of this object's fields. */
  path(field: string): string {
    return `${this.prefix}.${field}`;
  }

  /** A problem with one field: `reason` completes "The field <path> …". */
  invalid(field: string, reason: string): void {
    this.problems.push(problem.invalid(this.path(field), reason));
  }

  add(p: ConfigProblem): void {
    this.problems.push(p);
  }

  /** True when the field is set: null counts as absent (a response's "the default"). */
  has(field: string): boolean {
    return this.obj[field] !== undefined && this.obj[field] !== null;
  }

  string(field: string, required: true): string;
  string(field: string, required: false): string | undefined;
  string(field: string, required: boolean): string | undefined {
    const v = this.obj[field];
    if (v === undefined || v === null) {
      if (required) this.invalid(field, 'is required');
      return undefined;
    }
    if (typeof v !== 'string' || v === '') {
      this.invalid(field, 'must be a non-empty string');
      return undefined;
    }
    return v;
  }

  integer(field: string, min: number, max: number): number | undefined {
    const v = this.obj[field];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
      this.invalid(field, `must be an integer from ${min} to ${max}`);
      return undefined;
    }
    return v;
  }

  /** One of `values`, or `fallback` when the field is not set (or not one of them, with a problem). */
  oneOf<T extends string>(field: string, values: readonly T[], fallback: T): T {
    const v = this.obj[field];
    if (v === undefined || v === null) return fallback;
    if (values.includes(v as T)) return v as T;
    this.invalid(field, `must be one of ${values.join(', ')}`);
    return fallback;
  }

  stringList(field: string): string[] | undefined {
    const v = this.obj[field];
    if (v === undefined || v === null) return undefined;
    if (!Array.isArray(v) || v.length === 0 || !v.every((x) => typeof x === 'string' && x !== '')) {
      this.invalid(field, 'must be a non-empty list of strings');
      return undefined;
    }
    return v as string[];
  }

  result<C>(config: C): ParseResult<C> {
    return this.problems.length === 0 ? { ok: true, config } : { ok: false, problems: this.problems };
  }
}
