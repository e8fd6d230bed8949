// Turns one delivery batch into CloudWatch Logs PutLogEvents requests: events in chronological order,
// each request spanning less than 24 hours, each event stamped with its envelope's event time.
import type { DeliveryItem } from '../../contract.js';

/** PutLogEvents: "A batch of log events in a single request cannot span more than 24 hours." */
export const MAX_LOG_REQUEST_SPAN_MS = 24 * 60 * 60 * 1000;

export interface TimedItem {
  readonly item: DeliveryItem;
  /** Milliseconds since the epoch: the log event's timestamp. */
  readonly timestamp: number;
}

/**
 * The envelope's event_timestamp, so the log shows when the event happened, not when it was delivered.
 * Items re-read from a retry topic carry only the payload, which is parsed here. An unreadable time
 * falls back to `now`.
 */
export function eventTimestamp(item: DeliveryItem, now: number): number {
  let text: unknown = item.envelope?.event_timestamp;
  if (text === undefined) {
    try {
      text = (JSON.parse(item.payload.toString('utf8')) as { event_timestamp?: unknown }).event_timestamp;
    } catch {
      return now;
    }
  }
  const ms = typeof text === 'string' ? (/^\d+$/.test(text) ? Number(text) / 1e6 : Date.parse(text)) : typeof text === 'number' ? epochMs(text) : NaN;
  return Number.isFinite(ms) ? ms : now;
}

/**
 * A destination's timestamp_format (src/events/timestamp-format.ts) writes numbers in seconds (unix) or
 * milliseconds (unixmilli), and unixnano as a string of digits. Seconds stay below 1e11 until the year
 * 5138, and milliseconds are above it after 1973, so the size tells them apart.
 */
function epochMs(n: number): number {
  return n < 1e11 ? n * 1000 : n;
}

/**
 * PutLogEvents: "The log events in the batch must be in chronological order by their timestamp." The
 * sort is stable, so events with the same time keep their order. The runner already keeps a batch within
 * the count and byte limits, so a split is needed only where the span passes 24 hours.
 */
export function logRequests(batch: readonly DeliveryItem[], now: number): TimedItem[][] {
  const timed = batch.map((item) => ({ item, timestamp: eventTimestamp(item, now) }));
  timed.sort((a, b) => a.timestamp - b.timestamp);
  const requests: TimedItem[][] = [];
  let current: TimedItem[] = [];
  for (const t of timed) {
    const first = current[0];
    if (first !== undefined && t.timestamp - first.timestamp >= MAX_LOG_REQUEST_SPAN_MS) {
      requests.push(current);
      current = [];
    }
    current.push(t);
  }
  if (current.length > 0) requests.push(current);
  return requests;
}

export interface RejectedLogEvents {
  readonly tooNewLogEventStartIndex?: number;
  readonly tooOldLogEventEndIndex?: number;
  readonly expiredLogEventEndIndex?: number;
}

/**
 * The indexes PutLogEvents refused, with why. AWS documents tooOldLogEventEndIndex as "the index of the
 * last log event that is too old. This field is exclusive." while emulators treat it as inclusive; the
 * end indexes are taken as inclusive here, so the boundary event is dead-lettered (a possible duplicate)
 * rather than possibly lost.
 */
export function rejectedIndexes(info: RejectedLogEvents | undefined, count: number): Map<number, string> {
  const out = new Map<number, string>();
  if (info === undefined) return out;
  const mark = (from: number, to: number, reason: string): void => {
    for (let i = Math.max(0, from); i <= Math.min(count - 1, to); i++) if (!out.has(i)) out.set(i, reason);
  };
  if (info.tooNewLogEventStartIndex !== undefined) mark(info.tooNewLogEventStartIndex, count - 1, 'more than 2 hours in the future');
  if (info.tooOldLogEventEndIndex !== undefined) mark(0, info.tooOldLogEventEndIndex, 'more than 14 days old, or older than the log group retention');
  if (info.expiredLogEventEndIndex !== undefined) mark(0, info.expiredLogEventEndIndex, 'older than the log group retention');
  return out;
}
