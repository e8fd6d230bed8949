// The stored shapes of the resources the pipeline reads from the config log (the API adds uris on output).
import type { Owned } from '../accounts/account.js';

export interface StoredSource {
  /** An event type (docs/events.md). */
  readonly type: string;
  /** Traffic types: the selected dotted field names. Audit types: absent. */
  readonly fields?: readonly string[];
  /** Traffic types: an optional CEL filter over `ev`. Audit types: absent. */
  readonly filter?: string;
}

/** account_id (Owned) is absent on resources written before accounts existed: they are the operator's (accountOf). */
export interface StoredSubscription extends Owned {
  readonly id: string;
  readonly created_at: string;
  readonly description: string;
  readonly metadata: string;
  readonly sources: readonly StoredSource[];
  readonly destination_ids: readonly string[];
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
  readonly target: StoredTarget;
}
