// The delivered event envelope (ARCHITECTURE.md "Delivered envelope", "Event ids"): the one shape every destination receives, and its
// payload bytes.
import { writeMillis } from '../records/timestamps.js';
import { DEFAULT_TIMESTAMP_FORMAT, formatEventTime, type TimestampFormat } from './timestamp-format.js';
import { EVENT_DIGIT_CODES, EVENT_HASH_DIGITS, ID_PREFIXES, eventTimeDigits, newId } from '../ids.js';

export interface Principal {
  readonly type: 'api_key';
  readonly id: string;
  readonly uri: string;
}

export interface Envelope {
  readonly event_id: string;
  readonly event_type: string;
  /** RFC 3339, or what the destination's timestamp_format makes of it (timestamp-format.ts). */
  readonly event_timestamp: string | number;
  readonly principal: Principal | null;
  /** Traffic: only the selected fields, nested by dotted path. Audit: the resource as the API returns it. */
  readonly object: Record<string, unknown>;
}

export function makeEnvelope(
  eventType: string,
  object: Record<string, unknown>,
  opts: { timestamp?: Date; principal?: Principal | null; eventId?: string; format?: TimestampFormat } = {},
): Envelope {
  const at = opts.timestamp ?? new Date();
  return {
    event_id: opts.eventId ?? newId('event'),
    event_type: eventType,
    event_timestamp: opts.format === undefined || opts.format === DEFAULT_TIMESTAMP_FORMAT ? at.toISOString() : formatEventTime(at.getTime(), opts.format),
    principal: opts.principal ?? null,
    object,
  };
}

/**
 * Delivered payloads are the envelope's JSON with the key order of Envelope, so every payload of one
 * record starts with `{"event_id":"ev_` and the record's time digits (the head) and ends, after the
 * id's hashed digits, with a tail shared by every delivery of one event type and object:
 * `","event_type":…,"object":{…}}`. A delivery's payload is the head, 16 digits and the tail, copied
 * into one buffer: the object is serialized once however many subscriptions and destinations get it.
 */
const ID_KEY = '{"event_id":"';
/** Where the event id starts in a payload, and how long it is. */
export const PAYLOAD_ID_AT = ID_KEY.length;
export const EVENT_ID_LENGTH = ID_PREFIXES.event.length + 1 + 10 + EVENT_HASH_DIGITS;
const HEAD_LENGTH = PAYLOAD_ID_AT + EVENT_ID_LENGTH - EVENT_HASH_DIGITS;

const HEAD_PREFIX = Buffer.from(`${ID_KEY}${ID_PREFIXES.event}_`, 'latin1');

/** The last head made, for the next record of the same millisecond: heads are never written to once made. */
let lastHeadMs = -1;
let lastHead = Buffer.alloc(0);

/**
 * The head of every payload of a record with this Kafka timestamp; written byte by byte, it is made for
 * every matched record. Records of one producer batch often share their millisecond, and its head.
 */
export function payloadHead(timestampMs: number): Buffer {
  const ms = Math.max(0, timestampMs);
  if (ms === lastHeadMs) return lastHead;
  if (!Number.isSafeInteger(ms)) return Buffer.from(`${ID_KEY}${ID_PREFIXES.event}_${eventTimeDigits(timestampMs)}`, 'latin1');
  const head = Buffer.allocUnsafe(HEAD_LENGTH);
  for (let i = 0; i < HEAD_PREFIX.length; i++) head[i] = HEAD_PREFIX[i] as number;
  // eventTimeDigits: ten base32 digits, most significant first; the low six from the low 30 bits and the
  // rest from the bits above, in int32 arithmetic (% and / on doubles cost several times more).
  const high = Math.floor(ms / 2 ** 30);
  let low = ms - high * 2 ** 30;
  let up = high % 2 ** 20 | 0;
  for (let i = HEAD_LENGTH - 1; i >= HEAD_LENGTH - 6; i--) {
    head[i] = EVENT_DIGIT_CODES[low & 31] as number;
    low >>>= 5;
  }
  for (let i = HEAD_LENGTH - 7; i >= HEAD_PREFIX.length; i--) {
    head[i] = EVENT_DIGIT_CODES[up & 31] as number;
    up >>>= 5;
  }
  lastHeadMs = ms;
  lastHead = head;
  return head;
}

