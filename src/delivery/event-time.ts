// When an event happened, read from its envelope (or its payload, for an item re-read from a retry topic):
// the time log destinations (log_service, datadog, azure_logs_ingestion) date their entries with.
import type { DeliveryItem } from './contract.js';

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
