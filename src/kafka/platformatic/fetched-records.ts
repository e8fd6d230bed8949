// A fetch answer's records as the seam's IncomingMessages, taken straight from the parsed record batches.
// The client's message stream builds, for every record, a spread copy of it, a diagnostic context, a bound
// commit function, a header map and a message object, and pushes each through a Readable and an event
// (PROFILE.md "The client path"); the consumer adapter needs none of them. What it hands over is what the
// stream would: the records of data batches (control batches are markers), from the offset the partition
// was fetched at (a batch may begin before it). A batch the adapter's own parser read (fetch-response.ts)
// already holds its messages.
import { IS_CONTROL, type RecordsBatch } from '@platformatic/kafka';
import type { HeaderValue, IncomingMessage } from '../seam.js';
import { addHeader, FetchedBatch } from './fetch-response.js';

type RecordHeaders = RecordsBatch['records'][number]['headers'];

/** Header names as text (the consumer's header key deserializer); several values under one name become a list. */
export function headersOf(headers: RecordHeaders): Record<string, HeaderValue> | undefined {
  if (headers.length === 0) return undefined;
  const out: Record<string, HeaderValue> = {};
  for (const [key, value] of headers) addHeader(out, key?.toString() ?? '', value ?? undefined);
  return out;
}

/**
 * Appends to `out` the records of `batches` (one partition's, in offset order) at or after `from`, and
 * empties the batches it took them from: the client still moves its fetch offset past them, and hands
 * over nothing twice.
 */
export function takeRecords(batches: RecordsBatch[], from: bigint, out: IncomingMessage[]): void {
  const start = Number(from);
  for (const batch of batches) {
    if ((batch.attributes & IS_CONTROL) !== 0) continue;
    if (batch instanceof FetchedBatch && batch.messages !== undefined) {
      const messages = batch.messages;
      // Only the first batch of a fetch may begin before the offset it was fetched at.
      const skip = Number(batch.firstOffset) >= start ? 0 : messages.findIndex((m) => Number(m.offset) >= start);
      if (skip >= 0) for (let i = skip; i < messages.length; i++) out.push(messages[i] as IncomingMessage);
      batch.records = [];
      continue;
    }
    const records = batch.records;
    if (records.length === 0) continue;
    const firstOffset = Number(batch.firstOffset);
    const firstTimestamp = Number(batch.firstTimestamp);
    // Offsets and timestamps as Numbers while they are exact (offsets below 2^53; always, in practice).
    const exact = Number.isSafeInteger(firstOffset + batch.lastOffsetDelta) && Number.isSafeInteger(start) && Number.isSafeInteger(firstTimestamp);
    for (const r of records) {
      const offset = exact ? firstOffset + r.offsetDelta : batch.firstOffset + BigInt(r.offsetDelta);
      if (exact ? (offset as number) < start : (offset as bigint) < from) continue;
      const timestampDelta = Number(r.timestampDelta);
      const timestamp = firstTimestamp + timestampDelta;
      out.push({
        key: r.key ?? null,
        value: r.value ?? null,
        offset: String(offset),
        timestamp: exact && Number.isSafeInteger(timestampDelta) && Number.isSafeInteger(timestamp) ? String(timestamp) : String(batch.firstTimestamp + r.timestampDelta),
        headers: headersOf(r.headers),
      });
    }
    batch.records = [];
  }
}