/** The text between the event id and the object: the id's closing quote and the other fields. */
export function tailBeforeObject(eventType: string, timestamp: string | number, principalJson: string): string {
  return `","event_type":${JSON.stringify(eventType)},"event_timestamp":${JSON.stringify(timestamp)},"principal":${principalJson},"object":`;
}

/** The two constant parts of tailBeforeObject's text for a traffic event type (no principal), around the timestamp. */
const trafficBefore = new Map<string, readonly [Buffer, Buffer]>();

/**
 * tailBeforeObject(eventType, formatEventTime(timestampMs, format), 'null') as bytes, written into `out`
 * at `at`; returns the end. At most 3 x eventType.length + 160 bytes.
 */
export function writeTrafficTailBefore(out: Buffer, at: number, eventType: string, timestampMs: number, format: TimestampFormat = DEFAULT_TIMESTAMP_FORMAT): number {
  let parts = trafficBefore.get(eventType);
  if (parts === undefined) {
    // The timestamp is the last string of the text: split it at a placeholder there.
    const text = tailBeforeObject(eventType, '@', 'null');
    const at = text.lastIndexOf('"@"') + 1;
    trafficBefore.set(eventType, (parts = [Buffer.from(text.slice(0, at)), Buffer.from(text.slice(at + 1))]));
  }
  const [a, b] = parts;
  if (format !== DEFAULT_TIMESTAMP_FORMAT) {
    // A number or a quoted string of digits in place of the quoted text: drop the quotes around it.
    for (let i = 0; i < a.length - 1; i++) out[at++] = a[i] as number;
    const text = JSON.stringify(formatEventTime(timestampMs, format));
    for (let i = 0; i < text.length; i++) out[at++] = text.charCodeAt(i);
    for (let i = 1; i < b.length; i++) out[at++] = b[i] as number;
    return at;
  }
  for (let i = 0; i < a.length; i++) out[at++] = a[i] as number;
  at = writeMillis(out, at, timestampMs);
  for (let i = 0; i < b.length; i++) out[at++] = b[i] as number;
  return at;
}

/** The payload tail: `before` from tailBeforeObject(), the object's JSON, and the envelope's closing brace. */
export function payloadTail(before: string, objectJson: string): Buffer {
  return Buffer.from(`${before}${objectJson}}`);
}

/** The length of a payload with this tail. */
export function payloadLength(tail: Buffer): number {
  return HEAD_LENGTH + EVENT_HASH_DIGITS + tail.length;
}

/**
 * Writes one delivery's payload into `target` at `at` and returns its length. `record` holds the
 * record's 16 digit values, `pair` those of (subscription, destination) pairs from `pairAt` (ids.ts,
 * eventIdOf).
 */
export function writePayload(target: Buffer, at: number, head: Buffer, record: Uint8Array, pair: Uint8Array, pairAt: number, tail: Buffer): number {
  target.set(head, at);
  const digitsAt = at + HEAD_LENGTH;
  for (let i = 0; i < EVENT_HASH_DIGITS; i++) target[digitsAt + i] = EVENT_DIGIT_CODES[(record[i] as number) ^ (pair[pairAt + i] as number)] as number;
  target.set(tail, digitsAt + EVENT_HASH_DIGITS);
  return HEAD_LENGTH + EVENT_HASH_DIGITS + tail.length;
}

/** One delivery's payload as a buffer of its own (see writePayload). */
export function buildPayload(head: Buffer, record: Uint8Array, pair: Uint8Array, pairAt: number, tail: Buffer): Buffer {
  const out = Buffer.allocUnsafe(payloadLength(tail));
  writePayload(out, 0, head, record, pair, pairAt, tail);
  return out;
}

/** The event id of a payload made by buildPayload. */
export function eventIdOfPayload(payload: Buffer): string {
  return payload.toString('latin1', PAYLOAD_ID_AT, PAYLOAD_ID_AT + EVENT_ID_LENGTH);
}

/**
 * The event id's bytes as a view into the payload, without a copy, when the payload starts as
 * buildPayload writes it; undefined for any other payload.
 */
export function eventIdBytesOfPayload(payload: Buffer): Buffer | undefined {
  if (payload.length < PAYLOAD_ID_AT + EVENT_ID_LENGTH) return undefined;
  for (let i = 0; i < HEAD_PREFIX.length; i++) if (payload[i] !== HEAD_PREFIX[i]) return undefined;
  return payload.subarray(PAYLOAD_ID_AT, PAYLOAD_ID_AT + EVENT_ID_LENGTH);
}
