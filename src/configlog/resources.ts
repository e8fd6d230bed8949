// The stored shapes of the resources the pipeline reads from the config log (the API adds uris on output).
import type { Owned } from '../accounts/account.js';
import type { TimestampFormat } from '../events/timestamp-format.js';

export interface StoredSource {
  /** An event type (docs/events.md). */
  readonly type: string;
  /** Traffic types: the selected dotted field names. Audit types: absent. */
  readonly fields?: readonly string[];
  /** Traffic types: an optional CEL filter over `ev`. Audit types: absent. */
  readonly filter?: string;
  /** Traffic types: the share of matches delivered, 2^-32 <= r <= 1; absent means 1 (src/subscriptions/sampling.ts). */
  readonly sample_rate?: number;
}

/** account_id (Owned) is absent on resources written before accounts existed: they are the operator's (accountOf). */
export interface StoredSubscription extends Owned {
  readonly id: string;
  readonly created_at: string;
  readonly description: string;
  readonly metadata: string;
  readonly sources: readonly StoredSource[];
  readonly destination_ids: readonly string[];
  /** False while paused: its matches are not delivered, then or later. Absent (written before it existed) means true. */
  readonly enabled?: boolean;
}

/**
 * Exactly one key is set: the destination kind, holding that kind's object (src/delivery/destinations/).
 * Secret fields are stored encrypted (`*_enc`), never in clear.
 */
export type StoredTarget = Readonly<Record<string, Readonly<Record<string, unknown>>>>;

export interface StoredDestination extends Owned {
  readonly id: string;
  readonly created_at: string;
  readonly description: string;
  readonly metadata: string;
  readonly format: 'json';
  /** How timestamps are written in its events (src/events/timestamp-format.ts); absent means rfc3339. */
  readonly timestamp_format?: TimestampFormat;
  readonly target: StoredTarget;
}
