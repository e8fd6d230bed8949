// The stored shapes of the resources the pipeline reads from the config log (the API adds uris on output).

export interface StoredSource {
  /** An event type from SPEC.md 6.1. */
  readonly type: string;
  /** Traffic types: the selected dotted field names. Audit types: absent. */
  readonly fields?: readonly string[];
  /** Traffic types: an optional CEL filter over `ev`. Audit types: absent. */
  readonly filter?: string;
}

export interface StoredSubscription {
  readonly id: string;
  readonly created_at: string;
  readonly description: string;
  readonly metadata: string;
  readonly sources: readonly StoredSource[];
  readonly destination_ids: readonly string[];
}

/** Exactly one key is set. Secret fields are stored encrypted (`*_enc`), never in clear. */
export interface StoredTarget {
  readonly kafka?: { readonly topic: string; readonly brokers?: readonly string[] };
  readonly http?: { readonly url: string; readonly secret_enc?: string; readonly timeout_ms?: number };
  readonly file?: { readonly path: string };
  readonly delivery_stream?: Record<string, unknown>;
  readonly data_stream?: Record<string, unknown>;
  readonly log_service?: Record<string, unknown>;
}

export interface StoredDestination {
  readonly id: string;
  readonly created_at: string;
  readonly description: string;
  readonly metadata: string;
  readonly format: 'json';
  readonly target: StoredTarget;
}
