// The destination contract every writer implements, and the items and outcomes that cross it.
import type { Envelope } from '../events/envelope.js';
import type { DeliveryError } from './errors.js';

/** Where a delivery came from, for offset commits and dead-letter headers. */
export interface SourceRef {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  /** For a consumed record the ingest worker tracks: the reading of its partition it came from (OffsetTracker). */
  readonly reading?: number;
}

/**
 * One event on its way to one destination, with its own event id (ARCHITECTURE.md "Event ids"). The
 * deliveries of one record with one field list share its serialized object; only the id differs.
 */
export interface DeliveryItem {
  readonly eventId: string;
  /**
   * The envelope as UTF-8 JSON. An item may build it on the first read: count it with payloadSize()
   * and copy it into a larger buffer with copyPayload(), which need not build it.
   */
  readonly payload: Buffer;
  /** payload.length, when the item knows it without building the payload. */
  readonly size?: number;
  /** Writes the payload into `target` at `at` without building it as a buffer of its own; returns its length. */
  writePayload?(target: Buffer, at: number): number;
  /**
   * The envelope the payload was made from, when the producer still has it; writers read key fields
   * from it. Absent for items re-read from a topic (parked retries, parking/), where it is parsed lazily.
   */
  readonly envelope?: Envelope;
  /** The consumed record this delivery belongs to; absent for deliveries not tied to an offset (a test event). */
  readonly source?: SourceRef;
  /**
   * The subscription the event was matched for (traffic and audit events), kept through parking and
   * re-drive (parking/parked-record.ts); absent for a test event, which belongs to no subscription.
   */
  readonly subscriptionId?: string;
}

/**
 * A delivery of a consumed record: its partition's commit and next batches wait for it to settle.
 * Re-driven deliveries (their source is a retry topic) and test events hold no partition of the main path.
 */
export function holdsItsPartition(item: DeliveryItem): boolean {
  return item.source?.reading !== undefined;
}

/** What a writer accepts in one write(); the batcher never hands it more. */
export interface WriterLimits {
  /** Most records in one batch. */
  readonly maxRecords: number;
  /** Most bytes in one batch, counting `recordOverheadBytes` per record. */
  readonly maxBytes: number;
  /** Largest single payload; a bigger record is dead-lettered with RECORD_TOO_LARGE. */
  readonly maxRecordBytes: number;
  /** Bytes the destination adds per record (a newline, a comma, CloudWatch's 26 bytes). */
  readonly recordOverheadBytes: number;
  /**
   * How long the first queued record may wait for a batch to fill, for a destination that sets its own
   * batching (object_store's upload limits): its maxRecords and maxBytes are then the batch size rather
   * than caps on the runner's, and a record above maxBytes (up to maxRecordBytes) is a batch of its own.
   * Absent: the runner's batching (runner-options.ts).
   */
  readonly lingerMs?: number;
}

export interface ItemFailure {
  readonly item: DeliveryItem;
  readonly error: DeliveryError;
}

/**
 * The result of one write(). Items not listed in `failed` were delivered. A writer whose whole batch
 * failed may instead reject with a DeliveryError; a partial failure lists only the failed items, so
 * the runner retries just those (cloud batch APIs report per-entry errors).
 */
export interface WriteOutcome {
  readonly failed: readonly ItemFailure[];
  /** The destination's answer code, when it has one (the HTTP status), for test events. */
  readonly status?: number;
}

export const DELIVERED: WriteOutcome = Object.freeze({ failed: Object.freeze([]) });

/**
 * The writer contract (after Redpanda Connect's output contract). Writers hold no retry,
 * backoff or acknowledgement logic: the destination runner owns all of that.
 */
export interface DestinationWriter {
  readonly kind: string;
  readonly limits: WriterLimits;
  /** Opens connections. Failures are retried by the runner; write() also connects when needed. */
  connect(): Promise<void>;
  /** Resolves only once every item not reported in `failed` is durably delivered. */
  write(batch: readonly DeliveryItem[]): Promise<WriteOutcome>;
  /** Resolves when the destination looks able to take writes; throws a DeliveryError otherwise. */
  healthcheck(): Promise<void>;
  /** Releases connections and files. Idempotent. write() after close() rejects with WRITER_CLOSED. */
  close(): Promise<void>;
}

/** The length of an item's payload, without building it. */
export function payloadSize(item: DeliveryItem): number {
  return item.size ?? item.payload.length;
}

/** Copies an item's payload into `target` at `at`, without building it as a buffer of its own; returns its length. */
export function copyPayload(item: DeliveryItem, target: Buffer, at: number): number {
  return item.writePayload?.(target, at) ?? item.payload.copy(target, at);
}

/** The batching size of an item at a destination, overhead included. */
export function itemSize(item: DeliveryItem, limits: WriterLimits): number {
  return payloadSize(item) + limits.recordOverheadBytes;
}
