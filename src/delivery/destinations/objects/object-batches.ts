// How a batch of events becomes objects, whatever the store: one object per expanded prefix (by event
// type and subscription where the prefix names them), NDJSON or CSV, gzipped or plain, each under a name
// of its own; and the create-time check object. A store kind gives only its put (README.md here).
import { randomBytes } from 'node:crypto';
import { DELIVERED, type DeliveryItem, type ItemFailure, type WriteOutcome, type WriterLimits } from '../../contract.js';
import { toDeliveryError } from '../../errors.js';
import { CONTENT_TYPES, encodeBatch } from '../../output-format.js';
import type { ObjectLayout } from './object-layout.js';

/** The largest limits of an object store kind (the schema's bounds); a destination's own are its upload limits. */
export const OBJECT_LIMITS: WriterLimits = Object.freeze({
  maxRecords: 50_000,
  maxBytes: 64 * 1024 * 1024,
  maxRecordBytes: 64 * 1024 * 1024 - 1,
  recordOverheadBytes: 1,
});

/**
 * A destination's batches: its upload limits, counted as NDJSON lines (one newline per event). They say
 * where an object is cut; an event larger than max_upload_bytes is an object of its own.
 */
export function uploadLimits(layout: ObjectLayout): WriterLimits {
  return {
    maxRecords: layout.maxUploadRecords,
    maxBytes: layout.maxUploadBytes,
    maxRecordBytes: OBJECT_LIMITS.maxRecordBytes,
    recordOverheadBytes: 1,
    lingerMs: layout.maxUploadIntervalSeconds * 1000,
  };
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** What fills a prefix's placeholders besides the time: the destination's account, and the events' type and subscription. */
export interface PrefixValues {
  readonly accountId: string;
  readonly eventType: string;
  readonly subscriptionId: string;
}

/** The prefix with its placeholders filled for an object written at `at`. */
export function expandPrefix(prefix: string, at: Date, v: PrefixValues): string {
  const values: Record<string, string> = {
    date: `${at.getUTCFullYear()}-${pad(at.getUTCMonth() + 1)}-${pad(at.getUTCDate())}`,
    hour: pad(at.getUTCHours()),
    account_id: v.accountId,
    event_type: v.eventType,
    subscription_id: v.subscriptionId,
  };
  return prefix.replace(/\{([a-z_]+)\}/g, (whole, name: string) => values[name] ?? whole);
}

/** The time and 64 random bits every name carries: 20261126T101502123Z-9f86d081884c7d65. */
function stamp(at: Date): string {
  const time = `${at.getUTCFullYear()}${pad(at.getUTCMonth() + 1)}${pad(at.getUTCDate())}T${pad(at.getUTCHours())}${pad(at.getUTCMinutes())}${pad(at.getUTCSeconds())}${pad(at.getUTCMilliseconds(), 3)}Z`;
  return `${time}-${randomBytes(8).toString('hex')}`;
}

/**
 * An object's name: the time it is written (UTC, to the millisecond, fixed width, so names sort by time)
 * and 64 random bits, so no two workers or attempts ever write the same key. E.g.
 * 20261126T101502123Z-9f86d081884c7d65.ndjson.gz.
 */
export function objectName(at: Date, extension: string): string {
  return `${stamp(at)}${extension}`;
}

/** The event type of an item, for `{event_type}`: read from the envelope (parsed from the payload when the item has none). */
function eventTypeOf(item: DeliveryItem): string {
  return item.envelope?.event_type ?? (JSON.parse(item.payload.toString('utf8')) as { event_type: string }).event_type;
}

/** What `{subscription_id}` is for a test event, which belongs to no subscription (README.md here, "Names"). */
export const NO_SUBSCRIPTION = 'test';

/**
 * What `{event_type}` and `{subscription_id}` are in the check object's name. It begins with "_", as the
 * check object's own name does, so a folder it makes is one the query engines reading the prefix skip.
 */
export const CHECK_PLACEHOLDER = '_edge_events_check';
/** How the check object's name begins: Athena, Hive and Spark skip files whose names begin with "_" or ".". */
export const CHECK_NAME_START = '_edge-events-check-';
export const CHECK_BODY = Buffer.from('edge-events destination check: the destination may write here.\n');
export const CHECK_CONTENT_TYPE = 'text/plain; charset=utf-8';

/** Writes one object; rejects with the classified error (a DeliveryError) when the store refused it. */
export type PutObject = (key: string, body: Buffer, contentType: string) => Promise<void>;

/** A destination's objects: their names and bodies, cut from its batches, stored through `put`. */
export class ObjectBatches {
  private readonly extension: string;
  private readonly byEventType: boolean;
  private readonly bySubscription: boolean;

  constructor(
    private readonly layout: ObjectLayout,
    private readonly put: PutObject,
  ) {
    this.extension = `.${layout.outputType}${layout.compression === 'gzip' ? '.gz' : ''}`;
    this.byEventType = layout.prefix.includes('{event_type}');
    this.bySubscription = layout.prefix.includes('{subscription_id}');
  }

  /** The key an object of events of `eventType` and `subscriptionId` written at `at` gets. */
  keyFor(at: Date, eventType: string, subscriptionId: string): string {
    return this.prefixFor(at, eventType, subscriptionId) + objectName(at, this.extension);
  }

  /** The check object's key: under the prefix, filled with CHECK_PLACEHOLDER, a name beginning with "_" (README.md here, "The check object"). */
  checkKey(at = new Date()): string {
    return `${this.prefixFor(at, CHECK_PLACEHOLDER, CHECK_PLACEHOLDER)}${CHECK_NAME_START}${stamp(at)}`;
  }

  /** Writes the check object, which proves writes under the prefix are taken; it stays. */
  writeCheck(): Promise<void> {
    return this.put(this.checkKey(), CHECK_BODY, CHECK_CONTENT_TYPE);
  }

  /** gzip objects are stored as what they are (a standard client reads the gzip bytes back); plain ones as their type. */
  get contentType(): string {
    return this.layout.compression === 'gzip' ? 'application/gzip' : CONTENT_TYPES[this.layout.outputType];
  }

  /** One object per expanded prefix; the items of an object the store refused are reported failed, with its error. */
  async write(batch: readonly DeliveryItem[]): Promise<WriteOutcome> {
    const at = new Date();
    const groups = new Map<string, Map<string, DeliveryItem[]>>();
    for (const item of batch) {
      const eventType = this.byEventType ? eventTypeOf(item) : '';
      const subscriptionId = this.bySubscription ? (item.subscriptionId ?? NO_SUBSCRIPTION) : '';
      let bySubscription = groups.get(eventType);
      if (bySubscription === undefined) groups.set(eventType, (bySubscription = new Map()));
      const group = bySubscription.get(subscriptionId);
      if (group === undefined) bySubscription.set(subscriptionId, [item]);
      else group.push(item);
    }
    const failed: ItemFailure[] = [];
    for (const [eventType, bySubscription] of groups) {
      for (const [subscriptionId, items] of bySubscription) {
        // A CSV object past the upload limit (its header and quoting) is cut in two; an event above it alone is an object of its own.
        const { bodies, tooLarge } = encodeBatch(items, this.layout.outputType, this.layout.compression, { bytes: this.layout.maxUploadBytes, oneEvent: OBJECT_LIMITS.maxBytes });
        failed.push(...tooLarge);
        for (const body of bodies) {
          try {
            await this.put(this.keyFor(at, eventType, subscriptionId), body.bytes, this.contentType);
          } catch (err) {
            const error = toDeliveryError(err);
            for (const item of body.items) failed.push({ item, error });
          }
        }
      }
    }
    return failed.length === 0 ? DELIVERED : { failed };
  }

  private prefixFor(at: Date, eventType: string, subscriptionId: string): string {
    return expandPrefix(this.layout.prefix, at, { accountId: this.layout.accountId, eventType, subscriptionId });
  }
}
