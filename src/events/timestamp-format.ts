// How a destination's events write their timestamps (`timestamp_format`): event_timestamp and every
// timestamp field of a traffic event's object, as the event catalogue types them (docs/events.md).
import { parseRfc3339 } from '../records/timestamps.js';
import { TRAFFIC_FIELDS, type TrafficEventType } from './catalog.js';

/**
 * rfc3339: the text as today (the default). unix: seconds as a JSON number with a fraction of up to six
 * digits. unixmilli: whole milliseconds as a JSON number (finer digits are dropped). unixnano:
 * nanoseconds as a JSON string of digits, since they exceed JSON's safe integers (2^53).
 */
export const TIMESTAMP_FORMATS = ['rfc3339', 'unix', 'unixmilli', 'unixnano'] as const;
export type TimestampFormat = (typeof TIMESTAMP_FORMATS)[number];
export const DEFAULT_TIMESTAMP_FORMAT: TimestampFormat = 'rfc3339';

/** A format's number in a route's per-destination table (0 is rfc3339, which needs no work). */
export const formatIndex = (f: TimestampFormat | undefined): number => TIMESTAMP_FORMATS.indexOf(f ?? DEFAULT_TIMESTAMP_FORMAT);
export const formatAt = (i: number): TimestampFormat => TIMESTAMP_FORMATS[i] ?? DEFAULT_TIMESTAMP_FORMAT;

/** A timestamp in microseconds since the epoch, written in `format` (rfc3339 as `text`). */
function fromMicros(micros: number, format: TimestampFormat, text: () => string): string | number {
  switch (format) {
    case 'rfc3339':
      return text();
    case 'unix':
      return micros / 1e6;
    case 'unixmilli':
      return Math.floor(micros / 1000);
    case 'unixnano':
      return (BigInt(micros) * 1000n).toString();
  }
}

/** The event timestamp (the record's Kafka timestamp, in ms) in `format`. */
export function formatEventTime(ms: number, format: TimestampFormat): string | number {
  return fromMicros(ms * 1000, format, () => new Date(ms).toISOString());
}

/** An RFC 3339 text in `format`; a value that is not one is left as it is (a decoded record's are). */
export function formatTimestampValue(value: unknown, format: TimestampFormat): unknown {
  if (format === 'rfc3339' || typeof value !== 'string') return value;
  const micros = parseRfc3339(value);
  return micros === undefined ? value : fromMicros(micros, format, () => value);
}

const timestampPaths = new Map<TrafficEventType, readonly (readonly string[])[]>();

/** The dotted paths of an event type's timestamp fields, split. */
function pathsOf(eventType: TrafficEventType): readonly (readonly string[])[] {
  let paths = timestampPaths.get(eventType);
  if (paths === undefined) {
    paths = TRAFFIC_FIELDS[eventType].filter((f) => f.type === 'timestamp').map((f) => f.name.split('.'));
    timestampPaths.set(eventType, paths);
  }
  return paths;
}

/**
 * A projected object (nested by dotted path) with its timestamp fields in `format`; the other values are
 * shared, not copied. The object passed in is left unchanged.
 */
export function formatObjectTimes(eventType: TrafficEventType, object: Record<string, unknown>, format: TimestampFormat): Record<string, unknown> {
  if (format === 'rfc3339') return object;
  let out = object;
  for (const path of pathsOf(eventType)) out = replaceAt(out, path, 0, format);
  return out;
}

function replaceAt(node: Record<string, unknown>, path: readonly string[], at: number, format: TimestampFormat): Record<string, unknown> {
  const key = path[at] as string;
  if (!Object.hasOwn(node, key)) return node;
  const value = node[key];
  if (at === path.length - 1) return { ...node, [key]: formatTimestampValue(value, format) };
  if (value === null || typeof value !== 'object') return node;
  return { ...node, [key]: replaceAt(value as Record<string, unknown>, path, at + 1, format) };
}
