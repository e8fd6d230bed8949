// Turns one delivery batch into CloudWatch Logs PutLogEvents requests: events in chronological order,
// each request spanning less than 24 hours, each event stamped with its envelope's event time.
import type { DeliveryItem } from '../../contract.js';
import { eventTimestamp } from '../../event-time.js';

/** PutLogEvents: "A batch of log events in a single request cannot span more than 24 hours." */
export const MAX_LOG_REQUEST_SPAN_MS = 24 * 60 * 60 * 1000;

export interface TimedItem {
  readonly item: DeliveryItem;
  /** Milliseconds since the epoch: the log event's timestamp. */
  readonly timestamp: number;
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
