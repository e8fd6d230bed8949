// Ids: a prefix plus a sortable part (48-bit time, 80 bits, Crockford base32). Resource ids draw the 80
// bits at random; event ids derive them (eventIdOf).
import { hash, randomBytes } from 'node:crypto';

export const ID_PREFIXES = {
  account: 'acct',
  api_key: 'ak',
  ip_policy: 'ipp',
  ip_policy_rule: 'ipr',
  tcp_edge: 'edgtcp',
  event_destination: 'ed',
  event_subscription: 'esb',
  reserved_domain: 'rd',
  tcp_address: 'ra',
  event: 'ev',
} as const;
export type IdKind = keyof typeof ID_PREFIXES;

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
/** The part after the prefix: 26 characters of ALPHABET (10 of time, 16 random). */
const BODY_PATTERN = '[0-9A-HJKMNP-TV-Z]{26}';
const BODY = new RegExp(`^${BODY_PATTERN}$`);

let lastTime = 0;
let lastRandom: Uint8Array = new Uint8Array(10);

/** A new id such as "esb_01JD3…": ids made later sort after earlier ones, even within one millisecond. */
export function newId(kind: IdKind): string {
  const now = Date.now();
  let rnd: Uint8Array;
  if (now === lastTime) {
    rnd = increment(lastRandom);
  } else {
    rnd = randomBytes(10);
    lastTime = now;
  }
  lastRandom = rnd;
  return `${ID_PREFIXES[kind]}_${encodeTime(now)}${encodeRandom(rnd)}`;
}

/**
 * Event ids (ARCHITECTURE.md "Event ids"): one per (record, subscription, destination), derived rather than
 * drawn, so a record read again after a restart or a rebalance yields the same ids and receivers can
 * drop duplicates of an at-least-once delivery. The format is that of the other ids:
 *
 *   "ev_" + 10 digits: the record's Kafka timestamp (ms)
 *         + 16 digits: the first 80 bits of SHA-256(topic NUL partition NUL offset)
 *                      XOR the first 80 bits of SHA-256(subscription id NUL destination id)
 *
 * XOR of the two 80-bit values is the digit-by-digit XOR of their base32 digits, so the router hashes
 * each record once and each (subscription, destination) pair once, when the subscription is loaded,
 * and writes a delivery's id with 16 table lookups (recordDigits, pairDigits, EVENT_DIGIT_CODES). For
 * one record, two pairs' ids differ whenever their pair hashes do.
 */
export function eventIdOf(timestampMs: number, topic: string, partition: number, offset: string | number, subscriptionId: string, destinationId: string): string {
  const record = recordDigits(topic, partition, offset);
  const pair = pairDigits(subscriptionId, destinationId);
  let out = `${ID_PREFIXES.event}_${eventTimeDigits(timestampMs)}`;
  for (let i = 0; i < EVENT_HASH_DIGITS; i++) out += ALPHABET[(record[i] as number) ^ (pair[i] as number)];
  return out;
}

/** Base32 digits of the hashed part of an event id. */
export const EVENT_HASH_DIGITS = 16;

/** The ASCII code of each base32 digit, for writing ids straight into payload bytes. */
export const EVENT_DIGIT_CODES: Uint8Array = Uint8Array.from(ALPHABET, (c) => c.charCodeAt(0));

/** The ten time digits of an event id. */
export function eventTimeDigits(timestampMs: number): string {
  return encodeTime(Math.max(0, timestampMs));
}

/** The record's part of its event ids: 16 digit values (0-31). */
export function recordDigits(topic: string, partition: number, offset: string | number): Uint8Array {
  // The one-shot hash() is the same SHA-256 as createHash().update().digest() without the stream object;
  // its hex output costs less than half of its buffer output (about 0.3 against 0.8 µs here).
  return hexDigits(hash('sha256', `${topic}\0${partition}\0${offset}`));
}

/** A (subscription, destination) pair's part of its event ids: 16 digit values (0-31). */
export function pairDigits(subscriptionId: string, destinationId: string): Uint8Array {
  return hexDigits(hash('sha256', `${subscriptionId}\0${destinationId}`));
}

/** The first 80 bits of `bytes` as 16 five-bit values, most significant first. */
function digitsOf(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(EVENT_HASH_DIGITS);
  let acc = 0;
  let bits = 0;
  let n = 0;
  for (let i = 0; i < 10; i++) {
    acc = ((acc << 8) | (bytes[i] ?? 0)) & 0xfff;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out[n++] = (acc >>> bits) & 31;
    }
  }
  return out;
}

/** digitsOf the bytes a lowercase hex digest spells. */
function hexDigits(hex: string): Uint8Array {
  const out = new Uint8Array(EVENT_HASH_DIGITS);
  // Five hex digits (20 bits) make four five-bit values.
  for (let g = 0; g < 4; g++) {
    let acc = 0;
    for (let i = 5 * g; i < 5 * g + 5; i++) {
      const c = hex.charCodeAt(i);
      acc = (acc << 4) | (c <= 0x39 ? c - 0x30 : c - 0x57);
    }
    out[4 * g] = acc >>> 15;
    out[4 * g + 1] = (acc >>> 10) & 31;
    out[4 * g + 2] = (acc >>> 5) & 31;
    out[4 * g + 3] = acc & 31;
  }
  return out;
}

/** The regular expression of a well-formed id of `kind`, for JSON schemas: isId in another form. */
export function idPattern(kind: IdKind): string {
  return `^${ID_PREFIXES[kind]}_${BODY_PATTERN}$`;
}

/** True when `id` has the prefix of `kind` and a well-formed body. */
export function isId(kind: IdKind, id: string): boolean {
  const prefix = `${ID_PREFIXES[kind]}_`;
  return id.startsWith(prefix) && BODY.test(id.slice(prefix.length));
}

function encodeTime(ms: number): string {
  let out = '';
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[ms % 32] + out;
    ms = Math.floor(ms / 32);
  }
  return out;
}

/** The 80 bits of `bytes` (ten of them) as 16 base32 digits, most significant first. */
function encodeRandom(bytes: Uint8Array): string {
  let out = '';
  for (const d of digitsOf(bytes)) out += ALPHABET[d];
  return out;
}

function increment(bytes: Uint8Array): Uint8Array {
  const next = Uint8Array.from(bytes);
  for (let i = next.length - 1; i >= 0; i--) {
    if (next[i] === 255) {
      next[i] = 0;
    } else {
      next[i] = (next[i] ?? 0) + 1;
      break;
    }
  }
  return next;
}

const DIGIT_VALUES = new Map<string, number>(Array.from(ALPHABET, (c, i) => [c, i]));

/** The record time (ms) an event id carries (eventIdOf), or undefined when `eventId` is not one. */
export function eventTimeOf(eventId: string): number | undefined {
  const start = ID_PREFIXES.event.length + 1;
  if (eventId.length < start + 10 || !eventId.startsWith(`${ID_PREFIXES.event}_`)) return undefined;
  let ms = 0;
  for (let i = start; i < start + 10; i++) {
    const d = DIGIT_VALUES.get(eventId.charAt(i));
    if (d === undefined) return undefined;
    ms = ms * 32 + d;
  }
  return ms;
}
